/**
 * fast-purl.ts held to packageurl-js: whenever the fast reader answers, `PackageURL.fromString`
 * answers the same type, namespace, name, version and qualifiers; when packageurl-js throws, the
 * fast reader does not answer. Over generated purls (built from the characters and forms where the
 * two could part: escapes, `@` and `/` anywhere, empty segments, qualifiers' keys and values) and
 * every purl of fixtures/sbom-corpus and fixtures/sboms.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { PackageURL } from 'packageurl-js';
import { fastPurl } from './fast-purl';

function reference(purl: string): unknown {
  let p: PackageURL;
  try {
    p = PackageURL.fromString(purl);
  } catch {
    return 'throws';
  }
  const qualifiers = p.qualifiers === undefined ? undefined : { ...(p.qualifiers as Record<string, string>) };
  return { type: p.type, namespace: p.namespace, name: p.name, version: p.version, qualifiers };
}

function check(purl: string): boolean {
  const fast = fastPurl(purl);
  if (fast === undefined) return false;
  const plain = { ...fast, qualifiers: fast.qualifiers === undefined ? undefined : { ...fast.qualifiers } };
  expect(plain, purl).toEqual(reference(purl));
  return true;
}

const TYPES = ['npm', 'pypi', 'cargo', 'golang', 'gem', 'maven', 'oci', 'apk', 'alpine', 'deb', 'github', 'gitlab', 'bitbucket', 'generic', 'NPM', 'Pypi', 'conan', 'swift', 'pub', ''];
/** Characters of a segment: letters of both cases, digits, and every character the reader must think about. */
const segmentChar = fc.constantFrom(...'aAbZz09_-.~:+@!$\'()*,;= %#?/&'.split(''), '%40', '%3A', '%3a', '%2B', '%2F', '%20', '%25', '%2', '%zz', '%C3%A9', '%09', '\t', 'é', '\u00a0');
const segment = fc.array(segmentChar, { maxLength: 8 }).map((cs) => cs.join(''));
const simpleSegment = fc.stringMatching(/^[A-Za-z0-9._-]{1,8}$/);
const version = fc.oneof(fc.constant('v1.2.3'), fc.constant('v1.2'), fc.constant('1.0.0+build.1'), fc.constant('1:2.3-4'), fc.constant('sha256%3Aabc'), simpleSegment, segment);
const key = fc.oneof(fc.constantFrom('repository_url', 'download_url', 'vcs_url', 'classifier', 'tag', 'type', 'arch', 'Distro', 'TAG', '1x', '', '__proto__', 'a b', 'k%41'), segment);
const value = fc.oneof(fc.constantFrom('https://example.com/a/b', 'registry.example.com/team/app', 'x86_64', 'git+https://g.com/o/r.git@v1', 'a=b', 'a+b', 'a%20b', ' x ', ''), segment);
const qualifiers = fc.array(fc.tuple(key, value), { maxLength: 4 }).map((qs) => qs.map(([k, v]) => `${k}=${v}`).join('&'));

/** Near the common forms: one character of a segment in a few odd, the rest plain. */
const tameSegment = fc.oneof({ weight: 4, arbitrary: simpleSegment }, { weight: 1, arbitrary: fc.tuple(simpleSegment, segmentChar).map(([a, b]) => a + b) });
const tame = fc.tuple(
  fc.constantFrom(...TYPES.slice(0, 14)),
  fc.array(fc.oneof({ weight: 6, arbitrary: tameSegment }, { weight: 1, arbitrary: fc.constantFrom('@scope', '%40scope', '') }), { maxLength: 3 }),
  tameSegment,
  fc.option(fc.oneof({ weight: 3, arbitrary: fc.constantFrom('v1.2.3', 'v1.2', '1.0.0+build.1', '1:2.3-4', 'sha256%3Aabc', '1.0.0-RC1', 'v0.0.0-20210101000000-abcdef123456') }, { weight: 2, arbitrary: tameSegment })),
  fc.option(fc.array(fc.tuple(fc.oneof({ weight: 3, arbitrary: fc.constantFrom('repository_url', 'classifier', 'tag', 'Arch', 'distro') }, { weight: 1, arbitrary: key }), fc.oneof({ weight: 3, arbitrary: simpleSegment }, { weight: 1, arbitrary: value })), { minLength: 1, maxLength: 3 }).map((qs) => qs.map(([k, v]) => `${k}=${v}`).join('&'))),
).map(([type, ns, name, v, q]) => `pkg:${type}/${[...ns, name].join('/')}${v === null ? '' : `@${v}`}${q === null ? '' : `?${q}`}`);

const wild = fc.tuple(
  fc.constantFrom('pkg:', 'pkg:', 'pkg:', 'PKG:', 'pkg:/', 'pkg://', 'pk:'),
  fc.constantFrom(...TYPES),
  fc.array(fc.oneof(simpleSegment, simpleSegment, segment, fc.constant('@scope'), fc.constant('%40scope'), fc.constant('')), { maxLength: 3 }),
  fc.oneof(simpleSegment, segment),
  fc.option(version),
  fc.option(qualifiers),
  fc.option(fc.constantFrom('sub/path', '', 'x')),
).map(([scheme, type, ns, name, v, q, sub]) => `${scheme}${type}/${[...ns, name].join('/')}${v === null ? '' : `@${v}`}${q === null ? '' : `?${q}`}${sub === null ? '' : `#${sub}`}`);

function corpusPurls(): string[] {
  const out = new Set<string>();
  const walk = (dir: string): void => {
    for (const f of readdirSync(dir)) {
      const p = join(dir, f);
      if (statSync(p).isDirectory()) walk(p);
      else if (f.endsWith('.json')) {
        const text = readFileSync(p, 'utf8');
        for (const m of text.matchAll(/"purl"\s*:\s*"((?:[^"\\]|\\.)*)"/g)) {
          try { out.add(JSON.parse(`"${m[1]}"`) as string); } catch { /* not a string */ }
        }
      }
    }
  };
  for (const d of ['sbom-corpus', 'sboms', 'attribution']) {
    try { walk(join(__dirname, '../../../../fixtures', d)); } catch { /* absent */ }
  }
  return [...out];
}

describe('fastPurl', () => {
  it('answers as packageurl-js on generated purls, or leaves them to it', () => {
    let answered = 0;
    fc.assert(fc.property(fc.oneof({ weight: 3, arbitrary: tame }, { weight: 1, arbitrary: wild }), (p) => { if (check(p)) answered++; }), { numRuns: 20000 });
    // The generator reaches the fast path often enough to test it.
    expect(answered).toBeGreaterThan(2000);
  });

  it('answers as packageurl-js on every purl of the fixtures, and takes most of them', () => {
    const purls = corpusPurls();
    expect(purls.length).toBeGreaterThan(500);
    let answered = 0;
    for (const p of purls) if (check(p)) answered++;
    expect(answered / purls.length).toBeGreaterThan(0.5);
  });

  it('answers as packageurl-js on the forms real tools write', () => {
    for (const p of [
      'pkg:npm/%40scope-0/lib-0@1.0.0', 'pkg:npm/lodash@4.17.21', 'pkg:npm/@Scope/Name@1.0.0', 'pkg:npm/@scope/name',
      'pkg:pypi/Foo_Bar@1.0?file_name=x.whl', 'pkg:golang/github.com/Foo/bar@v1.2.3-0.20210101000000-abcdef123456', 'pkg:golang/x.io/y@v1.2',
      'pkg:maven/io.quarkus/quarkus-core@2.13.4.Final?type=jar&classifier=sources', 'pkg:maven/nogroup@1.0',
      'pkg:oci/app@sha256%3Aabc?repository_url=registry.example.com/team/app&tag=1.0', 'pkg:oci/ns/app@1',
      'pkg:deb/debian/curl@7.88.1-10%2Bdeb12u5?arch=amd64&distro=debian-12', 'pkg:apk/alpine/musl@1.2.4-r2?arch=x86_64&upstream=musl&distro=alpine-3.19.0',
      'pkg:github/Acme/Repo@v1.0.0', 'pkg:cargo/serde@1.0.0', 'pkg:gem/rails@7.1.0?platform=ruby', 'pkg:generic/x@1?download_url=https://e.com/x.tgz',
      'pkg:npm/a@b/c', 'pkg:npm/x?A=1&a=2', 'pkg:npm/x?a=', 'pkg:npm/x?=1', 'pkg:npm/x?1a=b',
    ]) check(p);
  });
});
