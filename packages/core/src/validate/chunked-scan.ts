/**
 * The scan of `validateChunked` (chunked.ts, step 1): one string-aware pass over the text that finds
 * the top-level members and the items of `sources` and `connections`, grouped in batches by text
 * range, and the parse of one batch. Anything that is not the expected shape throws `Unsuitable`,
 * and chunked.ts falls back to `validate`.
 */
import { closingQuote, MAX_DEPTH } from './parse';

const BATCH_CHARS = 1 << 16;

export type ListKey = 'sources' | 'connections';

/** A run of consecutive items of one array: its text `[start, end)`, its items, their members (`:` outside strings). */
export interface Batch { start: number; end: number; count: number; members: number; base: number }
export interface List {
  key: ListKey; open: number; close: number; length: number; batches: Batch[];
  /** Of `connections`: a superset of its CIDRs' prefix lengths (every number after a `/` in a string). */
  prefixes?: Set<number>;
}

/** The text is not the shape batches are made of: `validate` decides. */
export class Unsuitable extends Error {}
export function unsuitable(): never {
  throw new Unsuitable('not the expected shape');
}

/**
 * The scan of step 1. Strings are skipped with `indexOf` (a quote is escaped when an odd run of
 * backslashes precedes it); nothing backtracks. What it cannot see (invalid literals, control
 * characters in strings, mismatched brackets) `JSON.parse` of the skeleton and of each batch refuses.
 */
export class Scanner {
  /** Of the last `valueEnd`: members (`:` outside strings) and deepest nesting (0 for a scalar). */
  members = 0;
  depth = 0;
  /**
   * While the items of `connections` are scanned: every number written right after a `/` in a
   * string. A superset of the prefix lengths of its CIDRs, which coverage needs before it reads a rule.
   */
  private prefixes: Set<number> | undefined;
  private slashAt = -1;
  private backslashAt = -1;

  constructor(private readonly src: string, private readonly batchItems: number) {}

  /** Notes the numbers after each `/` of the string token `[start, end)` (decoded first when it holds an escape). */
  private notePrefixes(start: number, end: number): void {
    const s = this.src;
    if (this.backslashAt < start) this.backslashAt = indexOrEnd(s, '\\', start);
    if (this.backslashAt < end) {
      let decoded: unknown;
      try {
        decoded = JSON.parse(s.slice(start, end));
      } catch {
        return; // not a JSON string: the batch's parse refuses it
      }
      if (typeof decoded === 'string') for (let i = decoded.indexOf('/'); i >= 0; i = decoded.indexOf('/', i + 1)) this.notePrefix(decoded, i);
      return;
    }
    if (this.slashAt < start) this.slashAt = indexOrEnd(s, '/', start);
    for (; this.slashAt < end; this.slashAt = indexOrEnd(s, '/', this.slashAt + 1)) this.notePrefix(s, this.slashAt);
  }

  private notePrefix(text: string, slash: number): void {
    let value = 0, digits = 0;
    for (let k = slash + 1; k < text.length; k++, digits++) {
      const c = text.charCodeAt(k);
      if (c < 48 || c > 57) break;
      if (value <= 128) value = value * 10 + (c - 48);
    }
    if (digits > 0 && value <= 128) this.prefixes!.add(value);
  }

  ws(i: number): number {
    const s = this.src;
    for (;;) {
      const c = s.charCodeAt(i);
      if (c === 32 || c === 10 || c === 13 || c === 9) i++;
      else return i;
    }
  }

  /** `i` at a `"`: the index after its closing quote. */
  stringEnd(i: number): number {
    const end = closingQuote(this.src, i);
    if (end < 0) return unsuitable();
    if (this.prefixes) this.notePrefixes(i, end + 1);
    return end + 1;
  }

  /** The end of the value starting at `i`; sets `members` and `depth`. */
  valueEnd(i: number): number {
    const s = this.src;
    const first = s.charCodeAt(i);
    this.members = 0;
    this.depth = 0;
    if (first === 34) return this.stringEnd(i);
    if (first !== 123 && first !== 91) {
      let j = i;
      for (; j < s.length; j++) {
        const c = s.charCodeAt(j);
        if (c === 44 || c === 93 || c === 125 || c === 32 || c === 10 || c === 13 || c === 9) break;
      }
      return j === i ? unsuitable() : j;
    }
    let depth = 0, max = 0, members = 0;
    for (let j = i; j < s.length; j++) {
      const c = s.charCodeAt(j);
      if (c === 34) j = this.stringEnd(j) - 1;
      else if (c === 58) members++;
      else if (c === 123 || c === 91) {
        if (++depth > max) max = depth;
      } else if ((c === 125 || c === 93) && --depth === 0) {
        this.members = members;
        this.depth = max;
        return j + 1;
      }
    }
    return unsuitable();
  }

  /** The items of the array whose `[` is at `open`, in batches. */
  list(key: ListKey, open: number): List {
    const prefixes = (this.prefixes = key === 'connections' ? new Set() : undefined);
    try {
      const list = this.items(key, open);
      list.prefixes = prefixes;
      return list;
    } finally {
      this.prefixes = undefined;
    }
  }

  private items(key: ListKey, open: number): List {
    const s = this.src;
    const list: List = { key, open, close: -1, length: 0, batches: [] };
    let i = this.ws(open + 1);
    if (s.charCodeAt(i) === 93) {
      list.close = i;
      return list;
    }
    let batch: Batch | undefined;
    for (;;) {
      const start = i;
      const end = this.valueEnd(i);
      // The root object and this array are two levels: the item's own nesting must fit below MAX_DEPTH.
      if (this.depth + 2 > MAX_DEPTH) unsuitable();
      if (batch === undefined) list.batches.push((batch = { start, end, count: 0, members: 0, base: list.length }));
      batch.end = end;
      batch.count++;
      batch.members += this.members;
      list.length++;
      if (batch.count >= this.batchItems || end - batch.start >= BATCH_CHARS) batch = undefined;
      i = this.ws(end);
      const c = s.charCodeAt(i);
      if (c === 44) i = this.ws(i + 1);
      else if (c === 93) {
        list.close = i;
        return list;
      } else unsuitable();
    }
  }

  /** The top level: an object whose `sources` and `connections` arrays are found (each at most once). */
  top(): List[] {
    const s = this.src;
    let i = this.ws(0);
    if (s.charCodeAt(i) !== 123) unsuitable();
    i = this.ws(i + 1);
    const lists: List[] = [];
    if (s.charCodeAt(i) !== 125) {
      for (;;) {
        if (s.charCodeAt(i) !== 34) unsuitable();
        const keyEnd = this.stringEnd(i);
        let key: unknown;
        try {
          key = JSON.parse(s.slice(i, keyEnd));
        } catch {
          unsuitable();
        }
        i = this.ws(keyEnd);
        if (s.charCodeAt(i) !== 58) unsuitable();
        i = this.ws(i + 1);
        if ((key === 'sources' || key === 'connections') && s.charCodeAt(i) === 91) {
          if (lists.some((l) => l.key === key)) unsuitable(); // a duplicate key: validate reports it
          const list = this.list(key, i);
          lists.push(list);
          i = list.close + 1;
        } else i = this.valueEnd(i);
        i = this.ws(i);
        const c = s.charCodeAt(i);
        if (c === 44) i = this.ws(i + 1);
        else if (c === 125) break;
        else unsuitable();
      }
    }
    if (this.ws(i + 1) !== s.length) unsuitable();
    return lists;
  }
}

function indexOrEnd(text: string, search: string, from: number): number {
  const i = text.indexOf(search, from);
  return i < 0 ? text.length : i;
}

export function parseBatch(src: string, batch: Batch): unknown[] {
  let items: unknown;
  try {
    items = JSON.parse(`[${src.slice(batch.start, batch.end)}]`);
  } catch {
    unsuitable();
  }
  if (!Array.isArray(items) || items.length !== batch.count) unsuitable();
  return items;
}
