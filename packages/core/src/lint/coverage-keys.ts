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
 * This module reads one rule's keys (`RuleKeys`); the hashes, KeyCounts and KeyList are in
 * coverage-hash.ts, the readers of URL, host and repository keys in coverage-url-keys.ts, those
 * of CIDRs in coverage-cidr-keys.ts (re-exported here).
 */
import { plainIpv4Cidr } from '../formats/ip';
import { cidrOf } from '../policy/rules-read';
import { HTTP_SOURCE_KINDS } from '../policy/types';
import type { JsonObject } from './walk';
import { isObject } from './walk';
import { beyondAscii, HASH_BASE, key, KeyList, MAX_KEYS, mix, starred, suffixHash } from './coverage-hash';
import type { CidrLengths } from './coverage-cidr-keys';
import { networkHash, networkHash4, plain } from './coverage-cidr-keys';
import type { PathSpan, RepositoryKeys } from './coverage-url-keys';
import { ANY_REPOSITORY, GIT_TAG, OCI_TAG, PATH_SEED, PATH_TAG, readUrlKey, repositoryKey, repositoryKeysOf, SSH_TAG, STAR_SEGMENT } from './coverage-url-keys';

// The rest of coverage's keys, for the modules that import them from here.
export { KeyCounts, KeyList } from './coverage-hash';
export { hostKey, urlHostKey, urlKeyPath } from './coverage-url-keys';
export { addCidrLengths, networkHash } from './coverage-cidr-keys';
export type { CidrLengths } from './coverage-cidr-keys';

const URL_KINDS = new Set<string>([...HTTP_SOURCE_KINDS, 'apt', 'oci']);

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
