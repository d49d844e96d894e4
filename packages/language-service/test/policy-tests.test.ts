import { describe, expect, it } from 'vitest';
import { checkPolicyTestFile, parsePolicyDocument, runPolicyTests, type Policy } from '@netpolicy/core';
import {
  policyTestBindingDiagnostic, policyTestCodeActions, policyTestCodeLenses, policyTestDiagnostics, policyTestLensTitle,
} from '../src/policy-tests';

const POLICY: Policy = {
  default: 'deny',
  presets: ['$(pass-filled)'],
  sources: [{ npm: { urls: ['https://registry.npmjs.org'] } }],
} as unknown as Policy;
const policy = { default: 'deny', presets: [], sources: [{ npm: { urls: ['https://registry.npmjs.org'] } }] } as Policy;

/** A test file's text, its parse and its results against `policy`. */
function run(tests: object[], p: Policy = policy) {
  const text = JSON.stringify({ tests }, null, 2);
  const doc = parsePolicyDocument(text, { fileName: 'policy.tests.json' });
  return { text, doc, results: runPolicyTests(p, checkPolicyTestFile(doc.value)) };
}
const slice = (text: string, r: { start: { line: number; character: number }; end: { line: number; character: number } }) => {
  const lines = text.split('\n');
  return r.start.line === r.end.line ? lines[r.start.line].slice(r.start.character, r.end.character) : `${lines[r.start.line].slice(r.start.character)}…`;
};

describe('policy test files in the service', () => {
  const tests = [
    { name: 'npm', http: { url: 'https://registry.npmjs.org/x' }, expect: 'allow', rule: '/sources/0' },
    { name: 'other', http: { url: 'https://example.com/x/' }, expect: 'allow' },
    { name: 'npm by a preset', http: { url: 'https://registry.npmjs.org/y' }, expect: 'allow', rule: 'preset:npm' },
    { tcp: { remoteIp: '192.0.2.1', port: 22 }, expect: 'deny' },
  ];

  it('word each test\'s lens as its outcome: ✓ verdict via rule, ✗ expected, decided by', () => {
    const { results } = run(tests);
    expect(results.map(policyTestLensTitle)).toEqual([
      '✓ allow via /sources/0',
      '✗ expected allow, denied by default',
      '✗ expected allow by preset:npm, allowed by /sources/0',
      '✓ deny via default',
    ]);
  });

  it('put the lenses at each test\'s start and "Run all N tests" on `tests`, each running the command with the URI', () => {
    const { text, doc, results } = run(tests);
    const lenses = policyTestCodeLenses(doc, 'file:///t.tests.json', results, 'run');
    expect(lenses.map((l) => [l.range.start.line, l.command!.title, l.command!.command, l.command!.arguments])).toEqual([
      [1, 'Run all 4 tests (2 failed)', 'run', ['file:///t.tests.json']],
      ...results.map((r, i) => [text.split('\n').findIndex((l, n) => n > 1 && l === '    {' && text.split('\n').slice(2, n + 1).filter((x) => x === '    {').length === i + 1), policyTestLensTitle(r), 'run', ['file:///t.tests.json']]),
    ]);
    expect(policyTestCodeLenses(run([]).doc, 'u', [], 'run').map((l) => l.command!.title)).toEqual(['Run all 0 tests']);
  });

  it('an error on each failing test: on `expect` when the verdict differs, on `rule` when only the rule does', () => {
    const { text, doc, results } = run(tests);
    const d = policyTestDiagnostics(doc, 'u', { results });
    expect(d.map((x) => [x.code, x.severity, slice(text, x.range), x.message])).toEqual([
      ['policy-test', 1, '"allow"', 'other: expected allow, got deny (decided by the default)'],
      ['policy-test', 1, '"preset:npm"', 'npm by a preset: expected allow by preset:npm, got allow by /sources/0'],
    ]);
  });

  it('quick fix: expect what the policy decides (the rule too when the test names one)', () => {
    const { text, doc, results } = run(tests);
    const d = policyTestDiagnostics(doc, 'u', { results });
    const fix = (i: number) => policyTestCodeActions(doc, 'u', d[i].range, results).map((a) => [a.title, a.isPreferred, a.edit!.changes!.u.map((e) => [slice(text, e.range), e.newText])]);
    expect(fix(0)).toEqual([['Expect deny (what the policy decides)', true, [['"allow"', '"deny"']]]]);
    expect(fix(1)).toEqual([['Expect allow by /sources/0 (what the policy decides)', true, [['"allow"', '"allow"'], ['"preset:npm"', '"/sources/0"']]]]);
    // Nowhere near a failure: nothing.
    expect(policyTestCodeActions(doc, 'u', { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, results)).toEqual([]);
  });

  it('neutralise rule names from the policy in lens titles (icons, controls)', () => {
    const { results } = run([{ http: { url: 'https://registry.npmjs.org/x' }, expect: 'deny', rule: '$(pass-filled)\u202e' }], POLICY);
    expect(policyTestLensTitle(results[0])).toContain('\\$(pass-filled)');
    expect(policyTestLensTitle(results[0])).not.toMatch(/\u202e/);
  });

  it('says why no test ran on the `policy` member, else at the start', () => {
    const doc = parsePolicyDocument('{\n  "policy": "../x.netpolicy.json",\n  "tests": []\n}', { fileName: 'a.tests.json' });
    expect(policyTestBindingDiagnostic(doc, 'why').range).toEqual({ start: { line: 1, character: 12 }, end: { line: 1, character: 33 } });
    const bare = parsePolicyDocument('{"tests": []}', { fileName: 'a.tests.json' });
    expect(policyTestBindingDiagnostic(bare, 'why').range.start).toEqual({ line: 0, character: 0 });
    expect(policyTestDiagnostics(bare, 'u', { problem: 'why' }).map((d) => [d.code, d.message])).toEqual([['policy-test-binding', 'why']]);
  });
});
