/**
 * A glob bomb of many patterns (issue 28 item 3): 20,000 patterns, each within its own bound of
 * 256 alternatives, are bounded all together, and the part left out is said.
 */
import { describe, expect, it } from 'vitest';
import { globMatcher, MAX_BRACE_EXPANSION, MAX_TOTAL_EXPANSION, usableGlobPatterns } from './glob';
import { isPolicyFile } from './policy-files';
import { parseProjectConfig } from '../config/project-config';

const eight = '{0,1}'.repeat(8);
/** 20,000 patterns of 256 alternatives each: 5,120,000 in all. */
const bomb = Array.from({ length: 20_000 }, (_, i) => `p${eight}-${i}.json`);

describe('the total expansion of a list of patterns', () => {
  it('keeps the first patterns up to the total and says how many were left out', () => {
    const { usable, problems } = usableGlobPatterns(bomb);
    expect(usable).toHaveLength(MAX_TOTAL_EXPANSION / MAX_BRACE_EXPANSION);
    expect(usable).toEqual(bomb.slice(0, usable.length));
    expect(problems).toEqual([{ message: `the 20000 patterns expand to more than ${MAX_TOTAL_EXPANSION} patterns in all (the limit); the first 16 are used, the other 19984 are left out` }]);
  });

  it('leaves out a pattern over its own bound and goes on with the next', () => {
    const { usable, problems } = usableGlobPatterns(['a.json', '{a,b}'.repeat(9), 'b.json']);
    expect(usable).toEqual(['a.json', 'b.json']);
    expect(problems).toHaveLength(1);
    expect(problems[0].pattern).toBe(1);
    expect(problems[0].message).toContain('more than 256 patterns');
  });

  it('a list within the bounds is kept whole', () => {
    const list = Array.from({ length: 4096 }, (_, i) => `f${i}.json`);
    expect(usableGlobPatterns(list)).toEqual({ usable: list, problems: [] });
  });

  it('the matcher of the bomb is built (bounded) and matches the patterns kept, not those left out', () => {
    const match = globMatcher(bomb);
    expect(match('p00000000-0.json')).toBe(true);
    expect(match('x/p10110111-15.json')).toBe(true);
    expect(match('p00000000-16.json')).toBe(false);
    expect(isPolicyFile('p11111111-3.json', bomb)).toBe(true);
    expect(isPolicyFile('p11111111-19999.json', bomb)).toBe(false);
  }, 60_000);

  it('a project file with the bomb reports it on filePatterns and keeps the first ones', () => {
    const text = JSON.stringify({ filePatterns: bomb });
    const { config, diagnostics } = parseProjectConfig(text, '/w/netpolicy.config.json');
    expect(config.filePatterns).toHaveLength(16);
    const d = diagnostics.find((x) => x.pointer === '/filePatterns');
    expect(d?.severity).toBe('error');
    expect(d?.message).toContain('more than 4096 patterns in all');
  }, 60_000);
});
