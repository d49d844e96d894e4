/** RFC 6901 JSON Pointers. */

/** A pointer segment as written in a pointer: `~` becomes `~0` and `/` becomes `~1`. */
export function escapeSegment(segment: string | number): string {
  return String(segment).replace(/~/g, '~0').replace(/\//g, '~1');
}

/**
 * The pointer of a path of keys and indexes (`['sources', 2]` -> `/sources/2`); `[]` is `''`, the document.
 * @internal
 */
export function toPointer(segments: ReadonlyArray<string | number>): string {
  let out = '';
  for (const s of segments) out += '/' + escapeSegment(s);
  return out;
}

/** The segments of a pointer, unescaped (`/sources/2` -> `['sources', '2']`); `''` gives `[]`. */
export function parsePointer(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer.slice(1).split('/').map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/**
 * The value a pointer names in `root`, or undefined. Own properties only.
 * @internal
 */
export function valueAt(root: unknown, pointer: string): unknown {
  let node = root;
  for (const segment of parsePointer(pointer)) {
    if (node === null || typeof node !== 'object') return undefined;
    if (!Object.prototype.hasOwnProperty.call(node, segment)) return undefined;
    node = (node as Record<string, unknown>)[segment];
  }
  return node;
}
