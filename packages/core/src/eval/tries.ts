/** The indexes of the evaluator: host-suffix trie, CIDR (binary) trie, URL prefix trie. */
import type { ParsedCidr } from '../formats/ip';
import { normaliseHost } from '../formats/host-pattern';
import type { ParsedUrl } from './url';

const NONE: readonly never[] = Object.freeze([]);

interface HostNode<T> {
  children: Map<string, HostNode<T>>;
  /** The children again, label then node, while there are few: compared in place, no label sliced. */
  few?: (string | HostNode<T>)[];
  exact?: T[];
  wild?: T[];
}

/** Up to this many children a node keeps them in `few` as well. */
const FEW = 8;

/** Host patterns by reversed labels: `*.example.com` and `example.com` share the path com → example. */
export class HostTrie<T> {
  private root: HostNode<T> = { children: new Map(), few: [] };
  size = 0;

  add(pattern: string, value: T): void {
    const p = pattern.toLowerCase();
    const wild = p.startsWith('*.');
    const labels = (wild ? p.slice(2) : p).split('.');
    let node = this.root;
    for (let k = labels.length - 1; k >= 0; k--) {
      let next = node.children.get(labels[k]);
      if (!next) {
        node.children.set(labels[k], (next = { children: new Map(), few: [] }));
        if (node.few && node.children.size <= FEW) node.few.push(labels[k], next);
        else node.few = undefined;
      }
      node = next;
    }
    (wild ? (node.wild ??= []) : (node.exact ??= [])).push(value);
    this.size++;
  }

  /**
   * The values whose pattern matches `host` (any case, trailing dot allowed). Do not modify the
   * array. Walked label by label from the end, without a memo: in a trace whose every host is
   * distinct a memo by host missed every time, and its entries were promoted by the collector.
   */
  lookup(host: string): readonly T[] {
    if (this.size === 0) return NONE;
    return this.walk(normaliseHost(host));
  }

  /**
   * Every value whose pattern sits on the path of `host`: its matches, plus the near ones
   * (`*.host` for the apex, exact names of parent domains). For explaining denials.
   */
  related(host: string): T[] {
    const out: T[] = [];
    const labels = host.split('.');
    let node: HostNode<T> | undefined = this.root;
    for (let k = labels.length - 1; k >= 0 && node; k--) {
      node = node.children.get(labels[k]);
      if (!node) break;
      if (node.wild) out.push(...node.wild);
      if (node.exact) out.push(...node.exact);
    }
    return out;
  }

  /**
   * `*.` needs one or more labels before the suffix (and not just an empty one). Builds nothing
   * when no pattern matches; the one array of values that matches is returned as it is.
   */
  private walk(host: string): readonly T[] {
    let found: readonly T[] = NONE;
    let copied = false;
    let node: HostNode<T> | undefined = this.root;
    let end = host.length;
    while (true) {
      // The label host[dot + 1, end); dot < 0 for the first one (lastIndexOf('.', -1) would look at 0).
      const dot = end === 0 ? -1 : host.lastIndexOf('.', end - 1);
      const few: (string | HostNode<T>)[] | undefined = node.few;
      if (few !== undefined) {
        const start = dot + 1, length = end - start;
        let next: HostNode<T> | undefined;
        for (let i = 0; i < few.length; i += 2) {
          const label = few[i] as string;
          if (label.length === length && host.startsWith(label, start)) { next = few[i + 1] as HostNode<T>; break; }
        }
        node = next;
      } else node = node.children.get(host.slice(dot + 1, end));
      if (!node) return found;
      // Labels left before this one: a wildcard matches when they are not a single empty label.
      const values = dot < 0 ? node.exact : dot > 0 ? node.wild : undefined;
      if (values !== undefined) {
        if (found.length === 0) found = values;
        else {
          if (!copied) { found = found.slice(); copied = true; }
          for (const v of values) (found as T[]).push(v);
        }
      }
      if (dot < 0) return found;
      end = dot;
    }
  }
}

interface BitNode<T> { zero?: BitNode<T>; one?: BitNode<T>; values?: T[] }

/** Prefixes by bits, one tree per IP version; a lookup walks at most 32 or 128 nodes. */
export class CidrTrie<T> {
  private v4: BitNode<T> = {};
  private v6: BitNode<T> = {};
  size = 0;

  add(cidr: ParsedCidr, value: T): void {
    let node = cidr.version === 4 ? this.v4 : this.v6;
    for (let bit = 0; bit < cidr.prefix; bit++) {
      const one = (cidr.bytes[bit >> 3] >> (7 - (bit & 7))) & 1;
      node = one ? (node.one ??= {}) : (node.zero ??= {});
    }
    (node.values ??= []).push(value);
    this.size++;
  }

  /** Appends to `out` the values of every prefix containing the address. */
  lookup(address: { version: 4 | 6; bytes: number[] }, out: T[]): void {
    if (this.size === 0) return;
    let node: BitNode<T> | undefined = address.version === 4 ? this.v4 : this.v6;
    const bits = address.bytes.length * 8;
    for (let bit = 0; node; bit++) {
      if (node.values) for (const v of node.values) out.push(v);
      if (bit === bits) break;
      node = (address.bytes[bit >> 3] >> (7 - (bit & 7))) & 1 ? node.one : node.zero;
    }
  }
}

interface PathNode<T> { children: Map<string, PathNode<T>>; exact?: T[]; more?: T[] }

/**
 * URL prefixes by origin, then by path segment. A rule path `/a/b` covers `/a/b` and `/a/b/...`
 * (`exact` at node a→b); `/a/b/` covers only `/a/b/...` (`more`: the request has another segment).
 */
interface Origin<T> { scheme: string; port: number; root: PathNode<T> }

export class UrlTrie<T> {
  /** Host → the origins (scheme, port) on it, each with its path tree. */
  private hosts = new Map<string, Origin<T>[]>();

  add(url: ParsedUrl, value: T): void {
    let origins = this.hosts.get(url.host);
    if (!origins) this.hosts.set(url.host, (origins = []));
    let origin = origins.find((o) => o.scheme === url.scheme && o.port === url.port);
    if (!origin) origins.push((origin = { scheme: url.scheme, port: url.port, root: { children: new Map() } }));
    let node: PathNode<T> | undefined = origin.root;
    const body = url.path.slice(1);
    let segments: string[];
    let more: boolean;
    if (body === '') { segments = []; more = true; }
    else if (body.endsWith('/')) { segments = body.slice(0, -1).split('/'); more = true; }
    else { segments = body.split('/'); more = false; }
    for (const s of segments) {
      let next: PathNode<T> | undefined = node.children.get(s);
      if (!next) node.children.set(s, (next = { children: new Map() }));
      node = next;
    }
    (more ? (node.more ??= []) : (node.exact ??= [])).push(value);
  }

  /**
   * Writes to `out`, from index 0, the values whose URL prefix covers `url`, and returns their
   * number. Items of `out` past that number are stale: the caller reuses one array without
   * truncating it (setting `length` is a runtime call, measurable per request).
   */
  lookup(url: ParsedUrl, out: T[]): number {
    const origins = this.hosts.get(url.host);
    if (!origins) return 0;
    let node: PathNode<T> | undefined;
    for (const o of origins) if (o.scheme === url.scheme && o.port === url.port) node = o.root;
    if (!node) return 0;
    let count = 0;
    // Walk the segments of the path (after its leading `/`) without splitting it.
    const path = url.path;
    let start = 1;
    while (true) {
      if (node.exact) for (const v of node.exact) out[count++] = v;
      // Segments left after this node: the path always has one more when start <= length.
      const remaining = start <= path.length;
      if (node.more && remaining) for (const v of node.more) out[count++] = v;
      if (!remaining || node.children.size === 0) return count;
      let end = path.indexOf('/', start);
      if (end < 0) end = path.length;
      node = node.children.get(path.slice(start, end));
      if (!node) return count;
      start = end + 1;
    }
  }
}
