/** Names that a trace's DNS answers gave each address (decisions.md D4: plain TCP by name). */
import { normaliseHost } from '../formats/host-pattern';
import type { DnsObservation } from '../trace/types';

const NONE: readonly string[] = [];

/** Looks like an IP address (IPv4 digits and dots, or IPv6 with a colon), not a host name. */
function isAddressText(text: string): boolean {
  const c = text.charCodeAt(0);
  return (c >= 48 && c <= 57 && text.charCodeAt(text.length - 1) >= 48 && text.charCodeAt(text.length - 1) <= 57) || text.includes(':');
}

/** Names an address has before its membership test uses a set (below, comparing is cheaper than hashing). */
const LISTED = 16;

interface Known { names: string[]; seen: Set<string> | undefined }

/** Adds `name` to an address's names unless it is there; true when added. */
function addName(known: Known, name: string): boolean {
  if (known.seen !== undefined) {
    if (known.seen.has(name)) return false;
    known.seen.add(name);
  } else {
    if (known.names.includes(name)) return false;
    if (known.names.length >= LISTED) known.seen = new Set([...known.names, name]);
  }
  known.names.push(name);
  return true;
}

/**
 * IP address → names DNS answers resolved to it, in order of first appearance. The membership
 * test compares a name with the few an address has, and uses a set once it has more than 16
 * (comparing each new name with every known one cost more than the rest of a DNS observation;
 * hashing each answer's fresh name string was the largest cost of a DNS observation below that).
 */
export class ResolvedNames {
  private readonly byAddress = new Map<string, Known>();

  constructor(initial?: ReadonlyMap<string, readonly string[]>) {
    for (const [address, names] of initial ?? []) this.byAddress.set(address, { names: names.slice(), seen: names.length > LISTED ? new Set(names) : undefined });
  }

  namesOf(address: string): string[] | undefined {
    return this.byAddress.size > 0 ? this.byAddress.get(address)?.names : undefined;
  }

  /** Learns a DNS observation; returns the addresses that gained a name. */
  learn(d: DnsObservation): readonly string[] {
    const answers = d.answers;
    if (!d.queryName || !answers || answers.length === 0) return NONE;
    const query = normaliseHost(d.queryName);
    // Answers are addresses, or names (CNAME targets) that resolve to the same addresses.
    let aliases: string[] | undefined;
    for (const x of answers) if (!isAddressText(x)) (aliases ??= []).push(normaliseHost(x));
    let gained: string[] | undefined;
    for (const answer of answers) {
      if (!isAddressText(answer)) continue;
      let known = this.byAddress.get(answer);
      if (!known) this.byAddress.set(answer, (known = { names: [], seen: undefined }));
      let added = addName(known, query);
      if (aliases) for (const n of aliases) if (addName(known, n)) added = true;
      if (added) (gained ??= []).push(answer);
    }
    return gained ?? NONE;
  }

  toMap(): Map<string, string[]> {
    return new Map([...this.byAddress].map(([address, known]) => [address, known.names.slice()]));
  }
}

