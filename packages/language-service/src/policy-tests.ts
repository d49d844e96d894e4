/**
 * Policy test files (`*.tests.json`, docs/policy-tests.md) in the editor, as plain functions over
 * the parsed test file and core's `runPolicyTests` results (the server evaluates; these only
 * place and word): the schema's problems, an error on each failing test, a lens per test and one
 * "Run all N tests", and the quick fix that expects what the policy decides.
 */
import { escapeControl, escapeIcons, policyTestFileDiagnostics, type Diagnostic, type PolicyDocument, type PolicyTestResult } from '@netpolicy/core';
import { CodeActionKind, DiagnosticSeverity, type CodeAction, type CodeLens, type Diagnostic as LspDiagnostic, type Range } from 'vscode-languageserver-types';
import { SOURCE, toLspDiagnostic } from './diagnostics';
import { intersects, pointerRange } from './ranges';

/**
 * The code of a failing test's diagnostic (as `netpolicy test --format github|gitlab` reports it).
 * @public
 */
export const POLICY_TEST_CODE = 'policy-test';
/**
 * The code of "this test file's policy cannot be told or read".
 * @public
 */
export const POLICY_TEST_BINDING_CODE = 'policy-test-binding';

/**
 * What a failing test's diagnostic carries for its quick fix.
 * @public
 */
export interface PolicyTestFailure {
  /** The test's index in `tests`. */
  index: number;
  /** What the policy decided. */
  verdict: 'allow' | 'deny';
  /** The rule that decided it (`/sources/N`, `/connections/N`, `preset:NAME`, `default`). */
  rule: string;
  /** The test named a rule (`rule` member): its fix names the deciding one. */
  withRule: boolean;
}

/**
 * The syntax and schema problems of a test file (core's, placed at key or value).
 * @public
 */
export function policyTestFileProblems(doc: PolicyDocument): Diagnostic[] {
  return policyTestFileDiagnostics(doc);
}

const shown = (rule: string | undefined): string => escapeControl(escapeIcons(rule ?? 'default'));
const decided = (r: PolicyTestResult): string => `${r.actual.verdict === 'allow' ? 'allowed' : 'denied'} by ${shown(r.actual.rule)}`;

/**
 * A test's lens title: `✓ allow via /sources/0`, `✗ expected allow, denied by default`.
 * @public
 */
export function policyTestLensTitle(r: PolicyTestResult): string {
  if (r.passed) return `✓ ${r.actual.verdict} via ${shown(r.actual.rule)}`;
  return `✗ expected ${r.expect}${r.expectRule ? ` by ${shown(r.expectRule)}` : ''}, ${decided(r)}${r.actual.certain ? '' : ' (uncertain: an opaque preset is enabled)'}`;
}

/**
 * An error on each failing test: on its `rule` when only the rule differs, else on its `expect`,
 * saying what was expected, what the policy decided and by which rule (`netpolicy test`'s message).
 * The test's name is the file's text: its control and bidi characters are shown as escapes, as
 * `netpolicy test` prints them.
 * @public
 */
export function policyTestFailureDiagnostics(doc: PolicyDocument, results: readonly PolicyTestResult[]): LspDiagnostic[] {
  const out: LspDiagnostic[] = [];
  for (const r of results) {
    if (r.passed) continue;
    const onRule = r.actual.verdict === r.expect && r.expectRule !== undefined;
    const range = pointerRange(doc, `/tests/${r.index}/${onRule ? 'rule' : 'expect'}`) ?? pointerRange(doc, `/tests/${r.index}`);
    if (!range) continue;
    const data: PolicyTestFailure = { index: r.index, verdict: r.actual.verdict, rule: r.actual.rule ?? 'default', withRule: r.expectRule !== undefined };
    out.push({ range, severity: DiagnosticSeverity.Error, code: POLICY_TEST_CODE, source: SOURCE, message: escapeControl(`${r.name}: ${r.message ?? policyTestLensTitle(r)}`), data });
  }
  return out;
}

/**
 * The one error of a test file whose policy cannot be told or read: on its `policy` member, else at the file's start.
 * @public
 */
export function policyTestBindingDiagnostic(doc: PolicyDocument, message: string): LspDiagnostic {
  const range = pointerRange(doc, '/policy') ?? { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } };
  return { range, severity: DiagnosticSeverity.Error, code: POLICY_TEST_BINDING_CODE, source: SOURCE, message: escapeControl(message) };
}

/**
 * Every diagnostic of a test file: its schema problems, then its failing tests (or why none were run).
 * @public
 */
export function policyTestDiagnostics(doc: PolicyDocument, uri: string, outcome: { results?: readonly PolicyTestResult[]; problem?: string }): LspDiagnostic[] {
  const out = policyTestFileProblems(doc).map((d) => toLspDiagnostic(doc, uri, d));
  if (outcome.problem) out.push(policyTestBindingDiagnostic(doc, outcome.problem));
  if (outcome.results) out.push(...policyTestFailureDiagnostics(doc, outcome.results));
  return out;
}

/**
 * A lens on each test with its outcome, and "Run all N tests" on `tests`; each runs `command`
 * with the test file's URI (the server evaluates the tests again).
 * @public
 */
export function policyTestCodeLenses(doc: PolicyDocument, uri: string, results: readonly PolicyTestResult[], command: string): CodeLens[] {
  const out: CodeLens[] = [];
  const at = (range: Range): Range => ({ start: range.start, end: range.start });
  const all = pointerRange(doc, '/tests', true);
  if (all) {
    const failed = results.filter((r) => !r.passed).length;
    const n = results.length;
    const title = `Run all ${n} test${n === 1 ? '' : 's'}${n === 0 ? '' : failed === 0 ? ` (${n} passed)` : ` (${failed} failed)`}`;
    out.push({ range: at(all), command: { title, command, arguments: [uri] } });
  }
  for (const r of results) {
    const range = pointerRange(doc, `/tests/${r.index}`);
    if (range) out.push({ range: at(range), command: { title: policyTestLensTitle(r), command, arguments: [uri] } });
  }
  return out;
}

function isFailure(data: unknown): data is PolicyTestFailure {
  const d = data as PolicyTestFailure | null;
  return typeof d === 'object' && d !== null && Number.isInteger(d.index) && (d.verdict === 'allow' || d.verdict === 'deny') && typeof d.rule === 'string';
}

/**
 * The quick fix of a failing test: expect what the policy decides (its verdict, and its deciding
 * rule when the test names one). From the current results, so a fix never applies to a stale run.
 * @public
 */
export function policyTestCodeActions(doc: PolicyDocument, uri: string, range: Range, results: readonly PolicyTestResult[]): CodeAction[] {
  const out: CodeAction[] = [];
  const diagnostics = policyTestFailureDiagnostics(doc, results);
  for (const d of diagnostics) {
    if (!intersects(d.range, range) || !isFailure(d.data)) continue;
    const { index, verdict, rule, withRule } = d.data;
    const edits = [];
    const expect = pointerRange(doc, `/tests/${index}/expect`);
    if (expect) edits.push({ range: expect, newText: JSON.stringify(verdict) });
    const ruleRange = withRule ? pointerRange(doc, `/tests/${index}/rule`) : undefined;
    if (ruleRange) edits.push({ range: ruleRange, newText: JSON.stringify(rule) });
    if (edits.length === 0) continue;
    out.push({
      title: `Expect ${verdict}${ruleRange ? ` by ${shown(rule)}` : ''} (what the policy decides)`,
      kind: CodeActionKind.QuickFix, diagnostics: [d], isPreferred: true,
      edit: { changes: { [uri]: edits } },
    });
  }
  return out;
}
