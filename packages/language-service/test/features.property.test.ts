/**
 * Every feature at every offset of every fixture policy and of generated hostile ones (deep
 * nesting, `__proto__` keys, huge arrays, text cut or spliced anywhere): nothing throws, and every
 * answer is well-formed LSP (ranges inside the document and ordered, a completion edit on one line
 * around the cursor, selection ranges nested, folding ranges ordered, symbols inside their parent,
 * edits that do not overlap, formatting that keeps the value).
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { parse } from 'jsonc-parser';
import { parsePolicyDocument, validateDocument, type PolicyDocument } from '@netpolicy/core';
import type { DocumentSymbol, Position, Range, SelectionRange, TextEdit } from 'vscode-languageserver-types';
import {
  DEFAULT_SETTINGS, doComplete, doHover, findDocumentLinks, findDocumentSymbols, format, getCodeActions, getFoldingRanges, getSelectionRanges,
  offsetOf, policyDiagnostics, toLspDiagnostic,
} from '../src/index';
import { applyLspEdits } from './helpers';
import { fixtures, policyFiles } from './fixture-files';

const URI = 'file:///w/p.netpolicy.json';

function lines(text: string): string[] {
  return text.split(/\r\n|\r|\n/);
}

/** Fails with `what` unless `ok` (a plain check: expect() at every offset is too slow). */
function check(ok: boolean, what: () => string): void {
  if (!ok) expect.fail(what());
}

let lineCache: { text: string; lines: string[] } | undefined;
function linesOf(text: string): string[] {
  if (lineCache?.text !== text) lineCache = { text, lines: lines(text) };
  return lineCache.lines;
}

type What = string | (() => string);
const say = (what: What) => (typeof what === 'string' ? what : what());

function checkPosition(text: string, p: Position, what: What): void {
  const ls = linesOf(text);
  check(Number.isInteger(p.line) && Number.isInteger(p.character), () => `${say(what)}: integer position ${JSON.stringify(p)}`);
  check(p.line >= 0 && p.line < ls.length, () => `${say(what)}: line ${p.line} of ${ls.length}`);
  check(p.character >= 0 && p.character <= ls[p.line].length, () => `${say(what)}: character ${p.character} of ${ls[p.line].length}`);
  // Never between the halves of a surrogate pair.
  const c = ls[p.line].charCodeAt(p.character);
  const b = ls[p.line].charCodeAt(p.character - 1);
  check(!(c >= 0xdc00 && c <= 0xdfff && b >= 0xd800 && b <= 0xdbff), () => `${say(what)}: inside a surrogate pair`);
}

const before = (a: Position, b: Position) => a.line < b.line || (a.line === b.line && a.character <= b.character);
const contains = (outer: Range, inner: Range) => before(outer.start, inner.start) && before(inner.end, outer.end);

function checkRange(text: string, r: Range, what: What): void {
  checkPosition(text, r.start, what);
  checkPosition(text, r.end, what);
  check(before(r.start, r.end), () => `${say(what)}: start after end ${JSON.stringify(r)}`);
}

function checkEdits(doc: PolicyDocument, edits: readonly TextEdit[], what: string): string {
  for (const e of edits) {
    checkRange(doc.text, e.range, what);
    check(typeof e.newText === 'string', () => `${what}: newText ${JSON.stringify(e)}`);
  }
  const spans = edits.map((e) => [doc.lineIndex.offsetAt(e.range.start), doc.lineIndex.offsetAt(e.range.end)]).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  for (let i = 1; i < spans.length; i++) check(spans[i][0] >= spans[i - 1][1], () => `${what}: overlapping edits`);
  return applyLspEdits(doc, edits);
}

function checkSymbols(text: string, symbols: readonly DocumentSymbol[], parent: Range | undefined): void {
  for (const s of symbols) {
    check(typeof s.name === 'string' && s.name.length > 0, () => 'symbol name');
    checkRange(text, s.range, 'symbol');
    checkRange(text, s.selectionRange, 'symbol selection');
    check(contains(s.range, s.selectionRange), () => `selectionRange inside range: ${s.name}`);
    if (parent) check(contains(parent, s.range), () => `child inside parent: ${s.name}`);
    checkSymbols(text, s.children ?? [], s.range);
  }
}

/** The whole-document features, and the per-offset ones at every offset (or every `step`-th). */
function probe(text: string, fileName = 'p.netpolicy.json', step = 1): void {
  const doc = parsePolicyDocument(text, { fileName });
  const current = policyDiagnostics(doc, DEFAULT_SETTINGS);
  const lsp = current.map((d) => toLspDiagnostic(doc, URI, d));
  for (const d of lsp) checkRange(text, d.range, `diagnostic ${d.code}`);
  checkSymbols(text, findDocumentSymbols(doc), undefined);
  const lineCount = lines(text).length;
  for (const f of getFoldingRanges(doc)) {
    check(f.startLine >= 0 && f.startLine < f.endLine + 1 && f.endLine < lineCount, () => `folding ${JSON.stringify(f)}`);
  }
  for (const l of findDocumentLinks(doc)) {
    checkRange(text, l.range, 'link');
    expect(() => new URL(l.target!)).not.toThrow();
  }
  for (const options of [{ tabSize: 2, insertSpaces: true }, { tabSize: 4, insertSpaces: false, insertFinalNewline: true, trimTrailingWhitespace: true }]) {
    const formatted = checkEdits(doc, format(doc, undefined, options), 'format');
    if (doc.syntaxDiagnostics.length === 0) expect(parse(formatted, undefined, { allowTrailingComma: true })).toEqual(parse(text, undefined, { allowTrailingComma: true }));
  }
  const end = doc.lineIndex.positionAt(text.length);
  const positions: Position[] = [];
  for (let o = 0; o <= text.length; o += step) positions.push(doc.lineIndex.positionAt(o));
  positions.push(end, { line: end.line, character: end.character + 5 }, { line: end.line + 3, character: 0 });
  for (const sel of getSelectionRanges(doc, positions.slice(0, 400))) {
    let r: SelectionRange | undefined = sel;
    while (r) {
      checkRange(text, r.range, 'selection');
      if (r.parent) check(contains(r.parent.range, r.range), () => 'selection parent contains child');
      r = r.parent;
    }
  }
  positions.forEach((position, index) => {
    const at = () => `${JSON.stringify(text.length > 200 ? `${text.slice(0, 200)}…` : text)} at ${JSON.stringify(position)}`;
    const inside = doc.lineIndex.positionAt(offsetOf(doc, position));
    const completion = doComplete(doc, position, DEFAULT_SETTINGS);
    for (const item of completion.items) {
      check(typeof item.label === 'string' && item.label.length > 0, at);
      const edit = item.textEdit as TextEdit | undefined;
      if (edit) {
        checkRange(text, edit.range, () => `completion ${at()}`);
        check(edit.range.start.line === edit.range.end.line, () => `completion edit on one line ${at()}`);
        check(contains(edit.range, { start: inside, end: inside }), () => `completion edit around the cursor ${at()}`);
      }
    }
    const hover = doHover(doc, position, DEFAULT_SETTINGS);
    if (hover) {
      check(typeof (hover.contents as { value: string }).value === 'string', at);
      if (hover.range) {
        checkRange(text, hover.range, () => `hover ${at()}`);
        check(contains(hover.range, { start: inside, end: inside }), () => `hover range holds the cursor ${at()}`);
      }
    }
    const range = { start: position, end: position };
    for (const context of [{ diagnostics: [] }, { diagnostics: lsp }, { diagnostics: [], only: ['source.fixAll'] }]) {
      for (const action of getCodeActions(doc, URI, range, context, current)) {
        check(action.title.length > 0, at);
        for (const edits of Object.values(action.edit?.changes ?? {})) checkEdits(doc, edits, `code action ${action.title}`);
      }
    }
    if (index % 50 === 0) {
      const range2 = { start: doc.lineIndex.positionAt(0), end: position };
      checkEdits(doc, format(doc, range2, { tabSize: 3, insertSpaces: true }), 'range format');
    }
  });
}

describe('every feature, every offset', () => {
  const files = policyFiles(fixtures);
  it('finds the fixture policies', () => expect(files.length).toBeGreaterThanOrEqual(4));
  it.each(files.map((f) => [f.slice(fixtures.length), f]))('%s', (_name, file) => {
    probe(readFileSync(file, 'utf8'), file.split('/').pop());
  }, 120_000);

  it.each([
    ['__proto__ keys', '{"__proto__": {"default": "allow"}, "sources": [{"__proto__": {"urls": ["https://a.example"]}}, {"npm": {"__proto__": 1, "constructor": [], "urls": ["https://b.example"]}}], "presets": ["__proto__", "constructor", "toString"]}'],
    ['CRLF, lone CR, BOM and astral characters', '\uFEFF{\r\n  "default": "deny",\r  "presets": ["npm", "😀😀"],\r\n  "sources": [{"npm": {"urls": ["https://𝔞.example/😀"]}}]\r\n}\r\n'],
    ['comments in a .json file', '// c\n{ /* a\n b */ "presets": [ // x\n "npm", ],\n}'],
    ['empty', ''],
    ['whitespace', '  \n\r\n\t'],
    ['a scalar', '"x"'],
    ['an array root', '[{"default": "deny"}, 1, null]'],
    ['unterminated string', '{"presets": ["np'],
    ['garbage', '}{][,,::"\\u12"\\'],
  ])('%s', (_name, text) => {
    probe(text);
    probe(text, 'p.netpolicy.jsonc');
  }, 120_000);

  // Deep enough that formatting indents past 200 columns (jsonc-parser's cache of indentation ends there).
  it.each([
    ['deep nesting', `{"sources": [${'{"a": ['.repeat(120)}${']}'.repeat(120)}]}`],
    ['deep nesting, unclosed', `{"connections": ${'[{"tcp": '.repeat(120)}`],
  ])('%s (every 5th offset)', (_name, text) => {
    probe(text, 'p.netpolicy.json', 5);
  }, 120_000);


  it('a huge array (every 97th offset)', () => {
    const urls = Array.from({ length: 1000 }, (_, i) => `"https://h${i}.example/p"`).join(', ');
    probe(`{"default": "deny", "presets": [], "sources": [{"npm": {"urls": [${urls}]}}], "connections": [${Array.from({ length: 150 }, (_, i) => `{"tcp": {"cidrs": ["10.0.${i % 256}.1/24"], "ports": [${i}]}}`).join(',\n')}]}`, 'p.netpolicy.json', 97);
  }, 120_000);

  it('fixture policies cut or spliced anywhere', () => {
    const texts = policyFiles(fixtures).map((f) => readFileSync(f, 'utf8'));
    const pieces = ['"', ',', ':', '{', '}', '[', ']', '\n', '\r', '\r\n', '😀', '\uFEFF', '/*', '//', '"__proto__": ', '\\', '"\\u', '-', '1e999', 'null'];
    fc.assert(fc.property(fc.constantFrom(...texts.keys()), fc.nat(), fc.nat(), fc.constantFrom(...pieces), fc.boolean(), (which, a, b, piece, cut) => {
      const base = texts[which];
      const i = a % (base.length + 1);
      const j = Math.min(base.length, i + (b % 40));
      const text = cut ? base.slice(0, i) + base.slice(j) : base.slice(0, i) + piece + base.slice(i);
      probe(text, 'p.netpolicy.jsonc', 7);
    }), { numRuns: 60 });
  }, 120_000);
});
