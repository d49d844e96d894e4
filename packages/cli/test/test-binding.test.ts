/** `netpolicy test TESTS` without --policy: each test file's policy by its `policy` member, else the only policy of its folder (as a process). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { repoRoot, runCli } from './run-cli';

const fx = (p: string) => join(repoRoot, 'fixtures/traces', p);
let dir: string;
const tests = () => readFileSync(fx('denials/policy.tests.json'), 'utf8');

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'netpolicy-test-binding-'));
  for (const d of ['one', 'two', 'none', 'member/policies', 'jsonc']) mkdirSync(join(dir, d), { recursive: true });
  copyFileSync(fx('denials/policy.netpolicy.json'), join(dir, 'one/policy.netpolicy.json'));
  writeFileSync(join(dir, 'one/policy.tests.json'), tests());
  // A second test file beside it is not a policy.
  writeFileSync(join(dir, 'one/more.tests.json'), JSON.stringify({ tests: [{ tcp: { remoteIp: '10.99.0.1', port: 5432 }, expect: 'deny' }] }));
  copyFileSync(fx('denials/policy.netpolicy.json'), join(dir, 'two/a.netpolicy.json'));
  copyFileSync(fx('denials/policy.netpolicy.json'), join(dir, 'two/network-policy.json'));
  writeFileSync(join(dir, 'two/policy.tests.json'), tests());
  writeFileSync(join(dir, 'none/policy.tests.json'), tests());
  copyFileSync(fx('denials/policy.netpolicy.json'), join(dir, 'member/policies/ci.netpolicy.json'));
  copyFileSync(fx('npm-build/policy.netpolicy.json'), join(dir, 'member/other.netpolicy.json'));
  writeFileSync(join(dir, 'member/policy.tests.json'), JSON.stringify({ ...JSON.parse(tests()), policy: 'policies/ci.netpolicy.json' }));
  copyFileSync(fx('denials/policy.netpolicy.json'), join(dir, 'jsonc/ci.netpolicy.jsonc'));
  writeFileSync(join(dir, 'jsonc/policy.tests.json'), tests());
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('netpolicy test without --policy', () => {
  it('takes the only policy of the test file\'s folder (a test file beside it is not one)', () => {
    const r = runCli(['test', 'one/policy.tests.json', 'one/more.tests.json'], { cwd: dir });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('9 passed, 0 failed');
    const j = runCli(['test', '--format', 'json', 'jsonc/policy.tests.json'], { cwd: dir });
    expect([j.code, JSON.parse(j.stdout).passed]).toEqual([0, 8]);
  });

  it('gives the same verdicts as --policy on the same inputs', () => {
    const bound = runCli(['test', '--format', 'json', 'one/policy.tests.json'], { cwd: dir });
    const given = runCli(['test', '--format', 'json', '--policy', 'one/policy.netpolicy.json', 'one/policy.tests.json'], { cwd: dir });
    expect(bound.stdout).toBe(given.stdout);
  });

  it('takes the "policy" member, relative to the test file\'s folder, over the folder\'s policies', () => {
    const r = runCli(['test', 'member/policy.tests.json'], { cwd: dir });
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(r.stdout).toContain('8 passed, 0 failed');
    // From another current folder, the same file.
    expect(runCli(['test', join(dir, 'member/policy.tests.json')], { cwd: tmpdir() }).code).toBe(0);
    // Standard input: its folder is the current one.
    expect(runCli(['test', '-'], { cwd: join(dir, 'member'), input: readFileSync(join(dir, 'member/policy.tests.json'), 'utf8') }).code).toBe(0);
  });

  it('is exit 2 naming the candidates when the folder has several policies and no member', () => {
    const r = runCli(['test', 'two/policy.tests.json'], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('two/policy.tests.json: several policies in two and no "policy" member to choose one: a.netpolicy.json, network-policy.json');
    expect(r.stderr).toContain('--policy FILE');
    // --policy still chooses.
    expect(runCli(['test', '--policy', 'two/a.netpolicy.json', 'two/policy.tests.json'], { cwd: dir }).code).toBe(0);
  });

  it('is exit 2 saying so when there is no policy', () => {
    const r = runCli(['test', 'none/policy.tests.json'], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('none/policy.tests.json: no policy file in none');
  });

  it('says what is wrong with a "policy" member that names no readable policy (missing, a folder, a FIFO: never blocks)', () => {
    const write = (name: string, policy: string) => writeFileSync(join(dir, 'none', name), JSON.stringify({ policy, tests: [{ tcp: { port: 1 }, expect: 'deny' }] }));
    write('missing.tests.json', 'nope.netpolicy.json');
    write('folder.tests.json', '..');
    let r = runCli(['test', 'none/missing.tests.json'], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/nope\.netpolicy\.json/);
    r = runCli(['test', 'none/folder.tests.json'], { cwd: dir });
    expect(r.code).toBe(2);
    if (process.platform !== 'win32') {
      execFileSync('mkfifo', [join(dir, 'none/fifo.netpolicy.json')]);
      write('fifo.tests.json', 'fifo.netpolicy.json');
      r = runCli(['test', 'none/fifo.tests.json'], { cwd: dir });
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/FIFO|named pipe|not a regular file/i);
      rmSync(join(dir, 'none/fifo.netpolicy.json'));
    }
    // A "policy" member that is not a string is the schema's error.
    writeFileSync(join(dir, 'none/typed.tests.json'), JSON.stringify({ policy: 3, tests: [] }));
    r = runCli(['test', 'none/typed.tests.json'], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('/policy must be string');
  });
});
