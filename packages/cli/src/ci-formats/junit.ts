/**
 * `--format junit`: JUnit XML in its common (Ant / Jenkins / Surefire) form, which CI systems
 * read as test results: `testsuites` > `testsuite` (name, tests, failures, errors, skipped, time)
 * > `testcase` (name, classname, time) > `failure` (message, type). Pure.
 *
 * Escaping: `& < > " '` become entities; characters XML 1.0 forbids (C0 controls other than tab,
 * line feed and carriage return, lone surrogates, U+FFFE, U+FFFF) are written as visible `\uXXXX`
 * text, and control characters of outside text are made visible first (core's `escapeControl`).
 */
import { escapeControl } from '@netpolicy/core';
import { plural, type CiFinding } from './finding';

export interface JUnitFailure {
  /** One line (outside text allowed). */
  message: string;
  type: string;
  /** Lines of the failure's body (outside text allowed; each line escaped on its own). */
  lines?: string[];
}

export interface JUnitCase {
  name: string;
  classname: string;
  /** Seconds. */
  time?: number;
  failure?: JUnitFailure;
  /** Lines for `system-out` (what passed, but is worth reading: warnings without --strict). */
  output?: string[];
}

export interface JUnitSuite {
  name: string;
  cases: JUnitCase[];
  time?: number;
}

// Characters XML 1.0 does not allow (after escapeControl only these can remain).
const FORBIDDEN = /[\u0000-\u0008\u000b\u000c\u000e-\u001f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]|[\ufffe\uffff]/g;

/** Text for an XML attribute or element: outside text made visible and safe for XML 1.0. */
export function xmlText(text: string, max = 4000): string {
  const clipped = text.length > max ? `${text.slice(0, max)}…` : text;
  return escapeControl(clipped)
    .replace(FORBIDDEN, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
    .replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');
}

const seconds = (t: number | undefined): string => (t ?? 0).toFixed(3);

/** The XML document. `name` names the `testsuites` element (the command). */
export function junitXml(name: string, suites: JUnitSuite[]): string {
  const failures = (s: JUnitSuite) => s.cases.filter((c) => c.failure).length;
  const tests = suites.reduce((n, s) => n + s.cases.length, 0);
  const failed = suites.reduce((n, s) => n + failures(s), 0);
  const time = suites.reduce((n, s) => n + (s.time ?? 0), 0);
  const out = ['<?xml version="1.0" encoding="UTF-8"?>', `<testsuites name="${xmlText(name)}" tests="${tests}" failures="${failed}" errors="0" skipped="0" time="${seconds(time)}">`];
  for (const s of suites) {
    out.push(`  <testsuite name="${xmlText(s.name)}" tests="${s.cases.length}" failures="${failures(s)}" errors="0" skipped="0" time="${seconds(s.time)}">`);
    for (const c of s.cases) {
      const open = `    <testcase name="${xmlText(c.name)}" classname="${xmlText(c.classname)}" time="${seconds(c.time)}"`;
      if (!c.failure && !c.output?.length) {
        out.push(`${open}/>`);
        continue;
      }
      out.push(`${open}>`);
      if (c.failure) {
        const body = (c.failure.lines ?? []).map((l) => xmlText(l)).join('\n');
        out.push(`      <failure message="${xmlText(c.failure.message)}" type="${xmlText(c.failure.type)}">${body}</failure>`);
      }
      if (c.output?.length) out.push(`      <system-out>${c.output.map((l) => xmlText(l)).join('\n')}</system-out>`);
      out.push('    </testcase>');
    }
    out.push('  </testsuite>');
  }
  out.push('</testsuites>', '');
  return out.join('\n');
}

/** Lines listed in one failure at most (a file with a million findings of one code stays readable). */
export const LINES_PER_CASE = 1000;

/**
 * Check's results as suites: one suite per file, one case per code found in it (errors fail it;
 * warnings fail it with `strict`, else they are its output), and one passing case
 * `netpolicy check` for a file with no finding.
 */
export function checkSuites(files: Iterable<{ file: string; findings: Iterable<CiFinding> }>, strict: boolean): JUnitSuite[] {
  const suites: JUnitSuite[] = [];
  for (const { file, findings } of files) {
    const byCode = new Map<string, { fails: boolean; count: number; first: CiFinding; lines: string[] }>();
    for (const f of findings) {
      const fails = f.level === 'error' || (strict && f.level === 'warning');
      const g = byCode.get(f.code) ?? { fails: false, count: 0, first: f, lines: [] };
      byCode.set(f.code, g);
      g.fails ||= fails;
      g.count++;
      if (g.lines.length < LINES_PER_CASE) g.lines.push(`${file}${f.range ? `:${f.range.startLine}:${f.range.startColumn}` : ''}: ${f.level} ${f.code}: ${f.message}`);
      else if (g.lines.length === LINES_PER_CASE) g.lines.push(`… (${LINES_PER_CASE} of them listed)`);
    }
    const cases: JUnitCase[] = [...byCode].map(([code, g]) => ({
      name: code,
      classname: file,
      ...(g.fails
        ? { failure: { message: `${plural(g.count, 'finding')}: ${g.first.message}`, type: code, lines: g.lines } }
        : { output: g.lines }),
    }));
    if (cases.length === 0) cases.push({ name: 'netpolicy check', classname: file });
    suites.push({ name: file, cases });
  }
  return suites;
}
