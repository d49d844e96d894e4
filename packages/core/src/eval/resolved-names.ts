/** Names that a trace's DNS answers gave each address (decisions.md D4: plain TCP by name). */
import { normaliseHostFast } from './url';
import type { DnsObservation } from '../trace/types';

const NONE: readonly string[] = [];

/** Looks like an IP address (IPv4 digits and dots, or IPv6 with a colon), not a host name. */
function isAddressText(text: string): boolean {
  const c = text.charCodeAt(0);
  return (c >= 48 && c <= 57 && text.charCodeAt(text.length - 1) >= 48 && text.charCodeAt(text.length - 1) <= 57) || text.includes(':');
}

/**
 * IP address → names DNS answers resolved to it, in order of first appearance, with a set for
 * the membership test (comparing each new name with every known one cost more than the rest of
 * a DNS observation).
 */
export class ResolvedNames {
  private readonly byAddress = new Map<string, { names: string[]; seen: Set<string> }>();

  constructor(initial?: ReadonlyMap<string, readonly string[]>) {
    for (const [address, names] of initial ?? []) this.byAddress.set(address, { names: names.slice(), seen: new Set(names) });
  }

  namesOf(address: string): string[] | undefined {
    return this.byAddress.size > 0 ? this.byAddress.get(address)?.names : undefined;
  }

  /** Learns a DNS observation; returns the addresses that gained a name. */
  learn(d: DnsObservation): readonly string[] {
    const answers = d.answers;
    if (!d.queryName || !answers || answers.length === 0) return NONE;
    const query = normaliseHostFast(d.queryName);
    // Answers are addresses, or names (CNAME targets) that resolve to the same addresses.
    let aliases: string[] | undefined;
    for (const x of answers) if (!isAddressText(x)) (aliases ??= []).push(normaliseHostFast(x));
    let gained: string[] | undefined;
    for (const answer of answers) {
      if (!isAddressText(answer)) continue;
      let known = this.byAddress.get(answer);
      if (!known) this.byAddress.set(answer, (known = { names: [], seen: new Set() }));
      const before = known.names.length;
      if (!known.seen.has(query)) { known.seen.add(query); known.names.push(query); }
      if (aliases) for (const n of aliases) if (!known.seen.has(n)) { known.seen.add(n); known.names.push(n); }
      if (known.names.length > before) (gained ??= []).push(answer);
    }
    return gained ?? NONE;
  }

  toMap(): Map<string, string[]> {
    return new Map([...this.byAddress].map(([address, known]) => [address, known.names.slice()]));
  }
}

