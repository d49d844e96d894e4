/** Names that a trace's DNS answers gave each address (decisions.md D4: plain TCP by name). */
import { normaliseHostFast } from './url';
import type { DnsObservation } from '../trace/types';

/** Looks like an IP address (IPv4 digits and dots, or IPv6 with a colon), not a host name. */
function isAddressText(text: string): boolean {
  const c = text.charCodeAt(0);
  return (c >= 48 && c <= 57 && text.charCodeAt(text.length - 1) >= 48 && text.charCodeAt(text.length - 1) <= 57) || text.includes(':');
}

/** Names of one address past `LISTED` of them: the list, with a set for the membership test. */
interface ManyNames { names: string[]; seen: Set<string> }

/** Up to this many names an address keeps a plain array, searched by a scan. */
const LISTED = 16;

/**
 * IP address → names DNS answers resolved to it, in order of first appearance. Most addresses get
 * one name (a trace asks for each name once or twice): an address holds a plain array of its
 * names, searched by a scan, and a set beside the list only past 16 names (comparing each new name
 * with hundreds of known ones cost more than the rest of a DNS observation). A list and a set for
 * every address, as before, took about 350 bytes each: a 1 GiB trace whose DNS answers all named
 * distinct addresses (400,000) held 140 MB more for them.
 * @internal
 */
export class ResolvedNames {
  private readonly byAddress = new Map<string, string[] | ManyNames>();
  /** What `learn` returns: reused, valid until its next call. */
  private readonly gained: string[] = [];
  /** The names (normalised) the last DNS observation learnt gave its addresses: reused, valid until the next `learn`. */
  readonly lastNames: string[] = [];

  constructor(initial?: ReadonlyMap<string, readonly string[]>) {
    for (const [address, names] of initial ?? []) this.byAddress.set(address, names.length > LISTED ? { names: names.slice(), seen: new Set(names) } : names.slice());
  }

  namesOf(address: string): string[] | undefined {
    if (this.byAddress.size === 0) return undefined;
    const known = this.byAddress.get(address);
    return known === undefined || Array.isArray(known) ? known : known.names;
  }

  /**
   * Learns a DNS observation; returns the addresses that gained a name (an array reused by the
   * next call: read it before learning again).
   */
  learn(d: DnsObservation): readonly string[] {
    const answers = d.answers;
    const gained = this.gained;
    gained.length = 0;
    this.lastNames.length = 0;
    if (!d.queryName || !answers || answers.length === 0) return gained;
    const query = normaliseHostFast(d.queryName);
    // Answers are addresses, or names (CNAME targets) that resolve to the same addresses.
    let aliases: string[] | undefined;
    for (let i = 0; i < answers.length; i++) if (!isAddressText(answers[i])) (aliases ??= []).push(normaliseHostFast(answers[i]));
    this.lastNames.push(query);
    if (aliases) this.lastNames.push(...aliases);
    for (let i = 0; i < answers.length; i++) {
      const answer = answers[i];
      if (!isAddressText(answer)) continue;
      const known = this.byAddress.get(answer);
      if (known === undefined) {
        const names = [query];
        if (aliases) for (const n of aliases) add(names, n);
        this.byAddress.set(answer, names.length > LISTED ? { names, seen: new Set(names) } : names);
        gained.push(answer);
        continue;
      }
      let names: string[];
      let added = false;
      if (Array.isArray(known)) {
        names = known;
        added = add(names, query);
        if (aliases) for (const n of aliases) added = add(names, n) || added;
        if (names.length > LISTED) this.byAddress.set(answer, { names, seen: new Set(names) });
      } else {
        names = known.names;
        if (!known.seen.has(query)) { known.seen.add(query); names.push(query); added = true; }
        if (aliases) for (const n of aliases) if (!known.seen.has(n)) { known.seen.add(n); names.push(n); added = true; }
      }
      if (added) gained.push(answer);
    }
    return gained;
  }

  toMap(): Map<string, string[]> {
    return new Map([...this.byAddress].map(([address, known]) => [address, (Array.isArray(known) ? known : known.names).slice()]));
  }
}

/** Appends `name` to a short list unless it is there; whether it was added. */
function add(names: string[], name: string): boolean {
  for (let i = 0; i < names.length; i++) if (names[i] === name) return false;
  names.push(name);
  return true;
}
