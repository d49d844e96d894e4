/** `broad-cidr`: an IPv4 prefix shorter than /8 or an IPv6 prefix shorter than /16 (0.0.0.0/0, ::/0 included). */
import { networkOf, prefixSize } from '../formats/ip';
import type { LintRule, RuleFinding } from './types';
import { connectionCidrs, viewOf, refPointer } from './walk';

/** Prefixes shorter than these lengths are reported (docs/diagnostics/broad-cidr.md). */
export const BROAD_PREFIX_LIMIT = { 4: 8, 6: 16 } as const;

export const broadCidr: LintRule = {
  code: 'broad-cidr',
  description: 'A CIDR is very wide (IPv4 shorter than /8, IPv6 shorter than /16): it allows a large part of the internet.',
  check(context) {
    const findings: RuleFinding[] = [];
    for (const ref of connectionCidrs(viewOf(context))) {
      const limit = BROAD_PREFIX_LIMIT[ref.cidr.version];
      if (ref.cidr.prefix >= limit) continue;
      const whole = ref.cidr.prefix === 0;
      const what = whole ? `every IPv${ref.cidr.version} address` : `${prefixSize(ref.cidr)} addresses (${networkOf(ref.cidr)})`;
      findings.push({
        pointer: refPointer(ref),
        message: `\`${ref.text}\` allows ${what}: IPv${ref.cidr.version} prefixes shorter than /${limit} defeat an egress policy. List the networks the job really needs, or use serverNamePatterns/hostPatterns or a source.`,
      });
    }
    return findings;
  },
};
