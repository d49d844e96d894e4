/**
 * Broken pipes, full disks and control characters for every command, as processes (issue 10
 * items 2 and 3): `… | head -c 1` ends the CLI quietly with 141; `> /dev/full` is one line on
 * stderr and exit 2; policy and trace strings are printed with control characters escaped.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from './fetch-cli-helpers';
import { RAW_CONTROL, runIntoHead, runProc } from './hostile-helpers';

let dir: string;
let bigPolicy: string;
let bigTrace: string;
let denyPolicy: string;
const hasDevFull = existsSync('/dev/full');

beforeAll(() => {
  ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'netpolicy-hostile-streams-'));
  // Output well over a pipe's 64 KiB buffer, so writes go on after the reader has gone.
  bigPolicy = join(dir, 'big.netpolicy.json');
  writeFileSync(bigPolicy, JSON.stringify({ default: 'deny', presets: Array.from({ length: 3000 }, (_, i) => `no-such-preset-${i}`) }, null, 1));
  denyPolicy = join(dir, 'deny.json');
  writeFileSync(denyPolicy, JSON.stringify({ default: 'deny', presets: [] }));
  bigTrace = join(dir, 'trace.json');
  writeFileSync(bigTrace, JSON.stringify({
    schema_version: '1.0',
    job: { provider: 'ciprovider', repository: 'acme/app', job_id: '1', status: 'failure' },
    observations: Array.from({ length: 3000 }, (_, i) => ({
      protocol: 'http', observed_at: '2026-03-02T10:15:01.037Z', sequence: i + 1, method: 'GET',
      url: `https://host-${i}.example.org/some/long/path/to/a/package-${i}.tgz`, remote_ip: '192.0.2.1', status_code: 403,
      response_body_size: '0', denied: true, denied_reason: 'not allowed by policy',
    })),
  }));
});

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('a closed stdout pipe ends the process quietly (issue 10 item 3)', () => {
  const commands: [string, () => string[]][] = [
    ['check', () => ['check', bigPolicy]],
    ['check --format json', () => ['check', '--format', 'json', bigPolicy]],
    ['explain', () => ['explain', '--policy', denyPolicy, '--trace', bigTrace]],
    ['explain --format json --only denied', () => ['explain', '--format', 'json', '--only', 'denied', '--policy', denyPolicy, '--trace', bigTrace]],
    ['suggest', () => ['suggest', '--include-denied', bigTrace]], // its accesses are recorded as denied: allowed too, for a large output,
  ];
  for (const [name, args] of commands) {
    it(`${name} | head -c 1: exit 141, nothing on stderr`, async () => {
      const r = await runIntoHead(args());
      expect(r.head).toHaveLength(1);
      expect(r.stderr).toBe('');
      expect(r.status).toBe(141);
    });
  }
});

describe.skipIf(!hasDevFull)('a failed write is one line on stderr and exit 2 (issue 10 item 3)', () => {
  const commands: [string, () => string[]][] = [
    ['check', () => ['check', 'fixtures/policies/problems.netpolicy.json']],
    ['check --format sarif', () => ['check', '--format', 'sarif', 'fixtures/policies/minimal.netpolicy.json']],
    ['explain', () => ['explain', '--policy', 'fixtures/traces/denials/policy.netpolicy.json', '--trace', 'fixtures/traces/denials/trace.json']],
    ['explain --format json', () => ['explain', '--format', 'json', '--policy', 'fixtures/traces/denials/policy.netpolicy.json', '--trace', 'fixtures/traces/denials/trace.json']],
    ['suggest', () => ['suggest', 'fixtures/traces/denials/trace.json']],
    ['--help', () => ['--help']],
  ];
  for (const [name, args] of commands) {
    it(`${name} > /dev/full`, async () => {
      const r = await runProc(args(), { stdoutFile: '/dev/full' });
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/^netpolicy( [a-z]+)?: cannot write to standard output: no space left on device \(ENOSPC\)\n$/);
    });
  }
});

describe('policy and trace strings are printed with control characters escaped (issue 10 item 2)', () => {
  const evil = 'py\u001b]0;pwned\u0007\r\nnetpolicy check: ok\u009b2J\u202ekcab';

  it('check: messages and excerpts', async () => {
    const file = join(dir, 'evil.netpolicy.json');
    writeFileSync(file, JSON.stringify({ default: 'deny', presets: [evil] }));
    for (const env of [{}, { FORCE_COLOR: '1' }]) {
      const r = await runProc(['check', file], { env });
      expect(r.code).toBe(1);
      // Colour codes are ours (FORCE_COLOR); nothing else may reach the terminal raw.
      const out = r.stdout.replace(/\u001b\[\d+m/g, '');
      expect(out).not.toMatch(RAW_CONTROL);
      expect(out).toContain('py\\u001b]0;pwned\\u0007');
      expect(out).toContain('netpolicy check: ok\\u009b2J\\u202ekcab');
      expect(out.split('\n').some((l) => l.startsWith('netpolicy check: ok'))).toBe(false);
    }
  });

  it('explain: an invalid policy names its problems, escaped, one per line', async () => {
    const file = join(dir, 'evil-policy.json');
    writeFileSync(file, JSON.stringify({ default: 'deny', presets: [evil] }));
    const r = await runProc(['explain', '--policy', file, '--trace', 'fixtures/traces/denials/trace.json']);
    expect(r.code).toBe(2);
    expect(r.stderr).not.toMatch(RAW_CONTROL);
    expect(r.stderr).toContain('is not a valid policy:');
    expect(r.stderr).toContain('\\u001b]0;pwned');
    expect(r.stderr.split('\n').some((l) => l.startsWith('netpolicy check: ok'))).toBe(false);
  });

  it('explain: trace strings in the text and Markdown reports', async () => {
    const trace = join(dir, 'evil-trace.json');
    writeFileSync(trace, JSON.stringify({
      schema_version: '1.0',
      job: { provider: 'ciprovider', repository: 'acme/app', job_id: '1', status: 'failure' },
      observations: [{
        protocol: 'http', observed_at: '2026-03-02T10:15:01.037Z', sequence: 1, method: 'GET',
        url: 'https://evil.example/\u001b[2J\u009b31m\u202e/x\r\n::error::forged', remote_ip: '192.0.2.1', status_code: 403,
        response_body_size: '0', denied: true, denied_reason: 'not allowed\u001b]0;title\u0007 by policy',
      }],
    }));
    for (const format of ['text', 'markdown']) {
      const r = await runProc(['explain', '--format', format, '--policy', denyPolicy, '--trace', trace]);
      expect(r.stderr + r.stdout).not.toMatch(RAW_CONTROL);
      expect((r.stderr + r.stdout).split('\n').some((l) => l.startsWith('::error::'))).toBe(false);
    }
  });

  it('test and diff: test names and trace destinations', async () => {
    const tests = join(dir, 'evil.tests.json');
    writeFileSync(tests, JSON.stringify({ tests: [
      { name: `ok\r\n${evil}`, http: { url: 'https://pypi.org/simple/x/' }, expect: 'deny' },
      { name: `fails\u001b[2K\u001b[1A`, http: { url: 'https://evil.example/\u009b31m' }, expect: 'allow' },
    ] }));
    const t = await runProc(['test', '--policy', denyPolicy, tests]);
    expect(t.code).toBe(1);
    expect(t.stdout + t.stderr).not.toMatch(RAW_CONTROL);
    expect(t.stdout).toContain('fails\\u001b[2K\\u001b[1A');
    const allow = join(dir, 'allow.json');
    writeFileSync(allow, JSON.stringify({ default: 'allow', presets: [] }));
    const trace = join(dir, 'evil-diff-trace.json');
    writeFileSync(trace, JSON.stringify({
      schema_version: '1.0',
      job: { provider: 'ciprovider', repository: 'acme/app', job_id: '1', status: 'success' },
      observations: [{ protocol: 'http', observed_at: '2026-03-02T10:15:01.037Z', sequence: 1, method: 'GET', url: 'https://evil.example/\u001b]0;t\u0007\u202ex', remote_ip: '192.0.2.1', status_code: 200, response_body_size: '0', denied: false }],
    }));
    const d = await runProc(['diff', '--trace', trace, allow, denyPolicy]);
    expect(d.stdout + d.stderr).not.toMatch(RAW_CONTROL);
    expect(d.stdout).toContain('newly denied');
  });

  it('an unknown command and a missing file are echoed escaped', async () => {
    const r = await runProc(['che\u001b[31mck']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('che\\u001b[31mck');
    const missing = await runProc(['check', 'no\u001b]0;x\u0007such.json']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).not.toMatch(RAW_CONTROL);
  });
});
