/**
 * The index of earlier atoms: maps keyed by URL prefix, host pattern or network, so that finding a
 * covering atom costs O(path length) lookups, never a scan of every earlier rule. Each bucket keeps
 * its first BUCKET_DEPTH atoms, so adversarial policies (10,000 rules on one host) stay linear.
 */
import type { ParsedCidr } from '../formats/ip';
import type { Atom, ConnAtom, ConnClass, GitHttpsAtom, GitSshAtom, HttpAtom, Labelled, OciAtom } from './rule-atoms';
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

function urlKey(url: ParsedUrl): string {
  return `${url.scheme}://${url.host}:${url.port}${url.path}`;
}

export class AtomIndex {
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

  /** `host|port` of every source URL (first label), and of HTTP-kind `https` URLs with the root path. */
  private readonly endpoints = new Map<string, string>();
  private readonly roots = new Map<string, string>();

  add(label: string, atom: Atom): void {
    if (atom.t === 'http' || atom.t === 'oci' || atom.t === 'git-https') {
      const key = `${atom.url.host}|${atom.url.port}`;
      if (!this.endpoints.has(key)) this.endpoints.set(key, label);
      if (atom.t === 'http' && atom.url.scheme === 'https' && atom.url.path === '/' && !this.roots.has(key)) this.roots.set(key, label);
    }
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

  /**
   * A source that permits what a `tls` rule permits for one exact server name and port (D4): the TLS
   * connections (implied by any source URL with that host and port) and, when the rule may match
   * requests, every `https` request to that host and port (an HTTP-kind source URL with the root path).
   */
  findEndpoint(piece: TlsPiece): string | undefined {
    const key = `${piece.host}|${piece.port}`;
    return piece.requests ? this.roots.get(key) : this.endpoints.get(key);
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
