/** The indexes of the evaluator: host-suffix trie, CIDR (binary) trie, URL prefix trie. */
import type { ParsedCidr } from '../formats/ip';
import type { ParsedUrl } from './url';
import { originKey } from './url';

interface HostNode<T> { children: Map<string, HostNode<T>>; exact?: T[]; wild?: T[] }

/** Host patterns by reversed labels: `*.example.com` and `example.com` share the path com → example. */
export class HostTrie<T> {
  private root: HostNode<T> = { children: new Map() };
  size = 0;

  add(pattern: string, value: T): void {
    const p = pattern.toLowerCase();
    const wild = p.startsWith('*.');
    const labels = (wild ? p.slice(2) : p).split('.');
    let node = this.root;
    for (let k = labels.length - 1; k >= 0; k--) {
      let next = node.children.get(labels[k]);
      if (!next) node.children.set(labels[k], (next = { children: new Map() }));
      node = next;
    }
    (wild ? (node.wild ??= []) : (node.exact ??= [])).push(value);
    this.size++;
  }

  /** Calls `hit` for every value whose pattern matches `host` (already normalised). */
  lookup(host: string, hit: (value: T) => void): void {
    if (this.size === 0) return;
    const labels = host.split('.');
    let node: HostNode<T> | undefined = this.root;
    for (let k = labels.length - 1; k >= 0; k--) {
      node = node.children.get(labels[k]);
      if (!node) return;
      // `*.` needs one or more labels before the suffix (and not just an empty one).
      if (node.wild && (k >= 2 || (k === 1 && labels[0] !== ''))) for (const v of node.wild) hit(v);
      if (k === 0 && node.exact) for (const v of node.exact) hit(v);
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

  lookup(address: { version: 4 | 6; bytes: number[] }, hit: (value: T) => void): void {
    if (this.size === 0) return;
    let node: BitNode<T> | undefined = address.version === 4 ? this.v4 : this.v6;
    const bits = address.bytes.length * 8;
    for (let bit = 0; node; bit++) {
      if (node.values) for (const v of node.values) hit(v);
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
export class UrlTrie<T> {
  private origins = new Map<string, PathNode<T>>();

  add(url: ParsedUrl, value: T): void {
    const key = originKey(url);
    let node: PathNode<T> | undefined = this.origins.get(key);
    if (!node) this.origins.set(key, (node = { children: new Map() }));
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

  lookup(url: ParsedUrl, hit: (value: T) => void): void {
    let node: PathNode<T> | undefined = this.origins.get(originKey(url));
    if (!node) return;
    const segments = url.path.slice(1).split('/');
    for (let depth = 0; ; depth++) {
      if (node.exact) for (const v of node.exact) hit(v);
      if (node.more && segments.length > depth) for (const v of node.more) hit(v);
      if (depth === segments.length) return;
      node = node.children.get(segments[depth]) as PathNode<T> | undefined;
      if (!node) return;
    }
  }
}
