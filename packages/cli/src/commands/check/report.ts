/** Reporters of `netpolicy check`: compiler-style text, JSON (docs/cli.md), SARIF 2.1.0. */
import { CODE_TITLES, LINT_CODES, LineIndex, docsUrl, type Diagnostic, type DiagnosticCode } from '@netpolicy/core';
import { isAbsolute, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Log, Result } from 'sarif';
import { paint } from '../../io';
import { escapeControl } from '../../escape';

export interface FileResult {
  file: string;
  text: string;
  diagnostics: Diagnostic[];
}

/**
 * The JSON report (docs/cli.md), piece by piece: the text of `JSON.stringify(report, null, 2)`, one
 * diagnostic at a time, so that a policy with a million findings is written without the report's
 * objects or its whole text in memory (a single string of it can exceed V8's longest string).
 */
export function* jsonReport(results: FileResult[]): Generator<string> {
  if (results.length === 0) {
    yield '{\n  "files": []\n}\n';
    return;
  }
  yield '{\n  "files": [';
  for (let f = 0; f < results.length; f++) {
    const r = results[f];
    const index = new LineIndex(r.text);
    yield `${f === 0 ? '' : ','}\n    {\n      "file": ${JSON.stringify(r.file)},\n      "diagnostics": [`;
    for (let i = 0; i < r.diagnostics.length; i++) {
      const d = r.diagnostics[i];
      const item = {
        severity: d.severity,
        code: d.code,
        message: d.message,
        pointer: d.pointer,
        range: index.range(d.offset, d.length),
        ...(d.data ? { data: d.data } : {}),
      };
      yield `${i === 0 ? '' : ','}\n        ${nested(item, 8)}`;
    }
    yield `${r.diagnostics.length === 0 ? ']' : '\n      ]'}\n    }`;
  }
  yield '\n  ]\n}\n';
}

export function toJson(results: FileResult[]): string {
  return [...jsonReport(results)].join('');
}

/** `JSON.stringify(value, null, 2)` of a value nested `indent` spaces deep (no string holds a raw line break). */
function nested(value: unknown, indent: number): string {
  return JSON.stringify(value, null, 2).replace(/\n/g, `\n${' '.repeat(indent)}`);
}

const lintCodes = new Set<string>(LINT_CODES);

const SARIF_LEVEL = { error: 'error', warning: 'warning', information: 'note', hint: 'note' } as const;

/** The SARIF 2.1.0 log, piece by piece (as `jsonReport`): the text of `JSON.stringify(log, null, 2)`, one result at a time. */
export function* sarifReport(results: FileResult[], version: string, cwd: string): Generator<string> {
  const codes = Object.keys(CODE_TITLES) as DiagnosticCode[];
  const ruleIndex = new Map(codes.map((c, i) => [c, i]));
  const toResult = (r: FileResult, index: LineIndex, d: Diagnostic): Result => {
    const { start, end } = index.range(d.offset, d.length);
    return {
      ruleId: d.code,
      ruleIndex: ruleIndex.get(d.code),
      level: SARIF_LEVEL[d.severity],
      message: { text: d.message },
      locations: [{
        physicalLocation: {
          artifactLocation: { uri: toUri(r.file, cwd) },
          region: { startLine: start.line + 1, startColumn: start.character + 1, endLine: end.line + 1, endColumn: end.character + 1 },
        },
        logicalLocations: d.pointer ? [{ fullyQualifiedName: d.pointer, kind: 'member' }] : undefined,
      }],
      partialFingerprints: { 'netpolicyPointer/v1': `${d.code}:${d.pointer}` },
    };
  };
  const log: Log = {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [{
      tool: {
        driver: {
          name: 'netpolicy',
          informationUri: 'https://github.com/netpolicy/netpolicy',
          semanticVersion: version,
          version,
          rules: codes.map((code) => ({
            id: code,
            name: code.replace(/(^|-)([a-z])/g, (_m, _d, c: string) => c.toUpperCase()),
            shortDescription: { text: CODE_TITLES[code] },
            helpUri: docsUrl(code),
            defaultConfiguration: { level: lintCodes.has(code) ? 'warning' : 'error' },
          })),
        },
      },
      columnKind: 'utf16CodeUnits',
      results: [] as Result[],
    }],
  };
  // The log with its results left out, then the results one by one where they go (`runs[0].results`, 8 spaces deep).
  const shell = JSON.stringify(log, null, 2);
  const at = shell.lastIndexOf('"results": []') + '"results": '.length;
  yield shell.slice(0, at);
  let first = true;
  for (const r of results) {
    const index = new LineIndex(r.text);
    for (const d of r.diagnostics) {
      yield `${first ? '[' : ','}\n        ${nested(toResult(r, index, d), 8)}`;
      first = false;
    }
  }
  yield first ? '[]' : '\n      ]';
  yield `${shell.slice(at + 2)}\n`;
}

export function toSarif(results: FileResult[], version: string, cwd: string): string {
  return [...sarifReport(results, version, cwd)].join('');
}

/**
 * Paths below the working directory become relative URIs (GitHub resolves them against the
 * checkout); other absolute paths become file:// URIs. Separators become `/`.
 */
function toUri(file: string, cwd: string): string {
  const path = isAbsolute(file) ? relative(cwd, file) : file;
  const encode = (p: string) => p.replace(/\\/g, '/').split('/').map(encodeURIComponent).join('/');
  if (isAbsolute(path) || path.startsWith('..')) return pathToFileURL(resolve(cwd, file)).href;
  return encode(path).replace(/^\.\//, '');
}

/** `file:line:col: severity code: message`, plus the source line and a caret on a TTY. */
export function toText(results: FileResult[], options: TextOptions): string {
  return [...textReport(results, options)].join('');
}

export interface TextOptions { color: boolean; excerpt: boolean; failed?: boolean }

/** The text report, line by line (as `jsonReport`: a million findings are never one string). */
export function* textReport(results: FileResult[], options: TextOptions): Generator<string> {
  const c = paint(options.color);
  let errors = 0, warnings = 0, others = 0;
  for (const r of results) {
    const index = new LineIndex(r.text);
    for (const d of r.diagnostics) {
      const { start, end } = index.range(d.offset, d.length);
      const sev = d.severity === 'error' ? c.red(c.bold('error')) : d.severity === 'warning' ? c.yellow(c.bold('warning')) : c.blue(d.severity);
      if (d.severity === 'error') errors++;
      else if (d.severity === 'warning') warnings++;
      else others++;
      yield `${c.bold(`${escapeControl(r.file)}:${start.line + 1}:${start.character + 1}`)}: ${sev} ${c.gray(d.code)}: ${escapeControl(d.message)}\n`;
      if (options.excerpt) {
        const line = index.lineText(start.line);
        const shown = escapeControl(line.length > 200 ? line.slice(0, 200) + '…' : line);
        const width = Math.max(1, Math.min((end.line === start.line ? end.character : line.length) - start.character, Math.max(1, shown.length - start.character)));
        const gutter = String(start.line + 1);
        yield `${c.gray(`${gutter} |`)} ${shown}\n`;
        yield `${' '.repeat(gutter.length)} ${c.gray('|')} ${' '.repeat(Math.min(start.character, shown.length))}${(d.severity === 'error' ? c.red : c.yellow)('^' + '~'.repeat(Math.max(0, width - 1)))}\n`;
      }
    }
  }
  const files = results.length;
  const parts = [`${errors} error${errors === 1 ? '' : 's'}`, `${warnings} warning${warnings === 1 ? '' : 's'}`];
  if (others) parts.push(`${others} note${others === 1 ? '' : 's'}`);
  // A run that failed (an unreadable file, a folder without policies) gets no success mark.
  const clean = errors + warnings + others === 0 && !options.failed;
  yield `${clean ? c.green('✓ ') : ''}${parts.join(', ')} in ${files} file${files === 1 ? '' : 's'}${options.failed ? c.red('; the check failed (see the errors above)') : ''}\n`;
}
