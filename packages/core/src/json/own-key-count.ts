/**
 * How many own enumerable string keys an object has: `Object.keys(o).length` without the array.
 *
 * Ajv checks `minProperties`/`maxProperties` with `Object.keys(data).length`; the policy schema
 * has both on every source and every connection ("exactly one kind"), so validating a
 * 10,000-rule policy made 20,000 arrays (about 1.1 MB) that were thrown away at once, on every
 * keystroke in the language server. esbuild.mjs puts this function in their place in the
 * generated validators (own-key-count.property.test.ts holds it to `Object.keys`).
 */
export function ownKeyCount(o: object): number {
  let n = 0;
  for (const k in o) if (Object.hasOwn(o, k)) n++;
  return n;
}
