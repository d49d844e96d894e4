/**
 * The index of earlier atoms: maps keyed by URL prefix, host pattern or network, so that finding a
 * covering atom costs O(path length) lookups, never a scan of every earlier rule. Each bucket keeps
 * its first BUCKET_DEPTH atoms, so adversarial policies (10,000 rules on one host) stay linear.
 */
import type { Atom, ConnAtom, ConnClass, Coverer, GitHttpsAtom, GitSshAtom, HttpAtom, Labelled, OciAtom } from './rule-atoms';
import { connCovers, coveringHostKeys, hostCovers, networkKey, patternsCover } from './rule-atoms';
import type { UrlAtom } from './rule-atoms';
import type { ParsedUrl } from '../eval/url';

/** One server name and port of a `tls` rule; `requests` when the rule may also match HTTP requests. */
export interface TlsPiece { host: string; port: number; requests: boolean }

/** How many earlier atoms of one bucket are compared. */
const BUCKET_DEPTH = 32;

/** Every path that, as a rule URL path, covers request paths under `path` (D4 `/` boundary). */
export function coveringPaths(path: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < path.length; i++) {
    if (path.charCodeAt(i) !== 47) continue;
    if (i > 0) out.push(path.slice(0, i));
    if (i + 1 < path.length) out.push(path.slice(0, i + 1));
  }
  out.push(path);
  return out;
}

function put<K, A>(map: Map<K, Labelled<A>[]>, key: K, entry: Labelled<A>): void {
  const list = map.get(key);
  if (!list) map.set(key, [entry]);
  else if (list.length < BUCKET_DEPTH) list.push(entry);
}

/** Atoms by host pattern (lower case), found from a host by the host itself and its parent wildcards. */
class HostBuckets<A> {
  private readonly map = new Map<string, Labelled<A>[]>();
  /** Whether any `*.` pattern is indexed: without one, parent wildcards need not be built and looked up. */
  private wildcards = false;

  put(host: string, entry: Labelled<A>): void {
    if (host.startsWith('*.')) this.wildcards = true;
    put(this.map, host, entry);
  }

  /** The buckets of the patterns that could cover `b`, in the order of `coveringHostKeys`. */
  candidates(b: string): Labelled<A>[][] {
    if (!this.wildcards) {
      // Array literals, not `[]` + push (whose first push reserves 17 slots): this runs per lookup.
      const own = this.map.get(b);
      return own ? [own] : NO_LISTS;
    }
    const out: Labelled<A>[][] = [];
    for (const key of coveringHostKeys(b)) {
      const list = this.map.get(key);
      if (list) out.push(list);
    }
    return out;
  }
}

/** CIDR atoms of one class by network, with the prefix lengths present per IP version. */
interface CidrBuckets {
  map: Map<number | string, Labelled<ConnAtom>[]>;
  lengths: { 4: Set<number>; 6: Set<number> };
}

/** The classes whose CIDR atoms may cover an atom of each class (constant lists: nothing built per lookup). */
const CIDR_CLASSES: Record<ConnClass, readonly ConnClass[]> = { tls: ['tls', 'tcp'], tcp: ['tcp'], udp: ['udp'], icmp: ['icmp'] };
/** Shared empty results (never mutated). */
const NO_ENTRIES: readonly never[] = [];
const NO_LISTS: never[][] = [];

// Does URL atom `a` cover `b`? Module functions, not closures per lookup (two lookups per URL of a policy).

/**
 * Every HTTP-kind source permits every request under its URLs (D4), whatever its kind; an apt source
 * with a purlNamespace is only replaced by one with the same namespace (it names the packages).
 */
const httpCovers = (a: HttpAtom, b: HttpAtom): boolean => b.purl === undefined || (a.kind === 'apt' && a.purl === b.purl);
const anyCovers = (): boolean => true;
const ociCovers = (a: OciAtom, b: OciAtom): boolean => {
  for (const o of b.ops) if (!a.ops.has(o)) return false;
  return patternsCover(a.patterns, b.patterns);
};
/** The repository path is what follows the base URL: only an equal base (or any repository) compares. */
const gitCovers = (a: GitHttpsAtom, b: GitHttpsAtom, exact: boolean): boolean => a.patterns === undefined || (exact && patternsCover(a.patterns, b.patterns));

/**
 * URL atoms by origin (host, then scheme and port), then by path: most origins of a policy appear
 * once, so a lookup usually ends at the host without building the covering paths or any key text.
 * Keyed by the parsed host itself (no `scheme://host:port` text to build and hash per URL). A host
 * with one origin holds it directly; a second one turns it into a map by scheme and port. An origin
 * with one path holds that path and its list directly (no map per origin: most origins of a policy
 * have one path); a second path turns it into a map by path.
 */
interface OnePath<A> { path: string; list: Labelled<A>[] }
type Paths<A> = OnePath<A> | Map<string, Labelled<A>[]>;
interface Origin<A> { scheme: string; port: number; paths: Paths<A> }
type HostOrigins<A> = Origin<A> | Map<number | string, Origin<A>>;
type UrlMap<A> = Map<string, HostOrigins<A>>;

/** The key of a scheme and port among the origins of one host (a number for http and https). */
function originKeyOf(scheme: string, port: number): number | string {
  return scheme === 'https' ? port * 2 + 1 : scheme === 'http' ? port * 2 : `${scheme}:${port}`;
}

function originIn<A>(map: UrlMap<A>, url: ParsedUrl): Origin<A> | undefined {
  const o = map.get(url.host);
  if (o === undefined) return undefined;
  if (o instanceof Map) return o.get(originKeyOf(url.scheme, url.port));
  return o.port === url.port && o.scheme === url.scheme ? o : undefined;
}

function listAt<A>(paths: Paths<A>, path: string): Labelled<A>[] | undefined {
  return paths instanceof Map ? paths.get(path) : paths.path === path ? paths.list : undefined;
}

/** Rule path `a` is one of `coveringPaths(b)`: a prefix of `b` ending at a `/` boundary, or `b` itself. */
export function coversPath(a: string, b: string): boolean {
  return b.startsWith(a) && (a.length === b.length || b.charCodeAt(a.length) === 47 || a.charCodeAt(a.length - 1) === 47);
}

export class AtomIndex {
  private readonly http: UrlMap<HttpAtom> = new Map();
  private readonly oci: UrlMap<OciAtom> = new Map();
  private readonly git: UrlMap<GitHttpsAtom> = new Map();
  /** Nested maps (port, class) rather than composite keys: no key text to build per lookup. */
  private readonly ssh = new Map<number, HostBuckets<GitSshAtom>>();
  private readonly connHosts = new Map<ConnClass, HostBuckets<ConnAtom>>();
  private readonly connCidrs = new Map<ConnClass, CidrBuckets>();

  private static putUrl<A>(map: UrlMap<A>, atom: UrlAtom, entry: Labelled<A>): void {
    const { host, scheme, port, path } = atom.url;
    const origin = originIn(map, atom.url);
    if (origin === undefined) {
      const created: Origin<A> = { scheme, port, paths: { path, list: [entry] } };
      const other = map.get(host);
      if (other === undefined) map.set(host, created);
      else if (other instanceof Map) other.set(originKeyOf(scheme, port), created);
      else map.set(host, new Map([[originKeyOf(other.scheme, other.port), other], [originKeyOf(scheme, port), created]]));
      return;
    }
    const paths = origin.paths;
    if (paths instanceof Map) put(paths, path, entry);
    else if (paths.path === path) { if (paths.list.length < BUCKET_DEPTH) paths.list.push(entry); }
    else {
      const byPath = new Map<string, Labelled<A>[]>([[paths.path, paths.list]]);
      put(byPath, path, entry);
      origin.paths = byPath;
    }
  }

  /**
   * `host|port` of every source URL (first label), and of HTTP-kind `https` URLs with the root path.
   * Built on the first `findEndpoint` (from `urlEntries`, in the order they were added), then kept up
   * to date: most policies have no `tls` rule naming exact servers, and never ask.
   */
  private readonly endpoints = new Map<number, Map<string, Coverer>>();
  private readonly roots = new Map<number, Map<string, Coverer>>();
  private readonly urlEntries: Labelled<HttpAtom | OciAtom | GitHttpsAtom>[] = [];
  private endpointsFrom = 0;

  private catchUpEndpoints(): void {
    const entries = this.urlEntries;
    for (; this.endpointsFrom < entries.length; this.endpointsFrom++) {
      const entry = entries[this.endpointsFrom];
      const { host, port, scheme, path } = entry.atom.url;
      AtomIndex.putFirst(this.endpoints, host, port, entry);
      if (entry.atom.shape === 'http' && scheme === 'https' && path === '/') AtomIndex.putFirst(this.roots, host, port, entry);
    }
  }

  /** Keeps the first coverer of a host and port (maps by port, then host: no key text per URL). */
  private static putFirst(map: Map<number, Map<string, Coverer>>, host: string, port: number, coverer: Coverer): void {
    let hosts = map.get(port);
    if (!hosts) map.set(port, (hosts = new Map()));
    if (!hosts.has(host)) hosts.set(host, coverer);
  }

  /**
   * Indexes an atom of the rule `label`; `order` ranks rules (earlier first). The rank travels with
   * the entry, so finding the earliest cover needs no label-to-rank map.
   */
  add(label: string, order: number, atom: Atom): void {
    if (atom.shape === 'http' || atom.shape === 'oci' || atom.shape === 'git-https') {
      // One entry serves as bucket entry and endpoint coverer.
      const entry = { label, order, atom };
      if (atom.shape === 'http') AtomIndex.putUrl(this.http, atom, entry as Labelled<HttpAtom>);
      else if (atom.shape === 'oci') AtomIndex.putUrl(this.oci, atom, entry as Labelled<OciAtom>);
      else AtomIndex.putUrl(this.git, atom, entry as Labelled<GitHttpsAtom>);
      this.urlEntries.push(entry);
      return;
    }
    switch (atom.shape) {
      case 'git-ssh': {
        let hosts = this.ssh.get(atom.port);
        if (!hosts) this.ssh.set(atom.port, (hosts = new HostBuckets()));
        hosts.put(atom.host, { label, order, atom });
        break;
      }
      case 'conn':
        if (atom.hosts) {
          let hosts = this.connHosts.get(atom.kind);
          if (!hosts) this.connHosts.set(atom.kind, (hosts = new HostBuckets()));
          const entry = { label, order, atom };
          if (atom.hosts.length === 1) hosts.put(atom.hosts[0], entry);
          else for (const h of new Set(atom.hosts)) hosts.put(h, entry);
        } else if (atom.cidrs) {
          let cidrs = this.connCidrs.get(atom.kind);
          if (!cidrs) this.connCidrs.set(atom.kind, (cidrs = { map: new Map(), lengths: { 4: new Set(), 6: new Set() } }));
          const entry = { label, order, atom };
          for (const c of atom.cidrs) {
            put(cidrs.map, networkKey(c, c.prefix), entry);
            cidrs.lengths[c.version].add(c.prefix);
          }
        }
        break;
    }
  }

  private byPrefix<A, B extends UrlAtom>(map: UrlMap<A>, b: B, ok: (a: A, b: B, exact: boolean) => boolean): Coverer | undefined {
    const paths = originIn(map, b.url)?.paths;
    if (paths === undefined) return undefined;
    if (!(paths instanceof Map)) {
      // One path: no list of covering paths to build.
      if (!coversPath(paths.path, b.url.path)) return undefined;
      const exact = paths.path === b.url.path;
      for (const e of paths.list) if (ok(e.atom, b, exact)) return e;
      return undefined;
    }
    for (const path of coveringPaths(b.url.path)) {
      for (const e of paths.get(path) ?? NO_ENTRIES) if (ok(e.atom, b, path === b.url.path)) return e;
    }
    return undefined;
  }

  /**
   * A source that permits what a `tls` rule permits for one exact server name and port (D4): the TLS
   * connections (implied by any source URL with that host and port) and, when the rule may match
   * requests, every `https` request to that host and port (an HTTP-kind source URL with the root path).
   */
  findEndpoint(piece: TlsPiece): Coverer | undefined {
    this.catchUpEndpoints();
    return (piece.requests ? this.roots : this.endpoints).get(piece.port)?.get(piece.host);
  }

  /** The rule of an indexed atom covering `b`, if any. */
  find(b: Atom): Coverer | undefined {
    switch (b.shape) {
      case 'http': return this.byPrefix(this.http, b, httpCovers);
      case 'oci': return this.byPrefix(this.http, b, anyCovers) ?? this.exact(this.oci, b, ociCovers);
      case 'git-https': return this.byPrefix(this.http, b, anyCovers) ?? this.byPrefix(this.git, b, gitCovers);
      case 'git-ssh':
        for (const list of this.ssh.get(b.port)?.candidates(b.host) ?? NO_LISTS) {
          for (const e of list) {
            const a = e.atom;
            if (hostCovers(a.host, b.host) && (a.user === undefined || a.user === b.user) && patternsCover(a.patterns, b.patterns)) return e;
          }
        }
        return undefined;
      case 'conn':
        return this.findConn(b);
    }
  }

  private exact<A, B extends UrlAtom>(map: UrlMap<A>, b: B, ok: (a: A, b: B) => boolean): Coverer | undefined {
    const paths = originIn(map, b.url)?.paths;
    for (const e of (paths && listAt(paths, b.url.path)) ?? NO_ENTRIES) if (ok(e.atom, b)) return e;
    return undefined;
  }

  private findConn(b: ConnAtom): Coverer | undefined {
    // Every candidate is compared: the earliest covering rule is named, whichever bucket holds it.
    let best: Labelled<ConnAtom> | undefined;
    const hosts = b.hosts && this.connHosts.get(b.kind);
    if (hosts) {
      for (const list of hosts.candidates(b.hosts![0])) {
        for (const e of list) if ((!best || e.order < best.order) && connCovers(e.atom, b)) best = e;
      }
    }
    if (b.cidrs) {
      const first = b.cidrs[0];
      for (const cls of CIDR_CLASSES[b.kind]) {
        const cidrs = this.connCidrs.get(cls);
        if (!cidrs) continue;
        for (const len of cidrs.lengths[first.version]) {
          if (len > first.prefix) continue;
          for (const e of cidrs.map.get(networkKey(first, len)) ?? NO_ENTRIES) if ((!best || e.order < best.order) && connCovers(e.atom, b)) best = e;
        }
      }
    }
    return best;
  }
}
