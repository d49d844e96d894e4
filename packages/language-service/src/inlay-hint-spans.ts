/**
 * The inlay hints of a plain JSON policy read without its tree (about 150 ms to build for 10,000
 * rules, and each keystroke makes a new version): the items of its root arrays are found by the
 * spans core carries from version to version, each item wholly in range is answered from its
 * record, one the range cuts is scanned.
 */
import type { ItemSpans } from '@netpolicy/core/internal';
import { createScanner } from 'jsonc-parser';
import { itemHints } from './inlay-hint-items';
import { recordedHints, type Recorded } from './inlay-hint-records';
import type { Sink } from './inlay-hint-values';
import { SyntaxKind } from './location';
import type { TraceUsage } from './trace-usage';

/** What a request's hints take besides values: hit counts of rules, and an item's record. */
export interface RequestSink extends Sink {
  /** The usage when rule hit counts are shown. */
  readonly hits: TraceUsage | undefined;
  ruleHits(pointer: string, offset: number): void;
  recorded(from: number, record: Recorded): void;
}

/** The array under root member `key` of a plain document's value (an own member: `__proto__` is data here). */
function memberArray(value: unknown, key: string): unknown[] | undefined {
  if (!value || typeof value !== 'object' || !Object.hasOwn(value, key)) return undefined;
  const array = (value as Record<string, unknown>)[key];
  return Array.isArray(array) ? array : undefined;
}

/**
 * The hints of a plain JSON document read by its item spans: the root's members are scanned,
 * each item of a root array in range is scanned alone (a sliced string: nothing copied), items out
 * of range are stepped over. False when the root has a member this reading does not follow (an
 * object value), for the tree to answer.
 */
export function spanHints(text: string, value: unknown, spans: ItemSpans, start: number, end: number, hints: RequestSink): boolean {
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

