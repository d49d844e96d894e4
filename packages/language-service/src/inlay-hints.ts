/**
 * Inlay hints, each kind of which a setting turns off: a CIDR's address count, a port's usual
 * service, what an enabled preset adds (from its catalog entry), and, with traces evaluated, how
 * many traced accesses each rule decided. Only the nodes that overlap the requested range are
 * visited (children are found by binary search), so a hint request in a 10,000-rule policy costs
 * what the visible rules cost once the document's tree is built.
 */
import { escapeControl, type PolicyDocument } from '@netpolicy/core';
import type { Node } from 'jsonc-parser';
import { InlayHintKind, type InlayHint, type Range } from 'vscode-languageserver-types';
import { rootOf } from './definition';
import { offsetOf } from './ranges';
import type { ServiceSettings } from './settings';
import type { TraceUsage } from './trace-usage';
import { serviceOfPort } from './well-known-ports';

/**
 * Which kinds of hint to give (each on unless false): the `netpolicy.inlayHints.*` settings.
 * @public
 */
export interface InlayHintOptions {
  addresses?: boolean;
  services?: boolean;
  presets?: boolean;
  traceHits?: boolean;
}

/**
 * At most this many hints in one answer (a range over a whole huge policy still answers fast).
 * @public
 */
export const MAX_INLAY_HINTS = 5000;

/**
 * How many addresses a CIDR holds, in words (`16,777,216 addresses`; IPv6 past 2^53 as `2^64 addresses`); undefined when it is not a CIDR.
 * @public
 */
export function addressCount(cidr: string): string | undefined {
  const m = /^([0-9A-Fa-f:.]+)\/(\d{1,3})$/.exec(cidr);
  if (!m) return undefined;
  const v6 = m[1].includes(':');
  if (!v6 && !/^\d{1,3}(\.\d{1,3}){3}$/.test(m[1])) return undefined;
  const bits = (v6 ? 128 : 32) - Number(m[2]);
  if (bits < 0) return undefined;
  if (bits === 0) return '1 address';
  if (v6 && bits > 53) return `2^${bits} addresses`;
  return `${(2 ** bits).toLocaleString('en-US')} addresses`;
}

/** A description in a few words: its first sentence, cut at a word near `max` characters, control and bidi characters escaped. */
function fewWords(text: string, max = 64): string {
  const first = text.split(/(?<=[.;:])\s/)[0].replace(/[.;:]$/, '').trim();
  const cut = first.length <= max ? first : `${first.slice(0, first.lastIndexOf(' ', max) > 20 ? first.lastIndexOf(' ', max) : max)}…`;
  return escapeControl(cut);
}

/** The index of the first child whose end is at or past `offset` (children are sorted and do not overlap). */
function firstEndingAfter(children: Node[], offset: number): number {
  let lo = 0, hi = children.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (children[mid].offset + children[mid].length < offset) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The inlay hints of the nodes that overlap `range`.
 * @public
 */
export function getInlayHints(doc: PolicyDocument, range: Range, settings: ServiceSettings, options: InlayHintOptions = {}, usage?: TraceUsage): InlayHint[] {
  const root = rootOf(doc);
  if (root?.type !== 'object') return [];
  const start = offsetOf(doc, range.start);
  const end = offsetOf(doc, range.end);
  const hits = options.traceHits !== false && usage && usage.traces.length > 0 ? usage : undefined;
  const out: InlayHint[] = [];
  const after = (node: Node, label: string, kind?: InlayHintKind): InlayHint => ({ position: doc.lineIndex.positionAt(node.offset + node.length), label, paddingLeft: true, ...(kind ? { kind } : {}) });

  const visit = (node: Node, key: string | undefined, path: string[]): void => {
    if (out.length >= MAX_INLAY_HINTS || path.length > 8) return;
    const children = node.children ?? [];
    if (node.type === 'property') {
      const [k, v] = children;
      if (!v || v.offset + v.length < start || v.offset > end) return;
      const name = typeof k?.value === 'string' ? k.value : undefined;
      if (name === 'port' && v.type === 'number') portHint(v);
      else visit(v, name, name === undefined ? path : [...path, name]);
      return;
    }
    if (node.type === 'array' && path.length === 1 && (key === 'sources' || key === 'connections') && hits) {
      // A rule's hit count, before the rule.
      for (let i = firstEndingAfter(children, start); i < children.length && children[i].offset <= end; i++) {
        const u = hits.byRule.get(`/${key}/${i}`);
        out.push({ position: doc.lineIndex.positionAt(children[i].offset), label: `${u?.count ?? 0} hit${u?.count === 1 ? '' : 's'}`, paddingRight: true });
      }
    }
    for (let i = firstEndingAfter(children, start); i < children.length && children[i].offset <= end; i++) {
      const c = children[i];
      if (node.type === 'array') leaf(c, key, path);
      if (c.type === 'object' || c.type === 'array' || c.type === 'property') visit(c, node.type === 'array' ? key : undefined, path);
    }
  };

  const portHint = (n: Node) => {
    if (options.services === false || !Number.isInteger(n.value)) return;
    const service = serviceOfPort(n.value as number);
    if (service) out.push(after(n, service));
  };

  const leaf = (n: Node, key: string | undefined, path: string[]) => {
    if (key === 'cidrs' && n.type === 'string' && options.addresses !== false) {
      const count = addressCount(String(n.value));
      if (count) out.push(after(n, count));
    } else if (key === 'ports' && n.type === 'number') portHint(n);
    else if (key === 'presets' && path.length === 1 && n.type === 'string') {
      const name = String(n.value);
      if (options.presets !== false) {
        const entry = settings.catalog.byName.get(name);
        if (entry) out.push(after(n, entry.description ? fewWords(entry.description) : entry.opaque ? 'contents not published' : 'no description'));
      }
      if (hits) {
        const u = hits.byRule.get(`preset:${name}`);
        out.push(after(n, `${u?.count ?? 0} hit${u?.count === 1 ? '' : 's'}`));
      }
    }
  };

  visit(root, undefined, []);
  return out;
}
