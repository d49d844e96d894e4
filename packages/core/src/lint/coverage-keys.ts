/**
 * Which rules can take part in coverage at all (lint/coverage.ts), decided before any rule is read
 * in full: most rules of a large policy share no host with any other rule or preset, and for those
 * the readings, atoms and index entries of coverage were pure cost (time and, for a million rules,
 * hundreds of megabytes).
 *
 * Every atom is found in the AtomIndex by a host (URL atoms by their host, ssh and connection atoms
 * by their host pattern or one of its parent wildcards, tls pieces by a source URL's host) or by a
 * CIDR. So an atom A can cover an atom B only if a key A is indexed under is one that B looks up.
 * A first pass counts, per key hash, how many rules index and look up each key (presets index
 * theirs too); a rule then takes part when
 *   - its canonical JSON hash is shared (a possible duplicate),
 *   - another rule or a preset indexes a key it looks up (it may be covered),
 *   - another rule looks up a key it indexes (it may cover).
 * CIDRs are keys too: a CIDR is indexed under its network, and looks up the networks of every
 * shorter prefix length that some rule's CIDR has (`CidrLengths`, found first), as the index does.
 * A rule whose only reason is a shared hash takes part in duplicate detection only.
 * Counts live in count-min sketches (two tables of saturating byte counters), which never count
 * too few: a collision only makes a rule take part that need not, so findings are exactly those of
 * the full analysis (held to it by coverage.property.test.ts).
 */
import { parseUrl } from '../eval/url';
import { parseCidr, type ParsedCidr } from '../formats/ip';
import { HTTP_SOURCE_KINDS } from '../policy/types';
import type { JsonObject } from './walk';
import { isObject } from './walk';

const URL_KINDS = new Set<string>([...HTTP_SOURCE_KINDS, 'apt', 'oci']);

/** FNV-1a of `*` (when `star`) followed by `text` from `from`, ASCII case-folded (callers fold other text first). */
function hostHash(text: string, from: number, star: boolean): number {
  let h = 0x811c9dc5 | 0;
  if (star) h = Math.imul(h ^ 42, 0x01000193);
  for (let i = from; i < text.length; i++) {
    let c = text.charCodeAt(i);
    if (c >= 65 && c <= 90) c += 32;
    h = Math.imul(h ^ c, 0x01000193);
  }
  return h;
}

/** Text beyond ASCII (hostHash folds ASCII only; readers lower-case such text in different ways). */
function beyondAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 127) return true;
  return false;
}

function mix(h: number): number {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** A count-min sketch of 32-bit keys: two tables of byte counters (saturating at 255). */
export class KeyCounts {
  private readonly a: Uint8Array;
  private readonly b: Uint8Array;
  private readonly mask: number;

  constructor(expectedKeys: number) {
    let bits = 10;
    while (bits < 22 && 1 << bits < expectedKeys * 8) bits++;
    this.a = new Uint8Array(1 << bits);
    this.b = new Uint8Array(1 << bits);
    this.mask = (1 << bits) - 1;
  }

  add(key: number): void {
    const i = key & this.mask, j = mix(key) & this.mask;
    if (this.a[i] < 255) this.a[i]++;
    if (this.b[j] < 255) this.b[j]++;
  }

  /** At least the number of times `key` was added (more after a collision). */
  count(key: number): number {
    return Math.min(this.a[key & this.mask], this.b[mix(key) & this.mask]);
  }
}

/** The key hashes one rule indexes and looks up (each list without repeats), and whether it has CIDRs. */
export class RuleKeys {
  readonly indexed: number[] = [];
  readonly looked: number[] = [];

  /** `lengths`: the prefix lengths CIDRs of the policy and presets have (looked up as the index does). */
  constructor(private readonly lengths: CidrLengths | undefined) {}

  reset(): void {
    this.indexed.length = 0;
    this.looked.length = 0;
  }

  private static push(list: number[], key: number): void {
    for (let i = 0; i < list.length; i++) if (list[i] === key) return;
    list.push(key);
  }

  /** A URL host: indexed and looked up as itself. */
  url(text: unknown): void {
    if (typeof text !== 'string') return;
    const host = parseUrl(text)?.host;
    if (host === undefined) return;
    const key = hostHash(host, 0, false);
    RuleKeys.push(this.indexed, key);
    RuleKeys.push(this.looked, key);
  }

  /**
   * A host pattern: indexed as itself, looked up as itself and every parent wildcard
   * (`coveringHostKeys`). Text beyond ASCII gives the keys of both its forms (as written, and
   * `toLowerCase`d), so that every reader's lower case is among them.
   */
  pattern(text: unknown): void {
    if (typeof text !== 'string') return;
    this.host(text);
    if (beyondAscii(text)) this.host(text.toLowerCase());
  }

  private host(host: string): void {
    const key = hostHash(host, 0, false);
    RuleKeys.push(this.indexed, key);
    RuleKeys.push(this.looked, key);
    for (let dot = host.indexOf('.', host.startsWith('*.') ? 2 : 0); dot >= 0; dot = host.indexOf('.', dot + 1)) {
      RuleKeys.push(this.looked, hostHash(host, dot, true));
    }
  }

  /** The keys of a source (a superset of those of its atoms: every URL and ssh host it names). */
  source(kind: string, body: JsonObject): void {
    if (URL_KINDS.has(kind)) {
      const urls = body.urls;
      if (Array.isArray(urls)) for (let i = 0; i < urls.length; i++) this.url(urls[i]);
    } else if (kind === 'cargo') {
      this.url(body.indexUrl);
      this.url(body.downloadUrl);
    } else if (kind === 'git') {
      const https = body.https, ssh = body.ssh;
      if (Array.isArray(https)) for (let i = 0; i < https.length; i++) if (isObject(https[i])) this.url((https[i] as JsonObject).baseUrl);
      if (Array.isArray(ssh)) for (let i = 0; i < ssh.length; i++) if (isObject(ssh[i])) this.pattern((ssh[i] as JsonObject).host);
    }
  }

  /** The keys of a connection: its host patterns and CIDRs. */
  connection(kind: string, body: JsonObject): void {
    const names = kind === 'tls' ? body.serverNamePatterns : kind === 'tcp' ? body.hostPatterns : undefined;
    if (Array.isArray(names)) for (let i = 0; i < names.length; i++) this.pattern(names[i]);
    const cidrs = body.cidrs;
    if (!Array.isArray(cidrs)) return;
    for (let i = 0; i < cidrs.length; i++) {
      const cidr = typeof cidrs[i] === 'string' ? parseCidr(cidrs[i]) : undefined;
      if (cidr === undefined) continue;
      RuleKeys.push(this.indexed, networkHash(cidr, cidr.prefix));
      if (this.lengths === undefined) continue;
      for (const length of this.lengths[cidr.version]) if (length <= cidr.prefix) RuleKeys.push(this.looked, networkHash(cidr, length));
    }
  }
}

/** The prefix lengths of the CIDRs of connections, per IP version. */
export interface CidrLengths { 4: Set<number>; 6: Set<number> }

export function addCidrLengths(lengths: CidrLengths, body: JsonObject): void {
  const cidrs = body.cidrs;
  if (!Array.isArray(cidrs)) return;
  for (let i = 0; i < cidrs.length; i++) {
    const cidr = typeof cidrs[i] === 'string' ? parseCidr(cidrs[i]) : undefined;
    if (cidr !== undefined) lengths[cidr.version].add(cidr.prefix);
  }
}

/** A hash of the network of the first `length` bits of a CIDR (as atom-index.ts buckets them). */
function networkHash(cidr: ParsedCidr, length: number): number {
  let h = Math.imul(0x811c9dc5 ^ (cidr.version * 256 + length), 0x01000193);
  let bits = length;
  for (let i = 0; bits > 0; i++, bits -= 8) {
    const byte = cidr.bytes[i] & (bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff);
    h = Math.imul(h ^ byte, 0x01000193);
  }
  return mix(h) | 0;
}
