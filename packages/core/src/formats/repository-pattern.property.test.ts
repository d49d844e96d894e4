// Repository patterns matched in place (compiled patterns, the path read by index) against the
// split-and-compare reference they replaced: the same answer for any pattern and any path, the
// patterns no policy may hold (empty segments, `**` inside a segment, noise) included.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { compileRepositoryPattern, matchCompiledRepositoryPattern, matchRepositoryPattern, normaliseRepositoryPath } from './repository-pattern';

/** The matcher as it was written first: lower-case, split both, dynamic programming over segments. */
function referenceMatch(pattern: string, path: string): boolean {
  const segmentMatches = (p: string, text: string): boolean => {
    let i = 0, t = 0, star = -1, mark = 0;
    while (t < text.length) {
      if (i < p.length && p[i] !== '*' && p[i] === text[t]) { i++; t++; }
      else if (i < p.length && p[i] === '*') { star = i++; mark = t; }
      else if (star >= 0) { i = star + 1; t = ++mark; }
      else return false;
    }
    while (i < p.length && p[i] === '*') i++;
    return i === p.length;
  };
  const pat = pattern.toLowerCase().split('/');
  const segs = normaliseRepositoryPath(path).split('/');
  if (segs.length === 1 && segs[0] === '') return false;
  let reach = new Array<boolean>(segs.length + 1).fill(false);
  reach[0] = true;
  for (const p of pat) {
    const next = new Array<boolean>(segs.length + 1).fill(false);
    if (p === '**') {
      let any = false;
      for (let j = 0; j <= segs.length; j++) { any = any || reach[j]; next[j] = any; }
    } else {
      for (let j = 0; j < segs.length; j++) if (reach[j] && segmentMatches(p, segs[j])) next[j + 1] = true;
    }
    reach = next;
  }
  return reach[segs.length];
}

const segment = fc.oneof(
  fc.constantFrom('acme', 'Acme', 'ACME', 'app', 'a', 'b', 'x', '', '.', '..', '.git', '.GIT', '.Git', 'repo.git', 'team-1', 'K', 'k', '\u212a', 'İ', 'é'),
  fc.string({ unit: fc.constantFrom('a', 'b', 'A', '-', '.', '_', '1', 'g', 'i', 't', 'G', 'T'), maxLength: 6 }),
);
const pathText = fc.oneof(
  fc.tuple(fc.array(fc.constantFrom('', '/', '//'), { maxLength: 1 }), fc.array(segment, { minLength: 0, maxLength: 6 }), fc.constantFrom('', '/', '.git', '.GIT', '.git/', '/.git', '//', '.gi'))
    .map(([lead, segs, tail]) => lead.join('') + segs.join('/') + tail),
  fc.string({ unit: fc.constantFrom('a', 'A', '/', '.', 'g', 'i', 't', 'G', 'T', '*', '\u212a', 'k'), maxLength: 14 }),
);
const patternSegment = fc.oneof(
  fc.constantFrom('**', '*', '***', 'a*', '*a', 'a*b', 'acme', 'ACME', 'app*', '*.git', 'k', 'K', '\u212a', 'İ', 'i̇', 'x**', '', 'team-*', '.', 'git'),
  fc.string({ unit: fc.constantFrom('a', 'b', '*', '-', '.', 'A', 'g', 'i', 't'), maxLength: 5 }),
);
const patternText = fc.oneof(
  fc.array(patternSegment, { minLength: 1, maxLength: 5 }).map((s) => s.join('/')),
  fc.string({ unit: fc.constantFrom('a', '*', '/', '.', 'A', '\u212a'), maxLength: 10 }),
);

describe('repository patterns matched in place', () => {
  it('answer what splitting and lower-casing answered, for any pattern and path', () => {
    fc.assert(fc.property(patternText, pathText, (pattern, path) => {
      const expected = referenceMatch(pattern, path);
      expect(matchRepositoryPattern(pattern, path)).toBe(expected);
      expect(matchCompiledRepositoryPattern(compileRepositoryPattern(pattern), path)).toBe(expected);
    }), { numRuns: 20000 });
  });

  it('answer the same for paths made of the pattern itself (matches, not only misses)', () => {
    // A path written from the pattern's segments (each `*` filled) matches most of the time.
    const fill = fc.constantFrom('', 'x', 'Ab', 'a/b');
    fc.assert(fc.property(patternText, fill, fc.constantFrom('', '/', '.git', '/.GIT', '//'), (pattern, star, tail) => {
      const path = '/' + pattern.split('*').join(star) + tail;
      expect(matchRepositoryPattern(pattern, path)).toBe(referenceMatch(pattern, path));
    }), { numRuns: 10000 });
  });

  it('reuse their scratch across calls of any size (long paths, then short ones)', () => {
    const compiled = compileRepositoryPattern('a/**/b');
    const long = Array.from({ length: 500 }, () => 'a').join('/') + '/b';
    expect(matchCompiledRepositoryPattern(compiled, long)).toBe(true);
    expect(matchCompiledRepositoryPattern(compiled, 'a/b')).toBe(true);
    expect(matchCompiledRepositoryPattern(compiled, 'a/c')).toBe(false);
    expect(matchCompiledRepositoryPattern(compileRepositoryPattern('a/*'), long)).toBe(false);
    expect(matchCompiledRepositoryPattern(compileRepositoryPattern('**'), long)).toBe(true);
  });

  it('the Kelvin sign in a path matches `k` as Unicode lower-casing says (the general way)', () => {
    expect(matchRepositoryPattern('acme/k*', 'acme/\u212aube')).toBe(true);
    expect(matchRepositoryPattern('acme/k*', 'acme/Kube')).toBe(true);
    expect(matchRepositoryPattern('acme/k*', 'acme/cube')).toBe(false);
  });
});
