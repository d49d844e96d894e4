import { describe, expect, test } from 'vitest';
import { broadCidr } from './broad-cidr';
import { pointers, run } from './test-helpers';

describe('broad-cidr', () => {
  test('0.0.0.0/0, ::/0 and prefixes shorter than /8 (IPv4) or /16 (IPv6) are reported at the cidr', () => {
    const policy = {
      connections: [
        { tcp: { cidrs: ['0.0.0.0/0', '10.0.0.0/8', '64.0.0.0/2'] } },
        { tls: { cidrs: ['::/0', '2001:db8::/16', '2000::/3'], ports: [443] } },
        { udp: { cidrs: ['128.0.0.0/7'] } },
        { icmp: { cidrs: ['0.0.0.0/0'] } },
      ],
    };
    expect(pointers(broadCidr, policy)).toEqual([
      '/connections/0/tcp/cidrs/0', '/connections/0/tcp/cidrs/2',
      '/connections/1/tls/cidrs/0', '/connections/1/tls/cidrs/2',
      '/connections/2/udp/cidrs/0', '/connections/3/icmp/cidrs/0',
    ]);
    const [first] = run(broadCidr, policy);
    expect(first.code).toBe('broad-cidr');
    expect(first.message).toContain('`0.0.0.0/0` allows every IPv4 address');
  });

  test('/8 and /16 themselves, narrower prefixes and plain addresses pass', () => {
    expect(pointers(broadCidr, {
      connections: [
        { tcp: { cidrs: ['10.0.0.0/8', '192.0.2.0/24', '192.0.2.1', '2001:db8::/16', '2001:db8::/48', '::1'] } },
      ],
    })).toEqual([]);
  });

  test('the size of a wide but not whole prefix is stated exactly', () => {
    const [f] = run(broadCidr, { connections: [{ tcp: { cidrs: ['2000::/3'] } }] });
    expect(f.message).toContain((1n << 125n).toString());
  });
});
