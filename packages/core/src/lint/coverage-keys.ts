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
 * Sources of one host are told apart further, as the index compares them: an HTTP-kind source's
 * URL by host and path (`url`), an oci or git source's by host and the first segment of its
 * repository patterns (`repositoryUrls`, and `host` for ssh transports).
 * A rule whose only reason is a shared hash takes part in duplicate detection only.
 * Counts live in count-min sketches (two tables of saturating byte counters), which never count
 * too few: a collision only makes a rule take part that need not, so findings are exactly those of
 * the full analysis (held to it by coverage.property.test.ts).
 */
import { KeptByList } from './kept-by-list';
import { parseUrl } from '../eval/url';
import { plainIpv4Cidr, type ParsedCidr, type PlainIpv4 } from '../formats/ip';
import { cidrOf } from '../policy/rules-read';
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

  /**
   * The URL of an HTTP-kind source. Its host is indexed as itself (a `tls` rule naming it looks it
   * up); it covers the URLs of its origin under its path (atom-index.ts), so it is indexed by host
   * and path, and looks up its host with every path that covers its own (`coveringPaths`).
   */
  url(text: unknown): void {
    const host = typeof text === 'string' ? readUrlKey(text, this.path) : undefined;
    if (host === undefined) return;
    this.index(host);
    this.index(repositoryKey(host, PATH_TAG, this.lookCoveringPaths(host)));
  }

  /** The path of the last URL read (`readUrlKey`). */
  private readonly path: PathSpan = { text: '/', from: 0, to: 1 };

  /**
   * Looks up `host` with each path of `coveringPaths` (atom-index.ts) of the last URL's path, hashed
   * in one pass; returns the hash of the whole path (the last of them), as `url` indexes it.
   */
  private lookCoveringPaths(host: number): number {
    const { text, from, to } = this.path;
    let h = PATH_SEED;
    for (let i = from; i < to; i++) {
      const c = text.charCodeAt(i);
      if (c === 47) {
        if (i > from) this.look(repositoryKey(host, PATH_TAG, mix(h) | 0)); // the path before this `/`
        h = (Math.imul(h, HASH_BASE) + c) | 0;
        if (i + 1 < to) this.look(repositoryKey(host, PATH_TAG, mix(h) | 0)); // and through it
      } else h = (Math.imul(h, HASH_BASE) + c) | 0;
    }
    const whole = mix(h) | 0;
    this.look(repositoryKey(host, PATH_TAG, whole));
    return whole;
  }

  /**
   * A host pattern: indexed as itself, looked up as itself and every parent wildcard
   * (`coveringHostKeys`). Text beyond ASCII gives the keys of both its forms (as written, and
   * `toLowerCase`d), so that every reader's lower case is among them.
   */
  pattern(text: unknown, repository?: RepositoryKeys): void {
    if (typeof text !== 'string') return;
    this.host(text, repository);
    if (beyondAscii(text)) this.host(text.toLowerCase(), repository);
  }

  /**
   * A host pattern's keys. With `repository` (an ssh transport of a git source, whose patterns
   * tell it apart from the others of its host: see `repositoryUrls`), the pattern is also indexed
   * with each of its patterns' first segments, and the covering patterns are looked up with `*` and
   * its first pattern's, not alone.
   */
  private host(host: string, repository?: RepositoryKeys): void {
    // One pass from the right: the hash of each suffix from a dot on, then of the whole text.
    const first = host.startsWith('*.') ? 2 : 0;
    let h = 0, end = host.length;
    for (let dot = host.lastIndexOf('.'); dot >= first; dot = dot > 0 ? host.lastIndexOf('.', dot - 1) : -1) {
      h = suffixHash(host, dot, end, h);
      end = dot;
      this.lookHost(key(starred(h)), repository);
    }
    const whole = key(suffixHash(host, 0, end, h));
    this.index(whole);
    if (repository !== undefined) {
      const segments = repository.segments ?? ANY_REPOSITORY;
      for (let j = 0; j < segments.length; j++) this.index(repositoryKey(whole, SSH_TAG, segments[j]));
    }
    this.lookHost(whole, repository);
  }

  private lookHost(k: number, repository: RepositoryKeys | undefined): void {
    if (repository === undefined || repository.segments === undefined) { this.look(k); return; }
    this.look(repositoryKey(k, SSH_TAG, STAR_SEGMENT));
    if (repository.first !== undefined && repository.first !== STAR_SEGMENT) this.look(repositoryKey(k, SSH_TAG, repository.first));
  }

  /** The keys of a source (a superset of those of its atoms: every URL and ssh host it names). */
  source(kind: string, body: JsonObject): void {
    if (kind === 'oci') {
      const urls = body.urls;
      if (Array.isArray(urls)) this.repositoryUrls(urls, false, OCI_TAG, repositoryKeysOf(body.repositoryPatterns));
    } else if (URL_KINDS.has(kind)) {
      const urls = body.urls;
      if (Array.isArray(urls)) for (let i = 0; i < urls.length; i++) this.url(urls[i]);
    } else if (kind === 'cargo') {
      this.url(body.indexUrl);
      this.url(body.downloadUrl);
    } else if (kind === 'git') {
      const https = body.https, ssh = body.ssh;
      const repository = repositoryKeysOf(body.repositoryPatterns);
      if (Array.isArray(https)) this.repositoryUrls(https, true, GIT_TAG, repository);
      if (Array.isArray(ssh)) for (let i = 0; i < ssh.length; i++) if (isObject(ssh[i])) this.pattern((ssh[i] as JsonObject).host, repository);
    }
  }

  /**
   * The URLs of an oci or git source. Each host is indexed as itself (a `tls` rule naming it looks
   * it up). Such a URL is covered only by an HTTP-kind source of the same origin whose path covers
   * its own (every request under that URL: looked up as `url` indexes it), or by one of its own
   * kind whose repository patterns cover its own (lint/atom-index.ts), and a pattern whose first
   * segment is literal covers only patterns with that first segment: so the rule is keyed by host
   * and the first segment of each pattern
   * (`*` for one with a wildcard there, or for no patterns: any repository), and looks up its host
   * with `*` and with its first pattern's segment. Sources of one registry host whose patterns start
   * differently then share no key. Patterns that are not all ASCII strings, or none (`[]`, which
   * every pattern list covers), fall back to the host itself, looked up too.
   */
  private repositoryUrls(list: unknown[], baseUrls: boolean, tag: number, repository: RepositoryKeys): void {
    const { segments, first } = repository;
    for (let i = 0; i < list.length; i++) {
      let text: unknown = list[i];
      if (baseUrls) text = isObject(text) ? (text as JsonObject).baseUrl : undefined;
      if (typeof text !== 'string') continue;
      const host = readUrlKey(text, this.path);
      if (host === undefined) continue;
      this.index(host);
      if (segments === undefined) {
        this.index(repositoryKey(host, tag, STAR_SEGMENT));
        this.look(host);
        continue;
      }
      for (let j = 0; j < segments.length; j++) this.index(repositoryKey(host, tag, segments[j]));
      this.lookCoveringPaths(host);
      this.look(repositoryKey(host, tag, STAR_SEGMENT));
      if (first !== undefined && first !== STAR_SEGMENT) this.look(repositoryKey(host, tag, first));
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
      const cidr = cidrOf(text); // memoised: lint's walker reads the same CIDRs
      if (cidr === undefined) continue;
      this.index(networkHash(cidr, cidr.prefix));
      if (this.lengths === undefined || this.forced) continue;
      for (const length of this.lengths[cidr.version]) if (length <= cidr.prefix) this.look(networkHash(cidr, length));
    }
  }
}

const plain: PlainIpv4 = { address: 0, prefix: 0 };

/** A URL's host and path, as the HTTP-kind sources that may cover it are indexed. */
const PATH_TAG = 0x1a2b3c4d;
/** The seed of a path's hash (case-sensitive, as paths compare: `lookCoveringPaths`). */
const PATH_SEED = 0x3c6ef372;
const OCI_TAG = 0x2b3c4d5e;
const GIT_TAG = 0x6f7a8b9c;
/** The first segment of a pattern with a wildcard there, or of no pattern (any repository). */
const STAR_SEGMENT = 42;
const ANY_REPOSITORY = [STAR_SEGMENT];

const SSH_TAG = 0x7d8e9fa1;

/**
 * What the repository patterns of an oci or git source add to its keys (see `repositoryUrls`): the
 * first segment of each pattern (hashed), and of the first one; `segments` undefined when the rule
 * falls back to its host alone.
 */
interface RepositoryKeys { segments: number[] | undefined; first: number | undefined }

const ANY_REPOSITORY_KEYS: RepositoryKeys = { segments: ANY_REPOSITORY, first: STAR_SEGMENT };
const HOST_ALONE: RepositoryKeys = { segments: undefined, first: undefined };

/** The keys of each list of repository patterns, kept by the list (0.86 MB of arrays an edit of a 10,000-rule policy before). */
const repositoryKeysByList = new KeptByList<RepositoryKeys>();

function repositoryKeysOf(patterns: unknown): RepositoryKeys {
  if (patterns === undefined) return ANY_REPOSITORY_KEYS;
  // None (`[]`, covered by every list), or more than a rule may list keys for: the host alone.
  if (!Array.isArray(patterns) || patterns.length === 0 || patterns.length > MAX_KEYS) return HOST_ALONE;
  return repositoryKeysByList.get(patterns as readonly unknown[], readRepositoryKeys);
}

function readRepositoryKeys(patterns: readonly unknown[]): RepositoryKeys {
  const segments: number[] = [];
  let first: number | undefined;
  for (let i = 0; i < patterns.length; i++) {
    const segment = typeof patterns[i] === 'string' ? firstSegmentHash(patterns[i] as string) : undefined;
    if (segment === undefined) return HOST_ALONE;
    if (!segments.includes(segment)) segments.push(segment);
    if (i === 0) first = segment;
  }
  return { segments, first };
}

/** A key of a host (`readUrlKey`), a source shape and the hash of a pattern's first segment. */
function repositoryKey(host: number, tag: number, segment: number): number {
  return key((Math.imul(host ^ tag, HASH_BASE) + segment) | 0);
}

/**
 * The hash of the first segment of a repository pattern (ASCII case-folded, as patterns compare
 * case-insensitively); STAR_SEGMENT when it holds a `*` (or is empty); undefined for text beyond
 * ASCII, whose lower case readers may take differently (the rule then falls back to its host).
 */
function firstSegmentHash(pattern: string): number | undefined {
  if (beyondAscii(pattern)) return undefined;
  let end = pattern.indexOf('/');
  if (end < 0) end = pattern.length;
  const star = pattern.indexOf('*');
  if (end === 0 || (star >= 0 && star < end)) return STAR_SEGMENT;
  // Never STAR_SEGMENT itself (a literal segment hashing to it takes the next value).
  const h = key(suffixHash(pattern, 0, end, 0x1234567));
  return h === STAR_SEGMENT ? STAR_SEGMENT + 1 : h;
}

/** Where a URL's path is: `text` from `from` to `to`. */
interface PathSpan { text: string; from: number; to: number }

/**
 * The key of the host of a URL as `parseUrl` reads it (undefined when it reads none), its path as
 * parseUrl reads it left in `path`: a plain host (`plainUrlHostEnd`) is hashed in place and its
 * path found in the text, anything else goes through parseUrl.
 */
function readUrlKey(text: string, path: PathSpan): number | undefined {
  const end = plainUrlHostEnd(text);
  if (end >= 0) {
    // parseUrl's path: from the host's end to a `?` or `#`, or `/` when none follows the host.
    if (end === text.length || text.charCodeAt(end) !== 47) { path.text = '/'; path.from = 0; path.to = 1; }
    else {
      let to = text.indexOf('?', end);
      const fragment = text.indexOf('#', end);
      if (to < 0 || (fragment >= 0 && fragment < to)) to = fragment;
      path.text = text; path.from = end; path.to = to < 0 ? text.length : to;
    }
    return key(suffixHash(text, plainUrlHostStart(text), end, 0));
  }
  const url = parseUrl(text);
  if (url === undefined) return undefined;
  path.text = url.path; path.from = 0; path.to = url.path.length;
  return hostKey(url.host);
}

/** The key of the host of a URL (`readUrlKey`). */
export function urlHostKey(text: string): number | undefined {
  return readUrlKey(text, { text: '', from: 0, to: 0 });
}

/** The path `readUrlKey` finds in a URL (undefined when it reads no host): parseUrl's, for its property test. */
export function urlKeyPath(text: string): string | undefined {
  const path: PathSpan = { text: '', from: 0, to: 0 };
  return readUrlKey(text, path) === undefined ? undefined : path.text.slice(path.from, path.to);
}

/** The key of a host name as written (the reference `readUrlKey` is tested against). */
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
    const cidr = cidrOf(text);
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
