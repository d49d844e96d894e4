/**
 * What a request URL names, by each ecosystem's documented download layout (docs/attribution.md
 * has the table). Forms distinctive enough to read on any host (an npm tarball's `/-/`, a wheel,
 * `/@v/`, `.gem`, `/v2/.../manifests/`, `.apk`, `.deb`) are read on any host, under any path prefix
 * (mirrors and proxies put one in front); generic forms (an npm packument `/NAME`, a crates sparse
 * index entry, RubyGems' `/info/NAME`) only on the ecosystem's registry hosts: the well-known ones
 * and those the SBOM's own purls and distribution references name.
 *
 * A form whose split into name and version is ambiguous (`python-dateutil-2.9.0.tar.gz`,
 * `net-http-persistent-4.0.2.gem`) yields every split: only one names a component of the SBOM.
 */
import { ociRepository, gitRepository } from '../eval/rules';
import { isGitSmartHttpPath } from '../eval/recognise';
import type { ParsedUrl } from '../eval/url';
import { decodeSegment, normaliseName, ociHost, ociRepositoryPath, unescapeGoPath } from './names';
import { mavenClaims } from './maven';
import { repoKey } from './repo-key';
import { gitClaim, ociClaim, packageClaim, type Claim, type Ecosystem } from './types';

/**
 * Registry hosts per ecosystem, for the generic forms.
 * @public
 */
export type RegistryHosts = ReadonlyMap<Ecosystem, ReadonlySet<string>>;

/**
 * The well-known registry hosts of the ecosystems whose metadata forms are generic paths. Maven's
 * are repository bases, `host/path` (no trailing `/`): its layout starts with the group's path,
 * which only a known base tells apart from the repository's own path.
 */
export const DEFAULT_REGISTRY_HOSTS: ReadonlyMap<Ecosystem, readonly string[]> = new Map<Ecosystem, readonly string[]>([
  ['npm', ['registry.npmjs.org', 'registry.yarnpkg.com']],
  ['cargo', ['index.crates.io']],
  ['gem', ['rubygems.org', 'index.rubygems.org']],
  ['golang', ['sum.golang.org']],
  ['maven', ['repo1.maven.org/maven2', 'repo.maven.apache.org/maven2', 'maven.google.com', 'dl.google.com/dl/android/maven2', 'plugins.gradle.org/m2']],
]);

/** Paths longer than this are no package download: read for their exact URL only. */
const MAX_PATH = 4096;

const SDIST = ['.tar.gz', '.zip', '.tar.bz2', '.tar.xz'];

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/** `name-version` splits at each `-` followed by a digit (the version starts there). */
function dashSplits(base: string): { name: string; version: string }[] {
  const out: { name: string; version: string }[] = [];
  for (let i = base.indexOf('-'); i > 0; i = base.indexOf('-', i + 1)) {
    if (i + 1 < base.length && isDigit(base.charCodeAt(i + 1))) out.push({ name: base.slice(0, i), version: base.slice(i + 1) });
  }
  return out;
}

function pkg(out: Claim[], eco: Exclude<Ecosystem, 'oci' | 'git'>, name: string, version?: string): void {
  if (name.length === 0) return;
  const n = normaliseName(eco, name);
  out.push(packageClaim(eco, n, version));
}

function onHost(hosts: RegistryHosts, eco: Ecosystem, host: string): boolean {
  return hosts.get(eco)?.has(host) ?? false;
}

/** npm: `[PREFIX]/NAME/-/NAME-V.tgz`, `[PREFIX]/@SCOPE/NAME/-/NAME-V.tgz`; on registry hosts `/NAME`, `/@SCOPE%2fNAME`, `/@SCOPE/NAME`, `/NAME/V`. */
function npm(s: string[], host: string, hosts: RegistryHosts, out: Claim[]): void {
  const n = s.length;
  const file = s[n - 1];
  if (n >= 4 && s[n - 2] === '-' && file.endsWith('.tgz')) {
    const last = decodeSegment(s[n - 3]);
    let name = last;
    let base = last;
    const slash = last.indexOf('/');
    if (last.startsWith('@') && slash > 0) base = last.slice(slash + 1); // `@scope%2fname/-/name-1.0.0.tgz`
    else if (n >= 5 && s[n - 4].startsWith('@')) name = `${decodeSegment(s[n - 4])}/${last}`;
    const f = decodeSegment(file);
    if (base.length > 0 && f.startsWith(`${base}-`)) pkg(out, 'npm', name, f.slice(base.length + 1, -4));
    return;
  }
  if (!onHost(hosts, 'npm', host)) return;
  // Registry paths: `/NAME[/V]`, `/@SCOPE%2fNAME[/V]`, `/@SCOPE/NAME[/V]` (trailing `/` tolerated).
  const parts = s.slice(1);
  if (parts.length > 0 && parts[parts.length - 1] === '') parts.pop();
  if (parts.length === 0 || parts[0] === '-' || parts[0] === '') return;
  let name: string;
  let rest: string[];
  const first = decodeSegment(parts[0]);
  if (first.startsWith('@') && first.includes('/')) { name = first; rest = parts.slice(1); }
  else if (first.startsWith('@')) {
    if (parts.length < 2) return;
    name = `${first}/${decodeSegment(parts[1])}`;
    rest = parts.slice(2);
  } else { name = first; rest = parts.slice(1); }
  if (rest.length > 1) return;
  // `/NAME/latest` names a dist-tag, not a version: the package only.
  const version = rest.length === 1 && isDigit(rest[0].charCodeAt(0)) ? decodeSegment(rest[0]) : undefined;
  pkg(out, 'npm', name, version);
}

/**
 * `npm` of a path without escapes, read without splitting it (a JavaScript build's requests are
 * most of a trace's): the same claims, held to it by url-forms.property.test.ts.
 */
function npmPath(p: string, host: string, hosts: RegistryHosts, out: Claim[]): void {
  const k = p.lastIndexOf('/');
  // The tarball: `.../SEGMENT/-/FILE.tgz`, SEGMENT not the path's leading empty one (`npm`'s n >= 4).
  if (k > 2 && p.charCodeAt(k - 1) === 45 && p.charCodeAt(k - 2) === 47 && p.endsWith('.tgz')) {
    const j = p.lastIndexOf('/', k - 3);
    const last = p.slice(j + 1, k - 2);
    let name = last;
    if (j > 0) {
      const before = p.slice(p.lastIndexOf('/', j - 1) + 1, j);
      if (before.startsWith('@')) name = `${before}/${last}`;
    }
    if (last.length > 0 && p.startsWith(`${last}-`, k + 1)) pkg(out, 'npm', name, p.slice(k + last.length + 2, -4));
    return;
  }
  if (!onHost(hosts, 'npm', host)) return;
  // Registry paths: `/NAME[/V]`, `/@SCOPE/NAME[/V]` (trailing `/` tolerated).
  const body = p.slice(1, p.charCodeAt(p.length - 1) === 47 ? -1 : p.length);
  const i1 = body.indexOf('/');
  const first = i1 < 0 ? body : body.slice(0, i1);
  if (first === '' || first === '-') return;
  let name = first;
  let rest = i1 < 0 ? -1 : i1 + 1;
  if (first.startsWith('@')) {
    if (i1 < 0) return;
    const i2 = body.indexOf('/', i1 + 1);
    name = `${first}/${body.slice(i1 + 1, i2 < 0 ? body.length : i2)}`;
    rest = i2 < 0 ? -1 : i2 + 1;
  }
  if (rest >= 0 && body.indexOf('/', rest) >= 0) return;
  // `/NAME/latest` names a dist-tag, not a version: the package only.
  pkg(out, 'npm', name, rest >= 0 && isDigit(body.charCodeAt(rest)) ? body.slice(rest) : undefined);
}

/** PyPI: `[PREFIX]/simple/NAME/`, `/pypi/NAME[/V]/json`, wheels anywhere, sdists under `packages/` or `simple/NAME/`. */
function pypi(s: string[], host: string, hosts: RegistryHosts, out: Claim[]): void {
  const n = s.length;
  const file = decodeSegment(s[n - 1]);
  // `/simple/NAME/` (and devpi's `/+simple/NAME/`), the trailing slash optional.
  const k = s[n - 1] === '' ? n - 2 : n - 1;
  if (k >= 2 && (s[k - 1] === 'simple' || s[k - 1] === '+simple')) pkg(out, 'pypi', decodeSegment(s[k]));
  // JSON API: `/pypi/NAME/json`, `/pypi/NAME/VERSION/json`.
  if (s[n - 1] === 'json') {
    if (n >= 4 && s[n - 3] === 'pypi') pkg(out, 'pypi', decodeSegment(s[n - 2]));
    else if (n >= 5 && s[n - 4] === 'pypi') pkg(out, 'pypi', decodeSegment(s[n - 3]), decodeSegment(s[n - 2]).toLowerCase());
  }
  if (file.endsWith('.whl')) {
    // {distribution}-{version}(-{build})?-{python}-{abi}-{platform}.whl
    const parts = file.slice(0, -4).split('-');
    if (parts.length >= 5 && parts.length <= 6) pkg(out, 'pypi', parts[0], parts[1].toLowerCase());
    return;
  }
  const ext = SDIST.find((e) => file.endsWith(e));
  if (ext === undefined) return;
  const underPackages = s.includes('packages') || (n >= 4 && (s[n - 3] === 'simple' || s[n - 3] === '+simple')) || onHost(hosts, 'pypi', host);
  if (!underPackages) return;
  for (const { name, version } of dashSplits(file.slice(0, -ext.length))) pkg(out, 'pypi', name, version.toLowerCase());
}

/** crates: `/api/v1/crates/N/V/download`, `/crates/N/V/download`, `/crates/N/N-V.crate`, `/api/v1/crates/N`; sparse index on registry hosts. */
function cargo(s: string[], host: string, hosts: RegistryHosts, out: Claim[]): void {
  const n = s.length;
  if (n >= 5 && s[n - 1] === 'download' && s[n - 4] === 'crates') { pkg(out, 'cargo', decodeSegment(s[n - 3]), decodeSegment(s[n - 2])); return; }
  const file = decodeSegment(s[n - 1]);
  if (n >= 4 && file.endsWith('.crate') && s[n - 3] === 'crates') {
    const name = decodeSegment(s[n - 2]);
    if (file.startsWith(`${name}-`)) pkg(out, 'cargo', name, file.slice(name.length + 1, -6));
    return;
  }
  if (n >= 5 && s[n - 2] === 'crates' && s[n - 3] === 'v1' && s[n - 4] === 'api') { pkg(out, 'cargo', decodeSegment(s[n - 1])); return; }
  if (!onHost(hosts, 'cargo', host)) return;
  // Sparse index: `/1/N`, `/2/N`, `/3/F/N`, `/AB/CD/N` (of the lower-case name).
  const name = file.toLowerCase();
  const prefix = name.length === 1 ? ['1'] : name.length === 2 ? ['2'] : name.length === 3 ? ['3', name[0]] : [name.slice(0, 2), name.slice(2, 4)];
  if (n < prefix.length + 2) return;
  for (let i = 0; i < prefix.length; i++) if (s[n - 1 - prefix.length + i].toLowerCase() !== prefix[i]) return;
  pkg(out, 'cargo', name);
}

/** Go module proxy: `[PREFIX]/MODULE/@v/(list|V.info|V.mod|V.zip)`, `MODULE/@latest`; sumdb `/lookup/MODULE@V`. */
function golang(s: string[], host: string, hosts: RegistryHosts, out: Claim[]): void {
  const n = s.length;
  let end: number;
  let version: string | undefined;
  if (n >= 4 && s[n - 2] === '@v') {
    end = n - 2;
    const f = s[n - 1];
    if (f === 'list') version = undefined;
    else {
      const dot = f.endsWith('.info') ? 5 : f.endsWith('.mod') ? 4 : f.endsWith('.zip') ? 4 : 0;
      if (dot === 0) return;
      version = unescapeGoPath(decodeSegment(f.slice(0, -dot)));
      if (version === undefined || version.length === 0) return;
    }
  } else if (n >= 3 && s[n - 1] === '@latest') end = n - 1;
  else if (onHost(hosts, 'golang', host) && n >= 3 && s[1] === 'lookup') {
    const rest = decodeSegment(s.slice(2).join('/'));
    const at = rest.lastIndexOf('@');
    if (at <= 0) return;
    const module = unescapeGoPath(rest.slice(0, at));
    const v = unescapeGoPath(rest.slice(at + 1));
    if (module !== undefined && v !== undefined && v.length > 0 && module.includes('.')) pkg(out, 'golang', module, v);
    return;
  } else return;
  // The proxy's base path is unknown: every suffix of segments whose first element looks like a domain.
  for (let j = 1; j < end; j++) {
    if (!s[j].includes('.')) continue;
    const module = unescapeGoPath(decodeSegment(s.slice(j, end).join('/')));
    if (module !== undefined) pkg(out, 'golang', module, version);
  }
}

/** RubyGems: `/gems/N-V[-PLATFORM].gem`, `/quick/Marshal.4.8/N-V.gemspec.rz`; on registry hosts `/info/N`, `/api/v1/gems/N.json`. */
function gem(s: string[], host: string, hosts: RegistryHosts, out: Claim[]): void {
  const n = s.length;
  const file = decodeSegment(s[n - 1]);
  let base: string | undefined;
  if (n >= 3 && s[n - 2] === 'gems' && file.endsWith('.gem')) base = file.slice(0, -4);
  else if (n >= 4 && s[n - 3] === 'quick' && file.endsWith('.gemspec.rz')) base = file.slice(0, -11);
  if (base !== undefined) {
    for (const { name, version } of dashSplits(base)) {
      // A platform gem: `nokogiri-1.16.0-x86_64-linux`; the version ends at the next `-`.
      const dash = version.indexOf('-');
      pkg(out, 'gem', name, dash >= 0 ? version.slice(0, dash) : version);
    }
    return;
  }
  if (!onHost(hosts, 'gem', host)) return;
  if (n === 3 && s[1] === 'info') pkg(out, 'gem', file);
  else if (n === 5 && s[1] === 'api' && s[2] === 'v1' && s[3] === 'gems' && file.endsWith('.json')) pkg(out, 'gem', file.slice(0, -5));
}

/** Alpine: `.../N-V-rN.apk` (the version is the last two dash-separated parts). */
function apk(s: string[], out: Claim[]): void {
  const file = decodeSegment(s[s.length - 1]);
  if (!file.endsWith('.apk')) return;
  const base = file.slice(0, -4);
  const rel = base.lastIndexOf('-');
  if (rel <= 0 || base[rel + 1] !== 'r' || !/^r\d+$/.test(base.slice(rel + 1))) return;
  const dash = base.lastIndexOf('-', rel - 1);
  if (dash <= 0) return;
  pkg(out, 'apk', base.slice(0, dash), base.slice(dash + 1));
}

/** Debian and Ubuntu: `.../pool/COMPONENT/P/SOURCE/N_V_ARCH.deb` (also `.udeb`, `.ddeb`; any path). */
function deb(s: string[], out: Claim[]): void {
  const file = decodeSegment(s[s.length - 1]);
  const ext = file.endsWith('.deb') ? 4 : file.endsWith('.udeb') || file.endsWith('.ddeb') ? 5 : 0;
  if (ext === 0) return;
  const parts = file.slice(0, -ext).split('_');
  if (parts.length !== 3 || parts[0] === '' || parts[1] === '' || parts[2] === '') return;
  const v = parts[1];
  const colon = v.indexOf(':');
  pkg(out, 'deb', parts[0], colon > 0 && /^\d+$/.test(v.slice(0, colon)) ? v.slice(colon + 1) : v);
}

/** OCI distribution: `/v2/REPO/(manifests|blobs|tags|referrers)/...`. */
function oci(u: ParsedUrl, s: string[], out: Claim[]): void {
  const repository = ociRepository(u.path);
  if (repository === undefined || repository === '') return;
  const host = ociHost(u.host);
  const repo = ociRepositoryPath(host, decodeSegment(repository));
  const name = repo.slice(repo.lastIndexOf('/') + 1);
  const rest = s.slice(2 + repository.split('/').length);
  const claim = ociClaim(host, repo, name);
  if (rest[0] === 'manifests' && rest.length === 2 && rest[1] !== '') {
    const ref = decodeSegment(rest[1]);
    if (/^[a-z0-9]+(?:[.+_-][a-z0-9]+)*:[a-zA-Z0-9=_-]+$/.test(ref)) claim.digest = ref.toLowerCase();
    else claim.tag = ref;
  }
  out.push(claim);
}

/** Archive file extensions of the forges' archive downloads. */
const ARCHIVE_EXT = ['.tar.gz', '.tar.bz2', '.tar.xz', '.tgz', '.zip', '.tar'];

/** A file name without its archive extension; undefined when it has none. */
function archiveBase(file: string): string | undefined {
  const ext = ARCHIVE_EXT.find((e) => file.endsWith(e));
  return ext === undefined ? undefined : file.slice(0, -ext.length);
}

/** Hosts with GitHub's archive form `/O/R/archive/REF.EXT` (Gitea and Forgejo use it too). */
const ARCHIVE_HOSTS = new Set(['github.com', 'codeberg.org', 'gitea.com']);

function gitArchive(out: Claim[], host: string, path: string, ref: string | undefined): void {
  const repo = repoKey(host, path);
  if (repo !== undefined && ref !== undefined && ref.length > 0) out.push(gitClaim(repo, ref));
}

/**
 * Git smart HTTP (`.../REPO(.git)/info/refs`, `/git-upload-pack`, `/git-receive-pack`), the forges'
 * archives of a revision (a commit, tag or branch) and GitHub release assets.
 */
function git(u: ParsedUrl, s: string[], out: Claim[]): void {
  if (isGitSmartHttpPath(u.path)) {
    const repo = repoKey(u.host, gitRepository('/', u.path));
    if (repo !== undefined) out.push(gitClaim(repo));
    return;
  }
  const n = s.length;
  const host = u.host;
  const file = decodeSegment(s[n - 1]);
  // GitLab, any host: `/GROUP[/SUB...]/PROJECT/-/archive/REF/PROJECT-REF.EXT`.
  const dash = s.indexOf('-');
  if (dash >= 3 && s[dash + 1] === 'archive' && n >= dash + 4) {
    if (archiveBase(file) !== undefined) gitArchive(out, host, s.slice(1, dash).join('/'), s.slice(dash + 2, n - 1).map(decodeSegment).join('/'));
    return;
  }
  if (n < 5) return;
  const ownerRepo = `${s[1]}/${s[2]}`;
  if (ARCHIVE_HOSTS.has(host) && s[3] === 'archive') {
    // `/O/R/archive/REF.EXT`, `/O/R/archive/refs/tags/TAG.EXT`, `/O/R/archive/refs/heads/BRANCH.EXT`.
    const base = archiveBase(decodeSegment(s.slice(n === 5 ? 4 : 6).join('/')));
    if (n === 5 || (n >= 7 && s[4] === 'refs' && (s[5] === 'tags' || s[5] === 'heads'))) gitArchive(out, host, ownerRepo, base);
    return;
  }
  if (host === 'github.com' && s[3] === 'releases' && s[4] === 'download' && n === 7) { gitArchive(out, host, ownerRepo, decodeSegment(s[5])); return; }
  // Bitbucket: `/O/R/get/REF.EXT`.
  if (host === 'bitbucket.org' && s[3] === 'get' && n === 5) { gitArchive(out, host, ownerRepo, archiveBase(file)); return; }
  // codeload: `/O/R/(tar.gz|zip|legacy.tar.gz|legacy.zip)/REF`, `.../refs/(tags|heads)/REF`.
  if (host === 'codeload.github.com' && (s[3] === 'tar.gz' || s[3] === 'zip' || s[3] === 'legacy.tar.gz' || s[3] === 'legacy.zip')) {
    const ref = n === 5 ? decodeSegment(s[4]) : n >= 7 && s[4] === 'refs' && (s[5] === 'tags' || s[5] === 'heads') ? s.slice(6).map(decodeSegment).join('/') : undefined;
    gitArchive(out, 'github.com', ownerRepo, ref);
    return;
  }
  // GitHub's API: `/repos/O/R/(tarball|zipball)/REF` (without a REF it names no revision: no claim).
  if (host === 'api.github.com' && s[1] === 'repos' && n === 6 && (s[4] === 'tarball' || s[4] === 'zipball')) gitArchive(out, 'github.com', `${s[2]}/${s[3]}`, decodeSegment(s[5]));
}

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

/** The claim of an SSH git command: the server's host and the repository path it was sent (or the remote URL's). */
export function claimsOfSsh(host: string, repositoryPath: string | undefined, remoteUrlKey: string | undefined): Claim[] {
  const out: Claim[] = [];
  const fromPath = repositoryPath !== undefined ? repoKey(host, repositoryPath) : undefined;
  if (fromPath !== undefined) out.push(gitClaim(fromPath));
  if (remoteUrlKey !== undefined && remoteUrlKey !== fromPath) out.push(gitClaim(remoteUrlKey));
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
