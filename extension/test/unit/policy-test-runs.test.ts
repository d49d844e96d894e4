import { describe, expect, it, vi } from 'vitest';

vi.mock('vscode', () => ({}));
const { outcomeText, testRunOutcome } = await import('../../src/policy-test-runs');

const text = (n: number) => JSON.stringify({ tests: Array.from({ length: n }, (_, i) => ({ name: `t${i}`, access: { kind: 'https', url: 'https://pypi.org/' }, expect: 'allow' })) });
const diag = (code: string | { value: string }, severity = 0, message = 'm') => ({ source: 'netpolicy', code, severity, message });

describe('the outcome of a test run, from the file and its diagnostics', () => {
  it('counts the tests and the failing ones (codes bare or with a link)', () => {
    expect(testRunOutcome(text(3), [])).toEqual({ tests: 3, failed: 0 });
    expect(testRunOutcome(text(3), [diag('policy-test'), diag({ value: 'policy-test' })])).toEqual({ tests: 3, failed: 2 });
    expect(outcomeText('p.tests.json', { tests: 3, failed: 0 })).toEqual({ icon: '$(pass)', text: 'netpolicy: all 3 tests of p.tests.json passed' });
    expect(outcomeText('p.tests.json', { tests: 1, failed: 0 })).toEqual({ icon: '$(pass)', text: 'netpolicy: the test of p.tests.json passed' });
    expect(outcomeText('p.tests.json', { tests: 3, failed: 2 })).toEqual({ icon: '$(error)', text: 'netpolicy: 2 of 3 tests of p.tests.json failed' });
  });

  it('says why no test was run: the policy cannot be told or read, or the file has errors', () => {
    const binding = diag('policy-test-binding', 0, 'no policy file in this folder: add "policy": "FILE"');
    expect(testRunOutcome(text(2), [binding, diag('policy-test')])).toEqual({ tests: 2, failed: 0, notRun: 'no policy file in this folder: add "policy": "FILE"' });
    expect(testRunOutcome('{ "tests": [', [diag('syntax'), diag('policy-test', 0), diag('x', 1)])).toEqual({ tests: 0, failed: 1, notRun: 'the file has 1 error (see Problems)' });
    expect(outcomeText('p.tests.json', { tests: 2, failed: 0, notRun: 'why' })).toEqual({ icon: '$(warning)', text: 'netpolicy: the tests of p.tests.json were not run: why' });
  });

  it('ignores the diagnostics of other sources', () => {
    expect(testRunOutcome(text(1), [{ source: 'json', code: 'policy-test', severity: 0, message: 'x' }, { source: 'json', code: 1, severity: 0, message: 'x' }])).toEqual({ tests: 1, failed: 0 });
  });
});
