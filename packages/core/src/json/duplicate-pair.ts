/**
 * The pair of equal items of an array that Ajv's `uniqueItems` check reports, found in linear time.
 *
 * Ajv compares every pair of items when it cannot tell from the schema that they are scalars
 * (items behind a `$ref`, as the policy schema's URLs, host patterns and ports are): a source of
 * 40,000 URLs took seconds. esbuild.mjs replaces that loop in the generated validators with this
 * function, which gives the very pair the loop finds (the last item equal to an earlier one, and
 * the last such earlier one), so errors and messages stay Ajv's. Scalars are grouped by value,
 * objects and arrays by `jsonHash` and then compared (key order ignored, as Ajv's `equal` does).
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
