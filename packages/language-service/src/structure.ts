/**
 * The document's structure: folding ranges, selection ranges, and links from preset names and lint
 * codes to their documentation, from jsonc-parser's error-tolerant tree. The outline is in
 * document-symbols.ts and formatting in format-document.ts; this module re-exports both, so that
 * the rest of the service imports the document's structure from one place.
 */
import { LINT_CODES, defaultPresetCatalog, docsUrl, type PolicyDocument } from '@netpolicy/core';
import { markdownCode, nodeAt } from '@netpolicy/core/internal';
import { type Node } from 'jsonc-parser';
import { FoldingRangeKind, type DocumentLink, type FoldingRange, type Position, type SelectionRange } from 'vscode-languageserver-types';
import { nodeRange } from './document-symbols';
import { offsetOf, rangeOf, sameRange } from './ranges';

export { findDocumentSymbols, documentSymbolSteps, scanTopLevelForTest, symbolsFromTreeForTest } from './document-symbols';
export { MAX_FORMAT_EDITS, FORMAT_REFUSED, format, runSteps, formatSteps } from './format-document';

const PRESETS_DOCS = 'https://github.com/netpolicy/netpolicy/blob/main/docs/presets.md';

function member(node: Node | undefined, key: string): Node | undefined {
  return node?.children?.find((m) => m.children?.[0]?.value === key);
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
