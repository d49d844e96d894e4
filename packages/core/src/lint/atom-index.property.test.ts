// The one-path bucket of the URL index decides coverage by `coversPath` instead of building the
// list of covering paths: the two must agree on every pair of paths.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { coveringPaths, coversPath } from './atom-index';

const path = fc.string({ unit: fc.constantFrom('/', '/', 'a', 'b', '.'), maxLength: 8 }).map((p) => `/${p}`);

describe('coversPath', () => {
  it('is membership in coveringPaths', () => {
    fc.assert(fc.property(path, path, (a, b) => {
      expect(coversPath(a, b)).toBe(coveringPaths(b).includes(a));
    }), { numRuns: 3000 });
  });
  it('holds for a path and each of its covering paths', () => {
    fc.assert(fc.property(path, (b) => {
      for (const a of coveringPaths(b)) expect(coversPath(a, b)).toBe(true);
    }), { numRuns: 500 });
  });
});
