/** The client against a fault-injecting server on loopback: each fault gives the documented error. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, NetpolicyClient, type ClientOptions } from '@netpolicy/client';
import { json, minimalTrace, problem, startFaultServer, type FaultServer } from './client-fault-server';

const TOKEN = 'tok_fault_5ecret_abc123';
const job = { repo: 'acme/webapp', jobId: '1' };
let server: FaultServer;
let other: FaultServer;

const longJson = JSON.stringify({ ...minimalTrace, padding: 'x'.repeat(5000) });

beforeAll(async () => {
  other = await startFaultServer({
    elsewhere: (_req, res) => json(res, 200, minimalTrace),
  });
  server = await startFaultServer({
    ok: (_req, res) => json(res, 200, minimalTrace),
    slow: (_req, res) => { setTimeout(() => json(res, 200, minimalTrace), 3000).unref(); },
    'slow-body': (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"schema_version":"1.0",');
      setTimeout(() => res.end('"job":{},"observations":[]}'), 3000).unref();
    },
    'retry-after': (_req, res, n) => (n === 1 ? problem(res, 503, 'Unavailable', 'warming up', { 'retry-after': '1' }) : json(res, 200, minimalTrace)),
    'retry-after-long': (_req, res) => problem(res, 503, 'Unavailable', 'maintenance', { 'retry-after': '3600' }),
    '429-then-ok': (_req, res, n) => (n === 1 ? problem(res, 429, 'Too Many Requests', 'slow down', { 'retry-after': '0' }) : json(res, 200, minimalTrace)),
    '429': (_req, res) => problem(res, 429, 'Too Many Requests', 'slow down', { 'retry-after': '0' }),
    truncated: (_req, res) => json(res, 200, '{"schema_version":"1.0","job":{"provider":"cipro'),
    'cut-transfer': (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
      res.write('{"schema_version":"1.0",');
      setTimeout(() => res.socket?.destroy(), 20).unref();
    },
    'html-502': (req, res) => json(res, 502, `<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body>upstream said ${req.headers.authorization}</body></html>`, 'text/html'),
    'wrong-type': (_req, res) => json(res, 200, minimalTrace, 'text/plain'),
    'sbom-as-json': (_req, res) => json(res, 200, { bomFormat: 'CycloneDX', specVersion: '1.7' }),
    'redirect-other': (_req, res) => { res.writeHead(302, { location: `${other.url}/elsewhere/v1preview1/network-trace?x=1` }); res.end(); },
    'redirect-same': (_req, res) => { res.writeHead(307, { location: '/ok/v1preview1/network-trace?provider=ciprovider&repo=acme/webapp&job_id=1' }); res.end(); },
    oversized: (_req, res) => json(res, 200, longJson),
    'oversized-chunked': (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(longJson);
    },
    reset: (req) => req.socket.destroy(),
    'reset-then-ok': (req, res, n) => (n === 1 ? req.socket.destroy() : json(res, 200, minimalTrace)),
    '404-problem': (_req, res) => problem(res, 404, 'Unknown job', 'no job 1 of acme/webapp'),
    '404-empty': (_req, res) => { res.writeHead(404); res.end(); },
    '401-echo': (req, res) => problem(res, 401, 'Unauthorized', `token ${req.headers.authorization} is not valid`),
    '409': (_req, res) => problem(res, 409, 'Job is not terminal', 'still running'),
    '400': (_req, res) => problem(res, 400, 'Malformed selector', 'bad repo'),
    '418': (_req, res) => problem(res, 418, 'Teapot', 'short and stout'),
    '500-html': (_req, res) => json(res, 500, '<html><body>oops</body></html>', 'text/html'),
    'bad-shape': (_req, res) => json(res, 200, { job: {}, observations: [{ protocol: 'http', observed_at: '2025-01-01T00:00:00Z', sequence: 0, status_code: '200' }] }),
    'camel-trace': (_req, res) => json(res, 200, { job: { jobId: '1' }, observations: [{ protocol: 'tcp', observedAt: '2025-01-01T00:00:00Z', sequence: 0, remotePort: 443, bytesReceived: '18446744073709551616999' }] }),
  });
});

afterAll(async () => {
  await server?.close();
  await other?.close();
});

function client(scenario: string, extra: Partial<ClientOptions> = {}): NetpolicyClient {
  return new NetpolicyClient({ baseUrl: `${server.url}/${scenario}`, token: TOKEN, retryBaseMs: 5, maxAttempts: 3, timeoutMs: 2000, random: () => 0.5, ...extra });
}

async function failure(promise: Promise<unknown>): Promise<ApiError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    expect((error as Error).message).not.toContain(TOKEN);
    expect(JSON.stringify((error as ApiError).reasons)).not.toContain(TOKEN);
    return error as ApiError;
  }
  throw new Error('expected the call to fail');
}

describe('client against a fault-injecting server', () => {
  it('returns the trace and keeps unknown members', async () => {
    // A generous timeout: a first request on a loaded machine may take longer than the 300 ms the slow-server tests use.
    const result = await client('ok', { timeoutMs: 10000 }).getNetworkTrace(job);
    expect(result.data.observations[0].futureMember).toEqual({ kept: true });
    expect(result.attempts).toBe(1);
    expect(server.seen.find((s) => s.path.startsWith('/ok/'))?.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it('accepts camelCase members and decimal counters beyond 2^53', async () => {
    const result = await client('camel-trace', { timeoutMs: 10000 }).getNetworkTrace(job);
    expect(result.data.observations[0].bytesReceived).toBe('18446744073709551616999');
  });

  it('gives up on slow responses after the per-request timeout, retrying a bounded number of times', async () => {
    const started = Date.now();
    const error = await failure(client('slow', { timeoutMs: 300 }).getNetworkTrace(job));
    expect(error.kind).toBe('unavailable');
    expect(error.attempts).toBe(3);
    expect(error.message).toMatch(/no complete response within 0\.3 s/);
    // About a second (three timeouts of 0.3 s); the server answers after 3 s each time. A hang bound.
    expect(Date.now() - started).toBeLessThan(10_000);
    // On a loaded machine an attempt can time out before the server reads its request: the client's
    // count (3, above) is the one that holds; the server never sees more.
    expect(server.count('slow')).toBeLessThanOrEqual(3);
  });

  it('times out a body that stalls after the headers', async () => {
    const error = await failure(client('slow-body', { maxAttempts: 1, timeoutMs: 300 }).getNetworkTrace(job));
    expect(error.kind).toBe('unavailable');
  });

  it('honours Retry-After on 503, then succeeds', async () => {
    const started = Date.now();
    const result = await client('retry-after', { timeoutMs: 2000 }).getNetworkTrace(job);
    expect(result.attempts).toBe(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
  });

  it('does not wait for a Retry-After past the total time budget', async () => {
    const started = Date.now();
    const error = await failure(client('retry-after-long', { totalTimeoutMs: 5000 }).getNetworkTrace(job));
    expect(error.kind).toBe('unavailable');
    expect(error.status).toBe(503);
    expect(error.detail).toBe('maintenance');
    expect(error.attempts).toBe(1);
    expect(Date.now() - started).toBeLessThan(4000);
  });

  it('retries 429 and succeeds; gives up after the attempts with the 429 problem', async () => {
    expect((await client('429-then-ok').getNetworkTrace(job)).attempts).toBe(2);
    const error = await failure(client('429').getNetworkTrace(job));
    expect(error).toMatchObject({ kind: 'unavailable', status: 429, attempts: 3, title: 'Too Many Requests' });
    expect(server.count('429')).toBe(3);
  });

  it('reports retries through onRetry with the backoff delay', async () => {
    const delays: number[] = [];
    await failure(client('429', { onRetry: (i) => delays.push(i.delayMs) }).getNetworkTrace(job));
    expect(delays).toEqual([0, 0]); // Retry-After: 0 wins over the backoff
    const backoff: number[] = [];
    await failure(client('html-502', { retryBaseMs: 20, onRetry: (i) => backoff.push(i.delayMs) }).getNetworkTrace(job));
    expect(backoff).toEqual([15, 30]); // 20 then 40 ms, jittered to 75% with random() = 0.5
  });

  it('refuses truncated JSON on a 200 (invalid response, not retried)', async () => {
    const error = await failure(client('truncated').getNetworkTrace(job));
    expect(error.kind).toBe('invalid-response');
    expect(error.message).toMatch(/not complete, valid JSON/);
    expect(server.count('truncated')).toBe(1);
  });

  it('treats a transfer cut short as a network failure and retries it', async () => {
    const error = await failure(client('cut-transfer').getNetworkTrace(job));
    expect(error.kind).toBe('unavailable');
    expect(server.count('cut-transfer')).toBe(3);
  });

  it('describes an HTML 502 from a proxy clearly, never echoing the token', async () => {
    const error = await failure(client('html-502').getNetworkTrace(job));
    expect(error.kind).toBe('unavailable');
    expect(error.status).toBe(502);
    expect(error.message).toMatch(/HTML page .*"502 Bad Gateway"/);
  });

  it('classifies a 500 without retrying it', async () => {
    const error = await failure(client('500-html').getNetworkTrace(job));
    expect(error).toMatchObject({ kind: 'unavailable', status: 500, attempts: 1 });
  });

  it('refuses a wrong content type', async () => {
    const error = await failure(client('wrong-type').getNetworkTrace(job));
    expect(error.kind).toBe('invalid-response');
    expect(error.message).toMatch(/expected the network trace as application\/json, got text\/plain/);
    const sbom = await failure(client('sbom-as-json').getSbom(job));
    expect(sbom.message).toMatch(/application\/vnd\.cyclonedx\+json; version=1\.7/);
  });

  it('never follows a redirect to another origin, so the other origin never sees the token', async () => {
    const error = await failure(client('redirect-other').getNetworkTrace(job));
    expect(error.kind).toBe('redirect');
    expect(error.message).toContain(other.url);
    expect(other.seen.filter((s) => s.authorization?.includes(TOKEN))).toEqual([]);
    expect(other.count('elsewhere')).toBe(0);
  });

  it('follows a same-origin redirect with the token', async () => {
    const before = server.count('ok');
    await client('redirect-same').getNetworkTrace(job);
    expect(server.count('ok')).toBe(before + 1);
    expect(server.seen.at(-1)?.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it('caps the response size, by Content-Length and while reading', async () => {
    for (const scenario of ['oversized', 'oversized-chunked']) {
      const error = await failure(client(scenario, { maxResponseBytes: 1000 }).getNetworkTrace(job));
      expect(error.kind).toBe('invalid-response');
      expect(error.message).toMatch(/over the limit of 1000 bytes/);
    }
    expect((await client('oversized').getNetworkTrace(job)).text.length).toBe(longJson.length);
  });

  it('retries a reset connection, and succeeds when the next attempt works', async () => {
    const error = await failure(client('reset').getNetworkTrace(job));
    expect(error.kind).toBe('unavailable');
    expect(error.message).toMatch(/network error/);
    expect(server.count('reset')).toBe(3);
    expect((await client('reset-then-ok').getNetworkTrace(job)).attempts).toBe(2);
  });

  it('turns problem documents into typed errors classified by status (D2)', async () => {
    expect(await failure(client('404-problem').getNetworkTrace(job))).toMatchObject({
      kind: 'not-found', status: 404, type: 'https://errors.example/404', title: 'Unknown job', detail: 'no job 1 of acme/webapp',
    });
    expect(await failure(client('409').getSbom(job))).toMatchObject({ kind: 'not-terminal', status: 409 });
    expect(await failure(client('400').getSbom(job))).toMatchObject({ kind: 'malformed-selector', status: 400 });
    expect(await failure(client('418').getSbom(job))).toMatchObject({ kind: 'api', status: 418, title: 'Teapot' });
    const auth = await failure(client('401-echo').getSbom(job));
    expect(auth).toMatchObject({ kind: 'authentication', status: 401 });
    expect(auth.detail).toContain('[redacted]');
  });

  it('gives a clear error for an empty error body', async () => {
    const error = await failure(client('404-empty').getNetworkTrace(job));
    expect(error).toMatchObject({ kind: 'not-found', status: 404 });
    expect(error.message).toBe('HTTP 404 with an empty body');
  });

  it('names the observation index and member of a wrong type', async () => {
    const error = await failure(client('bad-shape').getNetworkTrace(job));
    expect(error.kind).toBe('invalid-response');
    expect(error.reasons).toContain('observations[0].status_code: expected an integer, got "200"');
  });

  it('stops when the caller aborts', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const error = await failure(client('slow', { timeoutMs: 5000 }).getNetworkTrace(job, { signal: controller.signal }));
    expect(error.kind).toBe('aborted');
  });
});
