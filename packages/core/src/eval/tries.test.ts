// HostTrie against the pattern matcher it indexes: a lookup gives every value whose pattern
// matches the host, in the order of the walk (suffix first, the exact name last), whether a node
// keeps its few children in a list (compared in place) or many in a map (looked up by label).
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { HostTrie } from './tries';
import { matchHostPattern } from '../formats/host-pattern';

/** Labels enough that some nodes get more children than the list keeps. */
const label = fc.oneof(fc.constantFrom('a', 'b', 'example', 'com', 'x-1', 'cdn', ''), fc.integer({ min: 0, max: 30 }).map((i) => `n${i}`));
const host = fc.array(label, { minLength: 1, maxLength: 4 }).map((ls) => ls.join('.'));
const pattern = fc.tuple(fc.boolean(), host).map(([wild, h]) => (wild ? `*.${h}` : h));

/** What the trie must find: the matching patterns ordered by label depth of their suffix, wildcards before the exact name. */
function expected(patterns: readonly string[], query: string): number[] {
  const hits = patterns.map((p, i) => ({ p, i })).filter(({ p }) => matchHostPattern(p, query));
  const depth = (p: string) => (p.startsWith('*.') ? p.slice(2) : p).split('.').length + (p.startsWith('*.') ? 0 : 0.5);
  return hits.sort((x, y) => depth(x.p) - depth(y.p) || x.i - y.i).map(({ i }) => i);
}

describe('HostTrie.lookup', () => {
  it('finds exactly the values whose pattern matches, in walk order', () => {
    fc.assert(fc.property(fc.array(pattern, { minLength: 1, maxLength: 60 }), fc.array(fc.oneof(host, host.map((h) => `${h.toUpperCase()}.`), host.map((h) => `q.${h}`)), { minLength: 1, maxLength: 10 }), (patterns, queries) => {
      const trie = new HostTrie<number>();
      patterns.forEach((p, i) => trie.add(p, i));
      for (const q of queries) expect([...trie.lookup(q)]).toEqual(expected(patterns, q));
    }), { numRuns: 2000 });
  });

  it('nodes past the few children kept in a list are still found (a map by label)', () => {
    const trie = new HostTrie<string>();
    for (let i = 0; i < 40; i++) trie.add(`*.svc-${i}.example.net`, `w${i}`);
    trie.add('*.example.net', 'all');
    trie.add('api.svc-7.example.net', 'api');
    expect(trie.lookup('x.svc-39.example.net')).toEqual(['all', 'w39']);
    expect(trie.lookup('API.svc-7.Example.Net.')).toEqual(['all', 'w7', 'api']);
    expect(trie.lookup('svc-3.example.net')).toEqual(['all']);
    expect(trie.lookup('example.net')).toEqual([]);
    expect(trie.lookup('x.svc-40.example.net')).toEqual(['all']);
  });

  it('hands out no array a later lookup changes', () => {
    const trie = new HostTrie<string>();
    trie.add('*.a.b', 'w1');
    trie.add('*.b', 'w0');
    trie.add('x.a.b', 'e');
    const one = trie.lookup('y.a.b');
    expect(one).toEqual(['w0', 'w1']);
    expect(trie.lookup('x.a.b')).toEqual(['w0', 'w1', 'e']);
    expect(trie.lookup('q.b')).toEqual(['w0']);
    expect(one).toEqual(['w0', 'w1']);
    expect(trie.lookup('q.b')).toEqual(['w0']);
  });

  it('related: every value on the path of the host, from the last label on (what splitting it gave)', () => {
    const reference = (trie: Map<string, number[]>, host: string) => {
      const out: number[] = [];
      const labels = host.split('.');
      for (let k = labels.length - 1; k >= 0; k--) {
        const suffix = labels.slice(k).join('.');
        const wild = trie.get(`*.${suffix}`), exact = trie.get(suffix);
        if (!wild && !exact && !prefixes(trie).has(suffix)) break;
        out.push(...(wild ?? []), ...(exact ?? []));
      }
      return out;
    };
    const prefixes = (trie: Map<string, number[]>) => {
      const all = new Set<string>();
      for (const p of trie.keys()) { const ls = (p.startsWith('*.') ? p.slice(2) : p).split('.'); for (let k = 0; k < ls.length; k++) all.add(ls.slice(k).join('.')); }
      return all;
    };
    fc.assert(fc.property(fc.array(pattern, { minLength: 1, maxLength: 60 }), fc.array(fc.oneof(host, host.map((h) => `q.${h}`), host.map((h) => `${h}.`), fc.constant('')), { minLength: 1, maxLength: 10 }), (patterns, queries) => {
      const trie = new HostTrie<number>();
      const byPattern = new Map<string, number[]>();
      patterns.forEach((p, i) => { trie.add(p, i); const k = p.toLowerCase(); byPattern.set(k, [...(byPattern.get(k) ?? []), i]); });
      for (const q of queries) expect(trie.related(q)).toEqual(reference(byPattern, q));
    }), { numRuns: 2000 });
  });
});
