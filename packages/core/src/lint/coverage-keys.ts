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
import { parseCidr, plainIpv4Cidr, type ParsedCidr, type PlainIpv4 } from '../formats/ip';
import { HTTP_SOURCE_KINDS } from '../policy/types';
import type { JsonObject } from './walk';
import { isObject } from './walk';

const URL_KINDS = new Set<string>([...HTTP_SOURCE_KINDS, 'apt', 'oci']);

const HASH_BASE = 0x9e3779b1;

/**
 * The hash of host text `text[from..]`, read right to left (ASCII case-folded; callers fold other
 * text first), so that one pass gives the hash of every suffix: `starred` then gives the key of a
 * parent wildcard `*` + suffix without building it. Keys are the mixed values (`key`).
 */
function suffixHash(text: string, from: number, to: number, h: number): number {
  for (let i = to - 1; i >= from; i--) {
    let c = text.charCodeAt(i);
    if (c >= 65 && c <= 90) c += 32;
    h = (Math.imul(h, HASH_BASE) + c) | 0;
  }
  return h;
}
const starred = (suffix: number): number => (Math.imul(suffix, HASH_BASE) + 42) | 0;
const key = (h: number): number => mix(h) | 0;

/** A rule with more keys than this takes part without its lookups being listed (their count is not bounded). */
const MAX_KEYS = 256;

/** Text beyond ASCII (suffixHash folds ASCII only; readers lower-case such text in different ways). */
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

/**
 * The key hashes one rule indexes and looks up (without repeats while short), or `forced` when the
 * rule has so many (thousands of names, a name of thousands of labels) that it simply takes part:
 * its indexed keys are still all listed, for the rules that look them up.
 */
export class RuleKeys {
  readonly indexed: number[] = [];
  readonly looked: number[] = [];
  forced = false;

  /** `lengths`: the prefix lengths CIDRs of the policy and presets have (looked up as the index does). */
  constructor(private readonly lengths: CidrLengths | undefined) {}

  reset(): void {
    this.indexed.length = 0;
    this.looked.length = 0;
    this.forced = false;
  }

  private static push(list: number[], k: number): void {
    if (list.length < 64) for (let i = 0; i < list.length; i++) if (list[i] === k) return;
    list.push(k);
  }

  private look(k: number): void {
    if (this.forced) return;
    if (this.looked.length >= MAX_KEYS) { this.forced = true; this.looked.length = 0; return; }
    RuleKeys.push(this.looked, k);
  }

  /** A URL host: indexed and looked up as itself. */
  url(text: unknown): void {
    if (typeof text !== 'string') return;
    const k = urlHostKey(text);
    if (k === undefined) return;
    RuleKeys.push(this.indexed, k);
    this.look(k);
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
    // One pass from the right: the hash of each suffix from a dot on, then of the whole text.
    const first = host.startsWith('*.') ? 2 : 0;
    let h = 0, end = host.length;
    for (let dot = host.lastIndexOf('.'); dot >= first; dot = dot > 0 ? host.lastIndexOf('.', dot - 1) : -1) {
      h = suffixHash(host, dot, end, h);
      end = dot;
      this.look(key(starred(h)));
    }
    const whole = key(suffixHash(host, 0, end, h));
    RuleKeys.push(this.indexed, whole);
    this.look(whole);
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
      const text = cidrs[i];
      if (typeof text !== 'string') continue;
      if (plainIpv4Cidr(text, plain)) {
        // The common case, without a ParsedCidr: the same hashes from the packed address.
        const { address, prefix } = plain;
        RuleKeys.push(this.indexed, networkHash4(address, prefix));
        if (this.lengths === undefined || this.forced) continue;
        for (const length of this.lengths[4]) if (length <= prefix) this.look(networkHash4(address, length));
        continue;
      }
      const cidr = parseCidr(text);
      if (cidr === undefined) continue;
      RuleKeys.push(this.indexed, networkHash(cidr, cidr.prefix));
      if (this.lengths === undefined || this.forced) continue;
      for (const length of this.lengths[cidr.version]) if (length <= cidr.prefix) this.look(networkHash(cidr, length));
    }
  }
}

const plain: PlainIpv4 = { address: 0, prefix: 0 };

/**
 * The key of the host of a URL as `parseUrl` reads it (undefined when it reads none). A host of
 * lower-case letters, digits, dots and hyphens right after `http://` or `https://`, ending the text
 * or followed by `/`, `?` or `#` (no user, no port, no trailing dot) is the very text parseUrl
 * returns: hashed in place. Anything else goes through parseUrl.
 */
export function urlHostKey(text: string): number | undefined {
  const start = text.startsWith('https://') ? 8 : text.startsWith('http://') ? 7 : -1;
  if (start > 0) {
    const n = text.length;
    let i = start;
    let c = 0;
    for (; i < n; i++) {
      c = text.charCodeAt(i);
      if (!((c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 45 || c === 46)) break;
    }
    const ends = i === n || c === 47 /* / */ || c === 63 /* ? */ || c === 35; /* # */
    if (ends && i > start && i - start <= 253 && text.charCodeAt(i - 1) !== 46) return key(suffixHash(text, start, i, 0));
  }
  const host = parseUrl(text)?.host;
  return host === undefined ? undefined : hostKey(host);
}

/** The key of a host name as written (the reference urlHostKey is tested against). */
export function hostKey(host: string): number {
  return key(suffixHash(host, 0, host.length, 0));
}

/** The prefix lengths of the CIDRs of connections, per IP version. */
export interface CidrLengths { 4: Set<number>; 6: Set<number> }

export function addCidrLengths(lengths: CidrLengths, body: JsonObject): void {
  const cidrs = body.cidrs;
  if (!Array.isArray(cidrs)) return;
  for (let i = 0; i < cidrs.length; i++) {
    const text = cidrs[i];
    if (typeof text !== 'string') continue;
    if (plainIpv4Cidr(text, plain)) { lengths[4].add(plain.prefix); continue; }
    const cidr = parseCidr(text);
    if (cidr !== undefined) lengths[cidr.version].add(cidr.prefix);
  }
}

/** networkHash of a plain IPv4 CIDR from its packed address (the bytes are its four octets, high first). */
function networkHash4(address: number, length: number): number {
  let h = Math.imul(0x811c9dc5 ^ (4 * 256 + length), 0x01000193);
  let bits = length;
  for (let i = 0; bits > 0; i++, bits -= 8) {
    const byte = (address >>> (24 - 8 * i)) & (bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff);
    h = Math.imul(h ^ byte, 0x01000193);
  }
  return mix(h) | 0;
}

/** A hash of the network of the first `length` bits of a CIDR (as atom-index.ts buckets them). */
export function networkHash(cidr: ParsedCidr, length: number): number {
  let h = Math.imul(0x811c9dc5 ^ (cidr.version * 256 + length), 0x01000193);
  let bits = length;
  for (let i = 0; bits > 0; i++, bits -= 8) {
    const byte = cidr.bytes[i] & (bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff);
    h = Math.imul(h ^ byte, 0x01000193);
  }
  return mix(h) | 0;
}
