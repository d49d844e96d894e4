/**
 * `netpolicy fetch` as a process against a hostile service written here (issue 10 items 2, 3,
 * 4, 5, 6, 8): control characters in problem documents, the token echoed, timeouts past what a
 * timer holds, `-o` over a private file, `-o -`, stdout on a full disk.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, createReadStream, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from './fetch-cli-helpers';
import { RAW_CONTROL, runProc, type Proc } from './hostile-helpers';

const TOKEN = 'hostile-9f8e7d6c5b4a';
const trace = JSON.stringify({ schema_version: '1.0', job: { provider: 'ciprovider', repository: 'acme/webapp', job_id: '1', status: 'success' }, observations: [] });
const FORGED = 'netpolicy fetch: wrote trace.json (10 bytes)';

const send = (res: ServerResponse, status: number, type: string, body: string, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'content-type': type, 'content-length': String(Buffer.byteLength(body)), ...headers });
  res.end(body);
};
const scenarios: Record<string, (res: ServerResponse, auth: string) => void> = {
  ok: (res) => send(res, 200, 'application/json', trace),
  terminal: (res) => send(res, 418, 'application/problem+json', JSON.stringify({
    type: 'https://errors.example/\u001b]8;;https://evil.example\u0007link\u001b]8;;\u0007',
    title: 'Bad\u001b[2J\u001b]0;pwned\u0007 request\u009b31m',
    status: 418,
    detail: `nothing\r${FORGED}\n::error file=x::forged\u2028\u202egnp.exe`,
  })),
  'retry-notice': (res) => send(res, 503, 'application/problem+json', JSON.stringify({ type: 'about:blank', title: `busy\r\n${FORGED}\u001b[1A`, status: 503, detail: 'x' })),
  'plain-body': (res) => send(res, 418, 'text/plain', `\u001b[31mred\r\n${FORGED}`),
  'echo-token': (res, auth) => send(res, 401, 'application/problem+json', JSON.stringify({ type: 'about:blank', title: 'Unauthorized', status: 401, detail: `token ${auth.replace(/^Bearer /, '')} is unknown` })),
  'echo-prefix': (res, auth) => send(res, 401, 'application/problem+json', JSON.stringify({ type: 'about:blank', title: 'Unauthorized', status: 401, detail: `token ${auth.replace(/^Bearer /, '').slice(0, 7)}… is unknown` })),
};

let server: Server;
let base: string;
let dir: string;

beforeAll(async () => {
  ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'netpolicy-hostile-fetch-'));
  server = createServer((req, res) => {
    const name = (req.url ?? '/').split('/')[1];
    const scenario = scenarios[name];
    if (scenario) scenario(res, req.headers.authorization ?? '');
    else send(res, 404, 'text/plain', 'no scenario');
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  if (server) await new Promise<void>((done) => { server.close(() => done()); server.closeAllConnections(); });
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const fetchTrace = (scenario: string, extra: string[] = [], env: Record<string, string> = {}, options: Parameters<typeof runProc>[1] = {}) =>
  runProc(['fetch', 'trace', '--repo', 'acme/webapp', '--job-id', '1', '--base-url', `${base}/${scenario}`, ...extra], { ...options, env: { NETPOLICY_TOKEN: TOKEN, ...env } });

function noToken(r: Proc, token = TOKEN): void {
  for (let i = 0; i + 6 <= token.length; i++) expect(r.stdout + r.stderr).not.toContain(token.slice(i, i + 6));
}

describe('service text is escaped (issue 10 item 2)', () => {
  for (const scenario of ['terminal', 'plain-body']) {
    it(`${scenario}: no control character reaches stderr, no forged line`, async () => {
      const r = await fetchTrace(scenario);
      expect(r.code).toBe(7);
      expect(r.stderr).not.toMatch(RAW_CONTROL);
      const lines = r.stderr.split('\n');
      expect(lines.some((l) => l.startsWith(FORGED) || l.startsWith('::error'))).toBe(false);
      expect(lines.every((l) => l === '' || l.startsWith('netpolicy fetch: ') || l.startsWith('  '))).toBe(true);
    });
  }

  it('shows the escapes, so the text is still readable', async () => {
    const r = await fetchTrace('terminal');
    expect(r.stderr).toContain('Bad\\u001b[2J\\u001b]0;pwned\\u0007 request\\u009b31m');
    expect(r.stderr).toContain(`nothing\\r${FORGED}\\n::error file=x::forged\\u2028\\u202egnp.exe`);
    expect(r.stderr).toContain('problem type: https://errors.example/\\u001b]8;;');
  });

  it('retry notices are escaped too', async () => {
    const r = await fetchTrace('retry-notice', ['--attempts', '2']);
    expect(r.code).toBe(6);
    expect(r.stderr).toMatch(/attempt 1 failed \(HTTP 503: busy\\r\\nnetpolicy fetch: wrote/);
    expect(r.stderr).not.toMatch(RAW_CONTROL);
    expect(r.stderr.split('\n').some((l) => l.startsWith(FORGED))).toBe(false);
  });
});

describe('the token (issue 10 item 5)', () => {
  it('a whole echo is redacted once; a prefix echo is not printed', async () => {
    const whole = await fetchTrace('echo-token');
    expect(whole.code).toBe(3);
    expect(whole.stderr).toContain('token [redacted] is unknown');
    noToken(whole);
    const prefix = await fetchTrace('echo-prefix');
    expect(prefix.code).toBe(3);
    expect(prefix.stderr).toContain('token [redacted]… is unknown');
    noToken(prefix);
  });

  it('a token too short to redact safely is refused before any request (exit 2, one clear line)', async () => {
    for (const token of ['t', 'e', 'secret']) {
      const r = await fetchTrace('echo-token', [], { NETPOLICY_TOKEN: token });
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/^netpolicy fetch: the token is \d characters? long; tokens shorter than 8 characters are refused/);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).not.toContain('[redacted]');
    }
    const file = join(dir, 'short-token');
    writeFileSync(file, 'abc\n');
    const r = await fetchTrace('echo-token', ['--token-file', file], {});
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/shorter than 8 characters/);
  });
});

describe('timeouts over the documented maximum (issue 10 item 6)', () => {
  it('--timeout over 86400 seconds: exit 2, one line naming the limit', async () => {
    const r = await fetchTrace('ok', ['--timeout', '3000000']);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')[0]).toBe('netpolicy fetch: option --timeout must be at most 86400 seconds (one day), got 3000000');
    expect(r.stderr).not.toMatch(/TimeoutOverflowWarning/);
  });

  it('NETPOLICY_TOTAL_TIMEOUT_MS and NETPOLICY_RETRY_BASE_MS over a day: exit 2, naming the limit', async () => {
    for (const name of ['NETPOLICY_TOTAL_TIMEOUT_MS', 'NETPOLICY_RETRY_BASE_MS']) {
      const r = await fetchTrace('ok', [], { [name]: '3000000000' });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`${name} must be at most 86400000 ms (one day), got 3000000000`);
      expect(r.stderr).not.toMatch(/TimeoutOverflowWarning/);
    }
  });

  it('the maximum itself works', async () => {
    const r = await fetchTrace('ok', ['--timeout', '86400'], { NETPOLICY_TOTAL_TIMEOUT_MS: '86400000' });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).schema_version).toBe('1.0');
    expect(r.stderr).toBe('');
  });

  it('--attempts over 100 is refused', async () => {
    const r = await fetchTrace('ok', ['--attempts', '1000000']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('option --attempts must be at most 100');
  });
});

describe('--output (issue 10 items 4 and 8)', () => {
  it('replacing a 0600 file keeps 0600', async () => {
    const out = join(dir, 'private.json');
    writeFileSync(out, 'old');
    chmodSync(out, 0o600);
    const r = await fetchTrace('ok', ['-o', out]);
    expect(r.code).toBe(0);
    expect(readFileSync(out, 'utf8')).toBe(`${trace}\n`);
    expect(statSync(out).mode & 0o777).toBe(0o600);
    chmodSync(out, 0o640);
    expect((await fetchTrace('ok', ['-o', out])).code).toBe(0);
    expect(statSync(out).mode & 0o777).toBe(0o640);
  });

  it('a new file follows the umask', async () => {
    for (const [umask, mode] of [['077', 0o600], ['022', 0o644], ['027', 0o640], ['002', 0o664], ['000', 0o666]] as const) {
      const out = join(dir, `new-${umask}.json`);
      const r = await fetchTrace('ok', ['-o', out], {}, { umask });
      expect(r.code).toBe(0);
      expect(statSync(out).mode & 0o777).toBe(mode);
    }
  });

  it('-o - is stdout, and no file named - is written', async () => {
    const cwd = mkdtempSync(join(dir, 'cwd-'));
    const r = await runProc(['fetch', 'trace', '--repo', 'acme/webapp', '--job-id', '1', '--base-url', `${base}/ok`, '-o', '-'], { cwd, env: { NETPOLICY_TOKEN: TOKEN } });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${trace}\n`);
    expect(r.stderr).toBe('');
    expect(readdirSync(cwd)).toEqual([]);
  });

  // Devices and FIFOs are made in the test's own directory: a build that renamed over them (as
  // before this change) would then replace only those, never /dev/full or /dev/null.
  it('-o a FIFO is written in place, and stays a FIFO', async (ctx) => {
    const fifo = join(dir, 'fifo');
    if (spawnSync('mkfifo', [fifo]).status !== 0) return ctx.skip(); // no mkfifo here
    const received = new Promise<string>((done, fail) => {
      let text = '';
      createReadStream(fifo, 'utf8').on('data', (c) => (text += c)).on('end', () => done(text)).on('error', fail);
    });
    const r = await fetchTrace('ok', ['-o', fifo]);
    expect(r.code).toBe(0);
    expect(await received).toBe(`${trace}\n`);
    expect(statSync(fifo).isFIFO()).toBe(true);
  });

  it('-o a full device: one line naming the file and the reason, exit 2, the device stays', async (ctx) => {
    const full = join(dir, 'full');
    // A character device like /dev/full (1, 7), where this machine lets the test make and use one
    // (root, a mount without nodev); skipped, visibly, elsewhere.
    if (spawnSync('mknod', [full, 'c', '1', '7']).status !== 0) return ctx.skip();
    let code: string | undefined;
    try {
      writeFileSync(full, 'x');
    } catch (error) {
      code = (error as NodeJS.ErrnoException).code;
    }
    if (code !== 'ENOSPC') return ctx.skip();
    const r = await fetchTrace('ok', ['-o', full]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`netpolicy fetch: cannot write ${full}: no space left on device (ENOSPC)\n`);
    expect(statSync(full).isCharacterDevice()).toBe(true);
  });

  it.skipIf(!existsSync('/dev/full'))('stdout on a full disk: one line, exit 2', async () => {
    const r = await fetchTrace('ok', [], {}, { stdoutFile: '/dev/full' });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('netpolicy fetch: cannot write to standard output: no space left on device (ENOSPC)\n');
  });
});
