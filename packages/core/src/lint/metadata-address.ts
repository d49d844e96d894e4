/** `metadata-address`: a CIDR that contains a cloud instance-metadata endpoint. */
import { cidrContains, parseCidr } from '../formats/ip';
import type { ParsedCidr } from '../formats/ip';
import type { LintRule, RuleFinding } from './types';
import { connectionCidrs, viewOf, refPointer } from './walk';

/**
 * Cloud metadata and credential endpoints a CI job must not reach. The one list to adjust.
 * 169.254.169.254: instance metadata (most clouds); 169.254.170.2: container task metadata and
 * credentials; 169.254.170.23 and fd00:ec2::23: pod identity agent; fd00:ec2::254: IPv6 instance metadata.
 * An IPv6 prefix is also checked against the IPv4-mapped form (`::ffff:169.254.169.254`).
 */
export const METADATA_ADDRESSES = ['169.254.169.254', '169.254.170.2', '169.254.170.23', 'fd00:ec2::254', 'fd00:ec2::23'] as const;

type Target = { text: string; cidr: ParsedCidr };
let allTargets: Target[] | undefined;
/** The addresses as prefixes (with the IPv4-mapped forms), in list order. */
function targetList(): Target[] {
  return (allTargets ??= METADATA_ADDRESSES.flatMap((text) => {
    const cidr = parseCidr(text)!;
    // `::ffff:a.b.c.d` from the IPv4 bytes (its text would go through ipaddr.js, whose first use compiles its expressions).
    const mapped = cidr.version === 4 ? [{ text, cidr: { version: 6 as const, bytes: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 255, 255, ...cidr.bytes], prefix: 128, explicitPrefix: false } }] : [];
    return [{ text, cidr }, ...mapped];
  }));
}
let ipv4Targets: Target[] | undefined;
/**
 * The targets an IPv4 prefix can contain, parsed without ipaddr.js: the IPv6 ones (whose first parse
 * compiles ipaddr.js's IPv6 expressions, 10 ms at start-up) are parsed only when an IPv6 prefix
 * is checked. An IPv4 prefix only contains IPv4 addresses (`cidrContains` compares versions).
 */
function targetsFor(version: 4 | 6): Target[] {
  if (version === 6) return targetList();
  return (ipv4Targets ??= METADATA_ADDRESSES.filter((t) => !t.includes(':')).map((text) => ({ text, cidr: parseCidr(text)! })));
}

export const metadataAddress: LintRule = {
  code: 'metadata-address',
  description: 'A CIDR contains a cloud metadata address (169.254.169.254, fd00:ec2::254, ...), which hands out instance credentials.',
  check(context) {
    const findings: RuleFinding[] = [];
    for (const ref of connectionCidrs(viewOf(context))) {
      // The addresses it contains, once each, in list order (no array built for the CIDRs that contain none).
      let hit: string[] | undefined;
      const targets = targetsFor(ref.cidr.version);
      for (let i = 0; i < targets.length; i++) {
        const t = targets[i];
        if (cidrContains(ref.cidr, t.cidr) && !(hit ??= []).includes(t.text)) hit.push(t.text);
      }
      if (hit === undefined) continue;
      const names = hit.map((a) => `\`${a}\``).join(', ');
      findings.push({
        pointer: refPointer(ref),
        message: `\`${ref.text}\` contains the cloud metadata address${hit.length > 1 ? 'es' : ''} ${names}, which ${hit.length > 1 ? 'serve' : 'serves'} instance credentials to anything that can reach ${hit.length > 1 ? 'them' : 'it'}. Narrow the CIDR so it excludes ${hit.length > 1 ? 'them' : 'it'}.`,
      });
    }
    return findings;
  },
};
