import { describe, expect, test } from 'vitest';
import { cidrHostBits } from './cidr-host-bits';
import { pointers, run } from './test-helpers';
import { fixesOf } from '../validate/types';

describe('cidr-host-bits', () => {
  test('a prefix with host bits set is reported at the cidr with the network address as fix', () => {
    const findings = run(cidrHostBits, { connections: [{ tcp: { cidrs: ['192.168.0.0/16', '10.0.0.1/8'] } }] });
    expect(findings).toEqual([{
      code: 'cidr-host-bits',
      pointer: '/connections/0/tcp/cidrs/1',
      message: expect.stringMatching(/`10\.0\.0\.1\/8`.*Write `10\.0\.0\.0\/8`, or `10\.0\.0\.1\/32` for that single address/),
      data: {
        kind: 'choices',
        fixes: [
          { kind: 'replace', value: '10.0.0.0/8', title: 'Change to 10.0.0.0/8 (the network)' },
          { kind: 'replace', value: '10.0.0.1/32', title: 'Change to 10.0.0.1/32 (the single address)' },
        ],
      },
    }]);
  });

  test('every cidr field: tls, tcp, udp, icmp, and IPv6 in RFC 5952 form', () => {
    const policy = {
      connections: [
        { tls: { cidrs: ['2001:db8::1/32'], ports: [443] } },
        { tcp: { cidrs: ['172.16.5.4/12'] } },
        { udp: { cidrs: ['10.1.2.3/24'] } },
        { icmp: { cidrs: ['192.0.2.1/31'] } },
      ],
    };
    const findings = run(cidrHostBits, policy);
    expect(findings.map((f) => [f.pointer, ...fixesOf(f.data).map((x) => (x as { value: string }).value)])).toEqual([
      ['/connections/0/tls/cidrs/0', '2001:db8::/32', '2001:db8::1/128'],
      ['/connections/1/tcp/cidrs/0', '172.16.0.0/12', '172.16.5.4/32'],
      ['/connections/2/udp/cidrs/0', '10.1.2.0/24', '10.1.2.3/32'],
      ['/connections/3/icmp/cidrs/0', '192.0.2.0/31', '192.0.2.1/32'],
    ]);
  });

  test('network addresses, plain addresses and malformed values are not reported', () => {
    expect(pointers(cidrHostBits, {
      connections: [
        { tcp: { cidrs: ['10.0.0.0/8', '10.0.0.1', '10.0.0.1/32', '::1', '2001:db8::/32', '0.0.0.0/0'] } },
        { udp: { cidrs: ['2001:db8::1/32'] } }, // IPv6 in udp: a schema error, not a lint
        { tcp: { cidrs: ['300.0.0.1/8', 7, null] } },
        { tcp: 'nope' },
      ],
    })).toEqual([]);
  });
});
