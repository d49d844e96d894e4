/**
 * The ranges of many pointers in one scan of the text, without jsonc-parser's tree: the answers of
 * `Locator.range` (locate.ts, the reference a property test holds this to) for every pointer asked.
 *
 * The pointers asked form a trie; jsonc-parser's visitor walks the text and records the offsets of
 * the values on the trie only, skipping the callbacks of every other object and array (the visitor
 * still tokenises them). Memory is O(pointers asked), not O(text): a policy of a million rules with
 * a hundred thousand findings is located without a tree of every node (gigabytes).
 */
import { visit } from 'jsonc-parser';
import { parsePointer } from './pointer';
import type { RangeTarget } from './types';

export interface RangeRequest { pointer: string; target: RangeTarget | 'object-key' }
export interface OffsetRange { offset: number; length: number }

/** A value a pointer names: where the scan found it (offset -1: not found), and its key when it is a member. */
interface Wanted {
  children: Map<string, Wanted> | undefined;
  offset: number;
  length: number;
  /** The key of the member holding the value (-1 for array items and the root). */
  keyOffset: number;
  keyLength: number;
}

const wanted = (): Wanted => ({ children: undefined, offset: -1, length: 0, keyOffset: -1, keyLength: 0 });

interface Frame { want: Wanted | undefined; array: boolean; count: number }

/** Forgets what an earlier member of the same key recorded below it: the last member wins, as in `Locator`. */
function forget(want: Wanted): void {
  if (!want.children) return;
  for (const child of want.children.values()) {
    child.offset = -1;
    child.keyOffset = -1;
    forget(child);
  }
}

/**
 * The offset range of each request, in order: the value (strings with quotes), the key for `key`
 * targets, the key of the member holding the object (or its `{`) for `object-key`; a pointer that
 * names nothing falls back to its nearest existing ancestor's value, and to {0, 0} at the end.
 * `text` is what the parsers read (a byte-order mark replaced by a space).
 */
export function locateMany(text: string, requests: readonly RangeRequest[]): OffsetRange[] {
  const root = wanted();
  const paths: string[][] = new Array(requests.length);
  for (let i = 0; i < requests.length; i++) {
    const segments = (paths[i] = parsePointer(requests[i].pointer));
    let node = root;
    // Every ancestor is on the trie: it is the fallback when the pointer names nothing.
    for (const segment of segments) {
      const children = (node.children ??= new Map());
      let child = children.get(segment);
      if (!child) children.set(segment, (child = wanted()));
      node = child;
    }
  }

  const frames: Frame[] = [];
  let key = '', keyOffset = -1, keyLength = 0;
  /** The trie node of the value starting now (undefined when no pointer names it or anything below it). */
  const enterValue = (offset: number): Wanted | undefined => {
    const parent = frames.length > 0 ? frames[frames.length - 1] : undefined;
    let want: Wanted | undefined;
    if (parent === undefined) want = root;
    else if (parent.array) want = parent.want?.children?.get(String(parent.count++));
    else want = parent.want?.children?.get(key);
    if (want === undefined) return undefined;
    if (want.offset >= 0) forget(want);
    want.offset = offset;
    want.length = 0;
    if (parent !== undefined && !parent.array) { want.keyOffset = keyOffset; want.keyLength = keyLength; }
    else want.keyOffset = -1;
    return want;
  };
  const begin = (array: boolean) => (offset: number): boolean => {
    const want = enterValue(offset);
    frames.push({ want, array, count: 0 });
    // Objects and arrays with nothing asked below them are skipped (their end is still reported).
    return want?.children !== undefined;
  };
  const end = (offset: number): void => {
    const frame = frames.pop();
    if (frame?.want) frame.want.length = offset + 1 - frame.want.offset;
  };
  visit(text, {
    onObjectBegin: begin(false),
    onArrayBegin: begin(true),
    onObjectEnd: end,
    onArrayEnd: end,
    onObjectProperty: (property, offset, length) => { key = property; keyOffset = offset; keyLength = length; },
    onLiteralValue: (_value, offset, length) => {
      const want = enterValue(offset);
      if (want) want.length = length;
    },
  }, { allowTrailingComma: true, disallowComments: false, allowEmptyContent: false });

  const out: OffsetRange[] = new Array(requests.length);
  for (let i = 0; i < requests.length; i++) out[i] = rangeIn(root, paths[i], paths[i].length, requests[i].target);
  return out;
}

/** `Locator.range` on the trie: the first `depth` segments of `path`. */
function rangeIn(root: Wanted, path: string[], depth: number, target: RangeTarget | 'object-key'): OffsetRange {
  let node: Wanted | undefined = root;
  for (let i = 0; i < depth && node; i++) node = node.children?.get(path[i]);
  if (!node || node.offset < 0) return depth > 0 ? rangeIn(root, path, depth - 1, 'value') : { offset: 0, length: 0 };
  if (target === 'key' && node.keyOffset >= 0) return { offset: node.keyOffset, length: node.keyLength };
  if (target === 'object-key') return node.keyOffset >= 0 ? { offset: node.keyOffset, length: node.keyLength } : { offset: node.offset, length: 1 };
  return { offset: node.offset, length: node.length };
}
