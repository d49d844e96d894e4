/**
 * The index of earlier atoms: maps keyed by URL prefix, host pattern or network, so that finding a
 * covering atom costs O(path length) lookups, never a scan of every earlier rule. Each bucket keeps
 * its first BUCKET_DEPTH atoms, so adversarial policies (10,000 rules on one host) stay linear.
 */
import type { ParsedCidr } from '../formats/ip';
import type { Atom, ConnAtom, ConnClass, Coverer, GitHttpsAtom, GitSshAtom, HttpAtom, Labelled, OciAtom } from './rule-atoms';
import { connCovers, coveringHostKeys, hostCovers, patternsCover, subset } from './rule-atoms';
import type { ParsedUrl } from './walk';

/** One server name and port of a `tls` rule; `requests` when the rule may also match HTTP requests. */
export interface TlsPiece { host: string; port: number; requests: boolean }

/** How many earlier atoms of one bucket are compared. */
const BUCKET_DEPTH = 32;

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

/**
 * URL atoms by origin, then by path: most origins of a policy appear once, so a lookup usually ends
 * at the origin without building the covering paths or any key text.
 */
type UrlMap<A> = Map<string, Map<string, Labelled<A>[]>>;

export class AtomIndex {
  private readonly http: UrlMap<HttpAtom> = new Map();
  private readonly oci: UrlMap<OciAtom> = new Map();
  private readonly git: UrlMap<GitHttpsAtom> = new Map();
  private readonly ssh = new Map<string, Labelled<GitSshAtom>[]>();
  /** Host-pattern atoms by class, then by pattern (the pattern text itself is the key: no key building). */
  private readonly connHosts = new Map<ConnClass, Map<string, Labelled<ConnAtom>[]>>();
  private readonly conn = new Map<string, Labelled<ConnAtom>[]>();
  /** Prefix lengths present in `conn` cidr buckets, per class and IP version. */
  private readonly prefixLengths = new Map<string, Set<number>>();

  private static put<A>(map: Map<string, Labelled<A>[]>, key: string, entry: Labelled<A>): void {
    const list = map.get(key);
    if (!list) map.set(key, [entry]);
    else if (list.length < BUCKET_DEPTH) list.push(entry);
  }

  private static putUrl<A>(map: UrlMap<A>, url: ParsedUrl, entry: Labelled<A>): void {
    let paths = map.get(url.origin);
    if (!paths) map.set(url.origin, (paths = new Map()));
    AtomIndex.put(paths, url.path, entry);
  }

  /** `host|port` of every source URL (first label), and of HTTP-kind `https` URLs with the root path. */
  private readonly endpoints = new Map<string, Coverer>();
  private readonly roots = new Map<string, Coverer>();

  /**
   * Indexes an atom of the rule `label`; `order` ranks rules (earlier first). The rank travels with
   * the entry, so finding the earliest cover needs no label-to-rank map.
   */
  add(label: string, order: number, atom: Atom): void {
    if (atom.t === 'http' || atom.t === 'oci' || atom.t === 'git-https') {
      const key = `${atom.url.host}|${atom.url.port}`;
      if (!this.endpoints.has(key)) this.endpoints.set(key, { label, order });
      if (atom.t === 'http' && atom.url.scheme === 'https' && atom.url.path === '/' && !this.roots.has(key)) this.roots.set(key, { label, order });
    }
    switch (atom.t) {
      case 'http': AtomIndex.putUrl(this.http, atom.url, { label, order, atom }); break;
      case 'oci': AtomIndex.putUrl(this.oci, atom.url, { label, order, atom }); break;
      case 'git-https': AtomIndex.putUrl(this.git, atom.url, { label, order, atom }); break;
      case 'git-ssh': AtomIndex.put(this.ssh, `${atom.port}|${atom.host}`, { label, order, atom }); break;
      case 'conn':
        if (atom.hosts) {
          let hosts = this.connHosts.get(atom.kind);
          if (!hosts) this.connHosts.set(atom.kind, (hosts = new Map()));
          for (const h of new Set(atom.hosts)) AtomIndex.put(hosts, h, { label, order, atom });
        } else {
          for (const c of atom.cidrs ?? []) {
            AtomIndex.put(this.conn, `c:${atom.kind}:${networkKey(c, c.prefix)}`, { label, order, atom });
            const lk = `${atom.kind}:${c.version}`;
            let set = this.prefixLengths.get(lk);
            if (!set) this.prefixLengths.set(lk, (set = new Set()));
            set.add(c.prefix);
          }
        }
        break;
    }
  }

  private byPrefix<A>(map: UrlMap<A>, url: ParsedUrl, ok: (a: A, exact: boolean) => boolean): Coverer | undefined {
    const paths = map.get(url.origin);
    if (!paths) return undefined;
    for (const path of coveringPaths(url.path)) {
      for (const e of paths.get(path) ?? []) if (ok(e.atom, path === url.path)) return e;
    }
    return undefined;
  }

  /**
   * A source that permits what a `tls` rule permits for one exact server name and port (D4): the TLS
   * connections (implied by any source URL with that host and port) and, when the rule may match
   * requests, every `https` request to that host and port (an HTTP-kind source URL with the root path).
   */
  findEndpoint(piece: TlsPiece): Coverer | undefined {
    const key = `${piece.host}|${piece.port}`;
    return piece.requests ? this.roots.get(key) : this.endpoints.get(key);
  }

  /** The rule of an indexed atom covering `b`, if any. */
  find(b: Atom): Coverer | undefined {
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
            if (hostCovers(a.host, b.host) && (a.user === undefined || a.user === b.user) && patternsCover(a.patterns, b.patterns)) return e;
          }
        }
        return undefined;
      case 'conn':
        return this.findConn(b);
    }
  }

  private exact<A>(map: UrlMap<A>, url: ParsedUrl, ok: (a: A) => boolean): Coverer | undefined {
    for (const e of map.get(url.origin)?.get(url.path) ?? []) if (ok(e.atom)) return e;
    return undefined;
  }

  private findConn(b: ConnAtom): Coverer | undefined {
    let best: Coverer | undefined;
    let bestOrder = Infinity;
    const consider = (list: Labelled<ConnAtom>[] | undefined) => {
      for (const e of list ?? []) {
        if (e.order < bestOrder && connCovers(e.atom, b)) { best = e; bestOrder = e.order; }
      }
    };
    const hosts = b.hosts && this.connHosts.get(b.kind);
    if (hosts) for (const key of coveringHostKeys(b.hosts![0])) consider(hosts.get(key));
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
}
