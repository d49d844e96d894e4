/** Raw HTTP/1.1 over a socket, for requests no HTTP client would send. */
import { connect } from 'node:net';

export interface RawResponse {
  /** Everything the server sent. */
  raw: Buffer;
  status?: number;
  headers: Record<string, string>;
  body: Buffer;
}

/**
 * Sends `request` as is and collects what comes back until the server closes (or `timeoutMs`).
 * `halfClose` ends our side after the request: Node's server then answers what it cannot parse
 * at once, but drops a complete request that is still being handled.
 */
export function rawRequest(url: string, request: Buffer | string, timeoutMs = 3000, halfClose = false): Promise<RawResponse> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({ host: hostname, port: Number(port) });
    const chunks: Buffer[] = [];
    const finish = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve(parseResponse(Buffer.concat(chunks)));
    };
    const timer = setTimeout(finish, timeoutMs);
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', finish);
    socket.on('close', finish);
    socket.on('connect', () => {
      if (halfClose) socket.end(request);
      else socket.write(request);
    });
  });
}

/** The first response in `raw`: status, headers (lower-case names), body by Content-Length. */
export function parseResponse(raw: Buffer): RawResponse {
  const end = raw.indexOf('\r\n\r\n');
  if (end < 0) return { raw, headers: {}, body: Buffer.alloc(0) };
  const head = raw.subarray(0, end).toString('latin1').split('\r\n');
  const m = /^HTTP\/1\.1 (\d{3}) /.exec(head[0]);
  const headers: Record<string, string> = {};
  for (const line of head.slice(1)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  const rest = raw.subarray(end + 4);
  const length = headers['content-length'] !== undefined ? Number(headers['content-length']) : rest.length;
  return { raw, status: m ? Number(m[1]) : undefined, headers, body: rest.subarray(0, length) };
}

export function get(path: string, headers: Record<string, string> = {}, method = 'GET'): string {
  return `${method} ${path} HTTP/1.1\r\nhost: x\r\nconnection: close\r\n${Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('')}\r\n`;
}
