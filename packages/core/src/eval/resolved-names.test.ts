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
      for (const a of ['10.0.0.1', '10.0.0.2', '2001:db8::1', '10.0.0.3']) if (!reference.has(a)) expect(names.namesOf(a)).toBeUndefined();
      if (second) expect(second.toMap()).toEqual(reference);
    }), { numRuns: 300 });
  });

  it('finds every address learnt and none other among tens of thousands, after a second pass seeds them too', () => {
    const names = new ResolvedNames();
    const learnt = new Map<string, string>();
    for (let i = 0; i < 30000; i++) {
      const address = i % 3 === 0 ? `fd00:64::${i.toString(16)}` : `10.${64 + (i >> 16)}.${(i >> 8) & 255}.${i & 255}`;
      const name = `db${i}.internal.example`;
      names.learn({ protocol: 'dns', index: i, sequence: i, queryName: name, answers: [address] } as DnsObservation);
      learnt.set(address, name);
    }
    for (const [address, name] of learnt) expect(names.namesOf(address)).toEqual([name]);
    let unknown = 0;
    for (let i = 0; i < 30000; i++) {
      const address = i % 3 === 0 ? `fd00:32::${i.toString(16)}` : `10.${32 + (i >> 16)}.${(i >> 8) & 255}.${i & 255}`;
      if (names.namesOf(address) === undefined) unknown++;
    }
    expect(unknown).toBe(30000);
    const seeded = new ResolvedNames(names.toMap());
    for (const [address, name] of learnt) expect(seeded.namesOf(address)).toEqual([name]);
  });
});
