/**
 * Reparsing one item after an edit inside it (an editor's keystroke in a 10,000-rule policy):
 * the new value shares every other item with the previous one, so a keystroke costs a parse of
 * one rule, not of the whole text, and leaves one new rule for the garbage collector, not ten
 * thousand.
 *
 * The items are the elements of the root object's arrays (`sources`, `connections`, ...) that are
 * objects or arrays. Their spans are found once by a scan of a plain JSON text and carried to the
 * next version (shifted past the edit). An edit that lies inside one item, its brackets excluded,
 * replaces that item alone: when the item's new text is a JSON value by itself with no duplicate
 * key and no deep nesting, the whole new text is JSON whose value is the previous one with that
 * item replaced (the tokens around it are unchanged, and the item begins and ends with a
 * bracket). Anything else (an edit between items, across two, at a bracket, a comment, a
 * duplicate key) answers undefined, and the caller parses the whole text.
 */
import { closingQuote, plainAsParsed } from './parse';

/**
 * Where the items sit in a text: sorted, non-overlapping.
 * @internal
 */
export interface ItemSpans {
  /** Offset of each item's opening bracket. */
  readonly starts: readonly number[];
  /** Offset just past each item's closing bracket. */
  readonly ends: readonly number[];
  /** The root member holding each item. */
  readonly keys: readonly string[];
  /** Each item's index in its array. */
  readonly indexes: readonly number[];
}

/**
 * One edit between two texts: `old[start, end)` became `new[start, newEnd)`.
 * @public
 */
export interface TextChange {
  start: number;
  end: number;
  newEnd: number;
}

/**
 * The spans of the items of a plain JSON text (one that `JSON.parse` accepted without duplicate
 * keys), or undefined when its root is not an object. One pass; strings are skipped with `indexOf`.
 */
export function itemSpans(text: string): ItemSpans | undefined {
  const starts: number[] = [];
  const ends: number[] = [];
  const keys: string[] = [];
  const indexes: number[] = [];
  let i = 0;
  const n = text.length;
  while (i < n && isSpace(text.charCodeAt(i))) i++;
  if (text.charCodeAt(i) !== 123 /* { */) return undefined;
  let depth = 0;
  /** The last key read in the root object, and whether the array being read belongs to it. */
  let key = '';
  let lastString = -1;
  let inRootArray = false;
  let index = 0;
  for (; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      const end = closingQuote(text, i);
      if (end < 0) return undefined;
      if (depth === 1) lastString = i;
      i = end;
    } else if (c === 58 /* : */) {
      if (depth === 1 && lastString >= 0) key = JSON.parse(text.slice(lastString, closingQuote(text, lastString) + 1)) as string;
    } else if (c === 123 /* { */ || c === 91 /* [ */) {
      depth++;
      if (depth === 2) {
        inRootArray = c === 91;
        index = 0;
      } else if (depth === 3 && inRootArray) {
        starts.push(i);
        keys.push(key);
        indexes.push(index);
      }
    } else if (c === 125 /* } */ || c === 93 /* ] */) {
      if (depth === 3 && inRootArray) ends.push(i + 1);
      depth--;
    } else if (c === 44 /* , */ && depth === 2 && inRootArray) index++;
  }
  return starts.length === ends.length ? { starts, ends, keys, indexes } : undefined;
}

/** The item whose inside (its brackets excluded) holds `[start, end)`, or -1. */
function itemHolding(spans: ItemSpans, start: number, end: number): number {
  const { starts, ends } = spans;
  let lo = 0, hi = starts.length - 1, found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    if (starts[mid]! < start) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found >= 0 && end <= ends[found]! - 1 ? found : -1;
}

/** The new value and spans after an edit inside one item, or undefined when the whole text must be parsed. */
export function reparseItem(previousValue: unknown, spans: ItemSpans, source: string, edit: TextChange): { value: unknown; spans: ItemSpans } | undefined {
  const k = itemHolding(spans, edit.start, edit.end);
  if (k < 0) return undefined;
  const delta = edit.newEnd - edit.end;
  const start = spans.starts[k]!;
  const end = spans.ends[k]! + delta;
  if (end > source.length) return undefined;
  const slice = source.slice(start, end);
  let item: unknown;
  try {
    item = JSON.parse(slice);
  } catch {
    return undefined; // mid-typing: the item is not JSON by itself (the caller's full parse reports it)
  }
  // The item sits at depth 2 (root object, array, item).
  if (!plainAsParsed(slice, item, 2)) return undefined;
  const root = previousValue as Record<string, unknown>;
  const key = spans.keys[k]!;
  const array = Object.prototype.hasOwnProperty.call(root, key) ? root[key] : undefined;
  const index = spans.indexes[k]!;
  if (!Array.isArray(array) || index >= array.length) return undefined;
  const items = array.slice();
  items[index] = item;
  // Spread and a computed key both define own properties, so a `__proto__` member stays one.
  const value = { ...root, [key]: items };
  const ends = spans.ends.slice();
  ends[k] = end;
  let starts = spans.starts as number[];
  if (delta !== 0) {
    starts = starts.slice();
    for (let j = k + 1; j < starts.length; j++) {
      starts[j] = starts[j]! + delta;
      ends[j] = ends[j]! + delta;
    }
  }
  return { value, spans: { starts, ends, keys: spans.keys, indexes: spans.indexes } };
}

function isSpace(c: number): boolean {
  return c === 32 || c === 10 || c === 13 || c === 9;
}
