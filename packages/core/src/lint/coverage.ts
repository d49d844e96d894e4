/**
 * Rule coverage for `duplicate-rule`, `shadowed-rule` and `redundant-with-preset` (decisions.md D4).
 *
 * Each well-shaped rule is split into atoms (one per URL, SSH transport or connection rule). A rule
 * is covered when every atom is covered by ONE atom of an earlier rule (sources in document order,
 * then connections) or of an enabled known preset. Coverage is only claimed when D4 guarantees it,
 * so a finding is never a false positive; when in doubt (unions of rules, overlapping wildcards,
 * differing URL bases of oci/git sources, connections implied by sources) nothing is reported.
 *
 * Atoms are kept in maps keyed by URL prefix, host pattern or network, and every bucket is scanned
 * to a fixed depth, so a policy of n rules costs O(n x path length), never O(n^2).
 */
import { cidrContains } from '../formats/ip';
import type { ParsedCidr } from '../formats/ip';
import { isHostPattern } from '../formats/host-pattern';
import { isRepositoryPattern, matchRepositoryPattern } from '../formats/repository-pattern';
import { HTTP_SOURCE_KINDS } from '../policy/types';
import type { PresetCatalog } from '../presets/catalog';
import type { LintContext } from './types';
import { cidrOf, isObject, parseUrl, viewOf } from './walk';
import type { JsonObject, ParsedUrl } from './walk';

/** How many earlier atoms of one bucket are compared (keeps adversarial policies linear). */
const BUCKET_DEPTH = 32;

type ConnClass = 'tls' | 'tcp' | 'udp' | 'icmp';

interface HttpAtom { t: 'http'; url: ParsedUrl; kind: string; purl?: string }
interface OciAtom { t: 'oci'; url: ParsedUrl; ops: string[]; patterns: Repos }
interface GitHttpsAtom { t: 'git-https'; url: ParsedUrl; patterns: Repos }
interface GitSshAtom { t: 'git-ssh'; host: string; port: number; user?: string; patterns: Repos }
interface ConnAtom {
  t: 'conn';
  kind: ConnClass;
  hosts?: string[];
  cidrs?: ParsedCidr[];
  ports?: number[];
  alpn?: string[];
}
type Atom = HttpAtom | OciAtom | GitHttpsAtom | GitSshAtom | ConnAtom;

interface Labelled<A> { label: string; atom: A }

// ---------------------------------------------------------------------------------------------
// Strict shapes: only rules whose meaning is certain become atoms.

const FAIL = Symbol('malformed');
type Maybe<T> = T | typeof FAIL;

function onlyKeys(obj: JsonObject, allowed: string[]): boolean {
  for (const k of Object.keys(obj)) if (!allowed.includes(k)) return false;
  return true;
}

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

function sourceAtoms(item: unknown): Atom[] | undefined {
  if (!isObject(item)) return undefined;
  const keys = Object.keys(item);
  if (keys.length !== 1) return undefined;
  const kind = keys[0];
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

function connectionAtoms(item: unknown): Atom[] | undefined {
  if (!isObject(item)) return undefined;
  const keys = Object.keys(item);
  if (keys.length !== 1) return undefined;
  const kind = keys[0];
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

/** Repository patterns of a source; undefined = any repository. */
type Repos = RepoPattern[] | undefined;

function preparePatterns(patterns: string[] | undefined): Repos {
  if (patterns === undefined) return undefined;
  const prepared = patterns.map(prepare);
  return prepared.some((p) => p.everything) ? undefined : prepared;
}

/** `a` (undefined = any repository) covers `b`. */
function patternsCover(a: Repos, b: Repos): boolean {
  if (a === undefined) return true;
  if (b === undefined) return false;
  return b.every((p) => a.some((q) => repositoryPatternCovers(q, p)));
}

/** Host pattern `a` matches every host `b` matches (both lower case). */
function hostCovers(a: string, b: string): boolean {
  if (a === b) return true;
  if (!a.startsWith('*.')) return false;
  const suffix = a.slice(1); // ".example.com"
  const body = b.startsWith('*.') ? b.slice(1) : `.${b}`;
  return body.endsWith(suffix) && (b.startsWith('*.') ? body.length >= suffix.length : body.length > suffix.length);
}

/** The host patterns that could cover `b` (itself and the wildcards of its parent domains). */
function coveringHostKeys(b: string): string[] {
  const keys = [b];
  const labels = (b.startsWith('*.') ? b.slice(2) : b).split('.');
  for (let i = 1; i < labels.length; i++) keys.push(`*.${labels.slice(i).join('.')}`);
  return keys;
}

function subset<T>(small: T[], big: T[]): boolean {
  const set = new Set(big);
  return small.every((x) => set.has(x));
}

function connCovers(a: ConnAtom, b: ConnAtom): boolean {
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

// ---------------------------------------------------------------------------------------------
// The index of earlier atoms.

/** Every path that, as a rule URL path, covers request paths under `path` (D4 `/` boundary). */
function coveringPaths(path: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < path.length; i++) {
    if (path.charCodeAt(i) !== 47) continue;
    if (i > 0) out.push(path.slice(0, i));
    if (i + 1 < path.length) out.push(path.slice(0, i + 1));
  }
  out.push(path);
  return out;
}

/** Bucket key of the network of the first `length` bits of a prefix (no text formatting). */
function networkKey(cidr: ParsedCidr, length: number): string {
  let key = `${cidr.version}/${length}/`;
  let bits = length;
  for (let i = 0; bits > 0; i++, bits -= 8) key += `${cidr.bytes[i] & (bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff)}.`;
  return key;
}

function urlKey(url: ParsedUrl): string {
  return `${url.scheme}://${url.host}:${url.port}${url.path}`;
}

class AtomIndex {
  private readonly http = new Map<string, Labelled<HttpAtom>[]>();
  private readonly oci = new Map<string, Labelled<OciAtom>[]>();
  private readonly git = new Map<string, Labelled<GitHttpsAtom>[]>();
  private readonly ssh = new Map<string, Labelled<GitSshAtom>[]>();
  private readonly conn = new Map<string, Labelled<ConnAtom>[]>();
  /** Prefix lengths present in `conn` cidr buckets, per class and IP version. */
  private readonly prefixLengths = new Map<string, Set<number>>();

  private static put<A>(map: Map<string, Labelled<A>[]>, key: string, entry: Labelled<A>): void {
    const list = map.get(key);
    if (!list) map.set(key, [entry]);
    else if (list.length < BUCKET_DEPTH) list.push(entry);
  }

  add(label: string, atom: Atom): void {
    switch (atom.t) {
      case 'http': AtomIndex.put(this.http, urlKey(atom.url), { label, atom }); break;
      case 'oci': AtomIndex.put(this.oci, urlKey(atom.url), { label, atom }); break;
      case 'git-https': AtomIndex.put(this.git, urlKey(atom.url), { label, atom }); break;
      case 'git-ssh': AtomIndex.put(this.ssh, `${atom.port}|${atom.host}`, { label, atom }); break;
      case 'conn':
        if (atom.hosts) {
          for (const h of new Set(atom.hosts)) AtomIndex.put(this.conn, `h:${atom.kind}:${h}`, { label, atom });
        } else {
          for (const c of atom.cidrs ?? []) {
            AtomIndex.put(this.conn, `c:${atom.kind}:${networkKey(c, c.prefix)}`, { label, atom });
            const lk = `${atom.kind}:${c.version}`;
            let set = this.prefixLengths.get(lk);
            if (!set) this.prefixLengths.set(lk, (set = new Set()));
            set.add(c.prefix);
          }
        }
        break;
    }
  }

  private byPrefix<A>(map: Map<string, Labelled<A>[]>, url: ParsedUrl, ok: (a: A, exact: boolean) => boolean): string | undefined {
    const origin = `${url.scheme}://${url.host}:${url.port}`;
    for (const path of coveringPaths(url.path)) {
      for (const e of map.get(origin + path) ?? []) if (ok(e.atom, path === url.path)) return e.label;
    }
    return undefined;
  }

  /** The label of an indexed atom covering `b`, if any. */
  find(b: Atom): string | undefined {
    switch (b.t) {
      case 'http':
        // Every HTTP-kind source permits every request under its URLs (D4), whatever its kind; an apt source
        // with a purlNamespace is only replaced by one with the same namespace (it names the packages).
        return this.byPrefix(this.http, b.url, (a) => b.purl === undefined || (a.kind === 'apt' && a.purl === b.purl));
      case 'oci':
        return this.byPrefix(this.http, b.url, () => true)
          ?? this.exact(this.oci, b.url, (a) => subset(b.ops, a.ops) && patternsCover(a.patterns, b.patterns));
      case 'git-https':
        return this.byPrefix(this.http, b.url, () => true)
          // The repository path is what follows the base URL: only an equal base (or any repository) compares.
          ?? this.byPrefix(this.git, b.url, (a, exact) => a.patterns === undefined || (exact && patternsCover(a.patterns, b.patterns)));
      case 'git-ssh':
        for (const key of coveringHostKeys(b.host)) {
          for (const e of this.ssh.get(`${b.port}|${key}`) ?? []) {
            const a = e.atom;
            if (hostCovers(a.host, b.host) && (a.user === undefined || a.user === b.user) && patternsCover(a.patterns, b.patterns)) return e.label;
          }
        }
        return undefined;
      case 'conn':
        return this.findConn(b);
    }
  }

  private exact<A>(map: Map<string, Labelled<A>[]>, url: ParsedUrl, ok: (a: A) => boolean): string | undefined {
    for (const e of map.get(urlKey(url)) ?? []) if (ok(e.atom)) return e.label;
    return undefined;
  }

  private findConn(b: ConnAtom): string | undefined {
    let best: string | undefined;
    let bestOrder = Infinity;
    const consider = (list: Labelled<ConnAtom>[] | undefined) => {
      for (const e of list ?? []) {
        const order = this.order.get(e.label) ?? 0;
        if (order < bestOrder && connCovers(e.atom, b)) { best = e.label; bestOrder = order; }
      }
    };
    if (b.hosts) for (const key of coveringHostKeys(b.hosts[0])) consider(this.conn.get(`h:${b.kind}:${key}`));
    if (b.cidrs) {
      const first = b.cidrs[0];
      const classes: ConnClass[] = b.kind === 'tls' ? ['tls', 'tcp'] : [b.kind];
      for (const cls of classes) {
        for (const len of this.prefixLengths.get(`${cls}:${first.version}`) ?? []) {
          if (len > first.prefix) continue;
          consider(this.conn.get(`c:${cls}:${networkKey(first, len)}`));
        }
      }
    }
    return best;
  }

  /** Order of labels (to name the earliest covering rule when several buckets hold candidates). */
  readonly order = new Map<string, number>();
}

// ---------------------------------------------------------------------------------------------

export interface Coverage {
  /** Pointer of the covered rule, its kind, and what covers it. */
  pointer: string;
  kind: string;
  /** Earlier rules of the policy (pointers), in document order. */
  rules: string[];
  /** Enabled known presets. */
  presets: string[];
}

export interface CoverageAnalysis {
  /** Later exact duplicate -> the earlier rule it repeats. */
  duplicates: Array<{ pointer: string; kind: string; earlier: string }>;
  /** Rules covered by presets alone (sources only: `redundant-with-preset`). */
  redundant: Coverage[];
  /** Rules covered by earlier rules (possibly together with presets): `shadowed-rule`. */
  shadowed: Coverage[];
  /** True when `presets` is omitted (every preset enabled). */
  presetsOmitted: boolean;
}

/** JSON text with object keys sorted: equal for deeply equal values whatever their key order. */
export function canonicalJson(value: unknown): string {
  if (typeof value !== 'object' || value === null) return JSON.stringify(value) ?? 'null';
  let out: string;
  if (Array.isArray(value)) {
    out = '[';
    for (let i = 0; i < value.length; i++) out += (i > 0 ? ',' : '') + canonicalJson(value[i]);
    return `${out}]`;
  }
  const obj = value as JsonObject;
  const keys = Object.keys(obj).sort();
  out = '{';
  for (let i = 0; i < keys.length; i++) out += `${i > 0 ? ',' : ''}${JSON.stringify(keys[i])}:${canonicalJson(obj[keys[i]])}`;
  return `${out}}`;
}

function enabledPresets(root: JsonObject | undefined, catalog: PresetCatalog): string[] {
  const presets = root?.presets;
  if (presets === undefined) return catalog.presets.map((p) => p.name);
  if (!Array.isArray(presets)) return [];
  return presets.filter((p): p is string => typeof p === 'string' && catalog.byName.has(p));
}

function presetIndex(names: string[], catalog: PresetCatalog): AtomIndex {
  const index = new AtomIndex();
  let order = 0;
  for (const name of names) {
    const entry = catalog.byName.get(name);
    if (!entry || entry.opaque || !entry.known) continue;
    const label = `preset:${name}`;
    index.order.set(label, order++);
    for (const s of entry.known.sources ?? []) for (const atom of sourceAtoms(s) ?? []) index.add(label, atom);
    for (const c of entry.known.connections ?? []) for (const atom of connectionAtoms(c) ?? []) index.add(label, atom);
  }
  return index;
}

const cache = new WeakMap<object, CoverageAnalysis>();

/** The analysis of one lint context (cached: three rules ask for it). */
export function analyseCoverage(context: LintContext): CoverageAnalysis {
  const cached = cache.get(context);
  if (cached) return cached;
  const { catalog } = context;
  const view = viewOf(context);
  const analysis: CoverageAnalysis = { duplicates: [], redundant: [], shadowed: [], presetsOmitted: view.root?.presets === undefined };
  const presets = presetIndex(enabledPresets(view.root, catalog), catalog);
  const policy = new AtomIndex();
  let order = 0;
  // Only entries with one recognised kind whose value is an object take part (schema errors cover the rest).
  const groups: Array<[Array<{ pointer: string; kind: string; raw: JsonObject }>, (item: unknown) => Atom[] | undefined]> = [
    [view.sources, sourceAtoms],
    [view.connections, connectionAtoms],
  ];
  for (const [entries, atomsOf] of groups) {
    const seen = new Map<string, string>();
    for (const { pointer, kind, raw } of entries) {
      const key = canonicalJson(raw);
      const earlier = seen.get(key);
      if (earlier !== undefined) {
        analysis.duplicates.push({ pointer, kind, earlier });
        continue;
      }
      seen.set(key, pointer);
      const atoms = atomsOf(raw);
      if (!atoms || atoms.length === 0) continue;
      const byPresets = atoms.map((a) => presets.find(a));
      if (atomsOf === sourceAtoms && byPresets.every((p) => p !== undefined)) {
        analysis.redundant.push({ pointer, kind, rules: [], presets: unique(byPresets as string[]).map((l) => l.slice('preset:'.length)) });
      } else {
        const coverers = atoms.map((a, j) => policy.find(a) ?? byPresets[j]);
        if (coverers.every((c) => c !== undefined)) {
          const labels = unique(coverers as string[]);
          const rules = labels.filter((l) => !l.startsWith('preset:'));
          const named = labels.filter((l) => l.startsWith('preset:')).map((l) => l.slice('preset:'.length));
          analysis.shadowed.push({ pointer, kind, rules: rules.sort((x, y) => policy.order.get(x)! - policy.order.get(y)!), presets: named });
        }
      }
      policy.order.set(pointer, order++);
      for (const atom of atoms) policy.add(pointer, atom);
    }
  }
  cache.set(context, analysis);
  return analysis;
}

function unique<T>(items: T[]): T[] {
  return [...new Set(items)];
}
