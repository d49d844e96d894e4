// The allocation-free fast paths of coverage-keys.ts against their references: the key of a URL's
// host hashed in place against the key of the host parseUrl returns, and the keys of a plain IPv4
// CIDR from its packed address against those from parseCidr's bytes (any text, hostile ones too).
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parseUrl } from '../eval/url';
import { parseCidr, plainIpv4Cidr } from '../formats/ip';
import { hostKey, networkHash, RuleKeys, urlHostKey, urlKeyPath } from './coverage-keys';
import type { CidrLengths } from './coverage-keys';

/** Texts near URLs: schemes, hosts in any case, users, ports, brackets, trailing dots, paths, noise. */
const urlText = fc.oneof(
  fc.tuple(
    fc.constantFrom('https://', 'http://', 'HTTPS://', 'ftp://', 'https:/', '', 'http://user@', 'https://a:b@'),
    fc.string({ unit: fc.constantFrom('a', 'z', 'A', '0', '9', '.', '-', '_', ':', '[', ']', '@', 'é', '\u212A', '%'), maxLength: 24 }),
    fc.constantFrom('', '/', '/simple', '?q', '#f', ':443', ':8080/x', '.', './', ':', ':x', '/a?b#c'),
  ).map(([scheme, host, tail]) => `${scheme}${host}${tail}`),
  fc.constantFrom('https://', 'http://', 'https://.', 'https://a.', 'https://A.example', 'https://[::1]:443/x', 'https://[::1]', 'http://a.example:99999', 'https://' + 'a'.repeat(253), 'https://' + 'a'.repeat(254), 'https://a.example./x'),
  fc.string({ maxLength: 30 }),
);

describe('urlHostKey', () => {
  it('is the key of the host parseUrl reads (undefined when it reads none)', () => {
    fc.assert(fc.property(urlText, (text) => {
      const host = parseUrl(text)?.host;
      expect(urlHostKey(text)).toBe(host === undefined ? undefined : hostKey(host));
    }), { numRuns: 5000 });
  });
  it('finds the path parseUrl reads, which the keys of HTTP-kind sources hash', () => {
    fc.assert(fc.property(urlText, (text) => {
      expect(urlKeyPath(text)).toBe(parseUrl(text)?.path);
    }), { numRuns: 5000 });
  });
});

/** Texts near CIDRs, as in fast-paths.property.test.ts, and IPv6 ones. */
const cidrText = fc.oneof(
  fc.string({ unit: fc.constantFrom('0', '1', '2', '5', '9', '.', '.', '/', '3', ':', ' ', 'a'), maxLength: 20 }),
  fc.tuple(fc.array(fc.integer({ min: 0, max: 300 }), { minLength: 3, maxLength: 5 }), fc.option(fc.integer({ min: 0, max: 40 })), fc.boolean())
    .map(([octets, prefix, zero]) => `${zero ? '0' : ''}${octets.join('.')}${prefix === null ? '' : `/${zero ? '0' : ''}${prefix}`}`),
  fc.constantFrom('0.0.0.0', '255.255.255.255/32', '1.2.3.4/0', '10.1.2.0/24', '2001:db8::/32', '::ffff:1.2.3.4', '::/0', '1.2.3.4/032'),
);

describe('the keys of a CIDR', () => {
  it('from the packed address of a plain IPv4 CIDR are those from parseCidr', () => {
    fc.assert(fc.property(fc.array(cidrText, { maxLength: 4 }), fc.uniqueArray(fc.integer({ min: 0, max: 128 }), { maxLength: 6 }), (cidrs, extra) => {
      const lengths: CidrLengths = { 4: new Set(extra.filter((l) => l <= 32)), 6: new Set(extra) };
      const keys = new RuleKeys(lengths);
      keys.connection('tcp', { cidrs });
      // The reference: every CIDR through parseCidr and networkHash, without repeats, in order.
      const indexed: number[] = [], looked: number[] = [];
      const add = (list: number[], k: number) => { if (!list.includes(k)) list.push(k); };
      for (const text of cidrs) {
        const cidr = parseCidr(text);
        if (cidr === undefined) continue;
        add(indexed, networkHash(cidr, cidr.prefix));
        for (const length of lengths[cidr.version]) if (length <= cidr.prefix) add(looked, networkHash(cidr, length));
      }
      expect(keys.indexed).toEqual(indexed);
      expect(keys.looked).toEqual(looked);
      for (const text of cidrs) {
        const out = { address: -1, prefix: -1 };
        const cidr = parseCidr(text);
        if (plainIpv4Cidr(text, out)) {
          expect(cidr?.version).toBe(4);
          expect(cidr?.prefix).toBe(out.prefix);
          expect(cidr?.bytes).toEqual([out.address >>> 24, (out.address >>> 16) & 255, (out.address >>> 8) & 255, out.address & 255]);
        }
      }
    }), { numRuns: 3000 });
  });
});
