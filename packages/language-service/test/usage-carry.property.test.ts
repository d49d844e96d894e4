/**
 * carryUsage: the last evaluation's entries follow their rules to where they are in a later
 * version (by identity, else by equal JSON), are never given to another rule, and every rule of
 * the new version without one of its own old entries is `unevaluated`.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { carryUsage } from '../src/usage-carry';
import { emptyUsage, type RuleUsage, type TraceUsage } from '../src/trace-usage';

/** A rule from a small pool, so that equal rules (by JSON) occur. */
const rule = fc.constantFrom('a', 'b', 'c', 'd').map((host) => ({ npm: { urls: [`https://${host}.example`] } }));

const usageOf = (before: unknown[], hit: boolean[]): TraceUsage => {
  const usage = emptyUsage();
  usage.traces = ['t.json'];
  before.forEach((_r, i) => { if (hit[i]) usage.byRule.set(`/sources/${i}`, { count: i + 1, hosts: [], observed: new Uint32Array(0) }); });
  usage.byRule.set('preset:npm', { count: 99, hosts: [], observed: new Uint32Array(0) });
  usage.byRule.set('default', { count: 98, hosts: [], observed: new Uint32Array(0) });
  return usage;
};

/** How each item of the new version is made from the old: the same object, a copy (a full reparse), or a new rule. */
const step = fc.oneof(fc.record({ keep: fc.nat() }), fc.record({ copy: fc.nat() }), fc.record({ fresh: rule }));

describe('carryUsage', () => {
  it('each entry goes to a rule equal to its own, no two to one rule, and rules without one are unevaluated', () => {
    fc.assert(fc.property(fc.array(rule, { maxLength: 12 }), fc.array(fc.boolean(), { minLength: 12, maxLength: 12 }), fc.array(step, { maxLength: 14 }), (before, hit, steps) => {
      const usage = usageOf(before, hit);
      const used = new Set<number>();
      const after: unknown[] = [];
      for (const s of steps) {
        if ('fresh' in s) after.push(s.fresh);
        else if (before.length > 0) {
          const i = ('keep' in s ? s.keep : s.copy) % before.length;
          if ('keep' in s && used.has(i)) continue;
          used.add(i);
          after.push('keep' in s ? before[i] : JSON.parse(JSON.stringify(before[i])));
        }
      }
      const carried = carryUsage(usage, { presets: ['npm'], sources: before }, { presets: ['npm', 'pypi'], sources: after });
      const originOf = new Map<RuleUsage, number>([...usage.byRule].filter(([k]) => k.startsWith('/sources/')).map(([k, u]) => [u, Number(k.slice(9))]));
      const seen = new Set<RuleUsage>();
      for (const [pointer, u] of carried.byRule) {
        if (!pointer.startsWith('/sources/')) continue;
        const j = Number(pointer.slice(9));
        expect(JSON.stringify(after[j])).toBe(JSON.stringify(before[originOf.get(u)!]));
        expect(seen.has(u)).toBe(false);
        seen.add(u);
        expect(carried.unevaluated!.has(pointer)).toBe(false);
      }
      // A rule of the new version is unevaluated exactly when no old rule equal to it went to it
      // (and an old rule equal to it had none left to give: they are matched in order).
      const unevaluated = [...carried.unevaluated!].filter((p) => p.startsWith('/sources/')).length;
      const matched = after.length - unevaluated;
      const oldLeft = before.length - matched;
      expect(oldLeft).toBeGreaterThanOrEqual(0);
      // Every kept object is followed; a rule with no equal in the old version is unevaluated.
      after.forEach((r, j) => {
        const i = before.indexOf(r);
        if (i >= 0 && hit[i]) expect(carried.byRule.get(`/sources/${j}`)).toBe(usage.byRule.get(`/sources/${i}`));
        if (!before.some((b) => JSON.stringify(b) === JSON.stringify(r))) expect(carried.unevaluated!.has(`/sources/${j}`)).toBe(true);
      });
      expect(carried.byRule.get('preset:npm')).toBe(usage.byRule.get('preset:npm'));
      expect(carried.byRule.get('default')).toBe(usage.byRule.get('default'));
      expect(carried.unevaluated!.has('preset:pypi')).toBe(true);
      expect(carried.unevaluated!.has('preset:npm')).toBe(false);
    }), { numRuns: 300 });
  });

  it('a reordering keeps every entry, a version that is the same value gives the usage itself', () => {
    const before = [{ npm: { urls: ['https://a.example'] } }, { npm: { urls: ['https://b.example'] } }, { pypi: { urls: ['https://c.example'] } }];
    const usage = usageOf(before, [true, true, true]);
    const from = { sources: before };
    expect(carryUsage(usage, from, from)).toBe(usage);
    const carried = carryUsage(usage, from, { sources: [before[2], JSON.parse(JSON.stringify(before[0])), before[1]] });
    expect([...carried.byRule].filter(([k]) => k.startsWith('/sources/')).map(([k, u]) => [k, u.count])).toEqual([['/sources/1', 1], ['/sources/2', 2], ['/sources/0', 3]]);
    expect([...carried.unevaluated!]).toEqual([]);
    // Not a policy any more (a syntax error left no value): no rule entry, the preset's and default's kept.
    expect([...carryUsage(usage, from, undefined).byRule.keys()]).toEqual(['preset:npm', 'default']);
  });

  it('__proto__ as a root member is data, and a pointer deeper than the rule keeps its tail', () => {
    const before = [{ npm: {} }, { pypi: {} }];
    const usage = emptyUsage();
    usage.byRule.set('/sources/1/pypi', { count: 5, hosts: [], observed: new Uint32Array(0) });
    const to = JSON.parse('{"__proto__": [], "sources": [{"cargo": {}}, {"npm": {}}, {"pypi": {}}]}');
    expect([...carryUsage(usage, { sources: before }, to).byRule.keys()]).toEqual(['/sources/2/pypi']);
  });
});
