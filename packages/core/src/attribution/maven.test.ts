/** The Maven 2 layout: a URL printed from coordinates reads back to them (property); classifiers and bases. */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parseUrl } from '../eval/url';
import { indexSbom } from './index-sbom';
import { attributeNaive } from './naive';
import { claimsOfUrl, DEFAULT_REGISTRY_HOSTS } from './url-forms';
import type { Claim, Ecosystem } from './types';

const lower = 'abcdefghijklmnopqrstuvwxyz';
const chars = (set: string, min: number, max: number) => fc.string({ unit: fc.constantFrom(...set), minLength: min, maxLength: max });
const segment = chars(lower + '0123456789', 1, 8).filter((w) => /^[a-z]/.test(w));
const artifact = chars(lower + 'ABC0123456789-_', 1, 12).filter((a) => /^[a-zA-Z]/.test(a) && !a.endsWith('-'));
const version = fc.tuple(fc.nat(30), fc.nat(30), fc.nat(30), fc.constantFrom('', '.Final', '-RC1', '.RELEASE', '-jre', '-SNAPSHOT')).map(([a, b, c, q]) => `${a}.${b}.${c}${q}`);
const classifier = fc.option(chars(lower + '0123456789_-', 1, 12).filter((c) => /^[a-z]/.test(c)), { nil: undefined });
const ext = fc.constantFrom('jar', 'pom', 'module', 'aar', 'war', 'zip', 'tar.gz');
const signature = fc.constantFrom('', '.sha1', '.md5', '.sha256', '.sha512', '.asc', '.asc.sha1');
const base = fc.constantFrom('https://repo1.maven.org/maven2', 'https://repo.maven.apache.org/maven2', 'https://maven.google.com', 'https://plugins.gradle.org/m2', 'https://nexus.example.com/repository/maven-public');

const hosts = new Map<Ecosystem, Set<string>>([...DEFAULT_REGISTRY_HOSTS].map(([k, v]) => [k, new Set(v)]));
hosts.get('maven')!.add('nexus.example.com/repository/maven-public');

const claims = (url: string): Claim[] => claimsOfUrl(parseUrl(url)!, hosts).filter((c) => c.kind === 'package' && c.eco === 'maven');

describe('the Maven 2 layout', () => {
  it('a URL built from coordinates parses back to them (and to nothing else)', () => {
    fc.assert(fc.property(base, fc.array(segment, { minLength: 1, maxLength: 4 }), artifact, version, classifier, ext, signature, (b, group, a, v, c, e, sig) => {
      const file = `${a}-${v}${c !== undefined ? `-${c}` : ''}.${e}${sig}`;
      const expected: Claim = { kind: 'package', eco: 'maven', name: `${group.join('.')}/${a}`, version: v };
      if (c !== undefined) expected.classifier = c;
      if (c === undefined && (e === 'pom' || e === 'module')) expected.shared = true;
      expect(claims(`${b}/${group.join('/')}/${a}/${v}/${file}`)).toEqual([expected]);
      // Metadata: the name, never a version.
      expect(claims(`${b}/${group.join('/')}/${a}/maven-metadata.xml${sig}`)).toEqual([{ kind: 'package', eco: 'maven', name: `${group.join('.')}/${a}` }]);
      // Under no known base: nothing.
      expect(claims(`https://elsewhere.example.com/m2/${group.join('/')}/${a}/${v}/${file}`)).toEqual([]);
    }), { numRuns: 500 });
  });

  const sbom = {
    components: [
      { 'bom-ref': 'plain', name: 'netty-transport-native-epoll', purl: 'pkg:maven/io.netty/netty-transport-native-epoll@4.1.115.Final?type=jar' },
      { 'bom-ref': 'linux', name: 'netty-transport-native-epoll', purl: 'pkg:maven/io.netty/netty-transport-native-epoll@4.1.115.Final?type=jar&classifier=linux-x86_64' },
      { 'bom-ref': 'spring', name: 'spring-core', purl: 'pkg:maven/org.springframework/spring-core@6.1.0?repository_url=https://repo.spring.io/release' },
    ],
  };
  const dir = 'https://repo1.maven.org/maven2/io/netty/netty-transport-native-epoll/4.1.115.Final/netty-transport-native-epoll-4.1.115.Final';
  const at = (url: string, options = {}) => {
    const access = { kind: 'http' as const, method: 'GET', url };
    const got = indexSbom(sbom, options).attribute(access);
    expect(attributeNaive(sbom, access, undefined, options)).toEqual(got);
    return got.map((m) => [m.bomRef, m.match]);
  };

  it('a classifier\'s file is its component\'s; the plain jar is not; the POM is both\'s', () => {
    expect(at(`${dir}-linux-x86_64.jar`)).toEqual([['plain', 'purl'], ['linux', 'purl']]);
    expect(at(`${dir}.jar`)).toEqual([['plain', 'purl']]);
    expect(at(`${dir}-osx-x86_64.jar`)).toEqual([['plain', 'purl']]);
    expect(at(`${dir}.pom`)).toEqual([['plain', 'purl'], ['linux', 'purl']]);
    expect(at(`${dir}.module.sha256`)).toEqual([['plain', 'purl'], ['linux', 'purl']]);
  });

  it('a base the SBOM (repository_url) or the policy names; never another', () => {
    const path = 'org/springframework/spring-core/6.1.0/spring-core-6.1.0.jar';
    expect(at(`https://repo.spring.io/release/${path}`)).toEqual([['spring', 'purl']]);
    expect(at(`https://repo.spring.io/milestone/${path}`)).toEqual([]);
    expect(at(`https://artifactory.example.com/artifactory/libs/${path}`)).toEqual([]);
    const policy = { sources: [{ git: { https: [{ baseUrl: 'https://artifactory.example.com/artifactory/libs/' }] } }] };
    expect(at(`https://artifactory.example.com/artifactory/libs/${path}`, { policy })).toEqual([['spring', 'purl']]);
    // A policy that is not one (outside data) is read defensively.
    for (const bad of [null, 5, { sources: 'x' }, { sources: [null, { npm: { urls: [5, 'not a url'] } }] }]) expect(at(`https://repo.spring.io/release/${path}`, { policy: bad })).toEqual([['spring', 'purl']]);
  });
});
