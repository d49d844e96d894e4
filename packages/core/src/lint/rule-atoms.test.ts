/**
 * Soundness of the coverage relations behind shadowed-rule and redundant-with-preset: whenever
 * "A covers B" is claimed, every concrete host / repository B matches is matched by A (checked
 * against the matchers of formats/, which the evaluator uses). Completeness is not required.
 */
import { describe, expect, test } from 'vitest';
import fc from 'fast-check';
import { matchHostPattern } from '../formats/host-pattern';
import { isRepositoryPattern, matchRepositoryPattern } from '../formats/repository-pattern';
import { coveringHostKeys, hostCovers, patternsCover, preparePatterns } from './rule-atoms';

const label = fc.constantFrom('a', 'b', 'api', 'x1', 'example', 'com');
const host = fc.array(label, { minLength: 1, maxLength: 4 }).map((ls) => ls.join('.'));
const hostPattern = fc.tuple(fc.boolean(), host).map(([wild, h]) => (wild ? `*.${h}` : h));

const segment = fc.constantFrom('a', 'b', 'team', 'app', '*', '**', 'a*', '*p', 'App');
const repoPattern = fc.array(segment, { minLength: 1, maxLength: 4 }).map((s) => s.join('/')).filter(isRepositoryPattern);
const repoPath = fc.array(fc.constantFrom('a', 'b', 'team', 'app', 'ab', 'xapp', 'TEAM'), { minLength: 1, maxLength: 5 }).map((s) => s.join('/'));

describe('host pattern coverage', () => {
  test('hostCovers(a, b) implies every host b matches, a matches', () => {
    fc.assert(fc.property(hostPattern, hostPattern, host, (a, b, h) => {
      if (hostCovers(a, b) && matchHostPattern(b, h)) expect(matchHostPattern(a, h)).toBe(true);
    }), { numRuns: 3000 });
  });

  test('the index keys of b include every pattern that covers it', () => {
    fc.assert(fc.property(hostPattern, hostPattern, (a, b) => {
      if (hostCovers(a, b)) expect(coveringHostKeys(b)).toContain(a);
    }), { numRuns: 3000 });
  });

  test('examples', () => {
    expect(hostCovers('*.example.com', 'api.example.com')).toBe(true);
    expect(hostCovers('*.example.com', '*.eu.example.com')).toBe(true);
    expect(hostCovers('*.example.com', 'example.com')).toBe(false);
    expect(hostCovers('api.example.com', '*.example.com')).toBe(false);
  });
});

describe('repository pattern coverage', () => {
  test('patternsCover(A, B) implies every path some B pattern matches, some A pattern matches', () => {
    const patterns = fc.option(fc.array(repoPattern, { minLength: 1, maxLength: 3 }), { nil: undefined });
    fc.assert(fc.property(patterns, patterns, repoPath, (a, b, path) => {
      if (!patternsCover(preparePatterns(a), preparePatterns(b))) return;
      const bMatches = b === undefined || b.some((p) => matchRepositoryPattern(p, path));
      const aMatches = a === undefined || a.some((p) => matchRepositoryPattern(p, path));
      if (bMatches) expect(aMatches).toBe(true);
    }), { numRuns: 5000 });
  });

  test('examples', () => {
    const cover = (a: string[] | undefined, b: string[] | undefined) => patternsCover(preparePatterns(a), preparePatterns(b));
    expect(cover(['team/**'], ['team/app', 'team/*/x'])).toBe(true);
    expect(cover(['team/*'], ['TEAM/app'])).toBe(true);
    expect(cover(undefined, ['x'])).toBe(true);
    // `**` matches every non-empty path; absent patterns also allow none (`/v2/`, an ssh command without a path).
    expect(cover(['**'], undefined)).toBe(false);
    expect(cover(['**'], ['team/app', 'x/**'])).toBe(true);
    expect(matchRepositoryPattern('**', '')).toBe(false);
    expect(cover(['team/*'], undefined)).toBe(false);
    expect(cover(['team/*'], ['team/**'])).toBe(false);
    expect(cover(['a/b'], ['a/*'])).toBe(false);
  });
});
