/**
 * check's reports are written piece by piece (a million findings never make one string): the pieces
 * join to exactly `JSON.stringify(report, null, 2)` for JSON and SARIF, and to the text report line
 * by line, for no file, a file without findings, and several files with findings, fix data and
 * non-ASCII text.
 */
import { describe, expect, it } from 'vitest';
import { LineIndex, validate } from '@netpolicy/core';
import { jsonReport, sarifReport, textReport, toJson, toSarif, toText, type FileResult } from '../src/commands/check/report';

const problems = '{\n  "default": "alow",\n  "presets": ["pypy"],\n  "connections": [{"tcp": {"cidrs": ["10.0.0.1/8", "10.0.0.1/8"]}}, {"tcp": {"cidrs": ["10.0.0.1/8", "10.0.0.1/8"]}}],\n  "sources": [{"pypi": {"urls": ["http://bücher.example"]}}]\n}\n';
const clean = '{"default": "deny"}';
const result = (file: string, text: string): FileResult => ({ file, text, diagnostics: validate(text, { fileName: file }).diagnostics });
const cases: FileResult[][] = [[], [result('clean.netpolicy.json', clean)], [result('a/problems.netpolicy.json', problems), result('clean.netpolicy.json', clean), result('b "quoted".netpolicy.json', problems)]];

describe('check reports written piece by piece', () => {
  it('JSON: the pieces are JSON.stringify(report, null, 2), each diagnostic its own piece', () => {
    for (const results of cases) {
      const pieces = [...jsonReport(results)];
      const text = pieces.join('');
      expect(text).toBe(toJson(results));
      // The report as one object, stringified at once (what check wrote before).
      const whole = { files: results.map((r) => ({ file: r.file, diagnostics: r.diagnostics.map((d) => ({ severity: d.severity, code: d.code, message: d.message, pointer: d.pointer, range: new LineIndex(r.text).range(d.offset, d.length), ...(d.data ? { data: d.data } : {}) })) })) };
      expect(text).toBe(JSON.stringify(whole, null, 2) + '\n');
      const report = JSON.parse(text);
      expect(report.files.map((f: { file: string }) => f.file)).toEqual(results.map((r) => r.file));
      expect(report.files.map((f: { diagnostics: unknown[] }) => f.diagnostics.length)).toEqual(results.map((r) => r.diagnostics.length));
      const count = results.reduce((n, r) => n + r.diagnostics.length, 0);
      expect(pieces.length).toBeGreaterThanOrEqual(count);
    }
    const report = JSON.parse(toJson(cases[2]));
    expect(report.files[0].diagnostics.some((d: { data?: unknown }) => d.data !== undefined)).toBe(true);
  });

  it('SARIF: the pieces are JSON.stringify(log, null, 2), results in runs[0].results', () => {
    for (const results of cases) {
      const text = [...sarifReport(results, '1.2.3', '/work')].join('');
      expect(text).toBe(toSarif(results, '1.2.3', '/work'));
      expect(text).toBe(JSON.stringify(JSON.parse(text), null, 2) + '\n');
      const log = JSON.parse(text);
      expect(log.runs[0].results.length).toBe(results.reduce((n, r) => n + r.diagnostics.length, 0));
      expect(log.runs[0].tool.driver.rules.length).toBeGreaterThan(10);
      expect(log.runs[0].columnKind).toBe('utf16CodeUnits');
    }
  });

  it('text: one piece per line, the summary last', () => {
    const pieces = [...textReport(cases[2], { color: false, excerpt: true })];
    expect(pieces.every((p) => p.endsWith('\n') && p.indexOf('\n') === p.length - 1)).toBe(true);
    expect(pieces.join('')).toBe(toText(cases[2], { color: false, excerpt: true }));
    expect(pieces.at(-1)).toMatch(/^\d+ errors?, \d+ warnings? in 3 files\n$/);
  });
});
