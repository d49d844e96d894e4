/**
 * The readers of package downloads and registry metadata, one per ecosystem's documented layout
 * (docs/attribution.md has the table): npm, PyPI, crates, the Go module proxy, RubyGems, Alpine
 * and Debian. Each takes the path's segments and adds the claims it reads to `out`; url-forms.ts
 * chooses which of them a request needs. Forms distinctive enough to read on any host are read on
 * any host, under any path prefix; generic forms only on the ecosystem's registry hosts.
 *
 * A form whose split into name and version is ambiguous (`python-dateutil-2.9.0.tar.gz`,
 * `net-http-persistent-4.0.2.gem`) yields every split: only one names a component of the SBOM.
 */
import { decodeSegment, normaliseName, unescapeGoPath } from './names';
import { onHost, type RegistryHosts } from './registry-hosts';
import { packageClaim, type Claim, type Ecosystem } from './types';

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

/** npm: `[PREFIX]/NAME/-/NAME-V.tgz`, `[PREFIX]/@SCOPE/NAME/-/NAME-V.tgz`; on registry hosts `/NAME`, `/@SCOPE%2fNAME`, `/@SCOPE/NAME`, `/NAME/V`. */
export function npm(s: string[], host: string, hosts: RegistryHosts, out: Claim[]): void {
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
export function npmPath(p: string, host: string, hosts: RegistryHosts, out: Claim[]): void {
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
export function pypi(s: string[], host: string, hosts: RegistryHosts, out: Claim[]): void {
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
export function cargo(s: string[], host: string, hosts: RegistryHosts, out: Claim[]): void {
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
export function golang(s: string[], host: string, hosts: RegistryHosts, out: Claim[]): void {
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
export function gem(s: string[], host: string, hosts: RegistryHosts, out: Claim[]): void {
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
export function apk(s: string[], out: Claim[]): void {
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
export function deb(s: string[], out: Claim[]): void {
  const file = decodeSegment(s[s.length - 1]);
  const ext = file.endsWith('.deb') ? 4 : file.endsWith('.udeb') || file.endsWith('.ddeb') ? 5 : 0;
  if (ext === 0) return;
  const parts = file.slice(0, -ext).split('_');
  if (parts.length !== 3 || parts[0] === '' || parts[1] === '' || parts[2] === '') return;
  const v = parts[1];
  const colon = v.indexOf(':');
  pkg(out, 'deb', parts[0], colon > 0 && /^\d+$/.test(v.slice(0, colon)) ? v.slice(colon + 1) : v);
}
