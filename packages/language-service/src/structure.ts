/**
 * The document's structure: an outline (default, presets, each source by kind and first URL,
 * each connection by kind and target), folding ranges, selection ranges, formatting, and links
 * from preset names to their documentation. From jsonc-parser's error-tolerant tree, but for the
 * outline of a document that parsed (one scan of its text, with its value) and formatting
 * (formatting.ts: jsonc-parser's formatter, resumable).
 */
import { LINT_CODES, defaultPresetCatalog, docsUrl, type PolicyDocument } from '@netpolicy/core';
import { MAX_DEPTH, markdownCode, nodeAt } from '@netpolicy/core/internal';
import { createScanner, type Node } from 'jsonc-parser';
import {
  FoldingRangeKind, SymbolKind, type DocumentLink, type DocumentSymbol, type FoldingRange, type FormattingOptions, type Position,
  type Range, type SelectionRange, type TextEdit,
} from 'vscode-languageserver-types';
import { eolOf, FlatEdits, formatEdits, TOKENS_PER_SLICE } from './formatting';
import { SyntaxKind } from './location';
import { offsetOf, rangeOf, sameRange } from './ranges';
import { ruleSummary } from './hover';

const PRESETS_DOCS = 'https://github.com/netpolicy/netpolicy/blob/main/docs/presets.md';

function member(node: Node | undefined, key: string): Node | undefined {
  return node?.children?.find((m) => m.children?.[0]?.value === key);
}

function nodeRange(doc: PolicyDocument, node: Node): Range {
  return rangeOf(doc, node.offset, node.length);
}

function symbol(doc: PolicyDocument, name: string, kind: SymbolKind, whole: Node, select: Node, detail?: string, children?: DocumentSymbol[]): DocumentSymbol {
  return { name: name || '(empty)', kind, range: nodeRange(doc, whole), selectionRange: nodeRange(doc, select), ...(detail ? { detail } : {}), ...(children ? { children } : {}) };
}

/**
 * The outline: default, presets, each source by kind and first URL, each connection by kind and
 * target, every other top-level member. See `documentSymbolSteps`.
 * @public
 */
export function findDocumentSymbols(doc: PolicyDocument): DocumentSymbol[] {
  return runSteps(documentSymbolSteps(doc));
}

/** Rules between two yields of `documentSymbolSteps`. */
const RULES_PER_SLICE = 2000;

/**
 * `findDocumentSymbols` in slices (a yield every RULES_PER_SLICE rules). A document that parsed
 * is read with one scan of its text (`scanTopLevel`: offsets of members, items and their first
 * keys) and its parsed value, no syntax tree; a document with syntax errors (or a top-level key
 * twice) from jsonc-parser's error-tolerant tree, as before.
 * @public
 */
export function* documentSymbolSteps(doc: PolicyDocument): Generator<void, DocumentSymbol[]> {
  const value = doc.value as Record<string, unknown> | undefined;
  const scan = doc.syntaxFailed || !value || typeof value !== 'object' || Array.isArray(value) ? undefined : yield* scanTopLevel(doc.text);
  if (!scan || !value || new Set(scan.map((m) => m.key)).size !== scan.length) return symbolsFromTree(doc);
  const out: DocumentSymbol[] = [];
  const r = (offset: number, end: number) => rangeOf(doc, offset, end - offset);
  const sym = (name: string, kind: SymbolKind, range: Range, selectionRange: Range, detail?: string, children?: DocumentSymbol[]): DocumentSymbol =>
    ({ name: name || '(empty)', kind, range, selectionRange, ...(detail ? { detail } : {}), ...(children ? { children } : {}) });
  for (const m of scan) {
    const v = value[m.key];
    const range = r(m.start, m.end);
    const keyRange = r(m.start, m.keyEnd);
    if (m.key === 'default') out.push(sym('default', SymbolKind.Property, range, keyRange, typeof v === 'string' ? v : undefined));
    else if (m.key === 'presets' && m.items && Array.isArray(v)) {
      const items = m.items.map((it, i) => {
        const p = v[i];
        return sym(p !== null && typeof p === 'object' ? 'undefined' : String(p), SymbolKind.EnumMember, r(it.start, it.end), r(it.start, it.end));
      });
      out.push(sym('presets', SymbolKind.Array, range, keyRange, `${items.length} enabled`, items));
    } else if ((m.key === 'sources' || m.key === 'connections') && m.items && Array.isArray(v)) {
      const items: DocumentSymbol[] = [];
      const kind = m.key === 'sources' ? SymbolKind.Package : SymbolKind.Interface;
      for (let i = 0; i < m.items.length; i++) {
        if (i % RULES_PER_SLICE === RULES_PER_SLICE - 1) yield;
        const it = m.items[i];
        const item = v[i];
        const name = item && typeof item === 'object' ? ruleSummary(item) : `${m.key}[${i}]`;
        const whole = r(it.start, it.end);
        items.push(sym(name, kind, whole, it.firstKeyStart !== undefined && it.firstKeyEnd !== undefined ? r(it.firstKeyStart, it.firstKeyEnd) : whole, `/${m.key}/${i}`));
      }
      out.push(sym(m.key, SymbolKind.Array, range, keyRange, `${items.length}`, items));
    } else out.push(sym(m.key, SymbolKind.Property, range, keyRange));
  }
  return out;
}

interface ScannedMember {
  key: string;
  /** The key's opening quote, the key's end, the value's end. */
  start: number;
  keyEnd: number;
  end: number;
  /** The items of an array value (`presets`, `sources`, `connections` only). */
  items?: Array<{ start: number; end: number; firstKeyStart?: number; firstKeyEnd?: number }>;
}

const LISTED = new Set(['presets', 'sources', 'connections']);

/**
 * The top-level members of a JSON (with comments) text that parsed, with the items of its listed
 * arrays and the first key of each item that is an object; undefined when the text is not an
 * object or the scan meets anything it does not expect.
 */
export { scanTopLevel as scanTopLevelForTest };
function* scanTopLevel(text: string): Generator<void, ScannedMember[] | undefined> {
  let i = skipBlank(text, 0);
  if (text.charCodeAt(i) !== 123) return undefined;
  i = skipBlank(text, i + 1);
  const out: ScannedMember[] = [];
  let items = 0;
  while (text.charCodeAt(i) !== 125) {
    if (text.charCodeAt(i) !== 34) return undefined;
    const keyEnd = stringEnd(text, i);
    if (keyEnd < 0) return undefined;
    let key: string;
    try {
      key = JSON.parse(text.slice(i, keyEnd)) as string;
    } catch {
      return undefined;
    }
    let j = skipBlank(text, keyEnd);
    if (text.charCodeAt(j) !== 58) return undefined;
    j = skipBlank(text, j + 1);
    const m: ScannedMember = { key, start: i, keyEnd, end: -1 };
    if (LISTED.has(key) && text.charCodeAt(j) === 91) {
      m.items = [];
      j = skipBlank(text, j + 1);
      while (text.charCodeAt(j) !== 93) {
        const end = valueEnd(text, j);
        if (end < 0) return undefined;
        const item: { start: number; end: number; firstKeyStart?: number; firstKeyEnd?: number } = { start: j, end };
        if (text.charCodeAt(j) === 123) {
          const k = skipBlank(text, j + 1);
          const keyEnd = text.charCodeAt(k) === 34 ? stringEnd(text, k) : -1;
          if (keyEnd > 0) {
            item.firstKeyStart = k;
            item.firstKeyEnd = keyEnd;
          }
        }
        m.items.push(item);
        if (++items % RULES_PER_SLICE === 0) yield;
        j = skipBlank(text, end);
        if (text.charCodeAt(j) === 44) j = skipBlank(text, j + 1);
        else if (text.charCodeAt(j) !== 93) return undefined;
      }
      m.end = j + 1;
    } else {
      m.end = valueEnd(text, j);
      if (m.end < 0) return undefined;
    }
    out.push(m);
    i = skipBlank(text, m.end);
    if (text.charCodeAt(i) === 44) i = skipBlank(text, i + 1);
    else if (text.charCodeAt(i) !== 125) return undefined;
  }
  return out;
}

/** Past whitespace and comments from `i`. */
function skipBlank(text: string, i: number): number {
  for (;;) {
    const c = text.charCodeAt(i);
    if (c === 32 || c === 9 || c === 10 || c === 13 || c === 0xfeff) i++;
    else if (c === 47 && text.charCodeAt(i + 1) === 47) {
      while (i < text.length && text.charCodeAt(i) !== 10 && text.charCodeAt(i) !== 13) i++;
    } else if (c === 47 && text.charCodeAt(i + 1) === 42) {
      const end = text.indexOf('*/', i + 2);
      if (end < 0) return text.length;
      i = end + 2;
    } else return i;
  }
}

/** The offset after the closing quote of the string opening at `i`, or -1. */
function stringEnd(text: string, i: number): number {
  for (let q = text.indexOf('"', i + 1); q >= 0; q = text.indexOf('"', q + 1)) {
    let b = q - 1;
    while (text.charCodeAt(b) === 92) b--;
    if ((q - 1 - b) % 2 === 0) return q + 1;
  }
  return -1;
}

/** The end of the value starting at `i` (a string, a container with everything in it, or a scalar), or -1. */
function valueEnd(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c === 34) return stringEnd(text, i);
  if (c !== 123 && c !== 91) {
    let j = i;
    for (;;) {
      const d = text.charCodeAt(j);
      if (j >= text.length || d === 44 || d === 125 || d === 93 || d === 32 || d === 9 || d === 10 || d === 13 || d === 47) break;
      j++;
    }
    return j > i ? j : -1;
  }
  let depth = 0;
  for (let j = i; j < text.length; j++) {
    const d = text.charCodeAt(j);
    if (d === 123 || d === 91) depth++;
    else if (d === 125 || d === 93) {
      if (--depth === 0) return j + 1;
    } else if (d === 34) {
      const e = stringEnd(text, j);
      if (e < 0) return -1;
      j = e - 1;
    } else if (d === 47 && (text.charCodeAt(j + 1) === 47 || text.charCodeAt(j + 1) === 42)) j = skipBlank(text, j) - 1;
  }
  return -1;
}

/** The outline from jsonc-parser's tree (documents with syntax errors; the reference of the scan in tests). */
export { symbolsFromTree as symbolsFromTreeForTest };
function symbolsFromTree(doc: PolicyDocument): DocumentSymbol[] {
  let root: Node | undefined;
  try {
    root = doc.root;
  } catch (e) {
    // jsonc-parser's parser recurses: a text nested tens of thousands deep has no tree, and no outline.
    if (e instanceof RangeError) return [];
    throw e;
  }
  if (root?.type !== 'object') return [];
  const out: DocumentSymbol[] = [];
  for (const m of root.children ?? []) {
    const [k, v] = m.children ?? [];
    if (!k) continue;
    const key = String(k.value);
    if (key === 'default' && v) out.push(symbol(doc, 'default', SymbolKind.Property, m, k, typeof v.value === 'string' ? v.value : undefined));
    else if (key === 'presets' && v?.type === 'array') {
      const items = (v.children ?? []).map((p) => symbol(doc, String(p.value), SymbolKind.EnumMember, p, p));
      out.push(symbol(doc, 'presets', SymbolKind.Array, m, k, `${items.length} enabled`, items));
    } else if ((key === 'sources' || key === 'connections') && v?.type === 'array') {
      const items: DocumentSymbol[] = [];
      (v.children ?? []).forEach((item, i) => {
        const first = item.type === 'object' ? item.children?.[0] : undefined;
        const kindKey = first?.children?.[0];
        const value = valueOf(item);
        const name = value && typeof value === 'object' ? ruleSummary(value) : `${key}[${i}]`;
        items.push(symbol(doc, name, key === 'sources' ? SymbolKind.Package : SymbolKind.Interface, item, kindKey ?? item, `/${key}/${i}`));
      });
      out.push(symbol(doc, key, SymbolKind.Array, m, k, `${items.length}`, items));
    } else out.push(symbol(doc, key, SymbolKind.Property, m, k));
  }
  return out;
}

function valueOf(node: Node): unknown {
  switch (node.type) {
    case 'object': {
      const o: Record<string, unknown> = {};
      for (const m of node.children ?? []) {
        const [k, v] = m.children ?? [];
        if (k && v) Object.defineProperty(o, String(k.value), { value: valueOf(v), enumerable: true, configurable: true, writable: true });
      }
      return o;
    }
    case 'array': return (node.children ?? []).map(valueOf);
    default: return node.value;
  }
}

/**
 * Folding ranges: every object and array that spans lines, and multi-line block comments.
 * @public
 */
export function getFoldingRanges(doc: PolicyDocument): FoldingRange[] {
  const out: FoldingRange[] = [];
  const walk = (node: Node | undefined, depth: number) => {
    if (!node || depth > 200) return;
    if (node.type === 'object' || node.type === 'array') {
      const start = doc.lineIndex.positionAt(node.offset).line;
      const end = doc.lineIndex.positionAt(node.offset + node.length).line;
      if (end > start) out.push({ startLine: start, endLine: end - 1 });
    }
    for (const c of node.children ?? []) walk(c, depth + 1);
  };
  walk(doc.root, 0);
  // Block comments spanning lines fold too.
  const text = doc.text;
  for (let i = text.indexOf('/*'); i >= 0; i = text.indexOf('/*', i + 2)) {
    const end = text.indexOf('*/', i + 2);
    if (end < 0) break;
    const a = doc.lineIndex.positionAt(i).line;
    const b = doc.lineIndex.positionAt(end).line;
    if (b > a) out.push({ startLine: a, endLine: b, kind: FoldingRangeKind.Comment });
    i = end;
  }
  return out.sort((x, y) => x.startLine - y.startLine);
}

/**
 * For each position, the chain of ranges "expand selection" walks: the innermost value or key, out to the whole document.
 * @public
 */
export function getSelectionRanges(doc: PolicyDocument, positions: readonly Position[]): SelectionRange[] {
  return positions.map((position) => {
    const offset = offsetOf(doc, position);
    const at = nodeAt(doc, offset);
    let chain: SelectionRange | undefined;
    const nodes: Node[] = [];
    for (let n: Node | undefined = at?.node; n; n = n.parent) nodes.unshift(n);
    for (const n of nodes) {
      const range = nodeRange(doc, n);
      if (chain && sameRange(chain.range, range)) continue;
      chain = { range, ...(chain ? { parent: chain } : {}) };
    }
    // Outside every value: the empty range at the cursor, moved before a surrogate pair it splits.
    return chain ?? { range: rangeOf(doc, outsideSurrogatePair(doc.text, offset), 0) };
  });
}

/** `offset`, or the start of the surrogate pair whose halves it falls between. */
function outsideSurrogatePair(text: string, offset: number): number {
  const low = text.charCodeAt(offset), high = text.charCodeAt(offset - 1);
  return low >= 0xdc00 && low <= 0xdfff && high >= 0xd800 && high <= 0xdbff ? offset - 1 : offset;
}

/**
 * More edits than this become one edit of the span they cover (its text formatted): a client applies one edit at once, and the answer is about the size of the text.
 * @public
 */
export const MAX_FORMAT_EDITS = 10_000;

/**
 * Why `format` left a document as it is.
 * @public
 */
export const FORMAT_REFUSED = `not formatted: brackets nest deeper than ${MAX_DEPTH} levels (a policy is a few levels deep; the document does not parse)`;

function allBlank(text: string, from: number): boolean {
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c !== 32 && c !== 9 && c !== 10 && c !== 13) return false;
  }
  return true;
}

/**
 * Formatting with jsonc-parser's rules, honouring the client's options: `tabSize`/`insertSpaces`; the
 * file's final newline is kept (jsonc-parser drops it unless `insertFinalNewline`), blank lines at
 * the end go only with `trimFinalNewlines`, and `trimTrailingWhitespace` also trims the ends of
 * comment lines (jsonc-parser leaves comments alone). A range formats only that part. A text whose
 * brackets nest deeper than core's MAX_DEPTH gets no edit (`formatSteps` says why).
 * @public
 */
export function format(doc: PolicyDocument, range: Range | undefined, options: FormattingOptions): TextEdit[] {
  return runSteps(formatSteps(doc, range, options)) ?? [];
}

/**
 * Runs a sliced computation to its end at once.
 * @public
 */
export function runSteps<T>(steps: Generator<void, T>): T {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/**
 * `format` in slices: the generator yields every few thousand tokens or edits (a server answers other
 * requests in between) and returns the edits, or undefined when the document nests deeper than
 * MAX_DEPTH (FORMAT_REFUSED). Linear in the text: edits are kept in flat arrays, placed in one
 * pass, and more than MAX_FORMAT_EDITS of them become one edit of the span they cover.
 * @public
 */
export function* formatSteps(doc: PolicyDocument, range: Range | undefined, options: FormattingOptions): Generator<void, TextEdit[] | undefined> {
  const text = doc.text;
  const eol = eolOf(text, '\n');
  const r = range ? { offset: offsetOf(doc, range.start), length: Math.max(0, offsetOf(doc, range.end) - offsetOf(doc, range.start)) } : undefined;
  const tabSize = Number.isInteger(options?.tabSize) && options.tabSize > 0 && options.tabSize <= 16 ? options.tabSize : 2;
  const insertSpaces = options?.insertSpaces !== false;
  const edits = yield* formatEdits(text, r, { tabSize, insertSpaces, eol, insertFinalNewline: options?.insertFinalNewline === true }, MAX_DEPTH);
  if (!edits) return undefined;
  // After an unterminated block comment, jsonc-parser's last edit can start past the end (length -1): none is meant.
  if (edits.count > 0 && edits.length(edits.count - 1) < 0) edits.pop();
  // The end of the file: jsonc-parser's last edit replaces what follows the last token (blanks only).
  const last = edits.count - 1;
  if (last >= 0 && edits.offset(last) + edits.length(last) === text.length && allBlank(text, edits.offset(last))) {
    const rest = text.slice(edits.offset(last));
    const breaks = rest.match(/\r\n|\r|\n/g) ?? [];
    const wanted = breaks.length === 0 ? (options?.insertFinalNewline === true ? eol : '') : options?.trimFinalNewlines === true ? eol : breaks.join('');
    if (wanted === rest) edits.pop();
    else edits.setText(last, wanted);
  }
  const all = options?.trimTrailingWhitespace === true ? merge(edits, commentLineEnds(text, r)) : edits;
  return yield* toLspSteps(doc, all);
}

/** Two sorted, non-overlapping edit lists as one. */
function merge(a: FlatEdits, b: FlatEdits): FlatEdits {
  if (b.count === 0) return a;
  const out = new FlatEdits();
  let i = 0, j = 0;
  while (i < a.count || j < b.count) {
    const fromA = j >= b.count || (i < a.count && a.offset(i) <= b.offset(j));
    const e = fromA ? a : b;
    const k = fromA ? i++ : j++;
    out.push(e.offset(k), e.length(k), e.text(k));
  }
  return out;
}

/** LSP edits of sorted flat edits: one each, or (past MAX_FORMAT_EDITS) one of the span they cover. */
function* toLspSteps(doc: PolicyDocument, edits: FlatEdits): Generator<void, TextEdit[]> {
  const n = edits.count;
  const out: TextEdit[] = [];
  if (n <= MAX_FORMAT_EDITS) {
    for (let i = 0; i < n; i++) {
      if (i % TOKENS_PER_SLICE === TOKENS_PER_SLICE - 1) yield;
      out.push({ range: rangeOf(doc, edits.offset(i), edits.length(i)), newText: edits.text(i) });
    }
    return out;
  }
  const text = doc.text;
  const from = edits.offset(0);
  const to = edits.offset(n - 1) + edits.length(n - 1);
  // Joined a slice at a time: the many small pieces die young (a cheap collection), only the joined text lives on.
  const joined: string[] = [];
  let parts: string[] = [];
  let at = from;
  for (let i = 0; i < n; i++) {
    const offset = edits.offset(i);
    if (offset > at) parts.push(text.slice(at, offset));
    parts.push(edits.text(i));
    at = offset + edits.length(i);
    if (parts.length >= 2 * TOKENS_PER_SLICE) {
      joined.push(parts.join(''));
      parts = [];
      yield;
    }
  }
  joined.push(parts.join(''));
  out.push({ range: rangeOf(doc, from, to - from), newText: joined.join('') });
  return out;
}

/** Edits deleting the spaces and tabs that end a line inside or at the end of a comment (within `range`). */
function commentLineEnds(text: string, range: { offset: number; length: number } | undefined): FlatEdits {
  const out = new FlatEdits();
  const scanner = createScanner(text, false);
  const from = range?.offset ?? 0;
  const to = range ? range.offset + range.length : text.length;
  for (let kind = scanner.scan(); kind !== SyntaxKind.EOF; kind = scanner.scan()) {
    if (kind !== SyntaxKind.LineCommentTrivia && kind !== SyntaxKind.BlockCommentTrivia) continue;
    const start = scanner.getTokenOffset();
    const end = start + scanner.getTokenLength();
    if (end < from || start > to) continue;
    for (let i = start; i <= end; i++) {
      // A line ends inside the comment (at a line break) or where a line comment ends.
      const c = text.charCodeAt(i);
      if (!(i === end ? kind === SyntaxKind.LineCommentTrivia : c === 10 || c === 13)) continue;
      let j = i;
      while (j > start && (text.charCodeAt(j - 1) === 32 || text.charCodeAt(j - 1) === 9)) j--;
      if (j < i && j >= from && i <= to) {
        out.push(j, i - j, '');
      }
    }
  }
  return out;
}

/**
 * Links: each built-in preset name to its page, each lint code named in a `severity` map to its
 * page. Only names that have a page are linked (an unknown name links nowhere), and the tooltip,
 * which VS Code renders as markdown, holds the name as inert markdown.
 * @public
 */
export function findDocumentLinks(doc: PolicyDocument): DocumentLink[] {
  const out: DocumentLink[] = [];
  const root = doc.root;
  const presets = member(root, 'presets')?.children?.[1];
  for (const p of presets?.type === 'array' ? presets.children ?? [] : []) {
    if (p.type === 'string' && p.length > 2 && defaultPresetCatalog.byName.has(String(p.value))) {
      out.push({ range: rangeOf(doc, p.offset + 1, p.length - 2), target: `${PRESETS_DOCS}#${encodeURIComponent(String(p.value))}`, tooltip: `The ${markdownCode(String(p.value))} preset` });
    }
  }
  const severity = member(root, 'severity')?.children?.[1];
  for (const m of severity?.type === 'object' ? severity.children ?? [] : []) {
    const k = m.children?.[0];
    if (k && k.length > 2 && LINT.has(String(k.value))) out.push({ range: rangeOf(doc, k.offset + 1, k.length - 2), target: docsUrl(String(k.value)), tooltip: `The ${markdownCode(String(k.value))} rule` });
  }
  return out;
}

const LINT: ReadonlySet<string> = new Set(LINT_CODES);
