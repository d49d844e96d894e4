/**
 * `netpolicy check --format github|gitlab|junit`: check's results through the CI formatters
 * (ci-formats/). Loaded only when one of these formats is asked for.
 */
import { diagnosticFindings, countLevels, plural } from '../../ci-formats/finding';
import { gitlabReport } from '../../ci-formats/gitlab';
import { checkSuites, junitXml } from '../../ci-formats/junit';
import { findingsSummary, mdCode } from '../../ci-formats/summary';
import { appendStepSummary, githubReport } from '../../ci-output';
import { textReport, type FileResult } from './report';
import type { Io } from '../../io';

export function gitlabCheckReport(io: Io, results: FileResult[]): Iterable<string> {
  return gitlabReport(diagnosticFindings(results), { cwd: io.cwd, root: io.env.CI_PROJECT_DIR || undefined });
}

export function junitCheckReport(results: FileResult[], strict: boolean): string {
  return junitXml('netpolicy check', checkSuites(results.map((r) => ({ file: r.file, findings: diagnosticFindings([r]) })), strict));
}

const LOG_TITLE = 'netpolicy check: every finding';

/**
 * Annotations (at most 10 per level), the text report in a fenced log group, and, when the runner
 * gives `GITHUB_STEP_SUMMARY`, the job summary: counts and a table of the findings.
 */
export function* githubCheckReport(io: Io, results: FileResult[], run: { failed: boolean; strict: boolean; configs: string[] }): Generator<string> {
  const counts = countLevels(diagnosticFindings(results));
  const summary = Boolean(io.env.GITHUB_STEP_SUMMARY);
  if (summary) {
    const verdict = run.failed ? 'the check failed (a file could not be read; see the log)'
      : counts.error || (run.strict && counts.warning) ? 'fails' : 'passes';
    const intro = [
      `${plural(results.length, 'policy file')} checked${run.strict ? ' with `--strict`' : ''}: ${verdict}.`,
      ...(run.configs.length ? [`Config in force: ${run.configs.map((c) => mdCode(c)).join(', ')}.`] : []),
      '',
    ];
    appendStepSummary(io, findingsSummary({ title: 'netpolicy check', intro, counts, findings: diagnosticFindings(results), seeAll: `the step's log (group "${LOG_TITLE}")` }));
  }
  yield* githubReport(io, {
    findings: () => diagnosticFindings(results),
    seeAll: summary ? `the job summary, or the step's log (group "${LOG_TITLE}")` : `the step's log (group "${LOG_TITLE}")`,
    log: { title: LOG_TITLE, pieces: textReport(results, { color: false, excerpt: false, failed: run.failed }) },
  });
}
