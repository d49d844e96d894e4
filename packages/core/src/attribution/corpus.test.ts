/**
 * fixtures/sbom-corpus/: real SBOMs written by real tools, unmodified (SOURCES says where each
 * comes from). For each, the accesses its build makes and what each is attributed to, every one
 * asserted (an empty list too: a wrong attribution is worse than none):
 * - accesses.json: the cases worth naming (commits, near misses, other hosts);
 * - derived here, independently of url-forms.ts: npm's from the lockfile (`resolved`, verbatim),
 *   expected to be the components whose purl names the lock entry's name and version; Maven's,
 *   Alpine's and OCI's printed from each component's coordinates into the registry's layout.
 * The index and the reference scan answer alike for every access.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PackageURL } from 'packageurl-js';
import type { Access } from '../eval/access';
import type { Policy } from '../policy/types';
import { indexSbom } from './index-sbom';
import { attributeNaive } from './naive';
import type { ComponentMatch, MatchKind } from './types';

const root = join(__dirname, '../../../../fixtures/sbom-corpus');

interface Expected { id: string; match: MatchKind }
interface Case { url?: string; ssh?: { host: string; repositoryPath: string }; components: Expected[]; policy?: Pick<Policy, 'sources'>; note?: string }
interface Component { 'bom-ref'?: string; purl?: string; name: string; version?: string; components?: Component[] }

const ENTRIES: Record<string, string> = {
  'npm-deps-from-git': 'bom.1.6.json',
  'npm-with-prepared': 'with-prepared.snap.json',
  'maven-quarkus': 'quarkus-deps-cyclonedx.json',
  'maven-vuln-spring': 'vuln-spring-1.5.bom.json',
  'alpine-syft': 'alpine-cyclonedx.json',
  'alpine-cnquery': 'alpine-319.cyclone.json',
  'oci-kbom': 'expected.json',
};

const idOf = (m: { bomRef?: string; purl?: string; name: string }): string => m.bomRef ?? m.purl ?? m.name;

function allComponents(sbom: { metadata?: { component?: Component }; components?: Component[] }): Component[] {
  const out: Component[] = [];
  const walk = (list: Component[] | undefined): void => {
    for (const c of list ?? []) { out.push(c); walk(c.components); }
  };
  walk(sbom.components);
  if (sbom.metadata?.component) out.push(sbom.metadata.component);
  return out;
}

function purlOf(c: Component): PackageURL | undefined {
  try {
    return c.purl !== undefined ? PackageURL.fromString(c.purl) : undefined;
  } catch {
    return undefined;
  }
}

const http = (url: string): Access => ({ kind: 'http', method: 'GET', url });
const sorted = (list: Expected[]): Expected[] => [...list].sort((a, b) => a.id.localeCompare(b.id) || a.match.localeCompare(b.match));
const got = (list: readonly ComponentMatch[]): Expected[] => sorted(list.map((m) => ({ id: idOf(m), match: m.match })));

/** The accesses derived from the lockfile or the components' coordinates, with what they fetch. */
function derived(entry: string, dir: string, components: Component[]): Case[] {
  const out: Case[] = [];
  const withPurl = components.map((c) => ({ c, p: purlOf(c) })).filter((x) => x.p !== undefined) as { c: Component; p: PackageURL }[];
  const fetching = (pred: (p: PackageURL) => boolean, match: MatchKind): Expected[] => {
    const ids = new Set(withPurl.filter((x) => pred(x.p)).map((x) => idOf({ bomRef: x.c['bom-ref'], purl: x.c.purl, name: x.c.name })));
    return [...ids].map((id) => ({ id, match }));
  };
  if (entry === 'npm-with-prepared') {
    const lock = JSON.parse(readFileSync(join(dir, 'package-lock.json'), 'utf8')) as { packages: Record<string, { resolved?: string; version?: string; name?: string }> };
    for (const [path, p] of Object.entries(lock.packages)) {
      if (p.resolved === undefined || p.version === undefined) continue;
      const name = p.name ?? path.slice(path.lastIndexOf('node_modules/') + 13);
      const full = (q: PackageURL) => (q.namespace ? `${q.namespace}/${q.name}` : q.name);
      out.push({ url: p.resolved, components: fetching((q) => q.type === 'npm' && full(q) === name && q.version === p.version, 'purl') });
    }
  }
  if (entry.startsWith('maven-')) {
    for (const { p } of withPurl) {
      if (p.type !== 'maven' || !p.namespace || !p.version) continue;
      const dirUrl = `https://repo1.maven.org/maven2/${p.namespace.split('.').join('/')}/${p.name}`;
      const same = (q: PackageURL) => q.type === 'maven' && q.namespace === p.namespace && q.name === p.name;
      const file = `${dirUrl}/${p.version}/${p.name}-${p.version}`;
      for (const ext of ['.pom', '.jar', '.jar.sha1', '.pom.asc']) out.push({ url: file + ext, components: fetching((q) => same(q) && q.version === p.version, 'purl') });
      out.push({ url: `${dirUrl}/maven-metadata.xml`, components: fetching(same, 'name-only') });
    }
  }
  if (entry.startsWith('alpine-')) {
    const release = entry === 'alpine-syft' ? 'v3.16/main/x86_64' : 'v3.19/main/aarch64';
    const noEpoch = (v: string) => v.replace(/^\d+:/, '');
    for (const { p } of withPurl) {
      if ((p.type !== 'apk' && p.type !== 'alpine') || !p.version) continue;
      out.push({
        url: `https://dl-cdn.alpinelinux.org/alpine/${release}/${p.name}-${noEpoch(p.version)}.apk`,
        components: fetching((q) => (q.type === 'apk' || q.type === 'alpine') && q.name === p.name && !!q.version && noEpoch(q.version) === noEpoch(p.version!), 'purl'),
      });
    }
  }
  if (entry.startsWith('oci-')) {
    for (const { p } of withPurl) {
      const repositoryUrl = p.qualifiers?.repository_url;
      if (p.type !== 'oci' || !p.version || !repositoryUrl) continue;
      const slash = repositoryUrl.indexOf('/');
      const host = repositoryUrl.slice(0, slash) === 'index.docker.io' ? 'registry-1.docker.io' : repositoryUrl.slice(0, slash);
      out.push({ url: `https://${host}/v2/${repositoryUrl.slice(slash + 1)}/manifests/${p.version}`, components: fetching((q) => q.type === 'oci' && q.version === p.version, 'purl') });
    }
  }
  return out;
}

describe('fixtures/sbom-corpus: real SBOMs', () => {
  it('holds the entries SOURCES lists, each file listed', () => {
    const dirs = readdirSync(root, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name).sort();
    expect(dirs).toEqual(Object.keys(ENTRIES).sort());
    const sources = readFileSync(join(root, 'SOURCES'), 'utf8');
    for (const dir of dirs) {
      for (const f of readdirSync(join(root, dir))) if (f !== 'accesses.json') expect(sources).toMatch(new RegExp(`^${dir}/${f.replace(/\./g, '\\.')}\\s+\\S+/\\S+\\s+\\S+\\s+[0-9a-f]{40}`, 'm'));
    }
  });

  for (const [entry, file] of Object.entries(ENTRIES)) {
    it(`${entry}: every access is attributed as expected, the index as the reference`, () => {
      const dir = join(root, entry);
      const sbom = JSON.parse(readFileSync(join(dir, file), 'utf8'));
      const cases = [...(JSON.parse(readFileSync(join(dir, 'accesses.json'), 'utf8')) as Case[]), ...derived(entry, dir, allComponents(sbom))];
      const plain = indexSbom(sbom);
      let attributed = 0;
      for (const c of cases) {
        const access: Access = c.url !== undefined ? http(c.url) : { kind: 'ssh', host: c.ssh!.host, port: 22, repositoryPath: c.ssh!.repositoryPath };
        const index = c.policy !== undefined ? indexSbom(sbom, { policy: c.policy }) : plain;
        const answer = index.attribute(access);
        expect({ access: c.url ?? c.ssh, got: got(answer) }).toEqual({ access: c.url ?? c.ssh, got: sorted(c.components) });
        expect(attributeNaive(sbom, access, undefined, { policy: c.policy })).toEqual(answer);
        if (answer.length > 0) attributed++;
      }
      expect(cases.length).toBeGreaterThan(attributed);
      expect(attributed).toBeGreaterThan(0);
    });
  }

  it('the counts: how many accesses each entry checks', () => {
    const counts = Object.fromEntries(Object.entries(ENTRIES).map(([entry, file]) => {
      const dir = join(root, entry);
      const sbom = JSON.parse(readFileSync(join(dir, file), 'utf8'));
      return [entry, (JSON.parse(readFileSync(join(dir, 'accesses.json'), 'utf8')) as Case[]).length + derived(entry, dir, allComponents(sbom)).length];
    }));
    expect(counts).toEqual({
      'npm-deps-from-git': 15, 'npm-with-prepared': 184, 'maven-quarkus': 487, 'maven-vuln-spring': 451,
      'alpine-syft': 17, 'alpine-cnquery': 17, 'oci-kbom': 15,
    });
  });
});
