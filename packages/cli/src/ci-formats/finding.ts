/**
 * The one shape the CI formats read (GitHub annotations, GitLab Code Quality, JUnit, job
 * summaries): a finding with a level, a place in a file and a code. Each command turns its own
 * results into these (check's diagnostics, failing policy tests, explain's denials, diff's
 * changes); the formatters know nothing of the commands. Pure: no files, no process.
 */
import { LineIndex, type Diagnostic } from '@netpolicy/core';

export type CiLevel = 'error' | 'warning' | 'notice';

/** 1-based lines and columns, as GitHub, GitLab and SARIF count them. */
export interface CiRange { startLine: number; startColumn: number; endLine: number; endColumn: number }

export interface CiFinding {
  level: CiLevel;
  /** The file as the command names it (relative to the working directory, or absolute); absent: no file. */
  file?: string;
  range?: CiRange;
  /** Stable kebab-case code (a diagnostic code, `policy-test`, `denied`, ...): a title and a check name. */
  code: string;
  /** Outside text allowed: every formatter escapes it. One line (line breaks are escaped as `\n`). */
  message: string;
  /** More lines under the message (outside text allowed; each line escaped on its own). */
  details?: string[];
  /**
   * What makes this finding itself within its file and code, for a fingerprint that stays the
   * same across runs while the line moves (a JSON Pointer, a test's name). Absent: the message.
   */
  key?: string;
}

/** A diagnostic's severity as a CI level: hints and information are notices. */
export function levelOf(severity: Diagnostic['severity']): CiLevel {
  return severity === 'error' ? 'error' : severity === 'warning' ? 'warning' : 'notice';
}

/** Check's results as findings, one per diagnostic, in the report's order. */
export function* diagnosticFindings(results: Iterable<{ file: string; text: string; diagnostics: Diagnostic[] }>): Generator<CiFinding> {
  for (const r of results) {
    if (r.diagnostics.length === 0) continue;
    const index = new LineIndex(r.text);
    for (const d of r.diagnostics) {
      const { start, end } = index.range(d.offset, d.length);
      yield {
        level: levelOf(d.severity),
        file: r.file,
        range: { startLine: start.line + 1, startColumn: start.character + 1, endLine: end.line + 1, endColumn: end.character + 1 },
        code: d.code,
        message: d.message,
        key: d.pointer,
      };
    }
  }
}

export interface LevelCounts { error: number; warning: number; notice: number }

export function countLevels(findings: Iterable<CiFinding>): LevelCounts {
  const counts: LevelCounts = { error: 0, warning: 0, notice: 0 };
  for (const f of findings) counts[f.level]++;
  return counts;
}

export const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;
