// A plain-http request whose https form the policy already allows: the fix is the job's
// (`{"kind":"job","note":...,"url":...}`), in every format (issue 20.4).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from './run-cli';

const NOTE = 'make the job use https://pypi.org/simple/six/; the policy already allows it (the job used plain http: http://pypi.org/simple/six/)';
const POLICY = '{\n  "default": "deny",\n  "presets": ["pypi"]\n}\n';

let dir: string;
let policy: string;
let trace: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'netpolicy-job-fix-'));
  policy = join(dir, 'policy.netpolicy.json');
  trace = join(dir, 'trace.json');
  writeFileSync(policy, POLICY);
  writeFileSync(trace, JSON.stringify({
    schema_version: '1.0',
    observations: [
      { protocol: 'http', sequence: 1, method: 'GET', url: 'http://pypi.org/simple/six/', denied: true, denied_reason: 'not allowed by policy' },
      { protocol: 'http', sequence: 2, method: 'GET', url: 'https://pypi.org/simple/six/', denied: false },
    ],
  }));
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('explain: a fix for the job (as a process)', () => {
  it('json: fix {kind: job, note, url}', () => {
    const r = runCli(['explain', '--format', 'json', '--policy', policy, '--trace', trace]);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.summary).toMatchObject({ observations: 2, allowed: 1, denied: 1 });
    const denied = report.results.find((x: { sequence: number }) => x.sequence === 1);
    expect(denied.model.verdict).toBe('deny');
    expect(denied.fix).toEqual({ kind: 'job', note: NOTE, url: 'https://pypi.org/simple/six/' });
    expect(report.results.find((x: { sequence: number }) => x.sequence === 2).fix).toBeNull();
  });

  it('text: the note as the fix, under the nearest rule', () => {
    const r = runCli(['explain', '--policy', policy, '--trace', trace]);
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    const at = lines.findIndex((l) => l.includes('GET http://pypi.org/simple/six/'));
    expect(at).toBeGreaterThan(-1);
    expect(lines.slice(at + 1, at + 3)).toEqual([
      '      nearest rule: preset:pypi: the rule URL is https, the request http',
      `      fix: ${NOTE}`,
    ]);
  });

  it('markdown: the note in the Fix column', () => {
    const r = runCli(['explain', '--format', 'markdown', '--policy', policy, '--trace', trace]);
    expect(r.code).toBe(0);
    const row = r.stdout.split('\n').find((l) => l.startsWith('| `GET http://pypi.org/simple/six/`'));
    expect(row?.split(' | ').at(-1)).toBe(`in the job: ${NOTE} |`);
  });

  it('--apply writes nothing for it: the policy needs no change', () => {
    const r = runCli(['explain', '--apply', '--format', 'json', '--policy', policy, '--trace', trace]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).results[0].fix.kind).toBe('job');
    expect(r.stderr).toContain('nothing to apply');
    expect(r.stderr).toContain('no denial has a fix for the policy');
    expect(readFileSync(policy, 'utf8')).toBe(POLICY);
  });
});
