/**
 * The hints inside one item of a root array of a plain JSON policy, read by a scan of its
 * characters (no tree), reported to a `Sink`: a request's hints or an item's record.
 */
import { closingQuote } from '@netpolicy/core/internal';
import { MAX_PATH, type Sink } from './inlay-hint-values';

/** A container being scanned: its member name (an array's items inherit it), its depth in members, whether it is past MAX_PATH. */
interface Frame { array: boolean; key: string | undefined; depth: number; dead: boolean }

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
export function itemHints(text: string, from: number, to: number, rootKey: string, start: number, end: number, hints: Sink): void {
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
