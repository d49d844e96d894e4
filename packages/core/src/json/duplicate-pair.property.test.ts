// duplicatePair and duplicateStringPair against the loops of Ajv's `uniqueItems` they replace: the
// same pair or none, on arrays of scalars, objects and arrays with repeats.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import equalModule from 'ajv/dist/runtime/equal.js';
import { duplicatePair, duplicateStringPair } from './duplicate-pair';
import { cpuMs } from '../../../../test-support/cpu-time';

const equal = ((equalModule as { default?: unknown }).default ?? equalModule) as (a: unknown, b: unknown) => boolean;

function ajvLoop(data: unknown[]): [number, number] | undefined {
  let i = data.length;
  let j: number;
  if (i > 1) {
    for (; i--;) {
      for (j = i; j--;) if (equal(data[i], data[j])) return [i, j];
    }
  }
  return undefined;
}

/** Ajv's loop for items it knows to be strings, with a Map where Ajv keeps a plain object. */
function ajvStringLoop(data: unknown[]): [number, number] | undefined {
  let i = data.length;
  if (i > 1) {
    const indices = new Map<string, number>();
    for (; i--;) {
      const item = data[i];
      if (typeof item !== 'string') continue;
      const j = indices.get(item);
      if (j !== undefined) return [i, j];
      indices.set(item, i);
    }
  }
  return undefined;
}

const scalar = fc.oneof(fc.constantFrom('a', 'b', 'A', '1', '', 'https://x.example'), fc.integer({ min: -2, max: 3 }), fc.constantFrom(0, -0, 1.5, true, false, null));
const value: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  v: fc.oneof({ depthSize: 'small', withCrossShrink: true }, scalar, fc.array(tie('v'), { maxLength: 3 }), fc.dictionary(fc.constantFrom('a', 'b', '__proto__'), tie('v'), { maxKeys: 3 })),
})).v;

describe('duplicatePair', () => {
  it('finds the pair Ajv\'s pairwise uniqueItems loop finds (or none)', () => {
    // As JSON.parse gives them (a policy's arrays come from it): own `__proto__` members, no other prototypes.
    fc.assert(fc.property(fc.array(value, { maxLength: 12 }).map((v) => JSON.parse(JSON.stringify(v)) as unknown[]), (items) => {
      expect(duplicatePair(items)).toEqual(ajvLoop(items));
    }), { numRuns: 3000 });
  });

  it('objects equal up to key order are a pair, as Ajv\'s equal says', () => {
    const items = [{ a: 1, b: [2] }, { b: [2], a: 1 }, 'x'];
    expect(duplicatePair(items)).toEqual(ajvLoop(items));
    expect(duplicatePair(items)).toEqual([1, 0]);
  });

  it('takes linear time on 100,000 items', () => {
    const items = Array.from({ length: 100000 }, (_, i) => `https://h.example/${i}`);
    items.push(items[5]);
    const { ms, result } = cpuMs(() => duplicatePair(items));
    expect(result).toEqual([100000, 5]);
    // Tens of milliseconds; the pairwise loop (5e9 comparisons) takes seconds.
    expect(ms).toBeLessThan(2000);
  });
});

describe('duplicateStringPair', () => {
  it('finds the pair Ajv\'s uniqueItems loop for strings finds (or none), short arrays and long', () => {
    const item = fc.oneof(fc.constantFrom('a', 'b', 'A', '', '__proto__', 'constructor', 'toString', '10.0.0.0/8', 'fd00::/64'), fc.integer({ min: 0, max: 2 }), fc.constant(null));
    fc.assert(fc.property(fc.array(item, { maxLength: 24 }), (items) => {
      expect(duplicateStringPair(items)).toEqual(ajvStringLoop(items));
    }), { numRuns: 3000 });
  });

  it('finds a repeated "__proto__", which the plain object of Ajv\'s loop cannot hold', () => {
    expect(duplicateStringPair(['__proto__', 'x', '__proto__'])).toEqual([0, 2]);
    expect(duplicateStringPair(['a', ...Array.from({ length: 20 }, (_, i) => `s${i}`), '__proto__', '__proto__'])).toEqual([21, 22]);
  });

  it('takes linear time on 100,000 items', () => {
    const items = Array.from({ length: 100000 }, (_, i) => `10.${i >> 16}.${(i >> 8) & 255}.${i & 255}`);
    items.push(items[5]);
    const { ms, result } = cpuMs(() => duplicateStringPair(items));
    expect(result).toEqual([5, 100000]);
    expect(ms).toBeLessThan(2000);
  });
});
