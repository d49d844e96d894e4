/**
 * Rules as atoms for coverage (decisions.md D4): one atom per URL, SSH transport or connection rule,
 * built only from well-shaped rules whose meaning is certain, and the pairwise question "does atom A
 * permit everything atom B permits?", answered soundly (never yes by mistake) but not completely.
 */
import { KeptByList } from './kept-by-list';
import { cidrContains } from '../formats/ip';
import type { ParsedCidr } from '../formats/ip';
import { matchRepositoryPattern } from '../formats/repository-pattern';
import { readConnection, readSource } from '../policy/rules-read';
import type { ConnectionRead, SourceRead } from '../policy/rules-read';
import type { ParsedUrl } from '../eval/url';

export type ConnClass = 'tls' | 'tcp' | 'udp' | 'icmp';

/** A URL atom: the URL as the evaluator parsed it (shared with the reading, not copied). */
export interface UrlAtom { url: ParsedUrl }

/** A URL of an HTTP-kind source (`purl`: an apt `purlNamespace`, which names the packages it serves). */
export interface HttpAtom extends UrlAtom { shape: 'http'; kind: string; purl?: string }
export interface OciAtom extends UrlAtom { shape: 'oci'; ops: ReadonlySet<string>; patterns: Repos }
export interface GitHttpsAtom extends UrlAtom { shape: 'git-https'; patterns: Repos }
export interface GitSshAtom { shape: 'git-ssh'; host: string; port: number; user?: string; patterns: Repos }
export interface ConnAtom {
  shape: 'conn';
  kind: ConnClass;
  hosts?: readonly string[];
  cidrs?: readonly ParsedCidr[];
  ports?: readonly number[];
  alpn?: readonly string[];
}
export type Atom = HttpAtom | OciAtom | GitHttpsAtom | GitSshAtom | ConnAtom;

/** What covers an atom: a rule pointer or `preset:<name>`, and its rank (earliest first). */
export interface Coverer { label: string; order: number }
export interface Labelled<A> extends Coverer { atom: A }

// ---------------------------------------------------------------------------------------------
// Atoms from the shared reading of rules (policy/rules-read.ts): only exact rules become atoms,
// so coverage is claimed only where the schema and the evaluator agree on what a rule means.

/** The atoms of a read source (exact reads only). */
export function atomsOfSource(read: SourceRead): Atom[] | undefined {
  if (!read.exact) return undefined;
  const patterns = read.role === 'http' ? undefined : preparePatterns(read.repositoryPatterns);
  // Sized up front (`[]` + push reserves 17 slots on the first push, for every rule).
  const urls = read.urls, ssh = read.ssh;
  const atoms: Atom[] = new Array(urls.length + ssh.length);
  let k = 0;
  for (let i = 0; i < urls.length; i++) {
    const url = urls[i].url!;
    if (read.role === 'http') atoms[k++] = { shape: 'http', url, kind: read.kind, purl: read.purlNamespace };
    else if (read.role === 'oci') atoms[k++] = { shape: 'oci', url, ops: read.operations!, patterns };
    else atoms[k++] = { shape: 'git-https', url, patterns };
  }
  for (let i = 0; i < ssh.length; i++) {
    const t = ssh[i];
    atoms[k++] = { shape: 'git-ssh', host: t.host, port: t.port, user: t.user, patterns };
  }
  return atoms;
}

/** The atom of a read connection (exact reads only). */
export function atomsOfConnection(read: ConnectionRead): Atom[] | undefined {
  if (!read.exact) return undefined;
  const kind = read.kind as ConnClass;
  return [{
    shape: 'conn', kind, hosts: read.names, cidrs: read.cidrs,
    ports: read.ports as number[] | undefined, alpn: read.alpn as string[] | undefined,
  }];
}

export function sourceAtoms(item: unknown): Atom[] | undefined {
  const read = readSource(item);
  return read && atomsOfSource(read);
}

export function connectionAtoms(item: unknown): Atom[] | undefined {
  const read = readConnection(item);
  return read && atomsOfConnection(read);
}

// ---------------------------------------------------------------------------------------------
// Pairwise coverage: does atom A permit everything atom B permits?

/** A repository pattern, prepared once for the pairwise comparisons below. */
interface RepoPattern {
  text: string;
  lower: string;
  segments: string[];
  /** Only `**` segments: matches every repository. */
  everything: boolean;
  /** No wildcard (and no `.git` suffix, which matching strips): matches exactly one path. */
  literal: boolean;
  /** For `org/team/**` with literal segments before the `**`: those segments. */
  literalPrefix?: string[];
}

function prepare(text: string): RepoPattern {
  const lower = text.toLowerCase();
  const segments = lower.split('/');
  const everything = segments.every((s) => s === '**');
  const literal = !lower.includes('*') && !lower.endsWith('.git');
  const head = segments.slice(0, -1);
  const literalPrefix = segments[segments.length - 1] === '**' && head.every((s) => !s.includes('*')) ? head : undefined;
  return { text, lower, segments, everything, literal, literalPrefix };
}

/** Every repository matched by pattern `b` is matched by pattern `a` (sound, not complete). */
function repositoryPatternCovers(a: RepoPattern, b: RepoPattern): boolean {
  if (a.everything || a.lower === b.lower) return true;
  // A literal pattern matches one path (in any case): ask the matcher.
  if (b.literal) return matchRepositoryPattern(a.text, b.text);
  // `org/team/**` covers every pattern starting with the literal segments `org/team`.
  const prefix = a.literalPrefix;
  return prefix !== undefined && b.segments.length >= prefix.length && prefix.every((s, i) => b.segments[i] === s);
}

/**
 * The repository patterns of a source are its list of texts (the reading's, no object per source),
 * prepared on first comparison: most sources are never compared (no earlier rule shares their URL
 * or host), so preparing every pattern up front was wasted garbage.
 */
const preparedLists = new KeptByList<RepoPattern[]>();
function preparedList(texts: readonly string[]): RepoPattern[] {
  // The list may be the policy's own array: prepared again if a caller changed it since.
  return preparedLists.get(texts, (list) => list.map(prepare));
}

/** Repository patterns of a source; undefined = any repository. */
export type Repos = readonly string[] | undefined;

/**
 * Absent patterns mean any repository, even none (the `/v2/` check, an empty path below a git base,
 * an ssh command without a recorded path); `**` matches every non-empty path only, so it is not
 * the same as absent (the property test found a shadowed-rule false positive when it was).
 */
export function preparePatterns(patterns: readonly string[] | undefined): Repos {
  return patterns;
}

/** `a` (undefined = any repository) covers `b`. */
export function patternsCover(a: Repos, b: Repos): boolean {
  if (a === undefined) return true;
  if (b === undefined) return false;
  const covering = preparedList(a);
  const covered = preparedList(b);
  if (covering.length * covered.length > PAIRWISE_LIMIT) return longListsCover(covering, covered);
  // Loops, not every/some with closures: a bucket of one origin compares up to 32 earlier sources.
  for (let i = 0; i < covered.length; i++) {
    let found = false;
    for (let j = 0; j < covering.length && !found; j++) found = repositoryPatternCovers(covering[j], covered[i]);
    if (!found) return false;
  }
  return true;
}

/** The most pattern pairs two lists are compared by (a pair may run the matcher). */
const PAIRWISE_LIMIT = 4096;

/** Of a long list: whether a pattern of it matches every repository, and its patterns in lower case. */
const longLists = new WeakMap<RepoPattern[], { everything: boolean; lowers: Set<string> }>();

/**
 * Lists too long to compare pair by pair (two lists of 20,000 patterns took minutes): a pattern is
 * covered by `**` or by the same pattern (in any case), and anything subtler is not claimed. Sound
 * (coverage is only claimed when sure), linear in the lists.
 */
function longListsCover(covering: RepoPattern[], covered: RepoPattern[]): boolean {
  let known = longLists.get(covering);
  if (known === undefined) {
    known = { everything: covering.some((q) => q.everything), lowers: new Set(covering.map((q) => q.lower)) };
    longLists.set(covering, known);
  }
  if (known.everything) return true;
  for (let i = 0; i < covered.length; i++) if (!known.lowers.has(covered[i].lower)) return false;
  return true;
}

/** Host pattern `a` matches every host `b` matches (both lower case). */
export function hostCovers(a: string, b: string): boolean {
  if (a === b) return true;
  if (!a.startsWith('*.')) return false;
  const suffix = a.slice(1); // ".example.com"
  const body = b.startsWith('*.') ? b.slice(1) : `.${b}`;
  return body.endsWith(suffix) && (b.startsWith('*.') ? body.length >= suffix.length : body.length > suffix.length);
}

/** The host patterns that could cover `b` (itself and the wildcards of its parent domains). */
export function coveringHostKeys(b: string): string[] {
  const keys = [b];
  // `*` + the rest from each dot after the first label: `*.b.c`, `*.c` for `a.b.c` (or `*.a.b.c`).
  for (let dot = b.indexOf('.', b.startsWith('*.') ? 2 : 0); dot >= 0; dot = b.indexOf('.', dot + 1)) keys.push(`*${b.slice(dot)}`);
  return keys;
}

export function subset<T>(small: readonly T[], big: readonly T[]): boolean {
  if (small.length * big.length > PAIRWISE_LIMIT) {
    const set = new Set(big);
    for (let i = 0; i < small.length; i++) if (!set.has(small[i])) return false;
    return true;
  }
  return small.every((x) => big.includes(x));
}

/**
 * Every host pattern of `b` is covered by one of `a` (`hostCovers`). Long lists are compared through
 * a set of `a` and the patterns that could cover each of `b` (`coveringHostKeys`, as the index
 * finds them), not pair by pair: the same answer in linear time.
 */
function hostsCover(a: readonly string[], b: readonly string[]): boolean {
  if (a.length * b.length <= PAIRWISE_LIMIT) return b.every((h) => a.some((g) => hostCovers(g, h)));
  const set = new Set(a);
  for (const h of b) if (!coveringHostKeys(h).some((k) => set.has(k))) return false;
  return true;
}

/**
 * Bucket key of the network of the first `length` bits of a prefix: a number for IPv4 (length and
 * masked address, no text to build and hash), text for IPv6. The two never collide.
 */
export function networkKey(cidr: ParsedCidr, length: number): number | string {
  const b = cidr.bytes;
  if (cidr.version === 4) {
    const mask = length === 0 ? 0 : (0xffffffff << (32 - length)) >>> 0;
    return length * 0x100000000 + ((((b[0] << 24) | (b[1] << 16) | (b[2] << 8) | b[3]) & mask) >>> 0);
  }
  let key = `${length}/`;
  let bits = length;
  for (let i = 0; bits > 0; i++, bits -= 8) key += `${b[i] & (bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff)}.`;
  return key;
}

/**
 * Every prefix of `b` is inside one of `a` (`cidrContains`). Long lists go through a set of `a`'s
 * networks: a prefix is inside one of them when its own network at one of their lengths is in it.
 */
function cidrsCover(a: readonly ParsedCidr[], b: readonly ParsedCidr[]): boolean {
  if (a.length * b.length <= PAIRWISE_LIMIT) return b.every((c) => a.some((d) => cidrContains(d, c)));
  const networks = new Set<number | string>();
  const lengths = { 4: new Set<number>(), 6: new Set<number>() };
  for (const d of a) { networks.add(networkKey(d, d.prefix)); lengths[d.version].add(d.prefix); }
  for (const c of b) {
    let inside = false;
    for (const length of lengths[c.version]) if (length <= c.prefix && networks.has(networkKey(c, length))) { inside = true; break; }
    if (!inside) return false;
  }
  return true;
}

const stated = <T>(list: readonly T[] | undefined): list is readonly T[] => list !== undefined && list.length > 0;

/**
 * Connection atom `a` permits everything `b` permits, judged as eval/rules.ts matches them (`ports`
 * and `alpn` absent or empty state no criterion; a tls rule stating `alpn` matches no request).
 */
export function connCovers(a: ConnAtom, b: ConnAtom): boolean {
  const crossTcp = a.kind === 'tcp' && b.kind === 'tls';
  if (a.kind !== b.kind && !crossTcp) return false;
  // A tcp rule checks hostPatterns against resolved names, a tls rule against the server name: different fields.
  if (crossTcp && a.hosts) return false;
  if (a.hosts && !(b.hosts && hostsCover(a.hosts, b.hosts))) return false;
  if (a.cidrs && !(b.cidrs && cidrsCover(a.cidrs, b.cidrs))) return false;
  if (a.kind === 'udp') {
    // udp and icmp rules are never matched (no observation kind); compared as written, `[]` left open.
    if (a.ports && a.ports.length > 0 && !(b.ports && b.ports.length > 0 && subset(b.ports, a.ports))) return false;
    if (a.ports && a.ports.length === 0 && !(b.ports && b.ports.length === 0)) return false;
    return true;
  }
  if (stated(a.ports) && !(stated(b.ports) && subset(b.ports, a.ports))) return false;
  // b (tls) matches requests and connections offering any ALPN unless it states alpn.
  if (a.kind === 'tls' && stated(a.alpn) && !(stated(b.alpn) && subset(b.alpn, a.alpn))) return false;
  return true;
}
