/** Formatting honours every LSP FormattingOptions member; positions past a line's end mean its end (LSP). */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parsePolicyDocument } from '@netpolicy/core';
import type { FormattingOptions } from 'vscode-languageserver-types';
import { DEFAULT_SETTINGS, doComplete, format, formatSteps, FORMAT_REFUSED, getSelectionRanges, offsetOf, runSteps } from '../src/index';
import { applyLspEdits } from './helpers';

const formatted = (text: string, options: Partial<FormattingOptions>, fileName = 'p.netpolicy.jsonc') => {
  const doc = parsePolicyDocument(text, { fileName });
  return applyLspEdits(doc, format(doc, undefined, { tabSize: 2, insertSpaces: true, ...options }));
};

describe('formatting options', () => {
  it('keeps the final newline unless asked otherwise (Neovim sends only tabSize and insertSpaces)', () => {
    expect(formatted('{"a": 1}\n', {})).toBe('{\n  "a": 1\n}\n');
    expect(formatted('{"a": 1}\r\n', {})).toBe('{\r\n  "a": 1\r\n}\r\n');
    expect(formatted('{"a": 1}', {})).toBe('{\n  "a": 1\n}');
  });
  it('insertFinalNewline adds one, in the file\'s line-break style', () => {
    expect(formatted('{"a": 1}', { insertFinalNewline: true })).toBe('{\n  "a": 1\n}\n');
    expect(formatted('{\r\n"a": 1}', { insertFinalNewline: true })).toBe('{\r\n  "a": 1\r\n}\r\n');
    expect(formatted('{"a": 1}\n', { insertFinalNewline: true })).toBe('{\n  "a": 1\n}\n');
  });
  it('trimFinalNewlines leaves one; without it the blank lines at the end stay', () => {
    expect(formatted('{"a": 1}\n\n\n', { trimFinalNewlines: true })).toBe('{\n  "a": 1\n}\n');
    expect(formatted('{"a": 1}\n\n\n', {})).toBe('{\n  "a": 1\n}\n\n\n');
    expect(formatted('{"a": 1}  \n \n', {})).toBe('{\n  "a": 1\n}\n\n');
  });
  it('trimTrailingWhitespace trims the ends of comment lines too', () => {
    const text = '{"a": 1, // note   \n "b": 2 /* x \t\n y */}\n';
    expect(formatted(text, { trimTrailingWhitespace: true })).toBe('{\n  "a": 1, // note\n  "b": 2 /* x\n y */\n}\n');
    expect(formatted(text, {})).toBe('{\n  "a": 1, // note   \n  "b": 2 /* x \t\n y */\n}\n');
  });
  it('tabSize and insertSpaces, indentation past 200 columns included (jsonc-parser gives no text there)', () => {
    expect(formatted('{"a": [1]}', { tabSize: 4, insertSpaces: false })).toBe('{\n\t"a": [\n\t\t1\n\t]\n}');
    fc.assert(fc.property(fc.jsonValue({ maxDepth: 6 }), fc.constantFrom(1, 2, 4, 8), fc.boolean(), (value, tabSize, insertSpaces) => {
      const compact = JSON.stringify(value);
      expect(formatted(compact, { tabSize, insertSpaces }, 'p.netpolicy.json')).toBe(JSON.stringify(value, null, insertSpaces ? ' '.repeat(tabSize) : '\t'));
    }), { numRuns: 200 });
    for (const [depth, tabSize, insertSpaces] of [[100, 2, true], [50, 4, true], [128, 4, false], [128, 2, true]] as const) {
      const value = JSON.parse(`${'['.repeat(depth)}1${']'.repeat(depth)}`);
      expect(formatted(JSON.stringify(value), { tabSize, insertSpaces }, 'p.netpolicy.json')).toBe(JSON.stringify(value, null, insertSpaces ? ' '.repeat(tabSize) : '\t'));
    }
  });
  it('a text nested deeper than the parser accepts (128 levels) is left as it is: formatSteps says why', () => {
    for (const depth of [129, 3000, 100_000]) {
      const doc = parsePolicyDocument(`${'['.repeat(depth)}1${']'.repeat(depth)}`, { fileName: 'p.netpolicy.json' });
      expect(format(doc, undefined, { tabSize: 2, insertSpaces: true })).toEqual([]);
      expect(runSteps(formatSteps(doc, undefined, { tabSize: 2, insertSpaces: true }))).toBeUndefined();
    }
    // Deep inside an otherwise formatted document, and with the brackets unbalanced.
    const doc = parsePolicyDocument(`{"default": "deny",\n "x": ${'['.repeat(200)}`, { fileName: 'p.netpolicy.json' });
    expect(runSteps(formatSteps(doc, undefined, { tabSize: 2, insertSpaces: true }))).toBeUndefined();
    expect(FORMAT_REFUSED).toContain('128 levels');
  });
});

describe('positions past the end of a line', () => {
  const doc = parsePolicyDocument('{\r\n  "presets": []\r\n}\n', { fileName: 'p.netpolicy.json' });
  it('mean the end of that line, not the next line nor the middle of a CRLF', () => {
    expect(offsetOf(doc, { line: 0, character: 1 })).toBe(1);
    expect(offsetOf(doc, { line: 0, character: 2 })).toBe(1);
    expect(offsetOf(doc, { line: 0, character: 99 })).toBe(1);
    expect(offsetOf(doc, { line: 1, character: 999 })).toBe(18);
    expect(offsetOf(doc, { line: 2, character: 5 })).toBe(21);
    expect(offsetOf(doc, { line: 9, character: 0 })).toBe(22);
    expect(getSelectionRanges(doc, [{ line: 0, character: 7 }])[0].range).toEqual({ start: { line: 0, character: 0 }, end: { line: 2, character: 1 } });
  });
  it('completion past the end of the `presets` line completes there', () => {
    const items = doComplete(doc, { line: 1, character: 999 }, DEFAULT_SETTINGS).items;
    expect(items.every((i) => (i.textEdit as { range: { start: { line: number } } }).range.start.line === 1)).toBe(true);
  });
});
