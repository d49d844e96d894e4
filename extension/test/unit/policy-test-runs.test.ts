import { afterEach, describe, expect, it, vi } from 'vitest';

/** A VS Code of one open test file: its diagnostics, their change event, the status bar's messages. */
const state = vi.hoisted(() => ({
  text: '',
  diagnostics: [] as unknown[],
  listeners: [] as ((e: { uris: { toString(): string }[] }) => void)[],
  status: [] as string[],
}));
vi.mock('vscode', () => {
  const uri = (s: string) => ({ toString: () => s, path: new URL(s).pathname });
  return {
    Uri: { parse: uri },
    workspace: { get textDocuments() { return [{ uri: uri('file:///w/ci.tests.json'), getText: () => state.text }]; } },
    languages: {
      getDiagnostics: () => state.diagnostics,
      onDidChangeDiagnostics: (fn: (e: { uris: { toString(): string }[] }) => void) => {
        state.listeners.push(fn);
        return { dispose: () => state.listeners.splice(state.listeners.indexOf(fn), 1) };
      },
    },
    window: { setStatusBarMessage: (text: string) => { state.status.push(text); return { dispose() {} }; } },
  };
});
const { RUN_POLICY_TESTS_COMMAND, outcomeText, policyTestRunMiddleware, testRunOutcome } = await import('../../src/policy-test-runs');

const text = (n: number) => JSON.stringify({ tests: Array.from({ length: n }, (_, i) => ({ name: `t${i}`, http: { url: 'https://pypi.org/' }, expect: 'allow' })) });
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

describe('a click on a test lens (the middleware of the server command)', () => {
  afterEach(() => {
    vi.useRealTimers();
    state.status.length = 0;
  });
  const run = (next: () => Promise<unknown>) => policyTestRunMiddleware.executeCommand!(RUN_POLICY_TESTS_COMMAND, ['file:///w/ci.tests.json'], next);

  it('says the outcome when the run reports the file\'s diagnostics, once', async () => {
    vi.useFakeTimers();
    state.text = text(3);
    state.diagnostics = [];
    await run(async () => {
      state.diagnostics = [diag('policy-test')];
      for (const l of [...state.listeners]) l({ uris: [{ toString: () => 'file:///w/ci.tests.json' }] });
      return null;
    });
    await vi.advanceTimersByTimeAsync(20_000);
    expect(state.status).toEqual(['$(error) netpolicy: 1 of 3 tests of ci.tests.json failed']);
    expect(state.listeners).toEqual([]);
  });

  it('says the outcome from the diagnostics there when the run changed none (a pulling client hears of nothing)', async () => {
    vi.useFakeTimers();
    state.text = text(2);
    state.diagnostics = [];
    await run(async () => null);
    expect(state.status).toEqual([]);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(state.status).toEqual(['$(pass) netpolicy: all 2 tests of ci.tests.json passed']);
    // Listened to for a while (a late report says it again), then no more.
    await vi.advanceTimersByTimeAsync(20_000);
    expect(state.listeners).toEqual([]);
  });

  it('passes other commands through untouched', async () => {
    const next = vi.fn(async () => 'answer');
    expect(await policyTestRunMiddleware.executeCommand!('other', [1], next)).toBe('answer');
    expect(next).toHaveBeenCalledWith('other', [1]);
    expect(state.listeners).toEqual([]);
  });
});
