import { describe, expect, test } from 'vitest';
import { METADATA_ADDRESSES, metadataAddress } from './metadata-address';
import { pointers, run } from './test-helpers';

describe('metadata-address', () => {
  test('the list names 169.254.169.254 and fd00:ec2::254', () => {
    expect(METADATA_ADDRESSES).toContain('169.254.169.254');
    expect(METADATA_ADDRESSES).toContain('fd00:ec2::254');
  });

  test('a CIDR containing a metadata address is reported at the cidr, naming the address', () => {
    const policy = {
      connections: [
        { tcp: { cidrs: ['10.0.0.0/8', '169.254.169.254'] } },
        { tls: { cidrs: ['fd00:ec2::/64'], ports: [443] } },
        { udp: { cidrs: ['169.254.0.0/16'] } },
        { tcp: { cidrs: ['0.0.0.0/0', '::/0'] } },
        { tcp: { cidrs: ['::ffff:169.254.169.254/128'] } },
      ],
    };
    const findings = run(metadataAddress, policy);
    expect(findings.map((f) => f.pointer)).toEqual([
      '/connections/0/tcp/cidrs/1', '/connections/1/tls/cidrs/0', '/connections/2/udp/cidrs/0',
      '/connections/3/tcp/cidrs/0', '/connections/3/tcp/cidrs/1', '/connections/4/tcp/cidrs/0',
    ]);
    expect(findings[0]).toMatchObject({ code: 'metadata-address', message: expect.stringContaining('`169.254.169.254`') });
    expect(findings[1].message).toContain('`fd00:ec2::254`');
  });

  test('CIDRs that exclude every metadata address pass', () => {
    expect(pointers(metadataAddress, {
      connections: [
        { tcp: { cidrs: ['10.0.0.0/8', '169.254.169.253', '169.254.169.0/25', 'fd00:ec3::/32', '192.0.2.0/24'] } },
        { icmp: { cidrs: ['169.254.0.0/17'] } },
      ],
    })).toEqual([]);
  });
});
