/**
 * The SBOM is outside data: any JSON value, `__proto__` keys, members of the wrong type, deep
 * nesting, cycles in a built object, throwing getters, huge arrays. Attribution never throws,
 * skips what does not read, and takes nothing from prototypes.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { Access } from '../eval/access';
import { indexSbom } from './index-sbom';
import { readSbomComponents } from './components';

const tarball: Access = { kind: 'http', method: 'GET', url: 'https://registry.npmjs.org/x/-/x-1.0.0.tgz' };
const good = { type: 'library', 'bom-ref': 'good', name: 'x', version: '1.0.0', purl: 'pkg:npm/x@1.0.0' };

const accesses: Access[] = [
  tarball,
  { kind: 'http', method: 'GET', url: 'https://registry.npmjs.org/__proto__' },
  { kind: 'http', method: 'GET', url: 'https://registry.npmjs.org/constructor/-/constructor-1.0.0.tgz' },
  { kind: 'http', method: 'GET', url: 'https://pypi.org/simple/__proto__/' },
  { kind: 'http', method: 'GET', url: 'not a url' },
  { kind: 'ssh', host: 'github.com', port: 22, repositoryPath: '/__proto__/constructor.git' },
  { kind: 'tls', serverName: 'x', port: 443 },
];

describe('hostile SBOMs', () => {
  it('any JSON value or any value at all: no throw, every access answered with an array', () => {
    fc.assert(fc.property(fc.oneof(fc.jsonValue(), fc.anything({ withObjectString: true, withNullPrototype: true })), (value) => {
      const index = indexSbom(value);
      for (const a of accesses) expect(Array.isArray(index.attribute(a))).toBe(true);
      const wrapped = indexSbom({ components: [value, good], metadata: { component: value } });
      expect(wrapped.attribute(tarball).map((m) => m.bomRef)).toContain('good');
    }), { numRuns: 300 });
  });

  it('__proto__ members are data: never read as the component, never on Object.prototype', () => {
    const text = '{"components":[{"__proto__":{"purl":"pkg:npm/x@1.0.0","version":"1.0.0"},"name":"x","bom-ref":"p"},'
      + '{"name":"__proto__","version":"1.0.0","purl":"pkg:npm/__proto__@1.0.0","bom-ref":"q"}],"__proto__":{"components":[{"name":"y"}]}}';
    const sbom = JSON.parse(text);
    const components = readSbomComponents(sbom);
    expect(components.map((c) => [c.bomRef, c.purl, c.version])).toEqual([['p', undefined, undefined], ['q', 'pkg:npm/__proto__@1.0.0', '1.0.0']]);
    const index = indexSbom(sbom);
    expect(index.attribute(tarball)).toEqual([]);
    expect(index.attribute({ kind: 'http', method: 'GET', url: 'https://registry.npmjs.org/__proto__/-/__proto__-1.0.0.tgz' }).map((m) => m.bomRef)).toEqual(['q']);
    expect(({} as Record<string, unknown>).purl).toBeUndefined();
    // A prototype set by a built object is not read either: the component is one without a purl.
    const built = { components: [Object.assign(Object.create({ purl: 'pkg:npm/x@1.0.0' }), { name: 'x', version: '1.0.0', 'bom-ref': 'b' })] };
    expect(indexSbom(built).attribute(tarball).map((m) => m.match)).toEqual(['name-only']);
  });

  it('members of the wrong type are left out, the component kept when its name reads', () => {
    const sbom = {
      components: [
        { name: 5, purl: 'pkg:npm/x@1.0.0' },
        { name: 'a', version: ['1.0.0'], purl: { toString: () => 'pkg:npm/x@1.0.0' }, 'bom-ref': 7, externalReferences: 'https://registry.npmjs.org/x' },
        { name: 'b', purl: 'pkg:npm/x@1.0.0', externalReferences: [null, 5, 'x', { type: 'distribution', url: 5 }, { type: 'distribution' }, { type: ['vcs'], url: 'https://github.com/a/b' }] },
        { name: 'c', purl: 'pkg:%zz/broken@@', version: '1.0.0' },
        { name: 'd', purl: 'pkg:npm/x@1.0.0?download_url=not-a-url&vcs_url=ftp://example.com/x.git', 'bom-ref': 'd' },
        { name: 'e', version: '1.0.0', purl: 'pkg:npm/x@1.0.0?download_url=%zz', 'bom-ref': 'e' },
      ],
    };
    const components = readSbomComponents(sbom);
    expect(components.map((c) => c.name)).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(components[1].distribution).toEqual([]);
    expect(components[1].vcs).toEqual([]);
    expect([components[3].distribution, components[3].vcs]).toEqual([[], []]);
    // A purl that does not parse (packageurl-js refuses a bad escape anywhere) names nothing, and
    // keeps its component from name-only matches.
    expect([components[2].keys, components[4].keys]).toEqual([undefined, undefined]);
    expect(indexSbom(sbom).attribute(tarball).map((m) => m.name)).toEqual(['b', 'd']);
  });

  it('nesting 100,000 deep is read without recursion, in document order', () => {
    const root: Record<string, unknown> = { name: 'n0' };
    let at = root;
    for (let i = 1; i < 100_000; i++) {
      const next: Record<string, unknown> = { name: `n${i}` };
      at.components = [next];
      at = next;
    }
    Object.assign(at, { version: '1.0.0', purl: 'pkg:npm/x@1.0.0', 'bom-ref': 'deep' });
    const components = readSbomComponents({ metadata: { component: { name: 'main' } }, components: [root, { name: 'after' }] });
    expect(components.length).toBe(100_002);
    expect([components[0].name, components[1].name, components[2].name, components[100_001].name]).toEqual(['main', 'n0', 'n1', 'after']);
    expect(indexSbom({ components: [root] }).attribute(tarball).map((m) => m.bomRef)).toEqual(['deep']);
  });

  it('a built object with cycles and throwing getters: each component read once, the bad one skipped', () => {
    const a: Record<string, unknown> = { name: 'a', version: '1.0.0', purl: 'pkg:npm/x@1.0.0', 'bom-ref': 'a' };
    const list: unknown[] = [a];
    a.components = list; // a contains itself
    const bad = { name: 'bad' };
    Object.defineProperty(bad, 'purl', { enumerable: true, get() { throw new Error('no'); } });
    list.push(bad, { name: 'z', version: '1.0.0' });
    const sbom = { components: list };
    expect(readSbomComponents(sbom).map((c) => c.name)).toEqual(['a', 'z']);
    expect(indexSbom(sbom).attribute(tarball).map((m) => m.bomRef)).toEqual(['a']);
    const trap = new Proxy({}, { get() { throw new Error('trap'); }, has() { throw new Error('trap'); }, getOwnPropertyDescriptor() { throw new Error('trap'); } });
    expect(readSbomComponents(trap)).toEqual([]);
    expect(readSbomComponents({ components: [trap, good] }).map((c) => c.bomRef)).toEqual(['good']);
  });

  it('huge arrays and huge strings: indexed and answered in bounded time', () => {
    const components = Array.from({ length: 50_000 }, (_, i) => ({ name: `p${i}`, version: '1.0.0', purl: `pkg:npm/p${i}@1.0.0`, 'bom-ref': `r${i}` }));
    components.push({ name: 'big', version: '1.0.0', purl: `pkg:npm/${'a'.repeat(1_000_000)}@1.0.0`, 'bom-ref': 'big' });
    const started = Date.now();
    const index = indexSbom({ components, externalReferences: new Array(1_000_000).fill({ type: 'vcs', url: 'x' }) });
    let found = 0;
    for (let i = 0; i < 50_000; i++) found += index.attribute({ kind: 'http', method: 'GET', url: `https://registry.npmjs.org/p${i}/-/p${i}-1.0.0.tgz` }).length;
    index.attribute({ kind: 'http', method: 'GET', url: `https://registry.npmjs.org/${'a'.repeat(1_000_000)}/-/${'a'.repeat(1_000_000)}-1.0.0.tgz` });
    expect(found).toBe(50_000);
    // About 1.5 s on a loaded two-core machine: the bound only catches a hang or a quadratic walk.
    expect(Date.now() - started).toBeLessThan(15_000);
  });
});
