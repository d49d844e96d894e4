/**
 * The linear index (collapsed copies, lists keyed by version, digest and tag, a set to keep each
 * entry once, a bound on candidates) held to the reference (naive.ts: every component judged,
 * entries compared pairwise) on SBOMs made of few components written many times over, exactly
 * alike or alike but for one member, as hostile and generated SBOMs are.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { Access } from '../eval/access';
import { foldVersion, indexSbom, indexSbomWith } from './index-sbom';
import { attributeNaive } from './naive';
import { normaliseVersion } from './names';
import type { Ecosystem } from './types';

const DIGEST_A = `sha256:${'a'.repeat(64)}`;
const DIGEST_B = `sha256:${'b'.repeat(64)}`;

/** Purls, plain name/version pairs and references few enough that components collide often. */
const purl = fc.constantFrom(
  undefined,
  'pkg:npm/lodash@4.17.21', 'pkg:npm/lodash@4.17.20', 'pkg:npm/lodash', 'pkg:npm/%40acme/ui@1.0.0',
  'pkg:pypi/foo-bar@1.0', 'pkg:pypi/Foo_Bar@1.0', 'pkg:golang/example.com/mod@v1.2.0', 'pkg:golang/example.com/mod@1.2.0',
  `pkg:oci/app@${encodeURIComponent(DIGEST_A)}?repository_url=registry.example.com/team/app&tag=1.0`,
  `pkg:oci/app@${encodeURIComponent(DIGEST_B)}?repository_url=registry.example.com/team/app&tag=2.0`,
  `pkg:oci/app@${encodeURIComponent(DIGEST_A)}?repository_url=registry.example.com`,
  `pkg:oci/app@${encodeURIComponent(DIGEST_A)}`,
  'pkg:oci/app?repository_url=registry.example.com/other/app&tag=1.0',
  'pkg:github/acme/mono@v1.0.0', 'pkg:github/acme/mono@1.0.0', 'pkg:github/acme/mono',
  'pkg:deb/debian/curl@1:7.88.1-10?arch=amd64',
);
const component = fc.record({
  'bom-ref': fc.constantFrom(undefined, 'a', 'b'),
  name: fc.constantFrom('lodash', 'foo-bar', 'Foo_Bar', 'mod', 'app', 'mono', 'curl', 'ui'),
  group: fc.constantFrom(undefined, undefined, '@acme', 'example.com'),
  version: fc.constantFrom(undefined, '4.17.21', 'v4.17.21', '1.0', 'V1.0', '1:7.88.1-10', '7.88.1-10', '1.2.0', 'v1.2.0', '1.0.0'),
  purl,
  externalReferences: fc.subarray([
    { type: 'distribution', url: 'https://registry.npmjs.org/lodash/-/lodash-4.17.21.tgz' },
    { type: 'distribution', url: 'https://files.example.com/x.tgz' },
    { type: 'source-distribution', url: 'https://files.example.com/x.tgz/' },
    { type: 'vcs', url: 'https://github.com/acme/mono.git' },
    { type: 'vcs', url: 'git@github.com:acme/other.git' },
  ]),
}, { requiredKeys: ['name'] });

/** A copy of a component: exact, or with one member changed (another bom-ref, group, version, or one reference less). */
const copy = fc.constantFrom('same', 'same', 'bom-ref', 'group', 'version', 'reference');
function copyOf(c: Record<string, unknown>, how: string): Record<string, unknown> {
  const out = { ...c };
  if (how === 'bom-ref') out['bom-ref'] = c['bom-ref'] === 'a' ? 'b' : 'a';
  else if (how === 'group') out.group = c.group === undefined ? '@acme' : undefined;
  else if (how === 'version') out.version = c.version === '1.0' ? 'V1.0' : '1.0';
  else if (how === 'reference') out.externalReferences = ((c.externalReferences as unknown[] | undefined) ?? []).slice(1);
  return out;
}

/** Each component written 1 to 4 times, exactly or nearly, some copies at once, some apart. */
const sbom = fc.array(fc.tuple(component, fc.array(copy, { maxLength: 3 })), { maxLength: 10 }).chain((parts) => {
  const list = parts.flatMap(([c, copies]) => [c, ...copies.map((how) => copyOf(c, how))]);
  return fc.shuffledSubarray(list, { minLength: list.length, maxLength: list.length });
}).map((components) => ({ bomFormat: 'CycloneDX', specVersion: '1.7', components }));

const get = (url: string): Access => ({ kind: 'http', method: 'GET', url });
const ACCESSES: Access[] = [
  get('https://registry.npmjs.org/lodash/-/lodash-4.17.21.tgz'),
  get('https://registry.npmjs.org/lodash/-/lodash-4.17.20.tgz'),
  get('https://registry.npmjs.org/lodash'),
  get('https://registry.npmjs.org/@acme/ui/-/ui-1.0.0.tgz'),
  get('https://files.example.com/x.tgz'),
  get('https://files.pythonhosted.org/packages/source/f/foo_bar/foo_bar-1.0.tar.gz'),
  get('https://pypi.org/simple/foo-bar/'),
  get('https://proxy.golang.org/example.com/mod/@v/v1.2.0.zip'),
  get('https://proxy.golang.org/example.com/mod/@v/list'),
  get(`https://registry.example.com/v2/team/app/manifests/${DIGEST_A}`),
  get(`https://registry.example.com/v2/other/app/manifests/${DIGEST_A}`),
  get('https://registry.example.com/v2/team/app/manifests/1.0'),
  get('https://registry.example.com/v2/other/app/manifests/1.0'),
  get(`https://registry.example.com/v2/team/app/blobs/${DIGEST_B}`),
  get('https://github.com/acme/mono/archive/refs/tags/v1.0.0.tar.gz'),
  get('https://github.com/acme/mono.git/info/refs'),
  { kind: 'ssh', host: 'github.com', port: 22, repositoryPath: '/acme/other.git' },
  get('http://deb.debian.org/debian/pool/main/c/curl/curl_7.88.1-10_amd64.deb'),
];

describe('the linear index answers as the reference', () => {
  it('on SBOMs of components written many times over, alike or nearly', () => {
    fc.assert(fc.property(sbom, (doc) => {
      const index = indexSbom(doc);
      for (const a of ACCESSES) expect({ a, got: index.attribute(a) }).toEqual({ a, got: attributeNaive(doc, a) });
    }), { numRuns: 500 });
  });

  it('bounded to a few candidates: part of the reference\'s answer, its strongest match first', () => {
    fc.assert(fc.property(sbom, fc.integer({ min: 1, max: 4 }), (doc, max) => {
      const index = indexSbomWith(doc, { maxCandidates: max });
      for (const a of ACCESSES) {
        const got = index.attribute(a);
        const all = attributeNaive(doc, a);
        expect(got.length).toBeLessThanOrEqual(max);
        for (const m of got) expect(all).toContainEqual(m);
        if (all.length > 0 && all[0].match !== 'name-only') expect(got[0]?.match).toBe(all[0].match);
      }
    }), { numRuns: 300 });
  });

  it('foldVersion is coarser than every ecosystem\'s version rule (components without a purl are looked up by it)', () => {
    const ecosystems: Ecosystem[] = ['npm', 'pypi', 'cargo', 'golang', 'gem', 'oci', 'apk', 'deb', 'git'];
    const version = fc.string({ unit: fc.constantFrom('v', 'V', '0', '1', '9', ':', '.', '-', 'a', 'B', 'Σ', 'İ'), maxLength: 8 });
    fc.assert(fc.property(fc.constantFrom(...ecosystems), version, (eco, v) => {
      expect(foldVersion(normaliseVersion(eco, v))).toBe(foldVersion(v));
    }), { numRuns: 2000 });
  });
});
