// The allocation-free fast paths of the format checks against their references (the full checks,
// ipaddr.js, splitting into labels): same answer, same message, same parsed value, on any text.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { hasHostBits, ipOrPrefixProblem, ipOrPrefixProblemSlow, isIpOrPrefix, parseAddress, parseAddressSlow, parseCidr, parseCidrSlow, parsedCidr } from './ip';
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

/**
 * Texts near IPv6 with a dotted IPv4 tail, as ipaddr.js reads them: a head of hex groups around
 * `::` (or `::` alone), then four parts in ipaddr.js's IPv4 grammar (decimal with leading zeros,
 * `0x` hex in either case) or not quite (over 255, empty, a letter, three or five parts), now and
 * then a zone, brackets or a space.
 */
const tailPart = fc.oneof(
  { weight: 16, arbitrary: fc.integer({ min: 0, max: 255 }).map(String) },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 300 }).map((v) => `0${v}`) },
  { weight: 1, arbitrary: fc.tuple(fc.integer({ min: 0, max: 300 }), fc.boolean()).map(([v, upper]) => `0${upper ? 'X' : 'x'}${v.toString(16)}`) },
  { weight: 1, arbitrary: fc.constantFrom('', '256', '0x', '0x1g', 'a', '1a', '00000000000000000001', '-1', ' 1', '1e2', '٣') },
);
const dottedTailText = fc.tuple(
  fc.oneof(
    // Six groups, or up to five around one `::` (now and then one more), of one to four digits
    // (now and then none, five or a letter that is not hex).
    fc.tuple(
      fc.array(fc.oneof({ weight: 12, arbitrary: fc.string({ unit: fc.constantFrom('0', 'f', 'F', '9', 'a'), minLength: 1, maxLength: 4 }) }, { weight: 1, arbitrary: fc.constantFrom('', '12345', 'g') }), { minLength: 6, maxLength: 7 }),
      fc.nat({ max: 6 }), fc.nat({ max: 6 }), fc.boolean(),
    ).map(([groups, count, at, gap]) => {
      if (!gap) return `${groups.slice(0, count === 5 ? 7 : 6).join(':')}:`;
      const kept = groups.slice(0, Math.min(count, 5) + (count === 6 ? 1 : 0)), cut = Math.min(at, kept.length);
      return `${kept.slice(0, cut).join(':')}::${kept.slice(cut).join(':')}${kept.length > cut ? ':' : ''}`;
    }),
    fc.constantFrom('::', '::ffff:', 'ffff::', '1:2:3:4:5:6:', '1:2:3:4:5::', '1:2:3:4:5:6::', '::1:2:3:4:5:6:', ':::', ':', '1::2::', '1:::', 'a:'),
    fc.string({ unit: fc.constantFrom('0', 'f', ':', ':', '.'), maxLength: 16 }),
  ),
  fc.oneof({ weight: 6, arbitrary: fc.array(tailPart, { minLength: 4, maxLength: 4 }) }, { weight: 1, arbitrary: fc.array(tailPart, { minLength: 3, maxLength: 5 }) }),
  fc.constantFrom('', '', '', '', '', '', '', '', '%eth0', '%1', '/64', ' '),
  fc.constantFrom('plain', 'plain', 'plain', 'plain', 'plain', 'brackets'),
).map(([head, parts, end, wrap]) => {
  const text = `${head}${parts.join('.')}${end}`;
  return wrap === 'brackets' ? `[${text}]` : text;
});

describe('parseAddress (a recorded address) by hand, never by exception', () => {
  const addressText = fc.oneof(
    fc.ipV4(), fc.ipV4Extended(), fc.ipV6(), ipText, ipv6Text, dottedTailText,
    fc.ipV6().map((a) => a.toUpperCase()),
    fc.ipV6().chain((a) => fc.constantFrom(`[${a}]`, `${a}%eth0`, `${a}%25eth0`, ` ${a}`, `${a}/128`)),
    fc.constantFrom('::ffff:10.32.0.1', '::ffff:a20:1', '2001:0db8:0000:0000:0000:ff00:0042:8329', '2001:db8::ff00:42:8329', '::1', '::', '[::1]',
      'fe80::1%eth0', '::1.2.3.4', '::ffff:01.02.03.04', '::ffff:0x1.0X2.3.4', '1:2:3:4:5:6:1.2.3.4', '1:2:3:4:5:6:7:1.2.3.4', '1::1.2.3.4', ':::1.2.3.4',
      '1:2:3:4:5:6::1.2.3.4', '::1:2:3:4:5:6:1.2.3.4', '1.2.3.4', '01.2.3.4', '1.2.3.4/32', '1.2.3', 'a'.repeat(70), '::ffff:' + '0'.repeat(60) + '1.2.3.4'),
  );
  it('equals ipaddr.js (parseAddressSlow) on IPv4, IPv6 in every form, dotted tails, zones, brackets and noise', () => {
    fc.assert(fc.property(addressText, (text) => {
      expect(parseAddress(text)).toEqual(parseAddressSlow(text));
    }), { numRuns: 20000 });
  });
  it('the dotted-tail generator reaches both verdicts of the reference, in each of its forms', () => {
    const samples = fc.sample(dottedTailText, 4000);
    const valid = samples.filter((t) => parseAddressSlow(t) !== undefined);
    expect(valid.length).toBeGreaterThan(200);
    expect(samples.length - valid.length).toBeGreaterThan(200);
    expect(valid.some((t) => /0x/i.test(t))).toBe(true);
    expect(valid.some((t) => t.startsWith('::') && t.lastIndexOf(':') === 1)).toBe(true);
  });
  it('reads the forms a trace carries', () => {
    expect(parseAddress('2606:4700:0::1')).toEqual({ version: 6, bytes: [0x26, 0x06, 0x47, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1] });
    expect(parseAddress('2001:0db8:0000:0000:0000:0000:0100:0001')).toEqual({ version: 6, bytes: [0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1] });
    expect(parseAddress('::ffff:10.32.0.1')).toEqual({ version: 6, bytes: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 255, 255, 10, 32, 0, 1] });
    expect(parseAddress('::10.32.0.1')).toEqual({ version: 6, bytes: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 255, 255, 10, 32, 0, 1] });
    expect(parseAddress('10.32.0.1')).toEqual({ version: 4, bytes: [10, 32, 0, 1] });
    for (const bad of ['fe80::1%eth0', '[::1]', '::1/128', '10.0.0.1/8', '010.0.0.1', ':::1.2.3.4', '1:2:3:4:5:6:7:1.2.3.4', 'git.example.com', '']) expect(parseAddress(bad)).toBeUndefined();
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
