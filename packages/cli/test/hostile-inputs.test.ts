/**
 * Re-probe of inputs that are not plain UTF-8 regular files, as processes: traces from a FIFO or a
 * process substitution (read once), standard input that is a directory, policies in UTF-16 or
 * with bytes that are not UTF-8.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bin, ensureBuilt, root } from './fetch-cli-helpers';
import { runProc } from './hostile-helpers';

const POLICY = join(root, 'fixtures/traces/denials/policy.netpolicy.json');
const TRACE = join(root, 'fixtures/traces/denials/trace.json');

let dir: string;
beforeAll(() => {
  ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'netpolicy-hostile-inputs-'));
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** A FIFO that `text` is written into once a reader opens it (as `<(cat trace.json)` gives). */
function fifoWith(name: string, text: Buffer | string): string | undefined {
  const fifo = join(dir, name);
  if (spawnSync('mkfifo', [fifo]).status !== 0) return undefined;
  const writer = createWriteStream(fifo);
  writer.on('error', () => {}); // the reader may stop early; nothing to report here
  writer.end(text);
  return fifo;
}

describe('a trace that can be read only once (FIFO, process substitution)', () => {
  it('suggest reads it once and gives the same policy as for the file', async (ctx) => {
    const fifo = fifoWith('suggest-trace', readFileSync(TRACE));
    if (!fifo) return ctx.skip(); // no mkfifo on this machine
    const fromFifo = await runProc(['suggest', fifo]);
    const fromFile = await runProc(['suggest', TRACE]);
    expect(fromFifo.stderr).not.toMatch(/invalid trace|truncated/);
    expect(fromFifo.code).toBe(0);
    expect(fromFifo.stdout).toBe(fromFile.stdout);
  });

  it('diff reads it once', async (ctx) => {
    const fifo = fifoWith('diff-trace', readFileSync(TRACE));
    if (!fifo) return ctx.skip();
    const minimal = join(root, 'fixtures/policies/minimal.netpolicy.json');
    const r = await runProc(['diff', '--format', 'json', '--trace', fifo, POLICY, minimal]);
    expect(r.stderr).toBe('');
    // Exit 1: the minimal policy denies traced accesses (diff's default --fail-on newly-denied).
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout).summary.accesses).toBeGreaterThan(0);
  });

  it('bash process substitution, as a user types it', async (ctx) => {
    if (spawnSync('bash', ['-c', 'true']).status !== 0) return ctx.skip();
    const r = spawnSync('bash', ['-c', `"${process.execPath}" "${bin}" suggest <(cat "${TRACE}")`], { encoding: 'utf8', env: { PATH: process.env.PATH, NO_COLOR: '1' } });
    expect(r.stderr).not.toMatch(/invalid trace|truncated/);
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout).default).toBe('deny');
  });
});

describe('standard input that is not a readable file', () => {
  const withStdinDirectory = (args: string[]) => new Promise<{ code: number | null; stderr: string }>((resolve) => {
    // `netpolicy … - < /tmp`: the shell opens the directory as standard input.
    const child = spawn('/bin/sh', ['-c', `exec "$0" "$@" < "${dir}"`, process.execPath, bin, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c) => (stderr += c));
    child.on('close', (code) => resolve({ code, stderr }));
  });

  it('a directory: one line saying so, exit 2', async () => {
    for (const [args, cmd] of [[['check', '-'], 'check'], [['test', '--policy', POLICY, '-'], 'test'], [['explain', '--policy', '-', '--trace', TRACE], 'explain']] as const) {
      const r = await withStdinDirectory([...args]);
      expect(r.code).toBe(2);
      expect(r.stderr).toBe(`netpolicy ${cmd}: cannot read standard input: is a directory, not a file\n`);
    }
  });
});

describe('text that is not UTF-8 is named as such, not read as replacement characters', () => {
  const policy = '{"default": "deny", "presets": ["pypi"]}\n';

  it('UTF-16 (what PowerShell\'s `>` writes): exit 2, says to save it as UTF-8', async () => {
    const le = join(dir, 'utf16le.netpolicy.json');
    writeFileSync(le, Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(policy, 'utf16le')]));
    const be = join(dir, 'utf16be.netpolicy.json');
    writeFileSync(be, Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(policy, 'utf16le').swap16()]));
    for (const file of [le, be]) {
      const r = await runProc(['check', file]);
      expect(r.code).toBe(2);
      expect(r.stderr).toBe(`netpolicy check: cannot read ${file}: it is UTF-16 text; save it as UTF-8\n`);
      expect(r.stdout).not.toContain('✓');
    }
    const explain = await runProc(['explain', '--policy', le, '--trace', TRACE]);
    expect(explain.code).toBe(2);
    expect(explain.stderr).toBe(`netpolicy explain: cannot read ${le}: it is UTF-16 text; save it as UTF-8\n`);
  });

  it('Latin-1 bytes: exit 2, naming the byte and where it is; the same on standard input', async () => {
    const file = join(dir, 'latin1.netpolicy.jsonc');
    const text = Buffer.concat([Buffer.from('{\n  // caf'), Buffer.from([0xe9]), Buffer.from('\n  "default": "deny"\n}\n')]);
    writeFileSync(file, text);
    const r = await runProc(['check', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`netpolicy check: cannot read ${file}: not UTF-8 text (byte 0xe9 at offset 10); save it as UTF-8\n`);
    const stdin = await runProc(['check', '-'], { stdinFile: file });
    expect(stdin.code).toBe(2);
    expect(stdin.stderr).toBe('netpolicy check: cannot read standard input: not UTF-8 text (byte 0xe9 at offset 10); save it as UTF-8\n');
  });

  it('a UTF-8 byte order mark is fine', async () => {
    const file = join(dir, 'bom.netpolicy.json');
    writeFileSync(file, `\ufeff${policy}`);
    const r = await runProc(['check', '--strict', file]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
  });
});

describe('check DIR and what is not a regular file', () => {
  // `check DIR` used to read every entry whose name matches, FIFOs included: one named like a
  // policy blocked the run for ever (no writer). The walk takes regular files (and links to them).
  it('a FIFO named like a policy in a checked folder does not block the run', async (ctx) => {
    const folder = join(dir, 'with-fifo');
    mkdirSync(folder);
    writeFileSync(join(folder, 'a.netpolicy.json'), '{"default": "deny"}');
    if (spawnSync('mkfifo', [join(folder, 'b.netpolicy.json')]).status !== 0) return ctx.skip();
    const r = await runProc(['check', folder], { timeoutMs: 30_000 }); // blocked for ever before the fix
    expect(r.signal).toBeNull();
    expect(r.code).toBe(0);
  });
});

describe('a huge string from a policy, trace or test file is one short line of a text report', () => {
  const MB = 'a'.repeat(1 << 20);
  const traceWith = (url: string, denied: boolean) => {
    const doc = JSON.parse(readFileSync(TRACE, 'utf8')) as { observations: Record<string, unknown>[] };
    const first = doc.observations.find((o) => o.protocol === 'http')!;
    Object.assign(first, { url, denied, ...(denied ? { denied_reason: 'not allowed by policy' } : {}) });
    const file = join(dir, `huge-${denied ? 'denied' : 'allowed'}.json`);
    writeFileSync(file, JSON.stringify(doc));
    return file;
  };

  it('test: a 1 MB test name', async () => {
    const tests = join(dir, 'huge-name.tests.json');
    writeFileSync(tests, JSON.stringify({ tests: [{ name: MB, http: { method: 'GET', url: 'https://pypi.org/simple/' }, expect: 'deny' }] }));
    const r = await runProc(['test', '--policy', POLICY, tests]);
    expect([0, 1]).toContain(r.code);
    expect(r.stdout.length).toBeLessThan(5000);
    expect(r.stdout).toContain(`${'a'.repeat(300)}…`);
  });

  it('suggest: a denied 1 MB URL in the list of what was left out', async () => {
    const r = await runProc(['suggest', traceWith(`https://x.example/${MB}`, true)]);
    expect(r.code).toBe(0);
    expect(r.stderr.length).toBeLessThan(10_000);
    expect(r.stderr).toContain('…');
  });

  // The text report clips outside text at 2,000 characters (commands/explain/render.ts).
  it('explain (text): a 1 MB URL is not printed in full', async () => {
    const r = await runProc(['explain', '--policy', POLICY, '--trace', traceWith(`https://x.example/${MB}`, true)]);
    expect(r.code).toBe(0);
    expect(r.stdout.length).toBeLessThan(100_000);
    expect(r.stdout).toContain(`https://x.example/${MB.slice(0, 100)}`);
    expect(r.stdout).toContain('…');
  });

  // A recorded-allowed access whose host is over 253 characters used to become a rule that
  // `check --strict` flags (unmatchable-host-pattern); suggest leaves it out, with a note.
  it('suggest: a host over 253 characters gives no rule check --strict flags', async () => {
    const out = join(dir, 'long-host.netpolicy.json');
    const r = await runProc(['suggest', '-o', out, traceWith(`https://${'b'.repeat(300)}.example/x`, false)]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('left out 1 access to host names no rule can match');
    const check = await runProc(['check', '--strict', out]);
    expect(check.stdout).not.toContain('unmatchable-host-pattern');
    expect(check.code).toBe(0);
  });
});

describe.skipIf(!existsSync('/dev/zero'))('an endless input is refused at a bound, not read until memory runs out', () => {
  it('check /dev/zero: one line, exit 2 (before: abort after 3 GB, exit 134)', async () => {
    const r = await runProc(['check', '/dev/zero'], { timeoutMs: 60_000 });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('netpolicy check: cannot read /dev/zero: larger than 512 MiB, the most it may hold (an endless device?)\n');
  });

  it('fetch --token-file /dev/zero: refused at 64 KiB, before any request', async () => {
    const r = await runProc(['fetch', 'trace', '--repo', 'acme/webapp', '--job-id', '1', '--base-url', 'http://127.0.0.1:9', '--token-file', '/dev/zero']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('netpolicy fetch: cannot read /dev/zero: larger than 64 KiB, the most it may hold (an endless device?)\n');
  });
});
