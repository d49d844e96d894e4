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
import { isObject, plainUrlHostEnd, plainUrlHostStart } from './walk';

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
  return BEYOND_ASCII.test(text);
}
const BEYOND_ASCII = /[^\u0000-\u007f]/;

function mix(h: number): number {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/**
 * A count-min sketch of 32-bit keys: two tables of byte counters (saturating at 255). Keys are
 * hashes already mixed (`key`, `networkHash`), so the tables take the low and the high bits of a
 * key as its two positions, without hashing it again.
 */
export class KeyCounts {
  private readonly a: Uint8Array;
  private readonly b: Uint8Array;
  private readonly mask: number;
  private readonly shift: number;

  constructor(expectedKeys: number) {
    let bits = 10;
    while (bits < 22 && 1 << bits < expectedKeys * 8) bits++;
    this.a = new Uint8Array(1 << bits);
    this.b = new Uint8Array(1 << bits);
    this.mask = (1 << bits) - 1;
    this.shift = 32 - bits;
  }

  add(key: number): void {
    const i = key & this.mask, j = key >>> this.shift;
    if (this.a[i] < 255) this.a[i]++;
    if (this.b[j] < 255) this.b[j]++;
  }

  /** Adds `keys[from]` to `keys[to - 1]` (one call for many rules' keys: one long loop is optimised early). */
  addAll(keys: Int32Array, from: number, to: number): void {
    const a = this.a, b = this.b, mask = this.mask, shift = this.shift;
    for (let n = from; n < to; n++) {
      const key = keys[n], i = key & mask, j = key >>> shift;
      if (a[i] < 255) a[i]++;
      if (b[j] < 255) b[j]++;
    }
  }

  /** At least the number of times `key` was added (more after a collision). */
  count(key: number): number {
    const x = this.a[key & this.mask], y = this.b[key >>> this.shift];
    return x < y ? x : y;
  }
}

/**
 * Key hashes of consecutive rules in one flat, growing list: each rule's keys follow the previous
 * rule's (`next()`), its repeats dropped while it has fewer than 64. No array per rule: a policy
 * of many rules fills one buffer.
 */
export class KeyList {
  private keys = new Int32Array(64);
  /** End of the list. */
  length = 0;
  /** Start of the current rule's keys (`from` to `length`). */
  from = 0;

  push(k: number): void {
    const count = this.length - this.from;
    if (count < 64) for (let i = this.from; i < this.length; i++) if (this.keys[i] === k) return;
    if (this.length === this.keys.length) {
      const grown = new Int32Array(this.keys.length * 2);
      grown.set(this.keys);
      this.keys = grown;
    }
    this.keys[this.length++] = k;
  }

  at(i: number): number {
    return this.keys[i];
  }

  /** The list's storage (replaced as it grows): keys 0 to `length`, for loops that read many. */
  get buffer(): Int32Array {
    return this.keys;
  }

  /** The next rule's keys start after the current rule's. */
  next(): void {
    this.from = this.length;
  }

  /** Drops the current rule's keys. */
  clear(): void {
    this.length = this.from;
  }

  /** Forgets every rule. */
  empty(): void {
    this.length = this.from = 0;
  }

  /** The current rule's keys. */
  current(): number[] {
    return Array.from(this.keys.subarray(this.from, this.length));
  }
}

/**
 * The key hashes one rule indexes and looks up (without repeats while short), or `forced` when the
 * rule has so many (thousands of names, a name of thousands of labels) that it simply takes part:
 * its indexed keys are still all listed, for the rules that look them up. One rule at a time
 * (`reset()`, then `indexed` and `looked`), or rule after rule into the same lists (`next()`,
 * then `indexedList` and `lookedList` hold every rule's keys, the current one's from `from`).
 */
export class RuleKeys {
  readonly indexedList = new KeyList();
  readonly lookedList = new KeyList();
  forced = false;

  /** `lengths`: the prefix lengths CIDRs of the policy and presets have (looked up as the index does). */
  constructor(private readonly lengths: CidrLengths | undefined) {}

  /** The current rule's indexed keys. */
  get indexed(): number[] {
    return this.indexedList.current();
  }

  /** The current rule's looked-up keys (none when forced). */
  get looked(): number[] {
    return this.lookedList.current();
  }

  /** Forgets every rule: the next keys are one rule's. */
  reset(): void {
    this.indexedList.empty();
    this.lookedList.empty();
    this.forced = false;
  }

  /** Keeps the keys read so far: the next keys are the next rule's. */
  next(): void {
    this.indexedList.next();
    this.lookedList.next();
    this.forced = false;
  }

  private index(k: number): void {
    this.indexedList.push(k);
  }

  private look(k: number): void {
    if (this.forced) return;
    if (this.lookedList.length - this.lookedList.from >= MAX_KEYS) { this.forced = true; this.lookedList.clear(); return; }
    this.lookedList.push(k);
  }

  /** A URL host: indexed and looked up as itself. */
  url(text: unknown): void {
    if (typeof text !== 'string') return;
    const k = urlHostKey(text);
    if (k === undefined) return;
    this.index(k);
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
    this.index(whole);
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
        this.index(networkHash4(address, prefix));
        if (this.lengths === undefined || this.forced) continue;
        for (const length of this.lengths[4]) if (length <= prefix) this.look(networkHash4(address, length));
        continue;
      }
      const cidr = parseCidr(text);
      if (cidr === undefined) continue;
      this.index(networkHash(cidr, cidr.prefix));
      if (this.lengths === undefined || this.forced) continue;
      for (const length of this.lengths[cidr.version]) if (length <= cidr.prefix) this.look(networkHash(cidr, length));
    }
  }
}

const plain: PlainIpv4 = { address: 0, prefix: 0 };

/**
 * The key of the host of a URL as `parseUrl` reads it (undefined when it reads none): a plain host
 * (`plainUrlHostEnd`) is hashed in place, anything else goes through parseUrl.
 */
export function urlHostKey(text: string): number | undefined {
  const end = plainUrlHostEnd(text);
  if (end >= 0) return key(suffixHash(text, plainUrlHostStart(text), end, 0));
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
