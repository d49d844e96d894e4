/**
 * Rules as atoms for coverage (decisions.md D4): one atom per URL, SSH transport or connection rule,
 * built only from well-shaped rules whose meaning is certain, and the pairwise question "does atom A
 * permit everything atom B permits?", answered soundly (never yes by mistake) but not completely.
 */
import { cidrContains } from '../formats/ip';
import type { ParsedCidr } from '../formats/ip';
import { isHostPattern } from '../formats/host-pattern';
import { isRepositoryPattern, matchRepositoryPattern } from '../formats/repository-pattern';
import { HTTP_SOURCE_KINDS } from '../policy/types';
import { cidrOf, isObject, onlyKeys, parseUrl, soleKey } from './walk';
import type { ParsedUrl } from './walk';

export type ConnClass = 'tls' | 'tcp' | 'udp' | 'icmp';

export interface HttpAtom { t: 'http'; url: ParsedUrl; kind: string; purl?: string }
export interface OciAtom { t: 'oci'; url: ParsedUrl; ops: string[]; patterns: Repos }
export interface GitHttpsAtom { t: 'git-https'; url: ParsedUrl; patterns: Repos }
export interface GitSshAtom { t: 'git-ssh'; host: string; port: number; user?: string; patterns: Repos }
export interface ConnAtom {
  t: 'conn';
  kind: ConnClass;
  hosts?: string[];
  cidrs?: ParsedCidr[];
  ports?: number[];
  alpn?: string[];
}
export type Atom = HttpAtom | OciAtom | GitHttpsAtom | GitSshAtom | ConnAtom;

/** What covers an atom: a rule pointer or `preset:<name>`, and its rank (earliest first). */
export interface Coverer { label: string; order: number }
export interface Labelled<A> extends Coverer { atom: A }
// ---------------------------------------------------------------------------------------------
// Strict shapes: only rules whose meaning is certain become atoms.

const FAIL = Symbol('malformed');
type Maybe<T> = T | typeof FAIL;


function urlList(v: unknown): Maybe<ParsedUrl[]> {
  if (!Array.isArray(v) || v.length === 0) return FAIL;
  const out: ParsedUrl[] = [];
  for (const item of v) {
    const url = parseUrl(item);
    if (!url) return FAIL;
    out.push(url);
  }
  return out;
}

function optionalStrings(v: unknown, ok: (s: string) => boolean, nonEmpty: boolean): Maybe<string[] | undefined> {
  if (v === undefined) return undefined;
  if (!Array.isArray(v) || (nonEmpty && v.length === 0)) return FAIL;
  for (const item of v) if (typeof item !== 'string' || !ok(item)) return FAIL;
  return v as string[];
}

function optionalPorts(v: unknown): Maybe<number[] | undefined> {
  if (v === undefined) return undefined;
  if (!Array.isArray(v)) return FAIL;
  for (const p of v) if (typeof p !== 'number' || !Number.isInteger(p) || p < 1 || p > 65535) return FAIL;
  return v as number[];
}

const httpKinds = new Set<string>(HTTP_SOURCE_KINDS);

export function sourceAtoms(item: unknown): Atom[] | undefined {
  if (!isObject(item)) return undefined;
  const kind = soleKey(item);
  if (kind === undefined) return undefined;
  const body = item[kind];
  if (!isObject(body)) return undefined;
  if (httpKinds.has(kind) || kind === 'apt') {
    if (!onlyKeys(body, kind === 'apt' ? ['urls', 'purlNamespace'] : ['urls'])) return undefined;
    const urls = urlList(body.urls);
    if (urls === FAIL) return undefined;
    if (body.purlNamespace !== undefined && typeof body.purlNamespace !== 'string') return undefined;
    const purl = typeof body.purlNamespace === 'string' && body.purlNamespace !== '' ? body.purlNamespace : undefined;
    return urls.map((url) => ({ t: 'http', url, kind, purl }));
  }
  if (kind === 'cargo') {
    if (!onlyKeys(body, ['indexUrl', 'downloadUrl'])) return undefined;
    const a = parseUrl(body.indexUrl), b = parseUrl(body.downloadUrl);
    return a && b ? [{ t: 'http', url: a, kind }, { t: 'http', url: b, kind }] : undefined;
  }
  if (kind === 'oci') {
    if (!onlyKeys(body, ['urls', 'repositoryPatterns', 'operations'])) return undefined;
    const urls = urlList(body.urls);
    const patterns = optionalStrings(body.repositoryPatterns, isRepositoryPattern, false);
    const ops = optionalStrings(body.operations, (o) => o === 'pull' || o === 'push' || o === 'delete', true);
    if (urls === FAIL || patterns === FAIL || ops === FAIL || ops === undefined) return undefined;
    const repos = preparePatterns(patterns);
    return urls.map((url) => ({ t: 'oci', url, ops, patterns: repos }));
  }
  if (kind === 'git') {
    if (!onlyKeys(body, ['repositoryPatterns', 'https', 'ssh'])) return undefined;
    const patterns = optionalStrings(body.repositoryPatterns, isRepositoryPattern, false);
    if (patterns === FAIL || (body.https === undefined && body.ssh === undefined)) return undefined;
    const repos = preparePatterns(patterns);
    const atoms: Atom[] = [];
    if (body.https !== undefined) {
      if (!Array.isArray(body.https) || body.https.length === 0) return undefined;
      for (const t of body.https) {
        if (!isObject(t) || !onlyKeys(t, ['baseUrl'])) return undefined;
        const url = parseUrl(t.baseUrl);
        if (!url) return undefined;
        atoms.push({ t: 'git-https', url, patterns: repos });
      }
    }
    if (body.ssh !== undefined) {
      if (!Array.isArray(body.ssh) || body.ssh.length === 0) return undefined;
      for (const t of body.ssh) {
        if (!isObject(t) || !onlyKeys(t, ['host', 'port', 'user', 'upstreamKnownHosts'])) return undefined;
        if (typeof t.host !== 'string' || !isHostPattern(t.host)) return undefined;
        const port = optionalPorts([t.port]);
        if (port === FAIL || t.port === undefined) return undefined;
        if (t.user !== undefined && typeof t.user !== 'string') return undefined;
        if (optionalStrings(t.upstreamKnownHosts, () => true, false) === FAIL) return undefined;
        atoms.push({ t: 'git-ssh', host: t.host.toLowerCase(), port: t.port as number, user: t.user as string | undefined, patterns: repos });
      }
    }
    return atoms;
  }
  return undefined;
}

export function connectionAtoms(item: unknown): Atom[] | undefined {
  if (!isObject(item)) return undefined;
  const kind = soleKey(item);
  if (kind === undefined) return undefined;
  const body = item[kind];
  if (!isObject(body)) return undefined;
  const cidrsOf = (v: unknown, ipv4Only: boolean): Maybe<ParsedCidr[] | undefined> => {
    if (v === undefined) return undefined;
    if (!Array.isArray(v) || v.length === 0) return FAIL;
    const out: ParsedCidr[] = [];
    for (const t of v) {
      const cidr = typeof t === 'string' ? cidrOf(t, ipv4Only) : undefined;
      if (!cidr) return FAIL;
      out.push(cidr);
    }
    return out;
  };
  const hostsOf = (v: unknown) => {
    const h = optionalStrings(v, isHostPattern, true);
    return h === FAIL || h === undefined ? h : h.map((p) => p.toLowerCase());
  };
  if (kind === 'tls' || kind === 'tcp') {
    const hostMember = kind === 'tls' ? 'serverNamePatterns' : 'hostPatterns';
    if (!onlyKeys(body, kind === 'tls' ? [hostMember, 'cidrs', 'ports', 'alpn'] : [hostMember, 'cidrs', 'ports'])) return undefined;
    const hosts = hostsOf(body[hostMember]);
    const cidrs = cidrsOf(body.cidrs, false);
    const ports = optionalPorts(body.ports);
    const alpn = kind === 'tls' ? optionalStrings(body.alpn, (s) => s.length > 0, false) : undefined;
    if (hosts === FAIL || cidrs === FAIL || ports === FAIL || alpn === FAIL) return undefined;
    if (!hosts && !cidrs) return undefined;
    if (kind === 'tls' && (!ports || ports.length === 0)) return undefined;
    return [{ t: 'conn', kind, hosts, cidrs, ports, alpn }];
  }
  if (kind === 'udp' || kind === 'icmp') {
    if (!onlyKeys(body, kind === 'udp' ? ['cidrs', 'ports'] : ['cidrs'])) return undefined;
    const cidrs = cidrsOf(body.cidrs, true);
    const ports = kind === 'udp' ? optionalPorts(body.ports) : undefined;
    if (cidrs === FAIL || cidrs === undefined || ports === FAIL) return undefined;
    return [{ t: 'conn', kind, cidrs, ports }];
  }
  return undefined;
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
 * The repository patterns of a source, prepared on first comparison: most sources are never compared
 * (no earlier rule shares their URL or host), so preparing every pattern up front was wasted garbage.
 */
class RepositoryPatterns {
  private prepared?: RepoPattern[];
  constructor(private readonly texts: string[]) {}

  get list(): RepoPattern[] {
    return (this.prepared ??= this.texts.map(prepare));
  }
}

/** Repository patterns of a source; undefined = any repository. */
export type Repos = RepositoryPatterns | undefined;

/** Only `**` segments (the `everything` of `prepare`), tested without splitting. */
const EVERY_REPOSITORY = /^\*\*(?:\/\*\*)*$/;

export function preparePatterns(patterns: string[] | undefined): Repos {
  if (patterns === undefined) return undefined;
  return patterns.some((p) => EVERY_REPOSITORY.test(p)) ? undefined : new RepositoryPatterns(patterns);
}

/** `a` (undefined = any repository) covers `b`. */
export function patternsCover(a: Repos, b: Repos): boolean {
  if (a === undefined) return true;
  if (b === undefined) return false;
  const covering = a.list;
  return b.list.every((p) => covering.some((q) => repositoryPatternCovers(q, p)));
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

export function subset<T>(small: T[], big: T[]): boolean {
  const set = new Set(big);
  return small.every((x) => set.has(x));
}

export function connCovers(a: ConnAtom, b: ConnAtom): boolean {
  const crossTcp = a.kind === 'tcp' && b.kind === 'tls';
  if (a.kind !== b.kind && !crossTcp) return false;
  // A tcp rule checks hostPatterns against resolved names, a tls rule against the server name: different fields.
  if (crossTcp && a.hosts) return false;
  if (a.hosts && !(b.hosts && b.hosts.every((h) => a.hosts!.some((g) => hostCovers(g, h))))) return false;
  if (a.cidrs && !(b.cidrs && b.cidrs.every((c) => a.cidrs!.some((d) => cidrContains(d, c))))) return false;
  if (a.kind === 'tcp' || a.kind === 'tls') {
    // tcp: absent or [] = any port; tls: ports are required and non-empty.
    if (a.ports && a.ports.length > 0 && !(b.ports && b.ports.length > 0 && subset(b.ports, a.ports))) return false;
  } else if (a.kind === 'udp') {
    if (a.ports && a.ports.length > 0 && !(b.ports && b.ports.length > 0 && subset(b.ports, a.ports))) return false;
    if (a.ports && a.ports.length === 0 && !(b.ports && b.ports.length === 0)) return false; // `[]` left open by D4
  }
  if (a.kind === 'tls') {
    // A tls rule stating alpn never matches a request; whether `alpn: []` does is left open, so only an
    // absent alpn is sure to match requests.
    const bMayMatchRequests = !b.alpn || b.alpn.length === 0;
    if (bMayMatchRequests && a.alpn !== undefined) return false;
    if (a.alpn && a.alpn.length > 0 && !(b.alpn && b.alpn.length > 0 && subset(b.alpn, a.alpn))) return false;
  }
  return true;
}
