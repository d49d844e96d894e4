/**
 * The client against a hostile service written here (issue 10 items 5 and 6): a service that
 * echoes the token whole, JSON-escaped, cut to its first characters or glued to other text; that
 * sends Retry-After values outside RFC 9110; and client options past what a timer can hold.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cpuMs } from '../../../test-support/cpu-time';
import {
  ApiError, ConfigError, MAX_TIMEOUT_MS, MIN_TOKEN_LENGTH, NetpolicyClient, parseHttpDate, parseRetryAfter, redact,
  type ClientOptions, type RetryInfo,
} from '../src/index';

const TOKEN = 'Zq8xK2mV9pLw4RtY7nBc';
const job = { repo: 'acme/webapp', jobId: '1' };

type Handler = (req: IncomingMessage, res: ServerResponse, attempt: number) => void;
const send = (res: ServerResponse, status: number, type: string, body: string, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'content-type': type, 'content-length': String(Buffer.byteLength(body)), ...headers });
  res.end(body);
};
const problemBody = (title: string, detail: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ type: 'https://errors.example/x', title, status: 400, detail, ...extra });
const trace = JSON.stringify({ schema_version: '1.0', job: { provider: 'ciprovider', repository: 'acme/webapp', job_id: '1', status: 'success' }, observations: [] });

const scenarios: Record<string, Handler> = {
  whole: (_q, r) => send(r, 418, 'application/problem+json', problemBody('Rejected', `token ${TOKEN} is not allowed`)),
  glued: (_q, r) => send(r, 418, 'application/problem+json', problemBody('Rejected', `id=x${TOKEN}y;`)),
  escaped: (_q, r) => send(r, 418, 'application/problem+json',
    // The token written with JSON escapes: only a check after parsing finds it.
    problemBody('Rejected', 'x').replace('"x"', JSON.stringify(`seen ${TOKEN}`).replace(/[a-z]/g, (c) => `\\u00${c.charCodeAt(0).toString(16)}`))),
  prefix: (_q, r) => send(r, 418, 'application/problem+json', problemBody('Rejected', `token ${TOKEN.slice(0, 7)}… is unknown`)),
  middle: (_q, r) => send(r, 418, 'application/problem+json', problemBody('Rejected', `part ${TOKEN.slice(5, 16)} seen`)),
  'in-extension': (_q, r) => send(r, 418, 'application/problem+json', problemBody('Rejected', 'see instance', { instance: `/tokens/${TOKEN}`, nested: { deeper: [TOKEN.slice(0, 9)] } })),
  proto: (_q, r) => send(r, 418, 'application/problem+json', `{"type":"about:blank","title":"t","status":418,"detail":"d","__proto__":{"polluted":"${TOKEN}"},"constructor":{"prototype":{"x":"${TOKEN}"}}}`),
  'html-cut': (_q, r) => send(r, 418, 'text/plain', `${'x'.repeat(115)}${TOKEN} trailing`),
  'in-media-type': (_q, r) => send(r, 200, `application/${TOKEN}`, trace),
  'in-reasons': (_q, r) => send(r, 200, 'application/json', JSON.stringify({ job: {}, observations: [{ protocol: TOKEN, observed_at: 'x', sequence: 0 }] })),
  'redirect-elsewhere': (_q, r) => { r.writeHead(302, { location: `https://${TOKEN.toLowerCase()}.evil.example/x` }); r.end(); },
  'retry-503': (_q, r, n) => (n === 1 ? send(r, 503, 'application/problem+json', JSON.stringify({ type: 'about:blank', title: `busy ${TOKEN}`, status: 503, detail: 'later' })) : send(r, 200, 'application/json', trace)),
  'ordinary-words': (_q, r) => send(r, 404, 'application/problem+json', JSON.stringify({ type: 'about:blank', title: 'Unknown job', status: 404, detail: 'netpolicy fetch found no job; the access token has expired' })),
};
const retryAfterValues = ['-5', '1.5', '+3', '1e3', '0x10', 'Wed, 21 Oct 2015 07:28:00', 'soon', ''];
for (const [i, value] of retryAfterValues.entries()) {
  scenarios[`ra${i}`] = (_q, r, n) => (n === 1 ? send(r, 503, 'application/problem+json', JSON.stringify({ type: 'about:blank', title: 'busy', status: 503, detail: 'later' }), { 'retry-after': value }) : send(r, 200, 'application/json', trace));
}

let server: Server;
let base: string;
const counts = new Map<string, number>();

beforeAll(async () => {
  server = createServer((req, res) => {
    const name = (req.url ?? '/').split('/')[1];
    const n = (counts.get(name) ?? 0) + 1;
    counts.set(name, n);
    const handler = scenarios[name];
    if (handler) handler(req, res, n);
    else send(res, 404, 'text/plain', 'no scenario');
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((done) => { server.close(() => done()); server.closeAllConnections(); });
});

function client(scenario: string, extra: Partial<ClientOptions> = {}) {
  return new NetpolicyClient({ baseUrl: `${base}/${scenario}`, token: TOKEN, retryBaseMs: 1, maxAttempts: 2, sbomValidator: false, ...extra });
}

async function failure(scenario: string, extra: Partial<ClientOptions> = {}): Promise<ApiError> {
  try {
    await client(scenario, extra).getNetworkTrace(job);
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    return error as ApiError;
  }
  throw new Error(`scenario ${scenario} did not fail`);
}

/** Everything an ApiError hands over, as one text. */
const everything = (e: ApiError) => JSON.stringify({ m: e.message, r: e.reasons, p: e.problem });

/** No piece of the token 6 characters long appears in `text`. */
function expectNoTokenPiece(text: string): void {
  for (let i = 0; i + 6 <= TOKEN.length; i++) expect(text).not.toContain(TOKEN.slice(i, i + 6));
}

describe('the token in service text (issue 10 item 5)', () => {
  for (const scenario of ['whole', 'glued', 'escaped', 'prefix', 'in-extension', 'proto', 'html-cut', 'in-media-type', 'in-reasons', 'redirect-elsewhere']) {
    it(`never hands over the token or a long prefix of it: ${scenario}`, async () => {
      const error = await failure(scenario);
      const text = everything(error);
      expect(text).not.toContain(TOKEN);
      expect(text).not.toContain(TOKEN.slice(0, 6));
      if (scenario !== 'in-reasons' && scenario !== 'redirect-elsewhere' && scenario !== 'in-media-type') expect(text).toContain('[redacted]');
    });
  }

  it('replaces the whole token once, keeping the text around it', async () => {
    const error = await failure('whole');
    expect(error.detail).toBe('token [redacted] is not allowed');
    expect(error.message).toBe('HTTP 418: Rejected: token [redacted] is not allowed');
    expect((await failure('prefix')).detail).toBe('token [redacted]… is unknown');
    expect((await failure('glued')).detail).toBe('id=x[redacted]y;');
  });

  it('a __proto__ member is redacted as data, and pollutes nothing', async () => {
    const error = await failure('proto');
    expect(everything(error)).not.toContain(TOKEN.slice(0, 6));
    expect(Object.getOwnPropertyDescriptor(error.problem, '__proto__')?.value).toEqual({ polluted: '[redacted]' });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(error.problem)).toBe(Object.prototype);
  });

  it('removes a piece of half the token from its middle', async () => {
    const error = await failure('middle');
    expect(error.detail).toBe('part [redacted] seen');
  });

  it('leaves ordinary words alone (no letter-by-letter redaction)', async () => {
    const error = await failure('ordinary-words');
    expect(error.detail).toBe('netpolicy fetch found no job; the access token has expired');
    const expired = new NetpolicyClient({ baseUrl: `${base}/ordinary-words`, token: 'demo-token-expired', maxAttempts: 1 });
    await expect(expired.getNetworkTrace(job)).rejects.toMatchObject({ detail: 'netpolicy fetch found no job; the access token has expired' });
  });

  it('redacts retry notices too', async () => {
    const seen: RetryInfo[] = [];
    await client('retry-503', { onRetry: (info) => seen.push(info) }).getNetworkTrace(job);
    expect(seen).toHaveLength(1);
    expect(seen[0].reason).toContain('busy [redacted]');
    expectNoTokenPiece(seen[0].reason);
  });

  it(`refuses tokens shorter than ${MIN_TOKEN_LENGTH} characters, with a clear message`, () => {
    for (const token of ['t', 'abc', 'abcdefg']) {
      expect(() => new NetpolicyClient({ baseUrl: base, token })).toThrow(ConfigError);
      expect(() => new NetpolicyClient({ baseUrl: base, token })).toThrow(/shorter than 8 characters are refused/);
    }
    expect(() => new NetpolicyClient({ baseUrl: base, token: 'abcdefgh' })).not.toThrow();
    for (const token of ['abcdefgh\u0001ijkl', 'abcdéfghijkl', 'abcdefghijk€', 'abc\u007fdefghij']) {
      expect(() => new NetpolicyClient({ baseUrl: base, token })).toThrow(/cannot be sent in an Authorization header/);
    }
  });

  it('redact equals the naive reference (every window of half the token looked up), on random tokens and texts', () => {
    // The reference: a position is hidden when it lies in a prefix of 6+ characters or in a window
    // of half the token (at least 6) that is a piece of the token, ignoring ASCII case.
    const reference = (text: string, token: string): string => {
      const t = text.toLowerCase();
      const k = token.toLowerCase();
      const hide = new Array<boolean>(text.length).fill(false);
      for (let i = 0; i < t.length; i++) {
        let m = 0;
        while (i + m < t.length && m < k.length && t[i + m] === k[m]) m++;
        if (m >= 6) hide.fill(true, i, i + m);
      }
      const min = Math.max(6, Math.ceil(k.length / 2));
      const pieces = new Set(Array.from({ length: Math.max(0, k.length - min + 1) }, (_, j) => k.slice(j, j + min)));
      for (let i = 0; i + min <= t.length; i++) if (pieces.has(t.slice(i, i + min))) hide.fill(true, i, i + min);
      let out = '';
      for (let i = 0; i < text.length; i++) {
        if (!hide[i]) out += text[i];
        else if (i === 0 || !hide[i - 1]) out += '[redacted]';
      }
      return out;
    };
    // A small alphabet, so that texts share many pieces with the token.
    const ascii = (max: number) => fc.string({ unit: fc.constantFrom('a', 'b', 'A', 'c', '-', '1'), minLength: 0, maxLength: max });
    fc.assert(fc.property(
      fc.string({ unit: fc.constantFrom('a', 'b', 'c', '-', '1', 'x'), minLength: 8, maxLength: 80 }),
      fc.array(fc.oneof(ascii(12), fc.tuple(fc.nat(), fc.nat()).map(([a, b]) => ({ a, b }))), { maxLength: 12 }),
      (token, parts) => {
        const text = parts.map((p) => (typeof p === 'string' ? p : token.slice(p.a % token.length, p.a % token.length + 1 + (p.b % token.length)).toUpperCase())).join('');
        expect(redact(text, token)).toBe(reference(text, token));
      },
    ), { numRuns: 2000 });
  });

  it('redact stays linear for a long token and a long hostile text', () => {
    let seed = 42;
    const token = Array.from({ length: 8192 }, () => 'abcdefghijklmnopqrstuvwxyz0123456789'[(seed = (seed * 1103515245 + 12345) % 2147483648) % 36]).join('');
    const text = `${token.slice(0, 5000)}!${token.slice(100, 4000)}`.repeat(13).slice(0, 64 * 1024);
    // CPU time (the machine's load does not count): a few ms each; a quadratic scan takes far longer.
    const { ms, result: out } = cpuMs(() => redact(text, token));
    expect(ms).toBeLessThan(1000);
    expect(out).not.toContain(token.slice(0, 6));
    expect(out).toContain('!');
    // Degenerate tokens cost no more: every position matches a long prefix and many pieces.
    for (const [tok, txt, expected] of [['a'.repeat(8192), 'a'.repeat(65536), '[redacted]'], ['ab'.repeat(4096), `${'ab'.repeat(20000)}b${'ba'.repeat(12000)}`, '[redacted]b[redacted]']]) {
      const { ms: each, result } = cpuMs(() => redact(txt, tok));
      expect(result).toBe(expected);
      expect(each).toBeLessThan(1000);
    }
  });

  it('redact: the one function, as a property over random texts and tokens', () => {
    expect(redact('netpolicy fetch: wrote trace.json', 'tttttttt')).toBe('netpolicy fetch: wrote trace.json');
    expect(redact(`a${TOKEN}${TOKEN}b`, TOKEN)).toBe('a[redacted]b');
    expect(redact(redact(`x ${TOKEN} y`, TOKEN), TOKEN)).toBe('x [redacted] y');
    // Linear on a long text full of near-misses.
    expect(cpuMs(() => redact(`${TOKEN.slice(0, 6)}`.repeat(200_000), TOKEN)).ms).toBeLessThan(2000);
  });
});

describe('Retry-After (issue 10 item 6)', () => {
  it('accepts only delta-seconds and HTTP-dates', () => {
    for (const v of ['-5', '1.5', '+3', '1e3', '0x10', ' 1 2', 'soon', '', 'Wed, 21 Oct 2015 07:28:00', 'Wed, 32 Oct 2015 07:28:00 GMT', 'Wed, 31 Feb 2015 07:28:00 GMT', '2015-10-21T07:28:00Z', 'Wed, 21 Oct 2015 25:28:00 GMT']) {
      expect(parseRetryAfter(v, Date.UTC(2015, 9, 21)), v).toBeUndefined();
    }
    const now = Date.UTC(2015, 9, 21, 7, 27, 0);
    expect(parseRetryAfter('Wed, 21 Oct 2015 07:28:00 GMT', now)).toBe(60_000);
    expect(parseRetryAfter('Wednesday, 21-Oct-15 07:28:00 GMT', now)).toBe(60_000);
    expect(parseRetryAfter('Wed Oct 21 07:28:00 2015', now)).toBe(60_000);
    expect(parseRetryAfter('Sun Nov  6 08:49:37 1994', now)).toBe(0);
    expect(parseRetryAfter('120')).toBe(120_000);
    expect(parseRetryAfter(' 0 ')).toBe(0);
    expect(parseHttpDate('Sun, 06 Nov 1994 08:49:37 GMT')).toBe(Date.UTC(1994, 10, 6, 8, 49, 37));
  });

  for (const [i, value] of retryAfterValues.entries()) {
    it(`falls back to the normal backoff for Retry-After ${JSON.stringify(value)}`, async () => {
      const seen: RetryInfo[] = [];
      // Fixed jitter: the normal backoff of the first retry is exactly retryBaseMs * 0.75.
      const result = await client(`ra${i}`, { retryBaseMs: 40, random: () => 0.5, onRetry: (info) => seen.push(info) }).getNetworkTrace(job);
      expect(result.attempts).toBe(2);
      expect(seen.map((s) => s.delayMs)).toEqual([30]);
    });
  }
});

describe('timeouts past what a timer holds (issue 10 item 6)', () => {
  it(`refuses timeouts and delays over ${MAX_TIMEOUT_MS} ms, naming the limit`, () => {
    for (const name of ['timeoutMs', 'totalTimeoutMs', 'retryBaseMs', 'retryMaxDelayMs'] as const) {
      expect(() => new NetpolicyClient({ baseUrl: base, [name]: 3_000_000_000 })).toThrow(new RegExp(`${name} must be at most 86400000 ms`));
      expect(() => new NetpolicyClient({ baseUrl: base, [name]: Number.NaN })).toThrow(ConfigError);
      expect(() => new NetpolicyClient({ baseUrl: base, [name]: MAX_TIMEOUT_MS })).not.toThrow();
    }
  });
});

describe('responses the platform fetch handles badly (re-probe)', () => {
  it('a body whose read never ends, even after the abort (Node 20 fetch on a bad gzip body): the attempt times out', async () => {
    // What Node 20's fetch does for a body labelled gzip that is not gzip, about one time in two:
    // the read stays pending after the abort, and the process would exit 0 with nothing written.
    let reads = 0;
    const stuck: typeof fetch = async () => new Response(new ReadableStream<Uint8Array>({
      pull: () => { reads++; return new Promise<void>(() => {}); }, // never enqueues, never errors
      cancel: () => new Promise<void>(() => {}), // and cancelling hangs too
    }), { status: 200, headers: { 'content-type': 'application/json' } });
    const client = new NetpolicyClient({ baseUrl: 'http://127.0.0.1:1', fetch: stuck, timeoutMs: 200, maxAttempts: 2, retryBaseMs: 1 });
    const started = Date.now();
    const error = await client.getNetworkTrace(job).then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).kind).toBe('unavailable');
    expect((error as ApiError).message).toMatch(/^service unavailable after 2 attempts in [\d.]+ s: no complete response within 0\.2 s$/);
    expect(reads).toBeGreaterThan(0);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('an error body whose read never ends: the attempt times out too', async () => {
    const stuck: typeof fetch = async () => new Response(new ReadableStream<Uint8Array>({ pull: () => new Promise<void>(() => {}) }), { status: 503 });
    const client = new NetpolicyClient({ baseUrl: 'http://127.0.0.1:1', fetch: stuck, timeoutMs: 150, maxAttempts: 1 });
    const error = await client.getNetworkTrace(job).then(() => undefined, (e: unknown) => e);
    expect((error as ApiError).kind).toBe('unavailable');
    expect((error as ApiError).message).toContain('no complete response within 0.1 s');
  });

  it('a redirect to a Location that is not a URL: a redirect error (exit 7), not retried as a network error', async () => {
    let calls = 0;
    const redirecting: typeof fetch = async () => {
      calls++;
      return new Response(null, { status: 302, headers: { location: `http://[::1/${TOKEN}` } });
    };
    const client = new NetpolicyClient({ baseUrl: 'http://127.0.0.1:1', token: TOKEN, fetch: redirecting, maxAttempts: 3, retryBaseMs: 1 });
    const error = await client.getNetworkTrace(job).then(() => undefined, (e: unknown) => e);
    expect((error as ApiError).kind).toBe('redirect');
    expect((error as ApiError).message).toBe('HTTP 302 redirect to "http://[::1/[redacted]", which is not a URL');
    expect(calls).toBe(1);
  });

  it('a status outside 1xx-5xx (600) is an API failure, not "service unavailable"', async () => {
    scenarios['status-600'] = (_q, r) => send(r, 600, 'text/plain', 'odd');
    const client = new NetpolicyClient({ baseUrl: `${base}/status-600`, maxAttempts: 2, retryBaseMs: 1 });
    const error = await client.getNetworkTrace(job).then(() => undefined, (e: unknown) => e);
    expect((error as ApiError).kind).toBe('api');
    expect((error as ApiError).status).toBe(600);
    expect(counts.get('status-600')).toBe(1);
  });
});
