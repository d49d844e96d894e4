/** Reporters of `netpolicy check`: compiler-style text, JSON (docs/cli.md), SARIF 2.1.0. */
import { CODE_TITLES, LINT_CODES, LineIndex, docsUrl, type Diagnostic, type DiagnosticCode } from '@netpolicy/core';
import { isAbsolute, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Log, Result } from 'sarif';
import { paint } from './io';
import { escapeControl } from './escape';

export interface FileResult {
  file: string;
  text: string;
  diagnostics: Diagnostic[];
}

export function toJson(results: FileResult[]): string {
  return JSON.stringify({
    files: results.map((r) => {
      const index = new LineIndex(r.text);
      return {
        file: r.file,
        diagnostics: r.diagnostics.map((d) => ({
          severity: d.severity,
          code: d.code,
          message: d.message,
          pointer: d.pointer,
          range: index.range(d.offset, d.length),
          ...(d.data ? { data: d.data } : {}),
        })),
      };
    }),
  }, null, 2) + '\n';
}

const lintCodes = new Set<string>(LINT_CODES);

const SARIF_LEVEL = { error: 'error', warning: 'warning', information: 'note', hint: 'note' } as const;

export function toSarif(results: FileResult[], version: string, cwd: string): string {
  const codes = Object.keys(CODE_TITLES) as DiagnosticCode[];
  const ruleIndex = new Map(codes.map((c, i) => [c, i]));
  const sarifResults: Result[] = results.flatMap((r) => {
    const index = new LineIndex(r.text);
    return r.diagnostics.map((d): Result => {
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
    });
  });
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
      results: sarifResults,
    }],
  };
  return JSON.stringify(log, null, 2) + '\n';
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
export function toText(results: FileResult[], options: { color: boolean; excerpt: boolean; failed?: boolean }): string {
  const c = paint(options.color);
  const out: string[] = [];
  let errors = 0, warnings = 0, others = 0;
  for (const r of results) {
    const index = new LineIndex(r.text);
    for (const d of r.diagnostics) {
      const { start, end } = index.range(d.offset, d.length);
      const sev = d.severity === 'error' ? c.red(c.bold('error')) : d.severity === 'warning' ? c.yellow(c.bold('warning')) : c.blue(d.severity);
      if (d.severity === 'error') errors++;
      else if (d.severity === 'warning') warnings++;
      else others++;
      out.push(`${c.bold(`${escapeControl(r.file)}:${start.line + 1}:${start.character + 1}`)}: ${sev} ${c.gray(d.code)}: ${escapeControl(d.message)}`);
      if (options.excerpt) {
        const line = index.lineText(start.line);
        const shown = escapeControl(line.length > 200 ? line.slice(0, 200) + '…' : line);
        const width = Math.max(1, Math.min((end.line === start.line ? end.character : line.length) - start.character, Math.max(1, shown.length - start.character)));
        const gutter = String(start.line + 1);
        out.push(`${c.gray(`${gutter} |`)} ${shown}`);
        out.push(`${' '.repeat(gutter.length)} ${c.gray('|')} ${' '.repeat(Math.min(start.character, shown.length))}${(d.severity === 'error' ? c.red : c.yellow)('^' + '~'.repeat(Math.max(0, width - 1)))}`);
      }
    }
  }
  const files = results.length;
  const parts = [`${errors} error${errors === 1 ? '' : 's'}`, `${warnings} warning${warnings === 1 ? '' : 's'}`];
  if (others) parts.push(`${others} note${others === 1 ? '' : 's'}`);
  // A run that failed (an unreadable file, a folder without policies) gets no success mark.
  const clean = errors + warnings + others === 0 && !options.failed;
  out.push(`${clean ? c.green('✓ ') : ''}${parts.join(', ')} in ${files} file${files === 1 ? '' : 's'}${options.failed ? c.red('; the check failed (see the errors above)') : ''}`);
  return out.join('\n') + '\n';
}
