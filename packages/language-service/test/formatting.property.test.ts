/**
 * The sliced formatter (formatting.ts) against jsonc-parser's `format`, its reference: the same
 * edits for JSON with comments laid out any way, for texts cut or spliced anywhere (errors), for
 * ranges, tabs and spaces; and the outline's scan of the text (document-symbols.ts) against the outline
 * from jsonc-parser's tree. Then one edit past MAX_FORMAT_EDITS.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { format as jsoncFormat } from 'jsonc-parser';
import { parsePolicyDocument } from '@netpolicy/core';
import { formatEdits, TOKENS_PER_SLICE } from '../src/formatting';
import { findDocumentSymbols, format, MAX_FORMAT_EDITS, runSteps } from '../src/index';
import { scanTopLevelForTest, symbolsFromTreeForTest } from '../src/structure';
import { applyLspEdits } from './helpers';

const BLANKS = ['', ' ', '\n', '\r\n', '\t', '   ', ' // note\n', '/* b */', '\n  /* two\n lines */ ', '// last', '\r'];

/** Renders a value with the layout taken in turn from `blanks` (and a trailing comma where `commas` says). */
function render(value: unknown, blanks: readonly string[], commas: readonly boolean[]): string {
  let n = 0;
  const b = () => blanks[n++ % blanks.length];
  const comma = () => (commas[n % commas.length] ? ',' : '');
  const go = (v: unknown): string => {
    if (Array.isArray(v)) return `[${b()}${v.map((x) => `${b()}${go(x)}${b()}`).join(',')}${v.length ? comma() : ''}${b()}]`;
    if (v && typeof v === 'object') return `{${b()}${Object.entries(v).map(([k, x]) => `${b()}${JSON.stringify(k)}${b()}:${b()}${go(x)}${b()}`).join(',')}${Object.keys(v).length ? comma() : ''}${b()}}`;
    return JSON.stringify(v);
  };
  return `${b()}${go(value)}${b()}`;
}

const layout = fc.record({ blanks: fc.array(fc.constantFrom(...BLANKS), { minLength: 1, maxLength: 40 }), commas: fc.array(fc.boolean(), { minLength: 1, maxLength: 7 }) });

/** Texts: laid-out JSON values, possibly cut, spliced with a fragment, or plain noise. */
const texts = fc.oneof(
  { weight: 4, arbitrary: fc.tuple(fc.jsonValue({ maxDepth: 5 }), layout).map(([v, l]) => render(v, l.blanks, l.commas)) },
  { weight: 2, arbitrary: fc.tuple(fc.jsonValue({ maxDepth: 4 }), layout, fc.nat(), fc.nat(), fc.constantFrom('', '{', ']', ',', '"', '/*', '//', ':', 'tru', '-', '"a\nb"', '\u2028')).map(([v, l, i, j, s]) => {
    const t = render(v, l.blanks, l.commas);
    const a = i % (t.length + 1);
    const z = a + (j % (t.length - a + 1));
    return t.slice(0, a) + s + t.slice(z);
  }) },
  { weight: 1, arbitrary: fc.string({ unit: fc.constantFrom('{', '}', '[', ']', ',', ':', '"', ' ', '\n', '1', 'x', '/', '*', 'null', '\\') }) },
);

/** jsonc-parser's edits, with its one gap filled (no text for a line break and exactly 200 columns of indentation). */
function reference(text: string, range: { offset: number; length: number } | undefined, tabSize: number, insertSpaces: boolean, insertFinalNewline: boolean) {
  const eol = /\r\n|\r|\n/.exec(text)?.[0] ?? '\n';
  return jsoncFormat(text, range, { tabSize, insertSpaces, insertFinalNewline, eol, keepLines: false })
    .map((e) => ({ offset: e.offset, length: e.length, content: e.content ?? eol + (insertSpaces ? ' ' : '\t').repeat(200) }));
}

function ours(text: string, range: { offset: number; length: number } | undefined, tabSize: number, insertSpaces: boolean, insertFinalNewline: boolean) {
  const eol = /\r\n|\r|\n/.exec(text)?.[0] ?? '\n';
  const flat = runSteps(formatEdits(text, range, { tabSize, insertSpaces, insertFinalNewline, eol }))!;
  return Array.from({ length: flat.count }, (_, i) => ({ offset: flat.offset(i), length: flat.length(i), content: flat.text(i) }));
}

describe('formatEdits is jsonc-parser format', () => {
  it('on laid-out, cut, spliced and noisy texts, whole or a range, any indentation', () => {
    fc.assert(fc.property(texts, fc.constantFrom(1, 2, 4, 8), fc.boolean(), fc.boolean(), fc.option(fc.tuple(fc.nat(), fc.nat())), (text, tabSize, insertSpaces, finalNewline, r) => {
      const range = r ? { offset: r[0] % (text.length + 1), length: 0 } : undefined;
      if (range && r) range.length = r[1] % (text.length - range.offset + 1);
      expect(ours(text, range, tabSize, insertSpaces, finalNewline)).toEqual(reference(text, range, tabSize, insertSpaces, finalNewline));
    }), { numRuns: 1500 });
  });

  it('deep enough for its 200-column gap, and slices that yield', () => {
    const deep = `${'['.repeat(110)}1${']'.repeat(110)}`;
    expect(ours(deep, undefined, 2, true, false)).toEqual(reference(deep, undefined, 2, true, false));
    const long = JSON.stringify({ sources: Array.from({ length: 3000 }, (_, i) => ({ pypi: { urls: [`https://h${i}.example`] } })) });
    const steps = formatEdits(long, undefined, { tabSize: 2, insertSpaces: true, insertFinalNewline: false, eol: '\n' });
    let yields = 0;
    for (let r = steps.next(); !r.done; r = steps.next()) yields++;
    expect(yields).toBeGreaterThanOrEqual(Math.floor(3000 * 10 / TOKENS_PER_SLICE));
    expect(ours(long, undefined, 2, true, false)).toEqual(reference(long, undefined, 2, true, false));
  });
});

/** Policy-shaped documents: the members the outline lists, with items of every kind. */
const policies = fc.tuple(
  fc.dictionary(
    fc.constantFrom('default', 'presets', 'sources', 'connections', 'severity', 'x', '__proto__', '', 'a"b'),
    fc.oneof(
      fc.jsonValue({ maxDepth: 3 }),
      fc.array(fc.oneof(
        fc.record({ pypi: fc.record({ urls: fc.array(fc.webUrl(), { maxLength: 3 }) }) }),
        fc.record({ tcp: fc.record({ cidrs: fc.array(fc.ipV4(), { maxLength: 2 }), ports: fc.array(fc.nat(65535), { maxLength: 2 }) }) }),
        fc.dictionary(fc.string({ maxLength: 4 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
        fc.jsonValue({ maxDepth: 2 }),
      ), { maxLength: 6 }),
    ),
    { maxKeys: 6 },
  ),
  layout,
  fc.constantFrom('p.netpolicy.json', 'p.netpolicy.jsonc'),
).map(([value, l, fileName]) => ({ text: render(value, l.blanks, l.commas), fileName }));

describe('the outline from one scan of the text is the outline from the tree', () => {
  it('on policy-shaped documents laid out any way (comments, trailing commas, escapes)', () => {
    fc.assert(fc.property(policies, ({ text, fileName }) => {
      const doc = parsePolicyDocument(text, { fileName });
      expect(findDocumentSymbols(doc)).toEqual(symbolsFromTreeForTest(doc));
      // The scan read it (the tree is only for what does not parse).
      if (!doc.syntaxFailed && doc.value && typeof doc.value === 'object' && !Array.isArray(doc.value)) expect(runSteps(scanTopLevelForTest(text))).toBeDefined();
    }), { numRuns: 800 });
  });

  it('on the same documents cut or spliced (errors: the tree answers)', () => {
    fc.assert(fc.property(policies, fc.nat(), fc.constantFrom('', '{', ']', ',', '"', '/*'), ({ text, fileName }, at, s) => {
      const a = at % (text.length + 1);
      const doc = parsePolicyDocument(text.slice(0, a) + s + text.slice(a + 1), { fileName });
      expect(findDocumentSymbols(doc)).toEqual(symbolsFromTreeForTest(doc));
    }), { numRuns: 300 });
  });
});

describe('at scale', () => {
  const rules = (n: number) => JSON.stringify({ default: 'deny', presets: ['npm'], sources: Array.from({ length: n }, (_, i) => ({ pypi: { urls: [`https://pypi-${i}.example/simple`] } })), connections: Array.from({ length: n }, (_, i) => ({ tcp: { cidrs: [`10.${(i >> 8) & 255}.${i & 255}.0/24`], ports: [5432] } })) });

  it('past MAX_FORMAT_EDITS, one edit of the span: the same text as the edits one by one', () => {
    const text = rules(4000);
    const doc = parsePolicyDocument(text, { fileName: 'p.netpolicy.json' });
    const edits = format(doc, undefined, { tabSize: 2, insertSpaces: true });
    expect(edits).toHaveLength(1);
    const each = reference(text, undefined, 2, true, false);
    expect(each.length).toBeGreaterThan(MAX_FORMAT_EDITS);
    // More than one chunk of FlatEdits (2^14 edits each).
    expect(each.length).toBeGreaterThan(2 * 16384);
    const parts: string[] = [];
    let at = 0;
    for (const e of each) {
      parts.push(text.slice(at, e.offset), e.content);
      at = e.offset + e.length;
    }
    const expected = parts.join('') + text.slice(at);
    expect(applyLspEdits(doc, edits)).toBe(expected);
    expect(expected).toBe(JSON.stringify(JSON.parse(text), null, 2));
    // A range: the span of its edits only.
    const range = { start: doc.lineIndex.positionAt(0), end: doc.lineIndex.positionAt(text.length >> 1) };
    const ranged = format(doc, range, { tabSize: 2, insertSpaces: true });
    expect(ranged).toHaveLength(1);
    expect(doc.lineIndex.offsetAt(ranged[0].range.end)).toBeLessThanOrEqual(text.length >> 1);
  });
});
