/**
 * Names and versions as each ecosystem compares them. One function per side would drift: the URL
 * readers (package-forms.ts, repository-forms.ts) and the purl reader (components.ts) both go through these.
 */
import type { Ecosystem } from './types';

/** PEP 503: runs of `-`, `_`, `.` are one `-`, case folded. */
export function pep503(name: string): string {
  // Most names are already so (a claim's from a simple page or a purl's): one scan, no new string
  // (any character outside ASCII goes the long way: lower case has its own rules there).
  let plain = true;
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if ((c >= 65 && c <= 90) || c >= 128 || c === 95 || c === 46 || (c === 45 && name.charCodeAt(i + 1) === 45)) { plain = false; break; }
  }
  return plain ? name : name.replace(/[-_.]+/g, '-').toLowerCase();
}

/** Go module proxy case-encoding undone: `!x` is `X` (golang.org/x/mod/module EscapePath). */
export function unescapeGoPath(text: string): string | undefined {
  if (!text.includes('!')) return text;
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '!') {
      const next = text[i + 1];
      if (next === undefined || next < 'a' || next > 'z') return undefined;
      out += next.toUpperCase();
      i++;
    } else out += c;
  }
  return out;
}

/** The inverse, for tests and docs: upper-case letters become `!` + lower case. */
export function escapeGoPath(text: string): string {
  return text.replace(/[A-Z]/g, (c) => `!${c.toLowerCase()}`);
}

/** A package name as the ecosystem's registry compares it. */
export function normaliseName(eco: Ecosystem, name: string): string {
  switch (eco) {
    case 'pypi': return pep503(name);
    // crates.io treats `-` and `_` as one and ignores case.
    case 'cargo': return name.toLowerCase().replace(/_/g, '-');
    // Module paths are case-sensitive (hence the proxy's `!` escapes); gem names and Maven
    // coordinates (paths of a repository) too.
    case 'golang': case 'gem': case 'maven': return name;
    default: return name.toLowerCase();
  }
}

/** A version as compared for the ecosystem (exact otherwise). */
export function normaliseVersion(eco: Ecosystem, version: string): string {
  switch (eco) {
    // Go versions carry a `v`; some SBOMs leave it out.
    case 'golang': return version.length > 0 && version.charCodeAt(0) >= 48 && version.charCodeAt(0) <= 57 ? `v${version}` : version;
    // Pool file names carry no epoch (`1:2.3-4` is stored as `..._2.3-4_...`); nor do Alpine's,
    // whose versions have none (cnquery writes a build time as one: `1699383189:1.36.1-r15`).
    case 'deb': case 'apk': return withoutEpoch(version);
    case 'pypi': case 'oci': return version.toLowerCase();
    case 'git': return normaliseRef(version);
    default: return version;
  }
}

/** `N:rest` without its numeric epoch `N:`. */
function withoutEpoch(version: string): string {
  const colon = version.indexOf(':');
  return colon > 0 && /^\d+$/.test(version.slice(0, colon)) ? version.slice(colon + 1) : version;
}

/** A commit as a URL or reference may name it: 7 to 64 hex digits (a full SHA-1 or SHA-256 name, or a prefix). */
export function isCommitLike(ref: string): boolean {
  return ref.length >= 7 && ref.length <= 64 && /^[0-9a-fA-F]+$/.test(ref);
}

/**
 * A git revision as compared: `refs/tags/` and `refs/heads/` dropped, a commit in lower case (hex
 * is case-free), a tag `v1.2.0` as `1.2.0` (it names release 1.2.0).
 */
export function normaliseRef(ref: string): string {
  let r = ref;
  if (r.startsWith('refs/tags/')) r = r.slice(10);
  else if (r.startsWith('refs/heads/')) r = r.slice(11);
  if (isCommitLike(r)) return r.toLowerCase();
  return r.length > 1 && (r[0] === 'v' || r[0] === 'V') && r.charCodeAt(1) >= 48 && r.charCodeAt(1) <= 57 ? r.slice(1) : r;
}

/** decodeURIComponent that never throws (a malformed escape leaves the text as it is). */
export function decodeSegment(text: string): string {
  if (!text.includes('%')) return text;
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** Docker Hub's registry names, all read as `docker.io`. */
const DOCKER_HUB = new Set(['docker.io', 'index.docker.io', 'registry-1.docker.io', 'registry.hub.docker.com']);

/** An OCI registry host as compared: lower case, Docker Hub aliases folded into `docker.io`. */
export function ociHost(host: string): string {
  const h = host.toLowerCase();
  return DOCKER_HUB.has(h) ? 'docker.io' : h;
}

/** An OCI repository path as compared: lower case, Docker Hub's one-segment names under `library/`. */
export function ociRepositoryPath(host: string, path: string): string {
  const p = path.toLowerCase();
  return host === 'docker.io' && !p.includes('/') ? `library/${p}` : p;
}
