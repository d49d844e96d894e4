/**
 * Attribution is linear in components plus accesses (security issue 28, item 4): an SBOM of
 * 300,000 components that one access could all name (identical, one name in distinct versions,
 * one distribution or VCS URL shared) is indexed and answers 50 accesses, each with the component
 * the access fetched, each entry once. No time budget (bench/sbom.bench.mjs measures): vitest's
 * timeout (120 s, vitest.config.ts) is the hang bound, where each case takes a few seconds and the
 * quadratic walk took hours (300,000^2 / 2 comparisons per access).
 */
import { describe, expect, it } from 'vitest';
import type { Access } from '../eval/access';
import { indexSbom, MAX_CANDIDATES } from './index-sbom';
import { attributeNaive } from './naive';

const N = 300_000;
const get = (url: string): Access => ({ kind: 'http', method: 'GET', url });
const tarball = (v: string) => get(`https://registry.npmjs.org/lodash/-/lodash-${v}.tgz`);
const sbomOf = (count: number, component: (i: number) => object) => ({ bomFormat: 'CycloneDX', specVersion: '1.7', components: Array.from({ length: count }, (_, i) => component(i)) });
const lodash = { purl: 'pkg:npm/lodash@4.17.21', name: 'lodash', version: '4.17.21', match: 'purl' };

describe('attribution is linear in components plus accesses', () => {
  it('300,000 identical components: each of 50 downloads is the one component, once', () => {
    const sbom = sbomOf(N, () => ({ type: 'library', name: 'lodash', version: '4.17.21', purl: 'pkg:npm/lodash@4.17.21' }));
    const index = indexSbom(sbom);
    expect(index.componentCount).toBe(N);
    for (let i = 0; i < 50; i++) expect(index.attribute(tarball('4.17.21'))).toEqual([lodash]);
    // The packument names every version: still the one component, name only.
    expect(index.attribute(get('https://registry.npmjs.org/lodash'))).toEqual([{ ...lodash, match: 'name-only' }]);
    // As the reference answers (it judges all 300,000).
    expect(attributeNaive(sbom, tarball('4.17.21'))).toEqual([lodash]);
  });

  it('300,000 identical components with one bom-ref, and with a bom-ref each', () => {
    const same = indexSbom(sbomOf(N, () => ({ 'bom-ref': 'lodash', name: 'lodash', version: '4.17.21', purl: 'pkg:npm/lodash@4.17.21' })));
    for (let i = 0; i < 50; i++) expect(same.attribute(tarball('4.17.21'))).toEqual([{ bomRef: 'lodash', ...lodash }]);
    // Distinct bom-refs are distinct components: an access names at most MAX_CANDIDATES, the first in the SBOM.
    const each = indexSbom(sbomOf(N, (i) => ({ 'bom-ref': `r${i}`, name: 'lodash', version: '4.17.21', purl: 'pkg:npm/lodash@4.17.21' })));
    for (let i = 0; i < 50; i++) {
      const got = each.attribute(tarball('4.17.21'));
      expect(got.length).toBe(MAX_CANDIDATES);
      expect([got[0], got[MAX_CANDIDATES - 1]]).toEqual([{ bomRef: 'r0', ...lodash }, { bomRef: `r${MAX_CANDIDATES - 1}`, ...lodash }]);
    }
  });

  it('300,000 distinct versions of one name: each download is its own version', () => {
    const version = (i: number) => `${i >> 10}.${i & 1023}.0`;
    const index = indexSbom(sbomOf(N, (i) => ({ 'bom-ref': `v${i}`, name: 'lodash', version: version(i), purl: `pkg:npm/lodash@${version(i)}` })));
    for (let k = 0; k < 50; k++) {
      const i = (k * 6007 + N - 50) % N; // spread over the SBOM, the last ones included
      expect(index.attribute(tarball(version(i)))).toEqual([{ bomRef: `v${i}`, purl: `pkg:npm/lodash@${version(i)}`, name: 'lodash', version: version(i), match: 'purl' }]);
    }
    expect(index.attribute(tarball('9.9.9-absent'))).toEqual([]);
    // The packument names them all: the first MAX_CANDIDATES, name only.
    const all = index.attribute(get('https://registry.npmjs.org/lodash'));
    expect(all.length).toBe(MAX_CANDIDATES);
    expect(all.every((m, i) => m.bomRef === `v${i}` && m.match === 'name-only')).toBe(true);
  });

  it('300,000 versions without a purl: each download is its own version, name only', () => {
    const index = indexSbom(sbomOf(N, (i) => ({ 'bom-ref': `p${i}`, name: 'lodash', version: `1.0.${i}` })));
    for (let k = 0; k < 50; k++) {
      const i = N - 1 - k * 5003;
      expect(index.attribute(tarball(`1.0.${i}`))).toEqual([{ bomRef: `p${i}`, name: 'lodash', version: `1.0.${i}`, match: 'name-only' }]);
    }
  });

  it('300,000 components sharing one distribution URL: identical ones are one, the purl match comes first', () => {
    const url = 'https://files.example.com/internal/tool-1.0.0.tgz';
    const identical = indexSbom(sbomOf(N, () => ({ name: 'tool', version: '1.0.0', externalReferences: [{ type: 'distribution', url }] })));
    for (let i = 0; i < 50; i++) expect(identical.attribute(get(url))).toEqual([{ name: 'tool', version: '1.0.0', match: 'distribution-url' }]);
    // Every version of lodash claims the 4.17.21 tarball as its download, 4.17.21 itself last.
    const shared = indexSbom(sbomOf(N, (i) => {
      const v = i === N - 1 ? '4.17.21' : `0.${i}.0`;
      return { 'bom-ref': `d${i}`, name: 'lodash', version: v, purl: `pkg:npm/lodash@${v}`, externalReferences: [{ type: 'distribution', url: tarball('4.17.21').url }] };
    }));
    for (let i = 0; i < 50; i++) {
      const got = shared.attribute(tarball('4.17.21'));
      expect(got[0]).toEqual({ bomRef: `d${N - 1}`, ...lodash });
      expect(got.length).toBe(MAX_CANDIDATES);
      expect(got.slice(1).every((m, j) => m.bomRef === `d${j}` && m.match === 'distribution-url')).toBe(true);
    }
  });

  it('300,000 components sharing one VCS URL: a clone names them (bounded), a tag download its purl first', () => {
    const vcs = [{ type: 'vcs', url: 'https://github.com/acme/mono.git#v2.0.0' }];
    const identical = indexSbom(sbomOf(N, () => ({ name: 'mono-part', version: '1.0.0', externalReferences: vcs })));
    const clone: Access = { kind: 'ssh', host: 'github.com', port: 22, repositoryPath: '/acme/mono.git' };
    for (let i = 0; i < 50; i++) expect(identical.attribute(clone)).toEqual([{ name: 'mono-part', version: '1.0.0', match: 'vcs-url' }]);
    const parts = indexSbom(sbomOf(N, (i) => i === N - 1
      ? { 'bom-ref': 'mono', name: 'mono', version: 'v2.0.0', purl: 'pkg:github/acme/mono@v2.0.0' }
      : { 'bom-ref': `m${i}`, name: `part-${i}`, version: '2.0.0', purl: `pkg:npm/%40acme/part-${i}@2.0.0`, externalReferences: vcs }));
    for (let i = 0; i < 50; i++) {
      // Another tag: no reference names it.
      expect(parts.attribute(get('https://github.com/acme/mono/archive/refs/tags/v1.0.0.tar.gz'))).toEqual([]);
      const release = parts.attribute(get('https://github.com/acme/mono/archive/refs/tags/v2.0.0.tar.gz'));
      // The archive of the tag the parts' vcs references name: its parts follow, by those references.
      expect(release[0]).toEqual({ bomRef: 'mono', purl: 'pkg:github/acme/mono@v2.0.0', name: 'mono', version: 'v2.0.0', match: 'purl' });
      expect(release.length).toBe(MAX_CANDIDATES);
      expect(release.slice(1).every((m, j) => m.bomRef === `m${j}` && m.match === 'vcs-url')).toBe(true);
      const cloned = parts.attribute(clone);
      expect(cloned.length).toBe(MAX_CANDIDATES);
      expect(cloned.every((m, j) => m.bomRef === `m${j}` && m.match === 'vcs-url')).toBe(true);
    }
  });

  it('100,000 images of one name: a pull by digest or by tag is its own image', () => {
    const M = 100_000;
    const digest = (i: number) => `sha256:${i.toString(16).padStart(64, '0')}`;
    const index = indexSbom(sbomOf(M, (i) => ({
      'bom-ref': `o${i}`, name: 'app', version: digest(i),
      purl: `pkg:oci/app@${encodeURIComponent(digest(i))}?repository_url=registry.example.com/team-${i % 7}/app&tag=t${i}`,
    })));
    for (let k = 0; k < 50; k++) {
      const i = M - 1 - k * 1999;
      const repo = `team-${i % 7}/app`;
      expect(index.attribute(get(`https://registry.example.com/v2/${repo}/manifests/${digest(i)}`)).map((m) => [m.bomRef, m.match])).toEqual([[`o${i}`, 'purl']]);
      expect(index.attribute(get(`https://registry.example.com/v2/${repo}/manifests/t${i}`)).map((m) => [m.bomRef, m.match])).toEqual([[`o${i}`, 'purl']]);
    }
  });

  it('components of 256 distribution and VCS references each are read and judged without scanning the lists per reference', () => {
    const refs = (i: number) => Array.from({ length: 256 }, (_, j) => ({ type: j & 1 ? 'vcs' : 'distribution', url: `https://h${j}.example.com/${j & 1 ? 'r' : 'f'}/${i}/${j}` }));
    const index = indexSbom(sbomOf(4_000, (i) => ({ 'bom-ref': `x${i}`, name: `x${i}`, version: '1.0.0', externalReferences: refs(i) })));
    for (let k = 0; k < 50; k++) {
      const i = k * 79;
      expect(index.attribute(get(`https://h254.example.com/f/${i}/254`))).toEqual([{ bomRef: `x${i}`, name: `x${i}`, version: '1.0.0', match: 'distribution-url' }]);
      expect(index.attribute({ kind: 'ssh', host: 'h255.example.com', port: 22, repositoryPath: `/r/${i}/255` })).toEqual([{ bomRef: `x${i}`, name: `x${i}`, version: '1.0.0', match: 'vcs-url' }]);
    }
  });
});
