/**
 * Re-probe of `fetch` against a hostile service and of `serve` over hostile records, as
 * processes: a body the platform fetch cannot decode and then never finishes (before: exit 0 with
 * nothing written, about one run in two), a redirect to a Location that is not a URL, a status
 * outside 1xx-5xx; records that are JSON `null` or the wrong shape (before: 500 and a stack
 * trace on serve's stderr), and a Retry-After that is not delta-seconds.
 */
import { EventEmitter } from 'node:events';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT, exitWhenSettled } from '../src/io';
import { ensureBuilt, exited, spawnServe } from './fetch-cli-helpers';
import { runProc } from './hostile-helpers';
import { get, rawRequest } from './hostile-raw-http';

const TOKEN = 'reprobe-7c1d9e2f4a';
const trace = JSON.stringify({ schema_version: '1.0', job: { provider: 'ciprovider', repository: 'acme/webapp', job_id: '1', status: 'success' }, observations: [] });

/** Raw HTTP/1.1 answers, written byte for byte (what no well-behaved server library would send). */
const answers: Record<string, () => Buffer> = {
  'brotli-as-gzip': () => {
    const body = brotliCompressSync(trace);
    return Buffer.concat([Buffer.from(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-encoding: gzip\r\ncontent-length: ${body.length}\r\n\r\n`), body]);
  },
  'redirect-not-a-url': () => Buffer.from('HTTP/1.1 302 Found\r\nlocation: http://[::1\r\ncontent-length: 0\r\n\r\n'),
  'status-600': () => Buffer.from('HTTP/1.1 600 Odd\r\ncontent-length: 0\r\n\r\n'),
};

let raw: Server;
let requests = 0;
let base: string;
let dir: string;

beforeAll(async () => {
  ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'netpolicy-hostile-service-'));
  raw = createServer((socket: Socket) => {
    requests++;
    socket.on('error', () => {});
    let head = '';
    socket.on('data', (chunk) => {
      head += chunk;
      if (!head.includes('\r\n\r\n')) return;
      const name = head.split(' ')[1]?.split('/')[1] ?? '';
      head = '';
      socket.end(Object.hasOwn(answers, name) ? answers[name]() : Buffer.from('HTTP/1.1 404 No\r\ncontent-length: 0\r\n\r\n'));
    });
  });
  await new Promise<void>((done) => raw.listen(0, '127.0.0.1', done));
  const address = raw.address() as { port: number };
  base = `http://127.0.0.1:${address.port}`;
});

afterAll(async () => {
  if (raw) await new Promise<void>((done) => raw.close(() => done()));
  if (dir) rmSync(dir, { recursive: true, force: true });
});

// A generous per-attempt timeout by default: on a loaded machine a fresh process's first attempt can
// take more than a second (Node loads its fetch on first use), and a retry would change the output.
// Only the stuck body needs a short one.
const fetchFrom = (name: string, extra: string[] = [], timeout = '10') =>
  runProc(['fetch', 'trace', '--repo', 'acme/webapp', '--job-id', '1', '--base-url', `${base}/${name}`, '--attempts', '2', '--timeout', timeout, ...extra], { env: { NETPOLICY_TOKEN: TOKEN } });

describe('fetch against a service the platform fetch trips on', () => {
  it('a brotli body labelled gzip: never a silent exit 0, always exit 6 with a reason', async () => {
    for (let i = 0; i < 4; i++) {
      const r = await fetchFrom('brotli-as-gzip', ['--quiet'], '1');
      expect(r.stdout).toBe('');
      expect(r.code, r.stderr).toBe(6);
      expect(r.stderr).toMatch(/^netpolicy fetch: service unavailable after 2 attempts in [\d.]+ s: (network error \([^\n]+\)|no complete response within 1\.0 s)\n$/);
    }
  });

  it('a redirect to a Location that is not a URL: exit 7 at once, one line', async () => {
    const r = await fetchFrom('redirect-not-a-url');
    expect(r.code).toBe(7);
    expect(r.stderr).toBe('netpolicy fetch: HTTP 302 redirect to "http://[::1", which is not a URL\n');
  });

  it('status 600: exit 7 (not a 5xx, so not "service unavailable")', async () => {
    const r = await fetchFrom('status-600');
    expect(r.code).toBe(7);
    expect(r.stderr).toBe('netpolicy fetch: HTTP 600 with an empty body\n');
  });
});

describe('fetch -o where nothing can be written', () => {
  it('is refused before the download (a missing folder, a directory), the service never asked', async () => {
    const before = requests;
    const missing = await fetchFrom('status-600', ['-o', join(dir, 'no-such-folder', 'trace.json')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe(`netpolicy fetch: cannot write ${join(dir, 'no-such-folder', 'trace.json')}: no such directory (ENOENT)\n`);
    const folder = await fetchFrom('status-600', ['-o', dir]);
    expect(folder.code).toBe(2);
    expect(folder.stderr).toBe(`netpolicy fetch: cannot write ${dir}: is a directory, not a file\n`);
    expect(requests).toBe(before);
  });
});

describe('a command whose work never completes', () => {
  it('exits 70 with one line, not 0 (what Node does when nothing is left to wait for)', () => {
    const proc = Object.assign(new EventEmitter(), { exitCode: undefined as number | undefined, written: '', stderr: { write: (t: string) => { proc.written += t; } } });
    exitWhenSettled(proc, new Promise<number>(() => {}), 'netpolicy fetch', {});
    proc.emit('beforeExit');
    expect(proc.exitCode).toBe(EXIT.internal);
    expect(proc.written).toBe('netpolicy fetch: internal error: the command stopped before finishing (an operation never completed); its output is incomplete\n');
  });

  it('a command that completes keeps its code; one that throws is one line without a stack', async () => {
    const make = () => Object.assign(new EventEmitter(), { exitCode: undefined as number | undefined, written: '', stderr: { write(t: string) { this.owner.written += t; }, owner: undefined as never } });
    const done = make();
    (done.stderr as { owner: unknown }).owner = done;
    exitWhenSettled(done, Promise.resolve(4), 'netpolicy fetch', {});
    await new Promise((r) => setImmediate(r));
    done.emit('beforeExit');
    expect(done.exitCode).toBe(4);
    expect(done.written).toBe('');
    const thrown = make();
    (thrown.stderr as { owner: unknown }).owner = thrown;
    exitWhenSettled(thrown, Promise.reject(new TypeError('boom\n    at somewhere (file.js:1:1)')), 'netpolicy check', {});
    await new Promise((r) => setImmediate(r));
    expect(thrown.exitCode).toBe(EXIT.internal);
    expect(thrown.written).toBe('netpolicy check: internal error: boom (please report it; NETPOLICY_DEBUG=1 shows where)\n');
  });
});

describe('serve over records that are not what they should be', () => {
  const AUTH = { authorization: `Bearer ${TOKEN}` };
  const TRACE = (id: string) => `/v1preview1/network-trace?provider=ciprovider&repo=acme/app&job_id=${id}`;

  function records(files: Record<string, string>): string {
    const data = mkdtempSync(join(dir, 'data-'));
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(join(data, path, '..'), { recursive: true });
      writeFileSync(join(data, path), text);
    }
    return data;
  }

  async function answers503(files: Record<string, string>, target: string, detail: RegExp): Promise<Record<string, string>> {
    const running = await spawnServe(['--data', records(files), '--port', '0']);
    try {
      const r = await rawRequest(running.url, get(target, AUTH));
      expect(r.status).toBe(503);
      expect(r.headers['content-type']).toBe('application/problem+json');
      expect(JSON.parse(r.body.toString('utf8'))).toMatchObject({ status: 503, detail: expect.stringMatching(detail) });
      return r.headers;
    } finally {
      running.child.kill('SIGTERM');
      await exited(running.child);
      expect(running.stderr()).not.toMatch(/\n\s+at |TypeError|Cannot read/);
    }
  }

  const job = (id: string, text: string) => ({ [`jobs/ciprovider/acme/app/${id}/job.json`]: text });
  const tokens = JSON.stringify({ tokens: [{ token: TOKEN }] });

  it('tokens.json is null, or holds entries of the wrong type', async () => {
    await answers503({ 'tokens.json': 'null', ...job('1', '{"terminal":true}') }, TRACE('1'), /^The token store could not be read \(tokens\.json is not \{"tokens": \[\.\.\.\]\}\)/);
    // Entries that are null or have a number for sha256 match nothing; the good entry still works.
    const running = await spawnServe(['--data', records({ 'tokens.json': JSON.stringify({ tokens: [null, 5, { sha256: 5 }, { sha256: 'zz' }, { token: TOKEN }] }), ...job('1', '{"terminal":false,"status":"running"}') }), '--port', '0']);
    try {
      const r = await rawRequest(running.url, get(TRACE('1'), AUTH));
      expect(r.status).toBe(409);
    } finally {
      running.child.kill('SIGTERM');
      await exited(running.child);
    }
  });

  it('job.json is null', async () => {
    await answers503({ 'tokens.json': tokens, ...job('1', 'null') }, TRACE('1'), /^The job store could not be read \(jobs\/ciprovider\/acme\/app\/1\/job\.json is not a JSON object\)\.$/);
  });

  it('outage.json is null: every operation is down; a Retry-After that is not delta-seconds is not sent', async () => {
    const none = await answers503({ 'tokens.json': tokens, 'outage.json': 'null', ...job('1', '{"terminal":true}') }, TRACE('1'), /store is unavailable/);
    expect(none['retry-after']).toBeUndefined();
    for (const bad of ['-1.5e300', '1.5', '"soon"', '1e400']) {
      const headers = await answers503({ 'tokens.json': tokens, 'outage.json': `{"retry_after": ${bad}}`, ...job('1', '{"terminal":true}') }, TRACE('1'), /store is unavailable/);
      expect(headers['retry-after'], bad).toBeUndefined();
    }
    const good = await answers503({ 'tokens.json': tokens, 'outage.json': '{"retry_after": 7}', ...job('1', '{"terminal":true}') }, TRACE('1'), /store is unavailable/);
    expect(good['retry-after']).toBe('7');
  });
});
