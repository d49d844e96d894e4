// Near misses on policies with many address rules for a port (a policy of many databases): the
// related-rule index merges them with the rules found by name and by address, in order, and stops
// at the first that cannot beat a candidate; held to trying every rule.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { Policy } from '../policy/types';
import type { Access } from './access';
import { nearMiss } from './near-miss';
import { policyRules } from './rules';

const cidr = fc.tuple(fc.constantFrom(10, 172), fc.integer({ min: 0, max: 3 }), fc.constantFrom(8, 16, 24, 32)).map(([a, b, n]) => `${a}.${b}.0.${n === 32 ? 1 : 0}/${n}`);
const port = fc.constantFrom(443, 5432, 22);
const connection = fc.oneof(
  { weight: 4, arbitrary: fc.record({ tcp: fc.record({ cidrs: fc.uniqueArray(cidr, { minLength: 1, maxLength: 2 }), ports: fc.uniqueArray(port, { minLength: 1, maxLength: 2 }) }) }) },
  fc.record({ tcp: fc.record({ cidrs: fc.uniqueArray(cidr, { minLength: 1, maxLength: 2 }) }) }),
  fc.record({ tcp: fc.record({ hostPatterns: fc.constant(['db.internal']), cidrs: fc.uniqueArray(cidr, { minLength: 1, maxLength: 2 }), ports: fc.constant([5432]) }, { requiredKeys: ['hostPatterns'] }) }),
  fc.record({ tls: fc.record({ serverNamePatterns: fc.constant(['*.internal']), ports: fc.constant([443]) }) }),
  fc.record({ tcp: fc.record({ ports: fc.constant([5432]) }) }),
);
const policy = fc.record({
  default: fc.constant('deny' as const),
  presets: fc.constantFrom([], ['pypi']),
  connections: fc.array(connection, { minLength: 1, maxLength: 60 }),
}) as fc.Arbitrary<Policy>;
const access: fc.Arbitrary<Access> = fc.oneof(
  fc.record({ kind: fc.constant('tcp' as const), remoteIp: fc.constantFrom('10.0.0.1', '10.1.0.7', '172.2.0.1', '192.168.0.1'), port, hostnames: fc.constantFrom(undefined, ['db.internal'], ['x.internal']) }, { requiredKeys: ['kind', 'port'] }),
  fc.record({ kind: fc.constant('tls' as const), serverName: fc.constantFrom('a.internal', 'db.internal'), remoteIp: fc.constantFrom('10.0.0.1', '172.3.0.1'), port }, { requiredKeys: ['kind', 'port'] }),
  fc.record({ kind: fc.constant('http' as const), method: fc.constant('GET'), url: fc.constantFrom('https://db.internal/x', 'http://a.internal:5432/'), remoteIp: fc.constantFrom('10.0.0.1', '172.3.0.1') }, { requiredKeys: ['kind', 'method', 'url'] }),
);

describe('near miss among many address rules', () => {
  it('equals trying every rule', () => {
    fc.assert(fc.property(policy, fc.array(access, { minLength: 1, maxLength: 6 }), (p, accesses) => {
      const rules = policyRules(p);
      for (const a of accesses) expect(nearMiss(rules, a)).toEqual(nearMiss(rules, a, { exhaustive: true }));
    }), { numRuns: 1500 });
  });

  it('names the first address rule of the port that missed by its address alone', () => {
    const connections = Array.from({ length: 200 }, (_, i) => ({ tcp: { cidrs: [`10.${100 + (i >> 8)}.${i & 255}.0/24`], ports: [5432] } }));
    connections.splice(3, 0, { tcp: { cidrs: ['10.32.0.0/11'], ports: [5432] } });
    const rules = policyRules({ default: 'deny', connections } as Policy);
    const near = nearMiss(rules, { kind: 'tcp', remoteIp: '172.16.0.9', port: 5432 });
    expect(near?.rule).toBe('/connections/0');
    expect(near?.reasons.map((r) => r.code)).toEqual(['cidr']);
  });
});
