import { describe, expect, it } from 'vitest';
import { bindPolicyTests, isPolicyTestFile, unboundProblem } from './policy-test-files';

describe('policy test files', () => {
  it('are named *.tests.json', () => {
    expect(['policy.tests.json', 'ci/deploy.tests.json', 'C:\\x\\A.TESTS.JSON'].map(isPolicyTestFile)).toEqual([true, true, true]);
    expect(['.tests.json', 'tests.json', 'policy.tests.jsonc', 'policy.netpolicy.json'].map(isPolicyTestFile)).toEqual([false, false, false, false]);
  });

  it('bind to their "policy" member, else the only policy file of their folder', () => {
    expect(bindPolicyTests({ policy: '../p.netpolicy.json', tests: [] }, ['a.netpolicy.json'])).toEqual({ kind: 'member', path: '../p.netpolicy.json' });
    expect(bindPolicyTests({ tests: [] }, ['README.md', 'policy.tests.json', 'ci.netpolicy.jsonc'])).toEqual({ kind: 'folder', name: 'ci.netpolicy.jsonc' });
    expect(bindPolicyTests({ tests: [] }, ['network-policy.json', 'b.netpolicy.json', 'x.json'])).toEqual({ kind: 'ambiguous', candidates: ['b.netpolicy.json', 'network-policy.json'] });
    expect(bindPolicyTests({ tests: [] }, ['x.json'])).toEqual({ kind: 'none' });
    // A member that is not a non-empty string binds nothing by itself (the schema says what is wrong).
    expect(bindPolicyTests({ policy: 3 }, ['a.netpolicy.json'])).toEqual({ kind: 'folder', name: 'a.netpolicy.json' });
    expect(bindPolicyTests(null, [])).toEqual({ kind: 'none' });
    // A project's filePatterns, when given, count too.
    expect(bindPolicyTests({}, ['net.json'], ['net.json'])).toEqual({ kind: 'folder', name: 'net.json' });
  });

  it('say why nothing is bound', () => {
    expect(unboundProblem({ kind: 'ambiguous', candidates: ['a.netpolicy.json', 'b.netpolicy.json'] }, 'ci')).toBe('several policies in ci and no "policy" member to choose one: a.netpolicy.json, b.netpolicy.json');
    expect(unboundProblem({ kind: 'none' }, 'ci')).toMatch(/^no policy file in ci/);
    expect(unboundProblem({ kind: 'folder', name: 'a' }, 'ci')).toBeUndefined();
  });
});
