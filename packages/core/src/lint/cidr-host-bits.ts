/** `cidr-host-bits`: a prefix whose address has bits set after the prefix length (`10.0.0.1/8`). */
import { hasHostBits, networkOf } from '../formats/ip';
import type { LintRule, RuleFinding } from './types';
import { connectionCidrs, viewOf, refPointer } from './walk';

export const cidrHostBits: LintRule = {
  code: 'cidr-host-bits',
  description: 'A CIDR prefix has host bits set; it means its network address.',
  check(context) {
    const findings: RuleFinding[] = [];
    for (const ref of connectionCidrs(viewOf(context))) {
      if (!ref.cidr.explicitPrefix || !hasHostBits(ref.cidr)) continue;
      const network = networkOf(ref.cidr);
      const host = `${ref.text.slice(0, ref.text.indexOf('/'))}/${ref.cidr.version === 4 ? 32 : 128}`;
      findings.push({
        pointer: refPointer(ref),
        message: `\`${ref.text}\` has host bits set after the /${ref.cidr.prefix} prefix, so it stands for the whole network \`${network}\`. Write \`${network}\`, or \`${host}\` for that single address.`,
        data: {
          kind: 'choices',
          fixes: [
            { kind: 'replace', value: network, title: `Change to ${network} (the network)` },
            { kind: 'replace', value: host, title: `Change to ${host} (the single address)` },
          ],
        },
      });
    }
    return findings;
  },
};
