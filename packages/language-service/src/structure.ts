/**
 * The document's structure: an outline (default, presets, each source by kind and first URL,
 * each connection by kind and target), folding ranges, selection ranges, formatting, and links
 * from preset names to their documentation. All from jsonc-parser's error-tolerant tree.
 */
import { docsUrl, nodeAt, type PolicyDocument } from '@netpolicy/core';
import { createScanner, format as formatJson, type Node } from 'jsonc-parser';
import {
  FoldingRangeKind, SymbolKind, type DocumentLink, type DocumentSymbol, type FoldingRange, type FormattingOptions, type Position,
  type Range, type SelectionRange, type TextEdit,
} from 'vscode-languageserver-types';
import { toLspEdits } from './code-actions';
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

export function findDocumentSymbols(doc: PolicyDocument): DocumentSymbol[] {
  const root = doc.root;
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

/** The first line break of the text (what jsonc-parser's formatter uses), else `fallback`. */
function firstEol(text: string, fallback: string): string {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 13) return text.charCodeAt(i + 1) === 10 ? '\r\n' : '\r';
    if (c === 10) return '\n';
  }
  return fallback;
}

function allBlank(text: string, from: number): boolean {
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c !== 32 && c !== 9 && c !== 10 && c !== 13) return false;
  }
  return true;
}

/**
 * Formatting with jsonc-parser, honouring the client's options: `tabSize`/`insertSpaces`; the
 * file's final newline is kept (jsonc-parser drops it unless `insertFinalNewline`), blank lines at
 * the end go only with `trimFinalNewlines`, and `trimTrailingWhitespace` also trims the ends of
 * comment lines (jsonc-parser leaves comments alone). A range formats only that part.
 */
export function format(doc: PolicyDocument, range: Range | undefined, options: FormattingOptions): TextEdit[] {
  const text = doc.text;
  const eol = firstEol(text, '\n');
  const r = range ? { offset: offsetOf(doc, range.start), length: Math.max(0, offsetOf(doc, range.end) - offsetOf(doc, range.start)) } : undefined;
  const tabSize = Number.isInteger(options?.tabSize) && options.tabSize > 0 && options.tabSize <= 16 ? options.tabSize : 2;
  const insertSpaces = options?.insertSpaces !== false;
  const edits = formatJson(text, r, { tabSize, insertSpaces, eol, insertFinalNewline: options?.insertFinalNewline === true, keepLines: false }).map((e) => ({ offset: e.offset, length: e.length, newText: e.content }));
  // jsonc-parser 3.3.1 answers `undefined` for a line break followed by exactly 200 columns of
  // indentation (its cache of those strings is one short): that is what the text must be.
  for (const e of edits) if (typeof e.newText !== 'string') e.newText = eol + (insertSpaces ? ' ' : '\t').repeat(200);
  // The end of the file: jsonc-parser's last edit replaces what follows the last token (blanks only).
  const last = edits.length > 0 ? edits[edits.length - 1] : undefined;
  if (last && last.offset + last.length === text.length && allBlank(text, last.offset)) {
    const rest = text.slice(last.offset);
    const breaks = rest.match(/\r\n|\r|\n/g) ?? [];
    const wanted = breaks.length === 0 ? (options?.insertFinalNewline === true ? eol : '') : options?.trimFinalNewlines === true ? eol : breaks.join('');
    if (wanted === rest) edits.pop();
    else last.newText = wanted;
  }
  if (options?.trimTrailingWhitespace === true) edits.push(...commentLineEnds(text, r));
  return toLspEdits(doc, edits.sort((a, b) => a.offset - b.offset));
}

/** Edits deleting the spaces and tabs that end a line inside or at the end of a comment (within `range`). */
function commentLineEnds(text: string, range: { offset: number; length: number } | undefined): Array<{ offset: number; length: number; newText: string }> {
  const out: Array<{ offset: number; length: number; newText: string }> = [];
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
      if (j < i && j >= from && i <= to) out.push({ offset: j, length: i - j, newText: '' });
    }
  }
  return out;
}

/** Links: each preset name to its page, each diagnostic code named in a `severity` map to its page. */
export function findDocumentLinks(doc: PolicyDocument): DocumentLink[] {
  const out: DocumentLink[] = [];
  const root = doc.root;
  const presets = member(root, 'presets')?.children?.[1];
  for (const p of presets?.type === 'array' ? presets.children ?? [] : []) {
    if (p.type === 'string' && p.length > 2) out.push({ range: rangeOf(doc, p.offset + 1, p.length - 2), target: `${PRESETS_DOCS}#${encodeURIComponent(String(p.value))}`, tooltip: `The ${p.value} preset` });
  }
  const severity = member(root, 'severity')?.children?.[1];
  for (const m of severity?.type === 'object' ? severity.children ?? [] : []) {
    const k = m.children?.[0];
    if (k && k.length > 2) out.push({ range: rangeOf(doc, k.offset + 1, k.length - 2), target: docsUrl(String(k.value)), tooltip: `The ${k.value} rule` });
  }
  return out;
}
