/**
 * The document's structure: an outline (default, presets, each source by kind and first URL,
 * each connection by kind and target), folding ranges, selection ranges, formatting, and links
 * from preset names to their documentation. All from jsonc-parser's error-tolerant tree.
 */
import { docsUrl, nodeAt, type PolicyDocument } from '@netpolicy/core';
import { format as formatJson, type Node } from 'jsonc-parser';
import {
  FoldingRangeKind, SymbolKind, type DocumentLink, type DocumentSymbol, type FoldingRange, type FormattingOptions, type Position,
  type Range, type SelectionRange, type TextEdit,
} from 'vscode-languageserver-types';
import { toLspEdits } from './code-actions';
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
    const at = nodeAt(doc, offsetOf(doc, position));
    const offset = offsetOf(doc, position);
    let chain: SelectionRange | undefined;
    const nodes: Node[] = [];
    for (let n: Node | undefined = at?.node; n; n = n.parent) nodes.unshift(n);
    for (const n of nodes) {
      const range = nodeRange(doc, n);
      if (chain && sameRange(chain.range, range)) continue;
      chain = { range, ...(chain ? { parent: chain } : {}) };
    }
    return chain ?? { range: rangeOf(doc, offset, 0) };
  });
}

/** Formatting with jsonc-parser, honouring the client's tab settings; a range formats only that part. */
export function format(doc: PolicyDocument, range: Range | undefined, options: FormattingOptions): TextEdit[] {
  const eol = doc.text.includes('\r\n') ? '\r\n' : '\n';
  const r = range ? { offset: offsetOf(doc, range.start), length: offsetOf(doc, range.end) - offsetOf(doc, range.start) } : undefined;
  const tabSize = Number.isInteger(options?.tabSize) && options.tabSize > 0 && options.tabSize <= 16 ? options.tabSize : 2;
  const edits = formatJson(doc.text, r, { tabSize, insertSpaces: options?.insertSpaces !== false, eol, insertFinalNewline: options?.insertFinalNewline === true, keepLines: false });
  return toLspEdits(doc, edits.map((e) => ({ offset: e.offset, length: e.length, newText: e.content })));
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
