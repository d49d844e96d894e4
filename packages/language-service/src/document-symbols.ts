/**
 * The outline (document symbols) of a policy: default, presets, each source by kind and first URL,
 * each connection by kind and target, every other top-level member. A document that parsed is read
 * with one scan of its text and its parsed value (no syntax tree: the outline of a policy of
 * millions of tokens stays cheap); a document with syntax errors from jsonc-parser's error-tolerant
 * tree. Sliced like formatting, so that a server answers other requests in between. Names and
 * details quote the document (a URL, a preset's name), which may come from a hostile repository:
 * their control and bidi characters are shown as escapes, as in workspace symbols.
 */
import { escapeControl, type PolicyDocument } from '@netpolicy/core';
import { type Node } from 'jsonc-parser';
import { SymbolKind, type DocumentSymbol, type Range } from 'vscode-languageserver-types';
import { runSteps } from './format-document';
import { rangeOf } from './ranges';
import { ruleSummary } from './hover';

export function nodeRange(doc: PolicyDocument, node: Node): Range {
  return rangeOf(doc, node.offset, node.length);
}

function symbol(doc: PolicyDocument, name: string, kind: SymbolKind, whole: Node, select: Node, detail?: string, children?: DocumentSymbol[]): DocumentSymbol {
  return { name: escapeControl(name || '(empty)'), kind, range: nodeRange(doc, whole), selectionRange: nodeRange(doc, select), ...(detail ? { detail: escapeControl(detail) } : {}), ...(children ? { children } : {}) };
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
    ({ name: escapeControl(name || '(empty)'), kind, range, selectionRange, ...(detail ? { detail: escapeControl(detail) } : {}), ...(children ? { children } : {}) });
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
