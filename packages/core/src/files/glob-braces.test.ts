/**
 * `{}` expansion bounded (issue 21 item 12): the limit, the problem a config reports, the one-pass
 * group finder held to the scan it replaced, and linear time on unclosed `{` and `[`.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { expandBraces, globMatcher, globPatternProblem, MAX_BRACE_EXPANSION } from './glob';

/** The group finder as it was: from each `{`, a scan for its match (quadratic on `{{{{...`). */
function referenceFirstGroup(p: string): { start: number; end: number; alternatives: string[] } | undefined {
  for (let i = 0; i < p.length; i++) {
    if (p[i] === '\\') { i++; continue; }
    if (p[i] !== '{') continue;
    let depth = 0;
    const cuts: number[] = [];
    for (let j = i; j < p.length; j++) {
      if (p[j] === '\\') { j++; continue; }
      if (p[j] === '{') depth++;
      else if (p[j] === '}') {
        depth--;
        if (depth === 0) {
          if (cuts.length === 0) break;
          const bounds = [i, ...cuts, j];
          return { start: i, end: j, alternatives: bounds.slice(0, -1).map((b, k) => p.slice(b + 1, bounds[k + 1])) };
        }
      } else if (p[j] === ',' && depth === 1) cuts.push(j);
    }
  }
  return undefined;
}

function referenceExpand(pattern: string): string[] {
  let out = [pattern];
  for (let round = 0; round < 16; round++) {
    const next: string[] = [];
    let changed = false;
    for (const p of out) {
      const group = referenceFirstGroup(p);
      if (!group) { next.push(p); continue; }
      changed = true;
      for (const alt of group.alternatives) next.push(p.slice(0, group.start) + alt + p.slice(group.end + 1));
      if (next.length > MAX_BRACE_EXPANSION) throw new RangeError('too many');
    }
    out = next;
    if (!changed) break;
  }
  return out;
}

function cpuMs<T>(work: () => T): { ms: number; result: T } {
  const before = process.cpuUsage();
  const result = work();
  const { user, system } = process.cpuUsage(before);
  return { ms: (user + system) / 1000, result };
}

describe('{} expansion', () => {
  it('up to MAX_BRACE_EXPANSION patterns; past it a problem that names the pattern and the limit', () => {
    expect(MAX_BRACE_EXPANSION).toBe(256);
    expect(expandBraces('{a,b}'.repeat(8))).toHaveLength(256);
    expect(globPatternProblem('{a,b}'.repeat(8))).toBeUndefined();
    expect(globPatternProblem('ci/*.json')).toBeUndefined();
    const nine = `ci/${'{a,b}'.repeat(9)}.json`;
    expect(globPatternProblem(nine)).toBe(`the {} alternatives of \`${nine}\` make more than 256 patterns (the limit): split it into several patterns, or use * and ? for the parts that vary`);
    expect(() => globMatcher([nine])).toThrow(RangeError);
    // One group of 257 alternatives, nested groups, and a long pattern shown cut.
    expect(globPatternProblem(`{${Array.from({ length: 257 }, (_, i) => `f${i}`).join(',')}}`)).toContain('more than 256 patterns');
    expect(globPatternProblem(`{${Array.from({ length: 256 }, (_, i) => `f${i}`).join(',')}}`)).toBeUndefined();
    expect(globPatternProblem('{a,{b,{c,{d,e}}}}{1,2,3,4}{x,y,z,w}{p,q,r,s}')).toContain('more than 256');
    const long = `${'x'.repeat(200)}${'{a,b}'.repeat(9)}`;
    expect(globPatternProblem(long)).toContain(`\`${'x'.repeat(77)}...\``);
  });

  it('expands as the scan from every brace did, escapes and unbalanced braces included', () => {
    const patternArb = fc.array(fc.constantFrom('{', '}', ',', '\\', 'a', 'b', '/', '*'), { maxLength: 24 }).map((cs) => cs.join(''));
    fc.assert(fc.property(patternArb, (pattern) => {
      let expected: string[] | 'too many';
      try {
        expected = referenceExpand(pattern);
      } catch {
        expected = 'too many';
      }
      expect(globPatternProblem(pattern) === undefined ? expandBraces(pattern) : 'too many').toEqual(expected);
    }), { numRuns: 5000 });
  });

  it('unclosed { and [ cost linear time (CPU time: the old scans were quadratic, minutes here)', () => {
    const { ms, result } = cpuMs(() => [globPatternProblem(`${'{'.repeat(100000)}a,b`), globMatcher([`${'['.repeat(100000)}x`])('a')]);
    expect(result).toEqual([undefined, false]);
    expect(ms).toBeLessThan(2000); // a few ms
  });
});
