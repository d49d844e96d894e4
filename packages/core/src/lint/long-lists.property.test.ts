// Long lists of one rule (hosts, prefixes, ports, repository patterns) are compared through sets
// instead of pair by pair (rule-atoms.ts, PAIRWISE_LIMIT): the same answer as the pairwise
// comparison, on lists long enough to take the set path, drawn from small vocabularies so that
// covering and uncovering pairs both occur.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { cidrContains, parseCidr } from '../formats/ip';
import { connCovers, hostCovers, subset, type ConnAtom } from './rule-atoms';
import { cpuMs } from '../../../../test-support/cpu-time';

const hostVocabulary = ['a.example', 'b.example', 'x.a.example', '*.example', '*.a.example', 'c.test', '*.test', 'y.x.a.example', '*.x.a.example'];
const cidrVocabulary = ['10.0.0.0/8', '10.1.2.0/32', '10.1.0.0/32', '10.0.0.0/32', '10.1.0.0/24', '10.1.0.0/16', '10.1.2.0/24', '10.1.2.3/32', '10.2.0.0/16', '192.168.0.0/16', '192.168.1.0/24', '0.0.0.0/0', 'fd00::/8', 'fd00:1::/32', 'fd00:1:2::/48', '2001:db8::/32', '::/0'];

/** A long list: mostly one vocabulary item repeated with variants, so that the products exceed 4,096 pairs. */
const longList = <T>(items: fc.Arbitrary<T>) => fc.array(items, { minLength: 70, maxLength: 140 });
/**
 * Two long lists: the first of narrow items, the second mostly drawn from it (so that it is often
 * covered) plus a few items of the whole vocabulary at any place, which decide: the cases a
 * set-based answer could get wrong.
 */
const pairOf = <T>(narrow: fc.Arbitrary<T>, any: fc.Arbitrary<T>) => longList(narrow).chain((a) => fc.tuple(
  fc.constant(a),
  fc.tuple(fc.shuffledSubarray(a, { minLength: 70 }), fc.array(any, { maxLength: 2 }))
    .chain(([picked, extra]) => fc.shuffledSubarray([...picked, ...extra], { minLength: picked.length + extra.length })),
));
const hostNarrow = fc.oneof(fc.constantFrom('a.example', 'x.a.example', '*.x.a.example', 'c.test'), fc.integer({ min: 0, max: 40 }).map((i) => `h${i}.a.example`));
const hostAny = fc.oneof(fc.constantFrom(...hostVocabulary), hostNarrow);
const cidrNarrow = fc.oneof(fc.constantFrom('10.1.2.0/32', '10.1.0.0/32', '10.0.0.0/32', '10.1.2.3/32', 'fd00:1::/128', 'fd00:1:2::/48'), fc.integer({ min: 0, max: 40 }).map((i) => `10.1.${i}.0/24`)).map((t) => parseCidr(t)!);
const cidrAny = fc.oneof(fc.constantFrom(...cidrVocabulary).map((t) => parseCidr(t)!), cidrNarrow);

describe('long lists of a connection rule', () => {
  it('hosts: covered exactly when each is covered by one pattern of the other list', () => {
    fc.assert(fc.property(pairOf(hostNarrow, hostAny), ([a, b]) => {
      const atom = (h: string[]): ConnAtom => ({ shape: 'conn', kind: 'tls', hosts: h, ports: [443] });
      expect(connCovers(atom(a), atom(b))).toBe(b.every((h) => a.some((g) => hostCovers(g, h))));
    }), { numRuns: 300 });
  });

  it('prefixes: covered exactly when each is inside one prefix of the other list', () => {
    fc.assert(fc.property(pairOf(cidrNarrow, cidrAny), ([a, b]) => {
      const atom = (c: typeof a): ConnAtom => ({ shape: 'conn', kind: 'tcp', cidrs: c });
      expect(connCovers(atom(a), atom(b))).toBe(b.every((c) => a.some((d) => cidrContains(d, c))));
    }), { numRuns: 300 });
  });

  it('ports: a subset exactly when every port is among the other list', () => {
    fc.assert(fc.property(pairOf(fc.integer({ min: 1, max: 150 }), fc.integer({ min: 1, max: 200 })), ([a, b]) => {
      expect(subset(b, a)).toBe(b.every((p) => a.includes(p)));
    }), { numRuns: 1500 });
  });

  it('answer lists of thousands in linear time', () => {
    const { ms } = cpuMs(() => {
      const many = Array.from({ length: 40000 }, (_, i) => `s${i}.example`);
      expect(connCovers({ shape: 'conn', kind: 'tls', hosts: many }, { shape: 'conn', kind: 'tls', hosts: [...many].reverse() })).toBe(true);
      const nets = Array.from({ length: 40000 }, (_, i) => parseCidr(`10.${(i >> 8) & 255}.${i & 255}.0/24`)!);
      const addresses = nets.map((c) => parseCidr(`${c.bytes.join('.')}`)!);
      expect(connCovers({ shape: 'conn', kind: 'tcp', cidrs: nets }, { shape: 'conn', kind: 'tcp', cidrs: addresses })).toBe(true);
      const ports = Array.from({ length: 65535 }, (_, i) => i + 1);
      expect(subset(ports, [...ports].reverse())).toBe(true);
    });
    // About a hundred milliseconds of CPU; pair by pair, each of these took seconds.
    expect(ms).toBeLessThan(3000);
  });
});
