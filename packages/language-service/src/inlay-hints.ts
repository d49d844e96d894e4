/**
 * Inlay hints, each kind of which a setting turns off: a CIDR's address count, a port's usual
 * service, what an enabled preset adds (from its catalog entry), and, with traces evaluated, how
 * many traced accesses each rule decided. Only what overlaps the requested range is read.
 *
 * A plain JSON policy is read without its tree (about 150 ms to build for 10,000 rules, and each
 * keystroke makes a new version): the items of its root arrays are found by the spans core carries
 * from version to version, those in range are scanned one by one, and the scan stops at the cap.
 * Any other document (comments, a syntax error, a root member that is an object) is read from its
 * tree; `treeInlayHints` is also the reference the span reading is held to (inlay-hints.property.test.ts).
 * The readings are beside this file: inlay-hint-spans.ts (by spans), inlay-hint-items.ts (one item's
 * characters), inlay-hint-records.ts (each item's hints kept by its value), inlay-hint-values.ts.
 */
import type { PolicyDocument } from '@netpolicy/core';
import { documentItemSpans } from '@netpolicy/core/internal';
import type { Node } from 'jsonc-parser';
import type { InlayHint, Range } from 'vscode-languageserver-types';
import { rootOf } from './definition';
import { recordedAnswer, type Recorded } from './inlay-hint-records';
import { spanHints, type RequestSink } from './inlay-hint-spans';
import { MAX_INLAY_HINTS, MAX_PATH, addressCount, fewWords, serviceHint } from './inlay-hint-values';
import { offsetOf } from './ranges';
import type { ServiceSettings } from './settings';
import type { TraceUsage } from './trace-usage';

export { MAX_INLAY_HINTS, addressCount } from './inlay-hint-values';

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
 * The hints of one request, in document order, at most MAX_INLAY_HINTS: what each kind of value
 * says, whichever reading (tree, spans or an item's record) found it.
 */
class Hints implements RequestSink {
  readonly out: InlayHint[] = [];
  constructor(
    private readonly doc: PolicyDocument,
    private readonly settings: ServiceSettings,
    private readonly options: InlayHintOptions,
    /** The usage when rule hit counts are shown. */
    readonly hits: TraceUsage | undefined,
  ) {}

  get full(): boolean {
    return this.out.length >= MAX_INLAY_HINTS;
  }

  private after(end: number, label: string): void {
    if (!this.full) this.out.push({ position: this.doc.lineIndex.positionAt(end), label, paddingLeft: true });
  }

  /** A rule's hit count, before it. */
  ruleHits(pointer: string, offset: number): void {
    if (!this.hits || this.full || this.hits.unevaluated?.has(pointer)) return;
    const u = this.hits.byRule.get(pointer);
    this.out.push({ position: this.doc.lineIndex.positionAt(offset), label: `${u?.count ?? 0} hit${u?.count === 1 ? '' : 's'}`, paddingRight: true });
  }

  /** An item's recorded hints, the item opening at `from`, those of the kinds turned on. */
  recorded(from: number, record: Recorded): void {
    if (record.data.length === 0) return;
    const hints = recordedAnswer(record, this.doc.lineIndex.positionAt(from), this.options.addresses !== false, this.options.services !== false);
    for (let i = 0; i < hints.length && !this.full; i++) this.out.push(hints[i]!);
  }

  port(value: unknown, end: number, within: string | undefined): void {
    if (this.options.services === false) return;
    const service = serviceHint(value, within);
    if (service) this.after(end, service);
  }

  /** An item of an array under member `key`, at `depth` members from the root (the array's own member included). */
  leaf(value: unknown, key: string | undefined, depth: number, end: number): void {
    if (key === 'cidrs' && typeof value === 'string' && this.options.addresses !== false) {
      const count = addressCount(value);
      if (count) this.after(end, count);
    } else if (key === 'ports' && typeof value === 'number') this.port(value, end, undefined);
    else if (key === 'presets' && depth === 1 && typeof value === 'string') {
      if (this.options.presets !== false) {
        const entry = this.settings.catalog.byName.get(value);
        if (entry) this.after(end, entry.description ? fewWords(entry.description) : entry.opaque ? 'contents not published' : 'no description');
      }
      if (this.hits && !this.hits.unevaluated?.has(`preset:${value}`)) {
        const u = this.hits.byRule.get(`preset:${value}`);
        this.after(end, `${u?.count ?? 0} hit${u?.count === 1 ? '' : 's'}`);
      }
    }
  }
}

/**
 * The inlay hints of what overlaps `range`. A hint inside a rule may be the same frozen object as
 * in an earlier answer for an earlier version (when that rule did not change or move): copy a hint
 * to change it.
 * @public
 */
export function getInlayHints(doc: PolicyDocument, range: Range, settings: ServiceSettings, options: InlayHintOptions = {}, usage?: TraceUsage): InlayHint[] {
  const start = offsetOf(doc, range.start);
  const end = offsetOf(doc, range.end);
  const hints = new Hints(doc, settings, options, options.traceHits !== false && usage && usage.traces.length > 0 ? usage : undefined);
  const spans = documentItemSpans(doc);
  if (spans && spanHints(doc.text, doc.value, spans, start, end, hints)) return hints.out;
  // Not as the spans say (a root member holding an object): the tree answers, from scratch.
  hints.out.length = 0;
  return treeHints(doc, start, end, hints);
}

/**
 * `getInlayHints` read from the document's tree, whatever the document: the reference the
 * reading by spans is held to.
 * @internal
 */
export function treeInlayHints(doc: PolicyDocument, range: Range, settings: ServiceSettings, options: InlayHintOptions = {}, usage?: TraceUsage): InlayHint[] {
  const hints = new Hints(doc, settings, options, options.traceHits !== false && usage && usage.traces.length > 0 ? usage : undefined);
  return treeHints(doc, offsetOf(doc, range.start), offsetOf(doc, range.end), hints);
}

function treeHints(doc: PolicyDocument, start: number, end: number, hints: Hints): InlayHint[] {
  const root = rootOf(doc);
  if (root?.type !== 'object') return [];
  const visit = (node: Node, key: string | undefined, path: number): void => {
    if (hints.full || path > MAX_PATH) return;
    const children = node.children ?? [];
    if (node.type === 'property') {
      const [k, v] = children;
      if (!v || v.offset + v.length < start || v.offset > end) return;
      const name = typeof k?.value === 'string' ? k.value : undefined;
      if (name === 'port' && v.type === 'number') hints.port(v.value, v.offset + v.length, key);
      else visit(v, name, name === undefined ? path : path + 1);
      return;
    }
    if (node.type === 'array' && node.parent?.parent === root && (key === 'sources' || key === 'connections') && hints.hits) {
      // A root member's rules (not the items of a rule that is itself an array).
      for (let i = firstEndingAfter(children, start); i < children.length && children[i].offset <= end; i++) hints.ruleHits(`/${key}/${i}`, children[i].offset);
    }
    for (let i = firstEndingAfter(children, start); i < children.length && children[i].offset <= end; i++) {
      const c = children[i];
      if (node.type === 'array') hints.leaf(c.value, key, path, c.offset + c.length);
      // An array's items keep its member's name, and so do an object's members (for a `port`'s hint).
      if (c.type === 'object' || c.type === 'array' || c.type === 'property') visit(c, node.type === 'array' || node.type === 'object' ? key : undefined, path);
    }
  };
  visit(root, undefined, 0);
  return hints.out;
}
