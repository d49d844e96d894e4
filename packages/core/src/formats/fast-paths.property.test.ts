// The allocation-free fast paths of the format checks against their references (the full checks,
// ipaddr.js, splitting into labels): same answer, same message, same parsed value, on any text.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { hasHostBits, ipOrPrefixProblem, ipOrPrefixProblemSlow, isIpOrPrefix, parseCidr, parseCidrSlow, parsedCidr } from './ip';
import { isHostPattern, unmatchableHostProblem, unmatchableHostProblemSlow } from './host-pattern';
import { isRepositoryPattern, repositoryPatternProblem } from './repository-pattern';

/** Texts near the IPv4 grammar: digits, dots, slashes, some noise. */
const ipText = fc.oneof(
  fc.string({ unit: fc.constantFrom('0', '1', '2', '5', '9', '.', '.', '/', '3', ':', ' ', 'a'), maxLength: 20 }),
  fc.tuple(fc.array(fc.integer({ min: 0, max: 300 }), { minLength: 3, maxLength: 5 }), fc.option(fc.integer({ min: 0, max: 40 })), fc.boolean())
    .map(([octets, prefix, zero]) => `${zero ? '0' : ''}${octets.join('.')}${prefix === null ? '' : `/${zero ? '0' : ''}${prefix}`}`),
  fc.constantFrom('0.0.0.0', '255.255.255.255/32', '1.2.3.4/0', '1.2.3.4/00', '01.2.3.4', '1.2.3.4/', '1.2.3.4.', '::ffff:1.2.3.4', '1.2.3.4/032'),
);

describe('IPv4 fast path of ip-or-prefix', () => {
  it('gives the same problem (or none) as the full checks, for both formats', () => {
    fc.assert(fc.property(ipText, fc.boolean(), (text, v4) => {
      expect(ipOrPrefixProblem(text, v4)).toBe(ipOrPrefixProblemSlow(text, v4));
    }), { numRuns: 2000 });
  });
  it('parses to the same address, prefix and version as ipaddr.js', () => {
    fc.assert(fc.property(ipText, (text) => {
      expect(parseCidr(text)).toEqual(parseCidrSlow(text));
    }), { numRuns: 2000 });
  });
});

/** Texts near the IPv6 grammar: groups of hex digits in either case, `:` and `::` anywhere, prefixes, noise. */
const hexGroup = fc.string({ unit: fc.constantFrom('0', '1', '9', 'a', 'f', 'F', 'D'), maxLength: 5 });
const ipv6Text = fc.oneof(
  fc.string({ unit: fc.constantFrom('0', '1', 'a', 'F', ':', ':', ':', '/', '.', '%', ' ', 'g', '8'), maxLength: 46 }),
  fc.tuple(
    fc.array(hexGroup, { maxLength: 9 }),
    fc.array(fc.nat({ max: 9 }), { maxLength: 2 }),
    fc.option(fc.oneof(fc.integer({ min: 0, max: 140 }).map(String), fc.constantFrom('', '00', '064', '0', '128', '129', '1000'))),
    fc.option(fc.constantFrom('1.2.3.4', '255.255.255.255', '1.2.3', '%eth0')),
  ).map(([groups, gaps, prefix, tail]) => {
    let parts = groups.slice();
    for (const at of gaps) parts = [...parts.slice(0, at), '', ...parts.slice(at)];
    let text = parts.join(':');
    if (tail !== null) text += tail.startsWith('%') ? tail : `:${tail}`;
    return prefix === null ? text : `${text}/${prefix}`;
  }),
  // Mostly valid: eight groups, or up to seven around one `::`, of one to four digits (now and then
  // none or five), with a prefix now and then (the forms the fast path takes).
  fc.tuple(
    fc.array(fc.oneof({ weight: 12, arbitrary: fc.string({ unit: fc.constantFrom('0', '7', 'a', 'b', 'E', 'f'), minLength: 1, maxLength: 4 }) }, { weight: 1, arbitrary: fc.constantFrom('', '12345') }), { minLength: 0, maxLength: 8 }),
    fc.nat({ max: 8 }),
    fc.boolean(),
    fc.option(fc.integer({ min: 0, max: 130 })),
  ).map(([groups, at, gap, prefix]) => {
    const text = gap || groups.length !== 8
      ? `${groups.slice(0, Math.min(at, groups.length)).join(':')}::${groups.slice(Math.min(at, groups.length)).join(':')}`
      : groups.join(':');
    return prefix === null ? text : `${text}/${prefix}`;
  }),
  fc.constantFrom('::', '::/0', '::1', '1::', '1::/64', ':::', ':1::', '1:::2', '::1::', '1:2:3:4:5:6:7:8', '1:2:3:4:5:6:7:8:9', '1:2:3:4:5:6:7::', '::2:3:4:5:6:7:8',
    '1:2:3:4::5:6:7:8', '1:2:3:4:5:6:7', 'fd00::/8', 'FD00:0:0:0:0:0:0:1/128', '2001:db8::/032', '2001:db8::/', '2001:db8:/32', '12345::', '::ffff:1.2.3.4', 'fe80::1%eth0'),
);

describe('IPv6 fast path of ip-or-prefix', () => {
  it('gives the same problem (or none) as the full checks, for both formats', () => {
    fc.assert(fc.property(ipv6Text, fc.boolean(), (text, v4) => {
      expect(ipOrPrefixProblem(text, v4)).toBe(ipOrPrefixProblemSlow(text, v4));
    }), { numRuns: 4000 });
  });
  it('parses to the same bytes, prefix and version as ipaddr.js', () => {
    fc.assert(fc.property(ipv6Text, (text) => {
      expect(parseCidr(text)).toEqual(parseCidrSlow(text));
    }), { numRuns: 4000 });
  });
  it('the format check (which fills the memo lint reads) accepts what the full checks accept; the memo gives the parse', () => {
    fc.assert(fc.property(fc.oneof(ipv6Text, ipText), (text) => {
      expect(isIpOrPrefix(text)).toBe(ipOrPrefixProblemSlow(text, false) === undefined);
      expect(parsedCidr(text)).toEqual(parseCidrSlow(text));
    }), { numRuns: 4000 });
  });
});

describe('hasHostBits (byte by byte)', () => {
  it('finds a bit set after the prefix exactly when one is, bit by bit', () => {
    const cidr = fc.constantFrom(4, 16).chain((n) => fc.tuple(
      fc.array(fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 255 }), fc.constantFrom(1, 128)), { minLength: n, maxLength: n }),
      fc.integer({ min: 0, max: n * 8 }),
    ));
    fc.assert(fc.property(cidr, ([bytes, prefix]) => {
      let set = false;
      for (let bit = prefix; bit < bytes.length * 8; bit++) if (bytes[bit >> 3] & (0x80 >> (bit & 7))) set = true;
      expect(hasHostBits({ version: bytes.length === 4 ? 4 : 6, bytes, prefix, explicitPrefix: true })).toBe(set);
    }), { numRuns: 3000 });
  });
});

describe('label scan of unmatchable-host-pattern', () => {
  const hostText = fc.oneof(
    fc.string({ unit: fc.constantFrom('a', 'b', '-', '.', '.', '*', '1'), maxLength: 30 }),
    fc.array(fc.oneof(fc.constantFrom('', '-', 'a-', '-a', 'ab'), fc.string({ unit: fc.constantFrom('a', '-', 'z'), minLength: 60, maxLength: 70 })), { maxLength: 5 })
      .chain((labels) => fc.boolean().map((wild) => `${wild ? '*.' : ''}${labels.join('.')}`)),
    fc.integer({ min: 250, max: 258 }).map((n) => 'a.'.repeat(n).slice(0, n)),
  );
  it('reports the same problem as splitting into labels', () => {
    fc.assert(fc.property(hostText, (text) => {
      expect(unmatchableHostProblem(text)).toBe(unmatchableHostProblemSlow(text));
    }), { numRuns: 2000 });
  });
});

describe('scan of repository-pattern', () => {
  const patternText = fc.oneof(
    fc.string({ unit: fc.constantFrom('a', '*', '*', '/', '.', '-', '_', ' ', 'Z', '9', '@'), maxLength: 12 }),
    fc.array(fc.constantFrom('**', '*', 'org', '.', '..', 'a*b', '***', 'x**', '', 'team-1'), { minLength: 1, maxLength: 4 }).map((s) => s.join('/')),
  );
  it('accepts exactly the patterns the full check finds no problem with', () => {
    fc.assert(fc.property(patternText, (text) => {
      expect(isRepositoryPattern(text)).toBe(repositoryPatternProblem(text) === undefined);
    }), { numRuns: 3000 });
  });
});

describe('isHostPattern (a scan in place)', () => {
  it('accepts exactly what the schema pattern accepts', () => {
    const pattern = /^(\*\.)?[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?$/;
    const text = fc.oneof(
      fc.string({ unit: fc.constantFrom('a', 'Z', '0', '.', '-', '*', '_', ' ', 'é'), maxLength: 12 }),
      fc.string({ unit: fc.constantFrom('a', '.', '-'), maxLength: 8 }).map((s) => `*.${s}`),
    );
    fc.assert(fc.property(text, (t) => {
      expect(isHostPattern(t)).toBe(pattern.test(t));
    }), { numRuns: 3000 });
  });
});
