/**
 * `claimsOfUrl` runs only the form readers a URL's host and path may need (issue 32: one map
 * look-up and a few comparisons for a request of no package); `claimsOfUrlEveryForm` runs them all.
 * Held to the same claims, in the same order: on paths built of the segments and file names every
 * reader looks for (on registry, Maven, forge and other hosts, escapes and odd segments included),
 * on arbitrary paths, on the documented forms of url-forms.test.ts and on the bench's requests.
 * Maven's bases compared with the path as the former look-up of a prefix per segment did; pep503's
 * scan as its regular expression.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseUrl } from '../eval/url';
import { claimsOfUrl, claimsOfUrlEveryForm, DEFAULT_REGISTRY_HOSTS, type RegistryHosts } from './url-forms';
import { mavenClaims, mavenPathClaims, MAX_BASE_SEGMENTS } from './maven';
import { decodeSegment, pep503 } from './names';
import type { Claim, Ecosystem } from './types';
// @ts-expect-error: the bench's generator is plain JavaScript (its requests are what the row measures).
import { mixedComponent } from '../../../../bench/sbom-data.mjs';

const hosts: RegistryHosts = (() => {
  const m = new Map<Ecosystem, Set<string>>([...DEFAULT_REGISTRY_HOSTS].map(([k, v]) => [k, new Set(v)]));
  m.get('npm')!.add('npm.internal.example');
  m.set('pypi', new Set(['pypi.internal.example']));
  m.get('maven')!.add('maven.internal.example/repository/releases').add('maven.internal.example').add('repo.example.com/a/b/c').add('repo.example.com/a').add('repo.example.com/a/b/cd/e');
  return m;
})();

const HOSTS = [
  'registry.npmjs.org', 'npm.internal.example', 'pypi.org', 'pypi.internal.example', 'files.pythonhosted.org', 'index.crates.io', 'static.crates.io',
  'rubygems.org', 'index.rubygems.org', 'sum.golang.org', 'proxy.golang.org', 'repo1.maven.org', 'maven.internal.example', 'repo.example.com',
  'github.com', 'codeload.github.com', 'api.github.com', 'bitbucket.org', 'codeberg.org', 'gitea.com', 'gitlab.com', 'registry.example.com', 'example.org',
];

/** Segments the readers look for, and some that come near them. */
const SEGMENTS = [
  '-', 'archive', 'simple', '+simple', 'pypi', 'json', 'packages', '@v', '@latest', 'list', 'crates', 'api', 'v1', 'v2', 'download', 'gems', 'quick',
  'Marshal.4.8', 'info', 'refs', 'tags', 'heads', 'git-upload-pack', 'git-receive-pack', 'manifests', 'blobs', 'tags', 'lookup', 'releases', 'get',
  'tar.gz', 'zip', 'legacy.zip', 'repos', 'tarball', 'zipball', 'maven2', 'repository', 'releases', 'a', 'b', 'c', 'org', 'acme', 'app', 'lib',
  '1.0.0', 'v1.2.3', '1.0-SNAPSHOT', 'maven-metadata.xml', 'pool', 'main', 'x86_64', '', '.', '..', 'ex%41mple', '%2e', 'simple%2f', '%40v', 'ab', 'cd', 'se',
];

/** File names of every form, and near misses. */
const FILES = [
  'lodash-4.17.21.tgz', 'core-7.26.0.tgz', 'requests-2.32.3-py3-none-any.whl', 'requests-2.32.3.tar.gz', 'x-1.0.zip', 'x-1.0.tar.bz2', 'x-1.0.tar.xz',
  'serde-1.0.0.crate', 'v1.2.3.zip', 'v1.2.3.mod', 'v1.2.3.info', 'rails-7.0.0.gem', 'rails-7.0.0.gemspec.rz', 'musl-1.2.5-r0.apk', 'libc6_2.36-9_amd64.deb',
  'x_1.0_all.udeb', 'x_1.0_all.ddeb', 'app-1.0.jar', 'app-1.0.pom', 'app-1.0.jar.sha1', 'app-1.0.pom.asc', 'app-1.0-sources.jar.md5', 'app-1.0.module',
  'maven-metadata.xml.sha1', 'sha256:' + 'a'.repeat(64), 'latest', 'app.tgz', 'repo.git', 'x.tar', 'x.tgz', 'index.html', 'x.debx', 'deb', '.apk', 'json',
  'x%2Etgz', 'requests-2.32.3-py3-none-any%2ewhl', 'git-upload-pack', '@latest', 'download', 'x.whl.sig', 'x.gemspec',
];

const segment = fc.oneof(fc.constantFrom(...SEGMENTS), fc.string({ unit: fc.constantFrom(...'abc-_.@+%2fA/'), maxLength: 6 }));
const path = fc.tuple(fc.array(segment, { maxLength: 9 }), fc.option(fc.constantFrom(...FILES), { nil: undefined }), fc.boolean())
  .map(([segs, file, slash]) => `/${[...segs, ...(file !== undefined ? [file] : [])].join('/')}${slash ? '/' : ''}`);
/** The documented forms' paths, `N`, `V` and `R` filled in, under a mirror's prefix or none. */
const TEMPLATES = [
  '/N/-/N-V.tgz', '/@s/N/-/N-V.tgz', '/N', '/N/V', '/@s%2fN', '/simple/N/', '/+simple/N', '/pypi/N/json', '/pypi/N/V/json', '/packages/a/b/N-V-py3-none-any.whl',
  '/packages/N-V.tar.gz', '/simple/N/N-V.zip', '/api/v1/crates/N/V/download', '/crates/N/V/download', '/crates/N/N-V.crate', '/api/v1/crates/N', '/3/n/N', '/se/rd/N',
  '/github.com/o/N/@v/V.zip', '/github.com/o/N/@v/list', '/github.com/o/N/@latest', '/lookup/github.com/o/N@V', '/gems/N-V.gem', '/quick/Marshal.4.8/N-V.gemspec.rz',
  '/info/N', '/api/v1/gems/N.json', '/alpine/v3.20/main/x86_64/N-V-r0.apk', '/debian/pool/main/n/N/N_V_amd64.deb', '/v2/o/N/manifests/V', '/v2/N/blobs/sha256:ab',
  '/o/N.git/info/refs', '/o/N/git-upload-pack', '/g/s/N/-/archive/R/N-R.tar.gz', '/o/N/archive/R.zip', '/o/N/archive/refs/tags/R.tar.gz', '/o/N/releases/download/R/x',
  '/o/N/get/R.tar.gz', '/o/N/tar.gz/R', '/o/N/zip/refs/heads/R', '/repos/o/N/tarball/R', '/maven2/g/N/V/N-V.jar', '/repository/releases/g/h/N/V/N-V-sources.jar.sha1',
  '/a/b/c/g/N/maven-metadata.xml', '/g/N/V-SNAPSHOT/N-V-20240105.101010-3.pom', '/a/b/c/d/N/V/N-V.jar', '/a/b/N/V/N-V.jar', '/maven2/a/b/N/V/N-V.pom',
];
const word = fc.string({ unit: fc.constantFrom(...'abcxyz09-_.'), minLength: 1, maxLength: 8 });
const form = fc.tuple(fc.constantFrom(...TEMPLATES), word, fc.constantFrom('1.0.0', '2.3', 'v1.2.3', '1.0-SNAPSHOT', 'abcdef1234567'), word, fc.constantFrom('', '/mirror', '/api/npm/remote', '/a/b'))
  .map(([t, n, v, r, prefix]) => prefix + t.replace(/N/g, n).replace(/V/g, v).replace(/R/g, r));
const url = fc.tuple(fc.constantFrom('https', 'http'), fc.constantFrom(...HOSTS), fc.oneof(path, form, form, fc.string({ maxLength: 40 }).map((s) => `/${s}`)), fc.constantFrom('', '?a=1', '#x'))
  .map(([scheme, host, p, tail]) => `${scheme}://${host}${p}${tail}`);

function same(text: string): void {
  const u = parseUrl(text);
  if (!u) return;
  expect(claimsOfUrl(u, hosts), text).toEqual(claimsOfUrlEveryForm(u, hosts));
}

describe('claimsOfUrl reads the forms a URL may have', () => {
  it('claims as every reader does, on paths of the forms\' segments and files', () => {
    fc.assert(fc.property(url, same), { numRuns: 20_000 });
  });

  it('Maven: each base of the host compared with the path, as a prefix built and looked up per segment did', () => {
    const bases = hosts.get('maven')!;
    // The former reading: the host, then each of the path's first segments added, looked up.
    const reference = (s: string[], host: string): Claim[] => {
      const out: Claim[] = [];
      let prefix = host;
      for (let i = 0; i <= Math.min(s.length - 4, MAX_BASE_SEGMENTS); i++) {
        if (i > 0) prefix += `/${s[i]}`;
        if (bases.has(prefix)) mavenPathClaims(s.slice(i + 1).map(decodeSegment), out);
      }
      return out;
    };
    // Paths under a base, under one near it (`/a/bc`, `/a`), with few segments after it or many, escapes among them.
    const mavenUrl = fc.tuple(fc.constantFrom('repo.example.com', 'maven.internal.example', 'repo1.maven.org'), fc.constantFrom('', '/a', '/a/b', '/a/b/c', '/a/bc', '/a/b/cd', '/repository/releases', '/repository/releasesx', '/maven2', '/maven'),
      fc.array(fc.constantFrom('g', 'h', 'art', '1.0', 'art-1.0.jar', 'maven-metadata.xml', '', '%61rt', '1%2e0', 'art-1.0%2ejar'), { maxLength: 6 }))
      .map(([host, base, rest]) => `https://${host}${base}/${rest.join('/')}`);
    fc.assert(fc.property(fc.oneof(url, mavenUrl, mavenUrl), (text) => {
      const u = parseUrl(text);
      if (!u || u.path.length < 2) return;
      const s = u.path.split('/');
      const out: Claim[] = [];
      if (s.length >= 4) mavenClaims(s, u.host, bases, out);
      expect(out, text).toEqual(s.length >= 4 ? reference(s, u.host) : []);
      // Given the path's text (readForms gives it): segments without escapes are not decoded again.
      const withPath: Claim[] = [];
      if (s.length >= 4) mavenClaims(s, u.host, bases, withPath, u.path);
      expect(withPath, text).toEqual(out);
    }), { numRuns: 20_000 });
  });

  it('claims as every reader does, on the bench\'s requests (hits, near misses, no package)', () => {
    let n = 0;
    for (let i = 0; i < 3000; i++) {
      const c = mixedComponent(i) as { hit: (r: (k: number) => number, n: number) => string; near: (r: (k: number) => number, n: number) => string };
      for (let k = 0; k < 6; k++) {
        const pick = (m: number) => k % m;
        same(c.hit(pick, i + k));
        same(c.near(pick, i + k));
        n += 2;
      }
    }
    for (const u of ['https://t1.telemetry.example.io/v1/collect?id=1', 'https://api.example.org/v1/items/1', 'https://github.com/acme/app/releases/download/v1/app-linux-amd64', 'https://registry.npmjs.org/-/npm/v1/security/advisories/bulk?n=1', 'https://cdn-1.assets.example.net/static/1.js']) same(u);
    expect(n).toBe(36_000);
  });
});

describe('pep503', () => {
  it('is the regular expression of PEP 503 (its scan for names already normalised included)', () => {
    const chars = fc.constantFrom(...'abzAZ09-_.-Äé'.split(''));
    fc.assert(fc.property(fc.string({ unit: chars, maxLength: 12 }), (name) => {
      expect(pep503(name)).toBe(name.replace(/[-_.]+/g, '-').toLowerCase());
    }), { numRuns: 5_000 });
  });
});
