/**
 * Document highlight: the other occurrences in the document of the host, CIDR or preset name under
 * the cursor. A preset name is matched in `presets`, a CIDR in every `cidrs` list, a host in host
 * patterns, SSH hosts and the host part of URLs. Each range covers exactly the text it matches
 * (a string's contents, or a URL's host), compared as written.
 */
import type { PolicyDocument } from '@netpolicy/core';
import type { Node } from 'jsonc-parser';
import { DocumentHighlightKind, type DocumentHighlight, type Position } from 'vscode-languageserver-types';
import { nodeAtOffset, rootOf } from './definition';
import { offsetOf, rangeOf } from './ranges';

/**
 * At most this many highlights (a 10,000-rule policy naming one host everywhere still answers fast).
 * @public
 */
export const MAX_HIGHLIGHTS = 2000;

type Kind = 'preset' | 'cidr' | 'host' | 'url';

const HOST_LISTS = new Set(['hostPatterns', 'serverNamePatterns']);
const URL_MEMBERS = new Set(['baseUrl', 'indexUrl', 'downloadUrl']);

/** What a string node is, by where it sits: its key, or the key of the list holding it. */
function kindOf(node: Node): Kind | undefined {
  const parent = node.parent;
  if (!parent) return undefined;
  if (parent.type === 'property') {
    const key = parent.children?.[0]?.value;
    if (parent.children?.[1] !== node) return undefined;
    if (key === 'host') return 'host';
    return URL_MEMBERS.has(key) ? 'url' : undefined;
  }
  if (parent.type !== 'array' || parent.parent?.type !== 'property') return undefined;
  const key = parent.parent.children?.[0]?.value;
  if (key === 'presets') return parent.parent.parent?.parent === undefined ? 'preset' : undefined;
  if (key === 'cidrs') return 'cidr';
  if (HOST_LISTS.has(key)) return 'host';
  return key === 'urls' ? 'url' : undefined;
}

/** The host of a URL string's raw text, as an offset range inside it (after `scheme://` and any `user@`, before a port, path, query or fragment). */
function urlHost(raw: string): { start: number; end: number } | undefined {
  const scheme = raw.indexOf('://');
  if (scheme <= 0) return undefined;
  let start = scheme + 3;
  let end = start;
  while (end < raw.length && !'/?#'.includes(raw[end])) end++;
  const at = raw.lastIndexOf('@', end - 1);
  if (at >= start) start = at + 1;
  // A port, but not inside an IPv6 literal.
  const close = raw.startsWith('[', start) ? raw.indexOf(']', start) : -1;
  const colon = raw.indexOf(':', close >= 0 && close < end ? close : start);
  if (colon >= 0 && colon < end) end = colon;
  return end > start ? { start, end } : undefined;
}

/** The text a node stands for in the match (a string's contents, or a URL's host) and where it is. */
function target(doc: PolicyDocument, node: Node, kind: Kind): { text: string; offset: number } | undefined {
  const raw = doc.text.slice(node.offset + 1, node.offset + node.length - 1);
  if (kind !== 'url') return raw ? { text: raw, offset: node.offset + 1 } : undefined;
  const h = urlHost(raw);
  return h && { text: raw.slice(h.start, h.end), offset: node.offset + 1 + h.start };
}

/**
 * The other occurrences of the host, CIDR or preset name under the cursor (the one under it included).
 * @public
 */
export function documentHighlights(doc: PolicyDocument, position: Position): DocumentHighlight[] {
  const at = nodeAtOffset(doc, offsetOf(doc, position));
  if (!at || at.isKey || at.node.type !== 'string') return [];
  const kind = kindOf(at.node);
  if (!kind) return [];
  const wanted = target(doc, at.node, kind);
  if (!wanted) return [];
  // A host is looked for in host lists and URLs alike; a preset and a CIDR only among their own.
  const family = (k: Kind | undefined) => (k === 'url' ? 'host' : k);
  const out: DocumentHighlight[] = [];
  const stack: Node[] = [rootOf(doc)!];
  while (stack.length > 0 && out.length < MAX_HIGHLIGHTS) {
    const node = stack.pop()!;
    if (node.type === 'string') {
      const k = kindOf(node);
      if (!k || family(k) !== family(kind)) continue;
      const t = target(doc, node, k);
      if (t && t.text === wanted.text) out.push({ range: rangeOf(doc, t.offset, t.text.length), kind: DocumentHighlightKind.Text });
      continue;
    }
    const children = node.children;
    if (children) for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
  }
  return out;
}
