/**
 * The process edge of the CI formats (ci-formats/ holds the pure formatters): the job summary
 * appended to `GITHUB_STEP_SUMMARY`, the unguessable token that fences a log, and the pieces of a
 * `--format github` report.
 */
import { appendFileSync } from 'node:fs';
import { fencedLog, githubAnnotations, type AnnotationOptions } from './ci-formats/github';
import type { CiFinding } from './ci-formats/finding';
import { escapeControl } from './escape';
import { readFailure, UsageError, type Io } from './io';

/**
 * Appends Markdown to the job summary when the runner gives one (`GITHUB_STEP_SUMMARY`); returns
 * whether it did. A failed append is a failed write (one line, exit 2).
 */
export function appendStepSummary(io: Io, markdown: string): boolean {
  const file = io.env.GITHUB_STEP_SUMMARY;
  if (!file) return false;
  try {
    appendFileSync(file, markdown.endsWith('\n') ? `${markdown}\n` : `${markdown}\n\n`);
  } catch (error) {
    throw new UsageError(`cannot append the job summary to ${escapeControl(file)} (GITHUB_STEP_SUMMARY): ${readFailure(error)}`);
  }
  return true;
}

/** 128 random bits as hex: a `stop-commands` token no text written before it can guess. */
export function logToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

export interface GithubReport {
  findings: () => Iterable<CiFinding>;
  /** Where every finding can be seen (ends the notice that counts those left out). */
  seeAll: string;
  /** The plain log of every finding, in pieces (the text report without colour), fenced so that it runs no command. */
  log?: { title: string; pieces: Iterable<string> };
}

/** `--format github`: the annotations, then the full log inside a group, with workflow commands stopped. */
export function* githubReport(io: Io, report: GithubReport): Generator<string> {
  const options: AnnotationOptions = { cwd: io.cwd, workspace: io.env.GITHUB_WORKSPACE || undefined, seeAll: report.seeAll };
  yield githubAnnotations(report.findings(), options).text;
  if (!report.log) return;
  const token = logToken();
  // fencedLog's open and close around pieces written as they come.
  const [open, close] = fencedLog(report.log.title, '\u0000', token).split('\u0000\n');
  yield open;
  let last = '';
  for (const piece of report.log.pieces) {
    if (piece) last = piece;
    yield piece;
  }
  yield `${last === '' || last.endsWith('\n') ? '' : '\n'}${close}`;
}
