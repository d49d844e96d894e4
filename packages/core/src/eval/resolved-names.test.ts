import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ResolvedNames } from './resolved-names';
import type { DnsObservation } from '../trace/types';

describe('ResolvedNames', () => {
  it('each address gets every name once, in order of first appearance, past the 16 kept in a list (reference: a scan)', () => {
    const name = fc.integer({ min: 0, max: 40 }).map((i) => `h${i}.example`);
    const address = fc.constantFrom('10.0.0.1', '10.0.0.2', '2001:db8::1');
    const dns = fc.record({ queryName: name, answers: fc.array(fc.oneof(address, name), { maxLength: 4 }) });
    fc.assert(fc.property(fc.array(dns, { maxLength: 120 }), fc.boolean(), (list, split) => {
      const reference = new Map<string, string[]>();
      const names = new ResolvedNames();
      let second: ResolvedNames | undefined;
      list.forEach((d, i) => {
        const aliases = d.answers.filter((x) => !x.includes('.') || !/^\d/.test(x)).filter((x) => x.endsWith('.example'));
        const gained: string[] = [];
        for (const a of d.answers) {
          if (a.endsWith('.example')) continue;
          const known = reference.get(a) ?? [];
          const before = known.length;
          for (const n of [d.queryName, ...aliases]) if (!known.includes(n)) known.push(n);
          reference.set(a, known);
          if (known.length > before) gained.push(a);
        }
        // Half way, the names so far seed a second instance (a second pass starts from them).
        if (split && i === list.length >> 1) second = new ResolvedNames(names.toMap());
        const o = { protocol: 'dns', index: i, sequence: i, ...d } as DnsObservation;
        expect([...names.learn(o)]).toEqual(gained);
        second?.learn(o);
      });
      expect(names.toMap()).toEqual(reference);
      for (const [a, n] of reference) expect(names.namesOf(a)).toEqual(n);
      if (second) expect(second.toMap()).toEqual(reference);
    }), { numRuns: 300 });
  });
});
