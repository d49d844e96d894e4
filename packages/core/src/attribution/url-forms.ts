/**
 * What a request URL names, by each ecosystem's documented download layout (docs/attribution.md
 * has the table). Forms distinctive enough to read on any host (an npm tarball's `/-/`, a wheel,
 * `/@v/`, `.gem`, `/v2/.../manifests/`, `.apk`, `.deb`) are read on any host, under any path prefix
 * (mirrors and proxies put one in front); generic forms (an npm packument `/NAME`, a crates sparse
 * index entry, RubyGems' `/info/NAME`) only on the ecosystem's registry hosts: the well-known ones
 * and those the SBOM's own purls and distribution references name.
 *
 * This module chooses which readers a request needs and runs them: the readers of packages are in
 * package-forms.ts, Maven's in maven.ts, those of images and git repositories in
 * repository-forms.ts, the registry hosts in registry-hosts.ts.
 */
import type { ParsedUrl } from '../eval/url';
import { mavenClaims } from './maven';
import { apk, cargo, deb, gem, golang, npm, npmPath, pypi } from './package-forms';
import type { RegistryHosts } from './registry-hosts';
import { ARCHIVE_HOSTS, git, oci } from './repository-forms';
import type { Claim } from './types';

export { DEFAULT_REGISTRY_HOSTS, type RegistryHosts } from './registry-hosts';
export { claimsOfSsh } from './repository-forms';

/** Paths longer than this are no package download: read for their exact URL only. */
const MAX_PATH = 4096;

/** The form readers, as bits: which of them a request may need (`formsOf`). */
const NPM = 1, PYPI = 2, CARGO = 4, GOLANG = 8, GEM = 16, MAVEN = 32, APK = 64, DEB = 128, OCI = 256, GIT = 512;
const EVERY_FORM = 1023;

/** Hosts of `git`'s forms that only some hosts have (archives, release assets, codeload, the API). */
const GIT_FORM_HOSTS = [...ARCHIVE_HOSTS, 'bitbucket.org', 'codeload.github.com', 'api.github.com'];

/**
 * Per registry-host table, the readers a host brings in whatever the path (made once per table):
 * the generic forms of npm, crates, Go's checksum database and RubyGems, Maven's bases, the forges.
 * (A PyPI host only widens which sdist paths are read: its reader is brought in by the suffix.)
 */
const hostForms = new WeakMap<RegistryHosts, ReadonlyMap<string, number>>();

function formsOfHosts(hosts: RegistryHosts): ReadonlyMap<string, number> {
  let map = hostForms.get(hosts);
  if (map !== undefined) return map;
  const m = new Map<string, number>();
  const mark = (host: string, bit: number): void => { m.set(host, (m.get(host) ?? 0) | bit); };
  for (const [eco, bit] of [['npm', NPM], ['cargo', CARGO], ['golang', GOLANG], ['gem', GEM]] as const) for (const h of hosts.get(eco) ?? []) mark(h, bit);
  for (const base of hosts.get('maven') ?? []) {
    const slash = base.indexOf('/');
    mark(slash >= 0 ? base.slice(0, slash) : base, MAVEN);
  }
  for (const h of GIT_FORM_HOSTS) mark(h, GIT);
  hostForms.set(hosts, (map = m));
  return map;
}

/**
 * The readers a path without escapes may need, from what each reader requires of it (the
 * suffixes of its file, the segments it looks for): a reader left out would find nothing.
 * `claimsOfUrlEveryForm` runs them all; a property test holds the two to the same claims.
 */
function formsOfPath(p: string): number {
  let f = 0;
  switch (p.charCodeAt(p.length - 1)) {
    case 122: // z
      if (p.endsWith('.tgz')) f |= NPM;
      else if (p.endsWith('.tar.gz') || p.endsWith('.tar.xz')) f |= PYPI;
      else if (p.endsWith('.gemspec.rz')) f |= GEM;
      break;
    case 112: if (p.endsWith('.zip')) f |= PYPI; break; // p
    case 50: if (p.endsWith('.tar.bz2')) f |= PYPI; break; // 2
    case 108: if (p.endsWith('.whl')) f |= PYPI; break; // l
    case 110: if (p.endsWith('/json')) f |= PYPI; break; // n
    case 100: if (p.endsWith('/download')) f |= CARGO; break; // d
    case 101: if (p.endsWith('.crate')) f |= CARGO; break; // e
    case 116: if (p.endsWith('/@latest')) f |= GOLANG; break; // t
    case 109: if (p.endsWith('.gem')) f |= GEM; break; // m
    case 107: if (p.endsWith('.apk')) f |= APK; else if (p.endsWith('/git-upload-pack') || p.endsWith('/git-receive-pack')) f |= GIT; break; // k
    case 98: if (p.endsWith('deb')) f |= DEB; break; // b
  }
  if (p.includes('simple/')) f |= PYPI;
  if (p.includes('/api/v1/crates/')) f |= CARGO;
  if (p.includes('/@v/')) f |= GOLANG;
  if (p.includes('/-/archive/') || p.includes('/info/refs')) f |= GIT;
  if (p.startsWith('/v2') && (p.length === 3 || p.charCodeAt(3) === 47)) f |= OCI;
  return f;
}

function readForms(u: ParsedUrl, hosts: RegistryHosts, forms: number, out: Claim[]): void {
  const s = u.path.split('/');
  const host = u.host;
  const file = s[s.length - 1];
  if ((forms & NPM) !== 0) npm(s, host, hosts, out);
  if ((forms & PYPI) !== 0) pypi(s, host, hosts, out);
  if ((forms & CARGO) !== 0) cargo(s, host, hosts, out);
  if ((forms & GOLANG) !== 0) golang(s, host, hosts, out);
  if ((forms & GEM) !== 0) gem(s, host, hosts, out);
  if ((forms & MAVEN) !== 0) mavenClaims(s, host, hosts.get('maven'), out, u.path);
  if ((forms & APK) !== 0 && file.endsWith('.apk')) apk(s, out);
  if ((forms & DEB) !== 0 && file.endsWith('deb')) deb(s, out);
  if ((forms & OCI) !== 0 && s[1] === 'v2') oci(u, s, out);
  if ((forms & GIT) !== 0) git(u, s, out);
}

/**
 * Every claim a request URL makes, in no particular order (possibly none). Only the readers the
 * host and the path may need are run (one map look-up and a few comparisons for a request of no
 * package); a path with escapes goes through every reader, which decode its segments.
 */
export function claimsOfUrl(u: ParsedUrl, hosts: RegistryHosts): Claim[] {
  const out: Claim[] = [];
  const p = u.path;
  if (p.length > MAX_PATH || p.length < 2) return out;
  const forms = p.includes('%') ? EVERY_FORM : (formsOfHosts(hosts).get(u.host) ?? 0) | formsOfPath(p);
  if (forms === NPM) npmPath(p, u.host, hosts, out);
  else if (forms !== 0) readForms(u, hosts, forms, out);
  return out;
}

/** `claimsOfUrl` through every reader: the reference its choice of readers is held to. */
export function claimsOfUrlEveryForm(u: ParsedUrl, hosts: RegistryHosts): Claim[] {
  const out: Claim[] = [];
  if (u.path.length > MAX_PATH || u.path.length < 2) return out;
  readForms(u, hosts, EVERY_FORM, out);
  return out;
}

/** A claim as one line: `npm express@4.21.2`, `maven g/a@1.0?classifier=x`, `oci host/repo@digest`, `oci host/repo:tag`, `git host/path@v1`. */
export function describeClaim(c: Claim): string {
  switch (c.kind) {
    case 'package': return `${c.eco} ${c.name}${c.version !== undefined ? `@${c.version}` : ''}${c.classifier !== undefined ? `?classifier=${c.classifier}` : ''}`;
    case 'oci': return `oci ${c.host}/${c.repository}${c.digest !== undefined ? `@${c.digest}` : ''}${c.tag !== undefined ? `:${c.tag}` : ''}`;
    case 'git': return `git ${c.repo}${c.version !== undefined ? `@${c.version}` : ''}`;
  }
}
