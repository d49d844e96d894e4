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
 */
import { escapeControl, type PolicyDocument } from '@netpolicy/core';
import { documentItemSpans, type ItemSpans } from '@netpolicy/core/internal';
import { createScanner, type Node } from 'jsonc-parser';
import { SyntaxKind } from './location';
import type { InlayHint, Range } from 'vscode-languageserver-types';
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
  return (COUNTS[v6 ? 1 : 0][bits] ??= countText(v6, bits));
}

/** The words for each prefix's address count, made once each (the locale formatter costs a few microseconds a call). */
const COUNTS: [string[], string[]] = [[], []];

function countText(v6: boolean, bits: number): string {
  if (bits === 0) return '1 address';
  if (v6 && bits > 53) return `2^${bits} addresses`;
  // Thousands separated by commas, as en-US writes them.
  return `${String(2 ** bits).replace(/\B(?=(\d{3})+(?!\d))/g, ',')} addresses`;
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

/** Deeper than this many members, nothing is hinted (as the tree reading: a path of property names). */
const MAX_PATH = 8;

/** What a scan reports the values it meets to: a request's hints, or the record of one item's. */
interface Sink {
  readonly full: boolean;
  /** An item of an array under member `key`, at `depth` members from the root (the array's own member included). */
  leaf(value: unknown, key: string | undefined, depth: number, end: number): void;
  /** The value of a `port` member of an object under member `within` (`"ssh": [{ "port": 22 }]`: `ssh`). */
  port(value: unknown, end: number, within: string | undefined): void;
}

/** The kinds of hint an item of a root array may hold (presets are hinted at the root only). */
const enum Kind { Addresses, Services }

/**
 * One root array item's hints, every kind on, placed from its opening bracket: each hint's line
 * breaks after the bracket and its character (from the bracket on the bracket's line, else from
 * its own line's start). Core's reparse of an edited document shares the value of every item the
 * edit did not touch, and such an item's text is the same in the new version (shifted), so a value
 * met again reuses its record: its text is not scanned again (a keystroke in a 10,000-rule policy
 * scans one rule) and one position is looked up per item, not one per hint.
 */
interface Recorded {
  /** Four fields per hint (records are read for thousands of items a request: one array each keeps them close in memory). */
  readonly data: readonly (number | string)[];
  /**
   * The hints last answered from this record, frozen (answers share them), with where the item
   * began and which kinds were on: an item that has not moved since (every item but the edited
   * one, on a keystroke that adds no line) answers them again without making new ones.
   */
  hints: readonly InlayHint[] | undefined;
  line: number;
  character: number;
  kinds: number;
}

/** A record's fields, four per hint. */
const LINE = 0, CHARACTER = 1, KIND = 2, LABEL = 3, STRIDE = 4;

/** The record of an item without hints (most rules), shared. */
const NO_HINTS: Recorded = Object.freeze({ data: [], hints: undefined, line: -1, character: -1, kinds: -1 });

/** Records by the item's parsed value (collected with it); null when an item holds more hints than an answer. */
const RECORDED = new WeakMap<object, Recorded | null>();

/**
 * The service a port usually carries, unless the member the port sits under already says it (a
 * hint that repeats the text is noise: `"ssh": [{ "port": 22 }]` gets none, as TypeScript hides a
 * parameter name the argument already spells).
 */
function serviceHint(port: unknown, within: string | undefined): string | undefined {
  const service = Number.isInteger(port) ? serviceOfPort(port as number) : undefined;
  return service === within ? undefined : service;
}

/** Records an item's hints (the kinds `Hints` gives inside an item, with every option on). */
class Recorder implements Sink {
  readonly record: (number | string)[] = [];
  /** How far line breaks were counted, how many, and where the last line began. */
  private counted: number;
  private breaks = 0;
  private lineStart: number;
  constructor(private readonly text: string, from: number) {
    this.counted = this.lineStart = from;
  }

  get full(): boolean {
    return this.record.length >= MAX_INLAY_HINTS * STRIDE;
  }

  private add(end: number, label: string, kind: Kind): void {
    // Line breaks as LineIndex counts them: \n, \r\n, \r (hints come in order: counted once).
    const { text } = this;
    for (let i = this.counted; i < end; i++) {
      const c = text.charCodeAt(i);
      if (c === 10 || c === 13) {
        if (c === 13 && text.charCodeAt(i + 1) === 10) i++;
        this.breaks++;
        this.lineStart = i + 1;
      }
    }
    this.counted = end;
    this.record.push(this.breaks, end - this.lineStart, kind, label);
  }

  leaf(value: unknown, key: string | undefined, _depth: number, end: number): void {
    // No `presets` at depth 1 here: the items under the root member `presets` are not recorded.
    if (key === 'cidrs' && typeof value === 'string') {
      const count = addressCount(value);
      if (count) this.add(end, count, Kind.Addresses);
    } else if (key === 'ports' && typeof value === 'number') this.port(value, end, undefined);
  }

  port(value: unknown, end: number, within: string | undefined): void {
    const service = serviceHint(value, within);
    if (service) this.add(end, service, Kind.Services);
  }
}

/** The record of the item `text[from, to)` under root member `rootKey` whose parsed value is `item`: made on first sight. */
function recordedHints(item: object, text: string, from: number, to: number, rootKey: string): Recorded | undefined {
  let record = RECORDED.get(item);
  if (record === undefined) {
    const recorder = new Recorder(text, from);
    itemHints(text, from, to, rootKey, from, to, recorder);
    record = recorder.full ? null : recorder.record.length === 0 ? NO_HINTS : { data: recorder.record, hints: undefined, line: -1, character: -1, kinds: -1 };
    RECORDED.set(item, record);
  }
  return record ?? undefined;
}

/** The array under root member `key` of a plain document's value (an own member: `__proto__` is data here). */
function memberArray(value: unknown, key: string): unknown[] | undefined {
  if (!value || typeof value !== 'object' || !Object.hasOwn(value, key)) return undefined;
  const array = (value as Record<string, unknown>)[key];
  return Array.isArray(array) ? array : undefined;
}

/**
 * The hints of one request, in document order, at most MAX_INLAY_HINTS: what each kind of value
 * says, whichever reading (tree, spans or an item's record) found it.
 */
class Hints implements Sink {
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
    if (!this.hits || this.full) return;
    const u = this.hits.byRule.get(pointer);
    this.out.push({ position: this.doc.lineIndex.positionAt(offset), label: `${u?.count ?? 0} hit${u?.count === 1 ? '' : 's'}`, paddingRight: true });
  }

  /** An item's recorded hints, the item opening at `from`, those of the kinds turned on. */
  recorded(from: number, record: Recorded): void {
    const { data } = record;
    if (data.length === 0) return;
    const addresses = this.options.addresses !== false, services = this.options.services !== false;
    const kinds = (addresses ? 1 : 0) | (services ? 2 : 0);
    const at = this.doc.lineIndex.positionAt(from);
    let hints = record.hints;
    if (!hints || record.line !== at.line || record.character !== at.character || record.kinds !== kinds) {
      const made: InlayHint[] = [];
      for (let i = 0; i < data.length; i += STRIDE) {
        if (data[i + KIND] === Kind.Addresses ? !addresses : !services) continue;
        const line = data[i + LINE] as number, character = data[i + CHARACTER] as number;
        const position = Object.freeze(line === 0 ? { line: at.line, character: at.character + character } : { line: at.line + line, character });
        made.push(Object.freeze({ position, label: data[i + LABEL] as string, paddingLeft: true }));
      }
      record.hints = hints = made;
      record.line = at.line;
      record.character = at.character;
      record.kinds = kinds;
    }
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
      if (this.hits) {
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

/** A container being scanned: its member name (an array's items inherit it), its depth in members, whether it is past MAX_PATH. */
interface Frame { array: boolean; key: string | undefined; depth: number; dead: boolean }

/**
 * The hints of a plain JSON document read by its item spans: the root's members are scanned,
 * each item of a root array in range is scanned alone (a sliced string: nothing copied), items out
 * of range are stepped over. False when the root has a member this reading does not follow (an
 * object value), for the tree to answer.
 */
function spanHints(text: string, value: unknown, spans: ItemSpans, start: number, end: number, hints: Hints): boolean {
  const { starts, ends } = spans;
  const scanner = createScanner(text, true);
  if (scanner.scan() !== SyntaxKind.OpenBraceToken) return false;
  // The item starting at an offset (binary search over the spans, from the last one found: the scan only moves on).
  let item = 0;
  /** Whether the scan went past the range (nothing after it is hinted). */
  let past = false;
  const itemAt = (offset: number): number => {
    // Items come in order: most often the next one.
    if (starts[item + 1] === offset) return ++item;
    let lo = item, hi = starts.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (starts[mid]! < offset) lo = mid + 1;
      else hi = mid;
    }
    item = lo;
    return starts[lo] === offset ? lo : -1;
  };
  /**
   * The items of the array whose `[` was just scanned, each with its index, offset and end (an
   * object or array stepped over by its span); false when the text is not as the spans say.
   */
  const items = (each: (index: number, offset: number, itemEnd: number, kind: number) => boolean): boolean => {
    // Punctuation and spaces are read here, a scalar item by the scanner (plain JSON: no comments).
    let index = 0;
    for (let pos = scanner.getPosition(); ;) {
      let c = text.charCodeAt(pos);
      while (c === 32 || c === 10 || c === 13 || c === 9) c = text.charCodeAt(++pos);
      if (c === 93 /* ] */) {
        scanner.setPosition(pos + 1);
        return true;
      }
      if (c === 44 /* , */) {
        pos++;
        continue;
      }
      const offset = pos;
      let kind: number, itemEnd: number;
      if (c === 123 /* { */ || c === 91 /* [ */) {
        const j = itemAt(offset);
        if (j < 0) return false;
        kind = c === 123 ? SyntaxKind.OpenBraceToken : SyntaxKind.OpenBracketToken;
        itemEnd = ends[j]!;
      } else {
        scanner.setPosition(offset);
        kind = scanner.scan();
        if (kind === SyntaxKind.EOF || kind === SyntaxKind.CloseBraceToken) return false;
        itemEnd = offset + scanner.getTokenLength();
      }
      if (offset > end) {
        past = true;
        return true;
      }
      if (itemEnd >= start && !each(index, offset, itemEnd, kind)) return true;
      index++;
      pos = itemEnd;
    }
  };
  for (let t = scanner.scan(); t !== SyntaxKind.CloseBraceToken && t !== SyntaxKind.EOF; t = scanner.scan()) {
    if (t === SyntaxKind.CommaToken) continue;
    if (t !== SyntaxKind.StringLiteral) return false;
    const key = scanner.getTokenValue();
    if (scanner.scan() !== SyntaxKind.ColonToken) return false;
    const v = scanner.scan();
    const offset = scanner.getTokenOffset();
    if (offset > end) return true;
    if (v === SyntaxKind.OpenBraceToken) return false;
    if (v !== SyntaxKind.OpenBracketToken) {
      // A member holding a number, string or literal: only `port` says something.
      const valueEnd = offset + scanner.getTokenLength();
      if (key === 'port' && v === SyntaxKind.NumericLiteral && valueEnd >= start) hints.port(Number(scanner.getTokenValue()), valueEnd, undefined);
      continue;
    }
    const content = scanner.getPosition();
    if (hints.hits && (key === 'sources' || key === 'connections')) {
      // Hit counts of the rules in range first (as the tree reading), then their hints: the same
      // items again, from the same span on.
      const first = item;
      if (!items((index, at) => (hints.ruleHits(`/${key}/${index}`, at), !hints.full))) return false;
      scanner.setPosition(content);
      item = first;
      past = false;
    }
    const array = key !== 'presets' ? memberArray(value, key) : undefined;
    const read = items((index, at, itemEnd, kind) => {
      if (kind === SyntaxKind.OpenBraceToken || kind === SyntaxKind.OpenBracketToken) {
        // An item wholly in range is read from its record; one the range cuts is scanned.
        const item = array?.[index];
        const record = item && typeof item === 'object' && at >= start && itemEnd <= end ? recordedHints(item, text, at, itemEnd, key) : undefined;
        if (record) hints.recorded(at, record);
        else itemHints(text, at, itemEnd, key, start, end, hints);
      } else hints.leaf(tokenValue(scanner, kind), key, 1, itemEnd);
      return !hints.full;
    });
    if (!read) return false;
    if (hints.full || past) return true;
  }
  return true;
}

/** A scalar token's value as jsonc-parser's tree holds it. */
function tokenValue(scanner: ReturnType<typeof createScanner>, kind: number): unknown {
  switch (kind) {
    case SyntaxKind.StringLiteral: return scanner.getTokenValue();
    case SyntaxKind.NumericLiteral: return Number(scanner.getTokenValue());
    case SyntaxKind.TrueKeyword: return true;
    case SyntaxKind.FalseKeyword: return false;
    default: return null;
  }
}

/** The offset of the quote closing the string that opens at `at` (plain JSON: it is there). */
function closingQuote(text: string, at: number): number {
  let close = text.indexOf('"', at + 1);
  for (;;) {
    let k = close - 1;
    while (text.charCodeAt(k) === 92 /* \\ */) k--;
    if (((close - 1 - k) & 1) === 0 || close < 0) return close;
    close = text.indexOf('"', close + 1);
  }
}

/** The value of the string `text[at, close]` (quotes included). */
function stringAt(text: string, at: number, close: number): string {
  const inner = text.slice(at + 1, close);
  return inner.includes('\\') ? (JSON.parse(text.slice(at, close + 1)) as string) : inner;
}

/**
 * The hints inside one item (an object or array) of the root array under `rootKey`,
 * `text[from, to)`, read by a scan of its characters: the item is plain JSON (the document is), so
 * the scan only tells tokens apart, and builds a value only where a hint may come from (a member
 * name, a string under `cidrs` or `presets`, a number under `ports` or `port`).
 */
function itemHints(text: string, from: number, to: number, rootKey: string, start: number, end: number, hints: Sink): void {
  const frames: Frame[] = [];
  let top: Frame | undefined;
  let property: string | undefined;
  let expectKey = false;
  for (let i = from; i < to;) {
    const c = text.charCodeAt(i);
    if (c === 123 /* { */ || c === 91 /* [ */) {
      const array = c === 91;
      // A member's value is one member deeper; an array's item keeps the array's member and depth.
      const frame: Frame = !top ? { array, key: rootKey, depth: 1, dead: false }
        : top.array ? { array, key: top.key, depth: top.depth, dead: top.dead }
        : { array, key: property, depth: top.depth + 1, dead: top.dead || top.depth + 1 > MAX_PATH };
      frames.push(frame);
      top = frame;
      expectKey = !array;
      i++;
    } else if (c === 125 /* } */ || c === 93 /* ] */) {
      frames.pop();
      top = frames[frames.length - 1];
      i++;
    } else if (c === 44 /* , */) {
      expectKey = top !== undefined && !top.array;
      i++;
    } else if (c === 34 /* " */) {
      const close = closingQuote(text, i);
      if (expectKey) {
        property = stringAt(text, i, close);
        expectKey = false;
      } else if (top && top.array && !top.dead && (top.key === 'cidrs' || top.key === 'presets') && close + 1 >= start && i <= end) {
        hints.leaf(stringAt(text, i, close), top.key, top.depth, close + 1);
      }
      i = close + 1;
    } else if (c === 32 || c === 10 || c === 13 || c === 9 || c === 58 /* : */) {
      i++;
    } else {
      // A number, true, false or null: up to the next delimiter.
      let j = i + 1;
      for (; j < to; j++) {
        const d = text.charCodeAt(j);
        if (d === 44 || d === 125 || d === 93 || d === 32 || d === 10 || d === 13 || d === 9) break;
      }
      if (top && !top.dead && j >= start && i <= end && (c === 45 /* - */ || (c >= 48 && c <= 57))) {
        if (top.array) {
          if (top.key === 'ports') hints.leaf(Number(text.slice(i, j)), top.key, top.depth, j);
        } else if (property === 'port') hints.port(Number(text.slice(i, j)), j, top.key);
      }
      i = j;
    }
    if (hints.full) return;
  }
}
