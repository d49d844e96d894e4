import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { checkPolicyTestFile, PolicyTestFileError, runPolicyTests } from './policy-tests';
import { PolicyDiffer } from './diff';
import { parseTrace } from '../trace/reader';

const dir = new URL('../../../../fixtures/traces/', import.meta.url).pathname;
const json = (path: string) => JSON.parse(readFileSync(`${dir}${path}`, 'utf8'));

describe('policy tests', () => {
  it.each(['python-build', 'npm-build', 'container-build', 'ssh-clone', 'denials'])('%s: the fixture tests pass', (name) => {
    const results = runPolicyTests(json(`${name}/policy.netpolicy.json`), checkPolicyTestFile(json(`${name}/policy.tests.json`)));
    expect(results.filter((r) => !r.passed)).toEqual([]);
    expect(results.length).toBeGreaterThan(3);
  });

  it('reports the deciding rule of a failure', () => {
    const file = checkPolicyTestFile({ tests: [
      { name: 'wrong verdict', http: { url: 'https://evil.example/' }, expect: 'allow' },
      { name: 'wrong rule', http: { url: 'https://pypi.org/simple/' }, expect: 'allow', rule: '/sources/0' },
      { ssh: { host: 'github.com' }, expect: 'deny' },
    ] });
    const [a, b, c] = runPolicyTests({ presets: ['pypi'] }, file);
    expect(a).toMatchObject({ passed: false, message: 'expected allow, got deny (decided by the default)' });
    expect(b).toMatchObject({ passed: false, message: 'expected allow by /sources/0, got allow by preset:pypi' });
    expect(c).toMatchObject({ passed: true, name: 'ssh github.com:22' });
  });

  it('rejects files that do not follow the schema', () => {
    expect(() => checkPolicyTestFile({ tests: [{ http: { url: 'https://x' }, expect: 'maybe' }] })).toThrowError(PolicyTestFileError);
    expect(() => checkPolicyTestFile({ tests: [{ http: { url: 'https://x' }, tcp: { port: 1 }, expect: 'deny' }] })).toThrowError(/not a policy test file/);
    expect(() => checkPolicyTestFile({ tests: [{ expect: 'deny' }] })).toThrowError(/not a policy test file/);
    expect(() => checkPolicyTestFile({ test: [] })).toThrowError(/additional/);
  });
});

describe('diff', () => {
  it('lists accesses newly allowed and newly denied, and rule changes', () => {
    const oldPolicy = json('denials/policy.netpolicy.json');
    const newPolicy = { ...oldPolicy, presets: [], connections: [{ tls: { serverNamePatterns: ['example.org', '*.example.org'], ports: [443] } }] };
    const differ = new PolicyDiffer(oldPolicy, newPolicy);
    const changes = parseTrace(readFileSync(`${dir}denials/trace.json`, 'utf8')).observations.map((o) => differ.add(o)).filter((c) => c !== undefined);
    expect(changes.map((c) => [c!.sequence, c!.change, c!.old.rule, c!.new.rule])).toEqual([
      [4, 'newly-allowed', 'default', '/connections/0'],
      [11, 'newly-denied', 'preset:pypi', 'default'],
      [12, 'newly-denied', 'preset:pypi', 'default'],
      [15, 'newly-denied', '/connections/1', 'default'],
    ]);
    expect(differ.accesses).toBe(14);
  });
});
