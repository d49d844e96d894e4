/**
 * `netpolicy test --format github|gitlab|junit`: policy test results through the CI formatters
 * (ci-formats/). Loaded only when one of these formats is asked for.
 */
import { LineIndex, parsePolicyDocument, type PolicyTestResult } from '@netpolicy/core';
import { Locator } from '@netpolicy/core/internal';
import { plural, type CiFinding } from '../../ci-formats/finding';
import { toGitlab } from '../../ci-formats/gitlab';
import { junitXml, type JUnitSuite } from '../../ci-formats/junit';
import { boundedTable, mdCode, mdText } from '../../ci-formats/summary';
import { appendStepSummary, githubReport } from '../../ci-output';
import type { Io } from '../../io';

export interface TestFileRun {
  /** The file as shown (`<stdin>` for `-`). */
  file: string;
  /** Its text, to place each test on its line. */
  text: string;
  results: PolicyTestResult[];
}

/** The 1-based line of each test (`/tests/N`) in the file's text; 1 when it cannot be found. */
function testLines(run: TestFileRun): (index: number) => number {
  const doc = parsePolicyDocument(run.text, { fileName: 'tests.json' });
  const locator = new Locator(doc);
  let lines: LineIndex | undefined;
  return (index) => {
    const found = locator.find(`/tests/${index}`);
    if (!found) return 1;
    lines ??= new LineIndex(run.text);
    return lines.range(found.node.offset, 0).start.line + 1;
  };
}

const expectation = (r: PolicyTestResult): string =>
  `expected ${r.expect}${r.expectRule ? ` by ${r.expectRule}` : ''}, got ${r.actual.verdict} by ${r.actual.rule}`;

/** A failing test as a finding: on the test's line in its file, code `policy-test`, keyed by its name and place. */
export function* testFindings(runs: TestFileRun[]): Generator<CiFinding> {
  for (const run of runs) {
    const failed = run.results.filter((r) => !r.passed);
    if (failed.length === 0) continue;
    const lineOf = testLines(run);
    for (const r of failed) {
      const line = lineOf(r.index);
      yield {
        level: 'error',
        ...(run.file === '<stdin>' ? {} : { file: run.file, range: { startLine: line, startColumn: 1, endLine: line, endColumn: 1 } }),
        code: 'policy-test',
        message: `${r.name}: ${r.message ?? expectation(r)}`,
        key: `${r.index}\n${r.name}`,
      };
    }
  }
}

export function junitTestReport(runs: TestFileRun[]): string {
  const suites: JUnitSuite[] = runs.map((run) => ({
    name: run.file,
    cases: run.results.map((r) => ({
      name: r.name,
      classname: run.file,
      ...(r.passed ? {} : { failure: { message: r.message ?? expectation(r), type: 'policy-test', lines: [expectation(r)] } }),
    })),
  }));
  return junitXml('netpolicy test', suites);
}

export function gitlabTestReport(io: Io, runs: TestFileRun[]): string {
  return toGitlab(testFindings(runs), { cwd: io.cwd, root: io.env.CI_PROJECT_DIR || undefined });
}

const LOG_TITLE = 'netpolicy test: every test';

/** Annotations for the failing tests, the text report fenced in a log group, and the job summary. */
export function* githubTestReport(io: Io, runs: TestFileRun[], textLog: string): Generator<string> {
  const all = runs.flatMap((r) => r.results);
  const failed = all.filter((r) => !r.passed).length;
  const summary = Boolean(io.env.GITHUB_STEP_SUMMARY);
  if (summary) {
    const rows = function* () {
      for (const run of runs) for (const r of run.results) if (!r.passed) yield [mdCode(run.file), mdText(r.name), mdText(r.message ?? expectation(r))];
    };
    const table = boundedTable({ head: ['File', 'Test', 'Why it failed'], rows: rows(), noun: ['failing test', 'failing tests'], seeAll: `the step's log (group "${LOG_TITLE}")` });
    appendStepSummary(io, [
      '## netpolicy test', '',
      `**${plural(all.length - failed, 'test')} passed, ${failed} failed**${failed === 0 ? ' ✅' : ''} (${plural(runs.length, 'test file')}).`,
      ...(table ? ['', table] : ['']),
    ].join('\n'));
  }
  yield* githubReport(io, {
    findings: () => testFindings(runs),
    seeAll: summary ? `the job summary, or the step's log (group "${LOG_TITLE}")` : `the step's log (group "${LOG_TITLE}")`,
    log: { title: LOG_TITLE, pieces: [textLog] },
  });
}
