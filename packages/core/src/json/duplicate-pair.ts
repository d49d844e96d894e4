/**
 * The pair of equal items of an array that Ajv's `uniqueItems` check reports, found in linear time.
 *
 * Ajv compares every pair of items when it cannot tell from the schema that they are scalars
 * (items behind a `$ref`, as the policy schema's URLs, host patterns and ports are): a source of
 * 40,000 URLs took seconds. The build (scripts/build/standalone-module.mjs) replaces that loop in
 * the generated validators with this function, which gives the very pair the loop finds (the last
 * item equal to an earlier one, and the last such earlier one), so errors and messages stay Ajv's. Scalars are grouped by value,
 * objects and arrays by `jsonHash` and then compared (key order ignored, as Ajv's `equal` does).
 * `duplicateStringPair` does the same for the loop Ajv writes for items it knows to be strings.
 */
import { jsonEquivalent, jsonHash } from './canonical';

export function duplicatePair(items: readonly unknown[]): [number, number] | undefined {
  // A short array (most: a rule's ports, its URLs) pair by pair, as Ajv does, without building maps.
  if (items.length <= 8) {
    for (let i = items.length; i--;) {
      const a = items[i];
      const scalar = typeof a !== 'object' || a === null;
      for (let j = i; j--;) if (scalar ? a === items[j] : jsonEquivalent(a, items[j])) return [i, j];
    }
    return undefined;
  }
  let found: [number, number] | undefined;
  const lastScalar = new Map<unknown, number>();
  let objects: Map<number, number[]> | undefined;
  for (let k = 0; k < items.length; k++) {
    const item = items[k];
    if (typeof item !== 'object' || item === null) {
      const j = lastScalar.get(item);
      if (j !== undefined) found = [k, j];
      lastScalar.set(item, k);
      continue;
    }
    const hash = jsonHash(item);
    const bucket = (objects ??= new Map()).get(hash);
    if (bucket === undefined) { objects.set(hash, [k]); continue; }
    for (let b = bucket.length - 1; b >= 0; b--) {
      if (jsonEquivalent(items[bucket[b]], item)) { found = [k, bucket[b]]; break; }
    }
    bucket.push(k);
  }
  return found;
}

/**
 * The pair Ajv's `uniqueItems` loop for string items reports: from the end of the array, the first
 * string that appears again later, and that later index (`[i, j]` with `i < j`); items that are not
 * strings are skipped (their type error is reported on its own). Ajv's loop keeps the indexes in a
 * plain object (`{}`): interning every item as a property key, and blind to a repeated
 * `"__proto__"`, which sets the object's prototype instead. This finds that pair too.
 */
export function duplicateStringPair(items: readonly unknown[]): [number, number] | undefined {
  const n = items.length;
  if (n <= 8) {
    for (let i = n - 1; i-- > 0;) {
      const a = items[i];
      if (typeof a !== 'string') continue;
      for (let j = i + 1; j < n; j++) if (items[j] === a) return [i, j];
    }
    return undefined;
  }
  const lowest = new Map<string, number>();
  for (let i = n; i--;) {
    const a = items[i];
    if (typeof a !== 'string') continue;
    const j = lowest.get(a);
    if (j !== undefined) return [i, j];
    lowest.set(a, i);
  }
  return undefined;
}
