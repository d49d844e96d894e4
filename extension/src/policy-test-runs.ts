/**
 * Running a policy test file from its lenses ("Run all N tests", "✓ allow via /sources/0"): the
 * lens runs the server's command `netpolicy.server.runPolicyTests` (the language client sends it
 * as `workspace/executeCommand`); the server runs the tests again and reports the file's
 * diagnostics. This middleware says the outcome in the status bar when they come (or, when nothing
 * changed, from the ones there), so that a click has a visible answer. No Node imports: it runs in
 * VS Code for the Web too.
 */
import * as vscode from 'vscode';
import type { Middleware } from 'vscode-languageclient';
import { parsePolicyDocument } from '@netpolicy/core';
import { showStatus } from './notify';

/** Must match the server's RUN_POLICY_TESTS_COMMAND (packages/language-server/src/policy-tests.ts). */
export const RUN_POLICY_TESTS_COMMAND = 'netpolicy.server.runPolicyTests';
/** Must match the language service's POLICY_TEST_CODE and POLICY_TEST_BINDING_CODE. */
const FAILED_CODE = 'policy-test';
const BINDING_CODE = 'policy-test-binding';

/** How long a run's diagnostics are listened for (each change says the outcome again). */
const LISTEN_MS = 15_000;
/** Without a change of diagnostics this long after the command's answer, the outcome is what they say. */
const SETTLE_MS = 1_000;
/** How long the status bar shows the outcome. */
const STATUS_MS = 10_000;

/** What a run of a test file came to, from its diagnostics and its text. */
export interface TestRunOutcome {
  tests: number;
  failed: number;
  /** Why no test was run (the file's schema problems, or its policy cannot be told or read). */
  notRun?: string;
}

/** What the outcome reads of a diagnostic (a vscode.Diagnostic is one). */
export interface DiagnosticLike {
  source?: string;
  code?: string | number | { value: string | number };
  severity: number;
  message: string;
}

const codeOf = (d: DiagnosticLike): string | number | undefined => (typeof d.code === 'object' ? d.code.value : d.code);

/** The outcome of a test file's last run: its tests (from its text) and its netpolicy diagnostics. */
export function testRunOutcome(text: string, diagnostics: readonly DiagnosticLike[]): TestRunOutcome {
  const value = parsePolicyDocument(text).value as { tests?: unknown } | undefined;
  const tests = Array.isArray(value?.tests) ? value.tests.length : 0;
  const ours = diagnostics.filter((d) => d.source === 'netpolicy');
  const binding = ours.find((d) => codeOf(d) === BINDING_CODE);
  if (binding) return { tests, failed: 0, notRun: binding.message };
  const failed = ours.filter((d) => codeOf(d) === FAILED_CODE).length;
  // Severity 0 is Error (vscode.DiagnosticSeverity.Error).
  const errors = ours.filter((d) => d.severity === 0 && codeOf(d) !== FAILED_CODE).length;
  if (errors > 0) return { tests, failed, notRun: `the file has ${errors} error${errors === 1 ? '' : 's'} (see Problems)` };
  return { tests, failed };
}

/** The status bar's words for an outcome (`name` is the file's name, outside text: the sink escapes it). */
export function outcomeText(name: string, o: TestRunOutcome): { icon: string; text: string } {
  if (o.notRun !== undefined) return { icon: '$(warning)', text: `netpolicy: the tests of ${name} were not run: ${o.notRun}` };
  if (o.failed > 0) return { icon: '$(error)', text: `netpolicy: ${o.failed} of ${o.tests} test${o.tests === 1 ? '' : 's'} of ${name} failed` };
  return { icon: '$(pass)', text: `netpolicy: ${o.tests === 1 ? 'the test' : `all ${o.tests} tests`} of ${name} passed` };
}

/**
 * Says the outcome of a run of `uri`'s tests: at each change of its diagnostics for `ms`, and once
 * `settle()` has been called and `SETTLE_MS` passed without one (a client that pulls diagnostics
 * hears of none when the run changed nothing: what it has is then the outcome).
 */
function sayOutcomes(uri: vscode.Uri, ms: number): { settle(): void } {
  const key = uri.toString();
  let shown: vscode.Disposable | undefined;
  let settleTimer: ReturnType<typeof setTimeout> | undefined;
  const say = () => {
    clearTimeout(settleTimer);
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === key);
    if (!doc) return;
    const { icon, text } = outcomeText(uri.path.slice(uri.path.lastIndexOf('/') + 1), testRunOutcome(doc.getText(), vscode.languages.getDiagnostics(uri)));
    shown?.dispose();
    shown = showStatus(icon, text, STATUS_MS);
  };
  const sub = vscode.languages.onDidChangeDiagnostics((e) => {
    if (e.uris.some((u) => u.toString() === key)) say();
  });
  setTimeout(() => sub.dispose(), ms);
  return { settle: () => { if (!shown) settleTimer = setTimeout(say, SETTLE_MS); } };
}

/** The client's middleware: the test command's outcome shown in the status bar; other commands pass through. */
export const policyTestRunMiddleware: Pick<Middleware, 'executeCommand'> = {
  async executeCommand(command, args, next) {
    if (command !== RUN_POLICY_TESTS_COMMAND || typeof args[0] !== 'string') return next(command, args);
    const outcomes = sayOutcomes(vscode.Uri.parse(args[0]), LISTEN_MS);
    const answer = await next(command, args);
    outcomes.settle();
    return answer;
  },
};
