/**
 * Fuzzing, in bounded time (issue 10, "Done means"):
 * - random and mutated requests to `netpolicy serve` (a process) over raw sockets: it never
 *   crashes, never fails internally, and every response is a problem document or a success;
 * - random and mutated responses from a raw socket server to the client, and to `netpolicy fetch`
 *   (a process): only the client's typed errors, documented exit codes, no control character on
 *   stderr, and the token, or any long piece of it, never in any output.
 */
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MEDIA_TYPES, NetpolicyClient, NetpolicyError, type RetryInfo } from '@netpolicy/client';
import { ensureBuilt, serveFixtures } from './fetch-cli-helpers';
import { RAW_CONTROL, runProc } from './hostile-helpers';
import { rawRequest } from './hostile-raw-http';

const SERVE_TOKEN = 'demo-token-valid';
const TOKEN = 'fuzzTOKEN-9x8y7z6w5v4u';
/**
 * Whether `text` keeps the token out as the client promises (docs/client.md): no prefix of 6
 * characters, no piece of half the token, in any ASCII case.
 */
function noPieceOf(token: string, text: string): boolean {
  const t = text.toLowerCase();
  const k = token.toLowerCase();
  const half = Math.max(6, Math.ceil(k.length / 2));
  const pieces = [k.slice(0, 6), ...Array.from({ length: k.length - half + 1 }, (_, i) => k.slice(i, i + half))];
  return pieces.every((p) => !t.includes(p));
}

/** Bytes and strings a hostile peer likes. */
const nasty = fc.constantFrom('\u0000', '\r', '\n', '\r\n', '\u001b[2J', '\u001b]0;x\u0007', '\u009b', '\u202e', '\u2028', '"', '\\', '%00', '%2F', '..', '//', '?', '#', ' ', '\t', '\u00ff', '\ud800', '😀', '{', '}', ':', ';');
const hostileString = (extra: fc.Arbitrary<string>[] = []) =>
  fc.array(fc.oneof(fc.string({ maxLength: 12 }), nasty, ...extra), { maxLength: 8 }).map((parts) => parts.join(''));

function mutate(bytes: Buffer, mutations: { at: number; kind: number; data: Uint8Array }[]): Buffer {
  let b = bytes;
  for (const m of mutations) {
    const at = b.length === 0 ? 0 : m.at % (b.length + 1);
    if (m.kind === 0) b = Buffer.concat([b.subarray(0, at), m.data, b.subarray(at)]);
    else if (m.kind === 1) b = Buffer.concat([b.subarray(0, at), b.subarray(Math.min(b.length, at + 1 + (m.data.length % 16)))]);
    else if (m.kind === 2 && at < b.length) { b = Buffer.from(b); b[at] = m.data[0] ?? 0; }
    else b = b.subarray(0, at);
  }
  return b;
}
const mutations = fc.array(fc.record({ at: fc.nat(), kind: fc.nat(3), data: fc.uint8Array({ minLength: 1, maxLength: 8 }) }), { maxLength: 3 });

describe('fuzz: netpolicy serve', () => {
  const serve = serveFixtures();

  const targets = [
    '/v1preview1/network-trace?provider=ciprovider&repo=acme/webapp&job_id=1001',
    '/v1preview1/sbom?provider=ciprovider&repo=acme/webapp&job_id=1001',
    '/v1preview1/artifacts?kind=oci_index&digest_algorithm=sha256&digest_value=868dfb80e04fb9a480e2bec30e6fef3d460f55877acf9c210e3bd2ac49b79c11',
    '/v1preview1/artifacts?kind=ci_cache&digest_algorithm=sha256&digest_value=7fe0eab765a5301578851abf7f062c119852cc2a1986aa1acb6cb26d7c854317&repository=acme/webapp',
    '/v1preview1/network-trace?provider=ciprovider&repo=acme/webapp&job_id=1002',
    '/v1preview1/sbom?provider=ciprovider&repo=../../etc&job_id=1',
    '/v1preview1/artifacts?kind=__proto__&digest_algorithm=constructor&digest_value=x',
  ];
  const request = fc.record({
    method: fc.oneof(fc.constantFrom('GET', 'HEAD', 'POST', 'OPTIONS', 'DELETE', 'get', 'PRI', 'CONNECT'), hostileString()),
    target: fc.oneof(fc.constantFrom(...targets), fc.tuple(fc.constantFrom(...targets), hostileString(), fc.nat()).map(([t, s, at]) => t.slice(0, at % t.length) + s + t.slice(at % t.length)), hostileString()),
    version: fc.constantFrom('HTTP/1.1', 'HTTP/1.0', 'HTTP/2.0', 'http/1.1', ''),
    auth: fc.constantFrom(`Bearer ${SERVE_TOKEN}`, 'Bearer nope', `bearer  ${SERVE_TOKEN}`, 'Basic x', undefined),
    headers: fc.array(fc.tuple(hostileString(), hostileString()), { maxLength: 3 }),
    mutations,
  });

  it('answers every request with a problem document or a success, and keeps running', async () => {
    let answered = 0;
    await fc.assert(fc.asyncProperty(request, async (r) => {
      const head = [`${r.method} ${r.target} ${r.version}`, 'host: x', 'connection: close'];
      if (r.auth) head.push(`authorization: ${r.auth}`);
      for (const [k, v] of r.headers) head.push(`${k}: ${v}`);
      const bytes = mutate(Buffer.from(`${head.join('\r\n')}\r\n\r\n`, 'utf8'), r.mutations);
      // A request that looks complete gets its answer on an open connection; anything else is
      // half-closed, so Node's parser sees the end and answers (or drops) it at once.
      const text = bytes.toString('latin1');
      const complete = text.endsWith('\r\n\r\n') && !/content-length|transfer-encoding|expect|upgrade/i.test(text);
      const res = await rawRequest(serve.url, bytes, 1500, !complete);
      if (res.raw.length === 0) return;
      answered++;
      expect(res.raw.toString('latin1')).toMatch(/^HTTP\/1\.1 \d{3} /);
      const status = res.status!;
      expect(status).not.toBe(500);
      expect(res.raw.toString('latin1')).not.toContain(SERVE_TOKEN);
      if (status < 200) return; // 100 Continue from Node itself
      if (status >= 300) {
        expect(res.headers['content-type']).toBe(MEDIA_TYPES.problem);
        if (res.body.length > 0) {
          const body = JSON.parse(res.body.toString('utf8'));
          expect(body).toMatchObject({ status, type: expect.any(String), title: expect.any(String), detail: expect.any(String) });
        }
      } else {
        expect([MEDIA_TYPES.json, MEDIA_TYPES.sbom]).toContain(res.headers['content-type']);
      }
    }), { numRuns: 400, interruptAfterTimeLimit: 4000 });
    expect(answered).toBeGreaterThan(20);
    expect(serve.child.exitCode).toBeNull();
    const ok = await rawRequest(serve.url, `GET ${targets[0]} HTTP/1.1\r\nhost: x\r\nconnection: close\r\nauthorization: Bearer ${SERVE_TOKEN}\r\n\r\n`);
    expect(ok.status).toBe(200);
    const log = serve.stderr();
    expect(log).not.toMatch(/internal error|Error:|\n\s+at /);
    expect(log).not.toMatch(RAW_CONTROL);
    expect(log).not.toContain(SERVE_TOKEN);
  });
});

describe('fuzz: the client and netpolicy fetch against a hostile service', () => {
  let server: Server;
  let base: string;
  let current = Buffer.from('HTTP/1.1 200 OK\r\n\r\n');
  const sockets = new Set<Socket>();

  beforeAll(async () => {
    ensureBuilt();
    server = createServer((socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => {});
      let seen = '';
      socket.on('data', (c) => {
        seen += c.toString('latin1');
        if (!seen.includes('\r\n\r\n')) return;
        seen = '';
        socket.end(current);
      });
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    for (const s of sockets) s.destroy();
    if (server) await new Promise<void>((done) => server.close(() => done()));
  });

  const escapedToken = TOKEN.replace(/[a-z]/g, (c) => `\\u00${c.charCodeAt(0).toString(16)}`);
  const tokenish = fc.constantFrom(TOKEN, TOKEN.slice(0, 7), TOKEN.slice(4, 4 + Math.ceil(TOKEN.length / 2)), `x${TOKEN}y`, TOKEN.toUpperCase());
  const text = hostileString([tokenish]);
  const trace = { schema_version: '1.0', job: { provider: 'ciprovider', repository: 'acme/webapp', job_id: '1', status: 'success' }, observations: [{ protocol: 'http', observed_at: '2025-01-01T00:00:00Z', sequence: 0, method: 'GET', url: 'https://x.example/', denied: false }] };
  const body = fc.oneof(
    fc.constant(JSON.stringify(trace)),
    fc.tuple(fc.integer({ min: 100, max: 999 }), text, text, text).map(([status, type, title, detail]) => JSON.stringify({ type, title, status, detail })),
    // The token written with JSON escapes inside a problem document.
    fc.constant(`{"type":"about:blank","title":"t","status":401,"detail":"token ${escapedToken}"}`),
    fc.tuple(text, fc.nat()).map(([t, n]) => JSON.stringify({ ...trace, job: { ...trace.job, job_id: t } }).slice(0, n % 400 + 1)),
    fc.tuple(text, text).map(([a, b]) => JSON.stringify({ job: { provider: a }, observations: [{ protocol: b, sequence: a }] })),
    text,
  );
  const response = fc.record({
    status: fc.oneof(fc.constantFrom(200, 301, 302, 304, 307, 400, 401, 404, 409, 418, 429, 500, 502, 503, 504), fc.integer({ min: 100, max: 999 })),
    reason: fc.oneof(fc.constant('X'), text),
    type: fc.oneof(fc.constantFrom('application/json', 'application/problem+json', 'application/vnd.cyclonedx+json; version=1.7', 'text/html', 'application/json; charset=utf-8'), text),
    retryAfter: fc.option(fc.constantFrom('0', '-5', '1.5', 'soon', 'Wed, 21 Oct 2015 07:28:00 GMT', '99999', '', TOKEN), { nil: undefined }),
    location: fc.option(fc.oneof(fc.constantFrom('/elsewhere', `https://${TOKEN.toLowerCase()}.evil.example/x`, `/x?t=${TOKEN}`), text), { nil: undefined }),
    length: fc.constantFrom('right', 'none', 'short', 'long', 'chunked'),
    body,
    mutations,
  });
  type Response = typeof response extends fc.Arbitrary<infer T> ? T : never;
  const build = (r: Response): Buffer => {
    const bodyBytes = Buffer.from(r.body, 'utf8');
    const lines = [`HTTP/1.1 ${r.status} ${r.reason}`, `content-type: ${r.type}`, 'connection: close'];
    if (r.retryAfter !== undefined) lines.push(`retry-after: ${r.retryAfter}`);
    if (r.location !== undefined) lines.push(`location: ${r.location}`);
    let payload = bodyBytes;
    if (r.length === 'right') lines.push(`content-length: ${bodyBytes.length}`);
    else if (r.length === 'short') lines.push(`content-length: ${Math.max(0, bodyBytes.length - 3)}`);
    else if (r.length === 'long') lines.push(`content-length: ${bodyBytes.length + 100}`);
    else if (r.length === 'chunked') {
      lines.push('transfer-encoding: chunked');
      payload = Buffer.concat([Buffer.from(`${bodyBytes.length.toString(16)}\r\n`), bodyBytes, Buffer.from('\r\n0\r\n\r\n')]);
    }
    return mutate(Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), payload]), r.mutations);
  };

  it('the client: a result or a typed error, never the token', async () => {
    let errors = 0;
    await fc.assert(fc.asyncProperty(response, fc.constantFrom('trace', 'sbom', 'artifact'), async (r, op) => {
      current = build(r);
      const retries: RetryInfo[] = [];
      const client = new NetpolicyClient({
        baseUrl: base, token: TOKEN, maxAttempts: 2, retryBaseMs: 1, retryMaxDelayMs: 5, timeoutMs: 1000, totalTimeoutMs: 1500,
        onRetry: (info) => retries.push(info),
      });
      try {
        const result = op === 'trace' ? await client.getNetworkTrace({ repo: 'acme/webapp', jobId: '1' })
          : op === 'sbom' ? await client.getSbom({ repo: 'acme/webapp', jobId: '1' })
          : await client.findArtifact({ kind: 'oci_index', digestAlgorithm: 'sha256', digestValue: 'a'.repeat(64) });
        expect(typeof result.text).toBe('string');
      } catch (error) {
        errors++;
        expect(error).toBeInstanceOf(NetpolicyError);
        const e = error as NetpolicyError & { reasons?: string[]; problem?: unknown };
        const shown = JSON.stringify([e.message, e.reasons, e.problem]);
        expect(noPieceOf(TOKEN, shown), shown).toBe(true);
      }
      for (const retry of retries) expect(noPieceOf(TOKEN, retry.reason), retry.reason).toBe(true);
    }), { numRuns: 300, interruptAfterTimeLimit: 4000 });
    expect(errors).toBeGreaterThan(10);
  });

  it('netpolicy fetch: documented exit codes, no control characters, never the token', async () => {
    await fc.assert(fc.asyncProperty(response, async (r) => {
      current = build(r);
      const p = await runProc(['fetch', 'trace', '--repo', 'acme/webapp', '--job-id', '1', '--base-url', base, '--attempts', '2', '--timeout', '1'], {
        env: { NETPOLICY_TOKEN: TOKEN, NETPOLICY_TOTAL_TIMEOUT_MS: '1500' },
      });
      expect([0, 3, 4, 5, 6, 7]).toContain(p.code);
      expect(p.stderr).not.toMatch(RAW_CONTROL);
      expect(noPieceOf(TOKEN, p.stderr), p.stderr).toBe(true);
      if (p.code !== 0) expect(p.stdout).toBe('');
      else expect(JSON.parse(p.stdout)).toBeTypeOf('object');
    }), { numRuns: 10, interruptAfterTimeLimit: 6000 });
  });
});
