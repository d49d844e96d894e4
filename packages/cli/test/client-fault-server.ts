/** A node:http server on loopback that misbehaves on purpose, one scenario per path prefix. */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Seen {
  path: string;
  authorization?: string;
}

export type Scenario = (req: IncomingMessage, res: ServerResponse, attempt: number) => void;

export interface FaultServer {
  url: string;
  seen: Seen[];
  /** Number of requests a scenario received. */
  count(name: string): number;
  close(): Promise<void>;
}

export async function startFaultServer(scenarios: Record<string, Scenario>): Promise<FaultServer> {
  const seen: Seen[] = [];
  const counts = new Map<string, number>();
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    seen.push({ path, authorization: req.headers.authorization });
    const name = path.split('/')[1] ?? '';
    const attempt = (counts.get(name) ?? 0) + 1;
    counts.set(name, attempt);
    const scenario = scenarios[name];
    if (!scenario) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('no such scenario');
      return;
    }
    scenario(req, res, attempt);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    count: (name) => counts.get(name) ?? 0,
    close: () => new Promise((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
}

export const json = (res: ServerResponse, status: number, body: unknown, type = 'application/json', headers: Record<string, string> = {}) => {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, { 'content-type': type, 'content-length': String(Buffer.byteLength(text)), ...headers });
  res.end(text);
};

export const problem = (res: ServerResponse, status: number, title: string, detail: string, headers: Record<string, string> = {}) =>
  json(res, status, { type: `https://errors.example/${status}`, title, status, detail }, 'application/problem+json', headers);

export const minimalTrace = {
  schema_version: '1.0',
  job: { provider: 'ciprovider', repository: 'acme/webapp', job_id: '1', status: 'success' },
  observations: [{ protocol: 'http', observed_at: '2025-01-01T00:00:00Z', sequence: 0, method: 'GET', url: 'https://x.example/', denied: false, futureMember: { kept: true } }],
};
