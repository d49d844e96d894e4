import { describe, expect, it, beforeAll, afterAll } from 'vitest';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../src/main';

async function run(args: string[]) {
  let stdout = '';
  let stderr = '';
  const io = { stdout: { write: (t: string) => { stdout += t; return true; } }, stderr: { write: (t: string) => { stderr += t; return true; } }, env: {}, cwd: process.cwd() };
  const code = await main(args, io);
  return { code, stdout, stderr };
}

const fixtures = new URL('../../../fixtures/traces/', import.meta.url).pathname;
const fx = (p: string) => join(fixtures, p);
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'netpolicy-suggest-'));
  writeFileSync(join(dir, 'failing.tests.json'), JSON.stringify({ tests: [
    { name: 'telemetry must stay blocked', tls: { serverName: 'telemetry.example.io', port: 443 }, expect: 'deny' },
    { name: 'npm via the preset', http: { url: 'https://registry.npmjs.org/x' }, expect: 'allow', rule: 'preset:npm' },
  ] }));
  writeFileSync(join(dir, 'bad.tests.json'), JSON.stringify({ tests: [{ http: { url: 'https://x' }, expect: 'sometimes' }] }));
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('netpolicy suggest', () => {
  it('writes a policy that passes check and under which explain denies nothing', async () => {
    const traces = ['python-build', 'npm-build', 'container-build', 'ssh-clone', 'denials'].map((n) => fx(`${n}/trace.json`));
    const r = await run(['suggest', '--include-denied', ...traces]);
    expect(r.code).toBe(0);
    const file = join(dir, 'suggested.json');
    writeFileSync(file, r.stdout);
    expect((await run(['check', file])).code).toBe(0);
    for (const t of traces) {
      const e = JSON.parse((await run(['explain', '--format', 'json', '--policy', file, '--trace', t])).stdout);
      // Plain-http requests to software sources are allowed in their https form only (suggest lists them on stderr).
      expect(e.results.filter((x: { model: { verdict: string }; destination: string }) => x.model.verdict === 'deny' && !x.destination.startsWith('GET http://pypi.org/')).map((x: { destination: string }) => x.destination)).toEqual([]);
    }
    expect(JSON.parse(r.stdout).presets).toEqual(['debian', 'npm', 'pypi']);
  });

  it('exit 2 without traces or with an invalid one', async () => {
    expect((await run(['suggest'])).code).toBe(2);
    expect((await run(['suggest', join(dir, 'nope.json')])).code).toBe(2);
  });
});

describe('netpolicy test', () => {
  it('exit 0 when every fixture test passes', async () => {
    const r = await run(['test', '--policy', fx('denials/policy.netpolicy.json'), fx('denials/policy.tests.json')]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('✓ the database network (allow by /connections/1)');
    expect(r.stdout).toContain('8 passed, 0 failed');
  });

  it('exit 1 on a failure, naming the rule that decided', async () => {
    const r = await run(['test', '--policy', fx('python-build/policy.netpolicy.json'), join(dir, 'failing.tests.json')]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('✗ npm via the preset\n      expected allow, got deny (decided by the default)');
    const j = JSON.parse((await run(['test', '--format', 'json', '--policy', fx('npm-build/policy.netpolicy.json'), join(dir, 'failing.tests.json')])).stdout);
    expect(j.failed).toBe(0);
    expect(j.files[0].results[0]).toMatchObject({ name: 'telemetry must stay blocked', passed: true, actual: { verdict: 'deny', rule: 'default', certain: false } });
  });

  it('exit 2 for a test file that does not follow the schema', async () => {
    const r = await run(['test', '--policy', fx('denials/policy.netpolicy.json'), join(dir, 'bad.tests.json')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('not a policy test file');
  });
});

describe('netpolicy diff', () => {
  it('lists newly allowed and newly denied accesses', async () => {
    const newer = join(dir, 'newer.json');
    writeFileSync(newer, JSON.stringify({ default: 'deny', presets: ['pypi'], sources: [{ npm: { urls: ['https://registry.npmjs.org', 'https://registry.yarnpkg.com'] } }] }));
    const r = await run(['diff', '--trace', fx('denials/trace.json'), fx('denials/policy.netpolicy.json'), newer]);
    // A traced access newly denied fails the review by default (--fail-on newly-denied).
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('Newly allowed: 2');
    expect(r.stdout).toContain('+ GET https://registry.yarnpkg.com/left-pad/-/left-pad-1.3.0.tgz  ×2');
    expect(r.stdout).toContain('Newly denied: 1');
    expect(r.stdout).toContain('- tcp db.example.org:5432');
    const j = JSON.parse((await run(['diff', '--format', 'json', '--trace', fx('denials/trace.json'), fx('denials/policy.netpolicy.json'), newer])).stdout);
    expect(j.summary).toEqual({ accesses: 14, newlyAllowed: 2, newlyDenied: 1, ruleChanged: 0 });
    expect(j.changes[0]).toMatchObject({ sequence: 2, change: 'newly-allowed', old: { verdict: 'deny', rule: 'default' }, new: { verdict: 'allow', rule: '/sources/0' } });
    expect((await run(['diff', '--fail-on', 'newly-allowed', '--trace', fx('denials/trace.json'), fx('denials/policy.netpolicy.json'), newer])).code).toBe(1);
    expect((await run(['diff', '--fail-on', 'never', '--trace', fx('denials/trace.json'), fx('denials/policy.netpolicy.json'), newer])).code).toBe(0);
  });

  it('without --trace, only rule and lint changes (exit 0); exit 2 with one policy', async () => {
    const same = await run(['diff', fx('denials/policy.netpolicy.json'), fx('denials/policy.netpolicy.json')]);
    expect(same.code).toBe(0);
    expect(same.stdout).toContain('No traces given');
    expect((await run(['diff', '--trace', fx('denials/trace.json'), fx('denials/policy.netpolicy.json')])).code).toBe(2);
  });
});
