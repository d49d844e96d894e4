import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { expandBraces, globMatcher } from './glob';
import { isPolicyFile, POLICY_FILE_GLOBS } from './policy-files';
import { cpuMs } from '../../../../test-support/cpu-time';

/** The reference: a direct recursive reading of the glob rules (exponential, for short inputs only). */
function naive(pattern: string, path: string): boolean {
  const segs = (s: string) => s.split('/').filter((x) => x !== '' && x !== '.');
  const pat = pattern.includes('/') ? segs(pattern) : ['**', ...segs(pattern)];
  const parts = segs(path.toLowerCase());
  const seg = (p: string, s: string): boolean => {
    if (p === '') return s === '';
    if (p[0] === '*') return seg(p.slice(1), s) || (s !== '' && seg(p, s.slice(1)));
    if (s === '') return false;
    if (p[0] === '?') return seg(p.slice(1), s.slice(1));
    return p[0].toLowerCase() === s[0] && seg(p.slice(1), s.slice(1));
  };
  const all = (i: number, j: number): boolean => {
    if (i === pat.length) return j === parts.length;
    if (pat[i] === '**') return all(i + 1, j) || (j < parts.length && all(i, j + 1));
    return j < parts.length && seg(pat[i], parts[j]) && all(i + 1, j + 1);
  };
  return all(0, 0);
}

describe('globMatcher', () => {
  it('D6 patterns', () => {
    for (const yes of ['a.netpolicy.json', 'ci/B.NETPOLICY.JSONC', 'x/y/network-policy.json', '/abs/p.netpolicy.json', 'C:\\repo\\ci\\p.netpolicy.json', './network-policy.json']) {
      expect(isPolicyFile(yes), yes).toBe(true);
    }
    for (const no of ['netpolicy.json', 'a.netpolicy.json.bak', 'network-policy.jsonc', 'x/network-policy.json/y', 'package.json', '']) {
      expect(isPolicyFile(no), no).toBe(false);
    }
    expect(POLICY_FILE_GLOBS).toContain('**/*.netpolicy.json');
  });

  it('extra patterns: relative paths, classes, alternatives, escapes', () => {
    expect(isPolicyFile('policies/prod.json', ['policies/*.json'])).toBe(true);
    expect(isPolicyFile('other/policies/prod.json', ['policies/*.json'])).toBe(false);
    expect(isPolicyFile('deep/a/b/egress.json', ['**/egress.json'])).toBe(true);
    expect(isPolicyFile('egress.json', ['**/egress.json'])).toBe(true);
    expect(isPolicyFile('ci/egress-1.json', ['ci/egress-[0-9].json'])).toBe(true);
    expect(isPolicyFile('ci/egress-x.json', ['ci/egress-[!x].json'])).toBe(false);
    expect(isPolicyFile('ci/a.yml', ['ci/*.{json,yml}'])).toBe(true);
    expect(isPolicyFile('ci/*.json', ['ci/\\*.json'])).toBe(true);
    expect(isPolicyFile('ci/a.json', ['ci/\\*.json'])).toBe(false);
    expect(expandBraces('a{b,c{d,e}}f')).toEqual(['abf', 'acdf', 'acef']);
    expect(expandBraces('a{b}c')).toEqual(['a{b}c']);
  });

  it('agrees with the recursive reference on generated patterns and paths', () => {
    const seg = fc.stringMatching(/^[ab*?]{0,5}$/);
    const patternArb = fc.array(fc.oneof(seg, fc.constant('**')), { minLength: 1, maxLength: 4 }).map((s) => s.join('/'));
    const pathArb = fc.array(fc.stringMatching(/^[abAB]{1,4}$/), { minLength: 1, maxLength: 5 }).map((s) => s.join('/'));
    fc.assert(fc.property(patternArb, pathArb, (pattern, path) => {
      expect(globMatcher([pattern])(path)).toBe(naive(pattern, path));
    }), { numRuns: 2000 });
  });

  it('adversarial patterns and paths cost no backtracking blow-up', () => {
    const path = `${'a/'.repeat(2000)}${'a'.repeat(20000)}`;
    const { ms, result } = cpuMs(() => globMatcher(['**/*a*a*a*a*a*a*a*a*b', '**/**/**/**/**/x', `${'*'.repeat(50)}b`])(path));
    expect(result).toBe(false);
    expect(ms).toBeLessThan(2000); // CPU time, a few ms: backtracking takes far longer
    expect(() => globMatcher(['{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}'])).toThrow(RangeError);
  });
});
