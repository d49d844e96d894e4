import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { cpuMs } from '../../../../test-support/cpu-time';
import { ipOrPrefixProblem, isIpOrPrefix, isIpv4OrPrefix, parseCidr, networkOf, hasHostBits, prefixSize, cidrContains } from './ip';
import { isRepositoryPattern, matchRepositoryPattern } from './repository-pattern';
import { matchHostPattern, isHostPattern, unmatchableHostProblem } from './host-pattern';

describe('ipv4-or-prefix (D3)', () => {
  const valid = ['0.0.0.0', '255.255.255.255', '10.0.0.0/8', '192.0.2.1/32', '0.0.0.0/0', '10.0.0.1/8'];
  const invalid = ['010.1.1.1', '1.2.3', '1.2.3.4.5', '256.0.0.1', '1.2.3.4/33', '1.2.3.4/08', '1.2.3.4/', '::1', ' 1.2.3.4', '1.2.3.4 ', 'a.b.c.d', '1..2.3', '1.2.3.4/-1', ''];
  it.each(valid)('accepts %s', (s) => expect(isIpv4OrPrefix(s)).toBe(true));
  it.each(invalid)('rejects %j', (s) => expect(isIpv4OrPrefix(s)).toBe(false));
});

describe('ip-or-prefix (D3)', () => {
  const valid = ['::', '::1', '::/0', '2001:db8::/32', '2001:db8:0:0:0:0:0:1', '::ffff:192.0.2.1', '::ffff:192.0.2.1/128', 'fe80::/10', '1:2:3:4:5:6:7:8', '10.0.0.0/8'];
  const invalid = ['fe80::1%eth0', '[::1]', '::1/129', '::1/012', '::ffff:192.0.2.01', '12345::', '1::2::3', ':::', 'g::1', '::1 ', '1:2:3:4:5:6:7:8:9', '::ffff:1.2.3'];
  it.each(valid)('accepts %s', (s) => expect(isIpOrPrefix(s)).toBe(true));
  it.each(invalid)('rejects %j', (s) => expect(isIpOrPrefix(s)).toBe(false));
  it('explains the problem', () => {
    expect(ipOrPrefixProblem('1.2.3.300')).toBe('octet 300 is greater than 255');
    expect(ipOrPrefixProblem('fe80::1%eth0')).toContain('zone index');
    expect(ipOrPrefixProblem('::1/129')).toContain('greater than 128');
    expect(ipOrPrefixProblem('::1', true)).toContain('IPv6 is not allowed');
  });
  it('never accepts what ipaddr-style parsing would read as octal or hex', () => {
    fc.assert(fc.property(fc.stringMatching(/^0[0-7]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}$/), (s) => !isIpOrPrefix(s)));
  });
});

describe('CIDR arithmetic', () => {
  it('network address, host bits, exact sizes', () => {
    const c = parseCidr('10.0.0.1/8')!;
    expect(hasHostBits(c)).toBe(true);
    expect(networkOf(c)).toBe('10.0.0.0/8');
    expect(prefixSize(parseCidr('::/0')!)).toBe('340282366920938463463374607431768211456');
    expect(networkOf(parseCidr('2001:db8::1/32')!)).toBe('2001:db8::/32');
    expect(hasHostBits(parseCidr('2001:db8::/32')!)).toBe(false);
    expect(cidrContains(parseCidr('10.0.0.0/8')!, parseCidr('10.1.2.3')!)).toBe(true);
    expect(cidrContains(parseCidr('10.0.0.0/8')!, parseCidr('11.0.0.0/8')!)).toBe(false);
  });
});

describe('repository-pattern (D3)', () => {
  const valid = ['a', 'org/repo', 'org/*', 'org/**', '**', '**/x', 'a/**/b', 'a.b_c-d/x*y', '*', '.a', 'a..b'];
  const invalid = ['', '/a', 'a/', 'a//b', 'a**b', '***', 'a/**b', '.', '..', 'a/../b', 'a b', 'a/b?', 'ä'];
  it.each(valid)('accepts %j', (s) => expect(isRepositoryPattern(s)).toBe(true));
  it.each(invalid)('rejects %j', (s) => expect(isRepositoryPattern(s)).toBe(false));

  it.each([
    ['org/*', 'org/repo', true], ['org/*', 'org/a/b', false], ['org/**', 'org/a/b', true], ['org/**', 'org', true],
    ['**', 'x/y/z', true], ['a/**/b', 'a/b', true], ['a/**/b', 'a/x/y/b', true], ['a/**/b', 'a/x/y/c', false],
    ['Org/Repo', '/org/repo.git', true], ['org/re*o', 'org/repo', true], ['org/re*o', 'org/rep', false],
    ['*-svc', 'api-svc', true], ['org/*', 'org/', false],
  ] as const)('%s matches %s: %s', (p, path, expected) => expect(matchRepositoryPattern(p, path)).toBe(expected));

  it('matching stays fast on adversarial input', () => {
    const pattern = Array.from({ length: 200 }, () => '**').join('/') + '/x';
    const path = Array.from({ length: 2000 }, () => 'a').join('/');
    const { ms } = cpuMs(() => {
      expect(matchRepositoryPattern(pattern, path)).toBe(false);
      expect(matchRepositoryPattern('*a*a*a*a*a*a*a*a*b', 'a'.repeat(100000))).toBe(false);
    });
    expect(ms).toBeLessThan(1000); // CPU time, a few ms: backtracking takes far longer
  });
});

describe('host patterns (D3)', () => {
  it('follows the interface rule', () => {
    for (const ok of ['a', 'example.com', '*.example.com', 'a-b.c', 'a..b', 'A9']) expect(isHostPattern(ok)).toBe(true);
    for (const bad of ['', '*', '*.', '-a', 'a-', '*a.com', 'a.*.com', 'a_b', 'a b', '.a', 'a.']) expect(isHostPattern(bad)).toBe(false);
  });
  it('matches one or more labels for *., never the apex; case-insensitive; trailing dot ignored', () => {
    expect(matchHostPattern('*.example.com', 'a.example.com')).toBe(true);
    expect(matchHostPattern('*.example.com', 'a.b.example.com')).toBe(true);
    expect(matchHostPattern('*.example.com', 'example.com')).toBe(false);
    expect(matchHostPattern('*.example.com', 'badexample.com')).toBe(false);
    expect(matchHostPattern('Example.COM', 'example.com.')).toBe(true);
  });
  it('finds patterns that cannot match', () => {
    expect(unmatchableHostProblem('a..b')).toContain('empty label');
    expect(unmatchableHostProblem('a.-b.c')).toContain('starts or ends');
    expect(unmatchableHostProblem('x'.repeat(64) + '.com')).toContain('63');
    expect(unmatchableHostProblem('*.example.com')).toBeUndefined();
  });
});
