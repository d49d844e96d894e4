/**
 * Names and versions as each ecosystem compares them. One function per side would drift: the URL
 * readers (url-forms.ts) and the purl reader (components.ts) both go through these.
 */
import type { Ecosystem } from './types';

/** PEP 503: runs of `-`, `_`, `.` are one `-`, case folded. */
export function pep503(name: string): string {
  return name.replace(/[-_.]+/g, '-').toLowerCase();
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
    // Module paths are case-sensitive (hence the proxy's `!` escapes); gem names too.
    case 'golang': case 'gem': return name;
    default: return name.toLowerCase();
  }
}

/** A version as compared for the ecosystem (exact otherwise). */
export function normaliseVersion(eco: Ecosystem, version: string): string {
  switch (eco) {
    // Go versions carry a `v`; some SBOMs leave it out.
    case 'golang': return version.length > 0 && version.charCodeAt(0) >= 48 && version.charCodeAt(0) <= 57 ? `v${version}` : version;
    // Pool file names carry no epoch (`1:2.3-4` is stored as `..._2.3-4_...`).
    case 'deb': {
      const colon = version.indexOf(':');
      return colon > 0 && /^\d+$/.test(version.slice(0, colon)) ? version.slice(colon + 1) : version;
    }
    case 'pypi': case 'oci': return version.toLowerCase();
    // A git tag `v1.2.0` names release 1.2.0.
    case 'git': return version.length > 1 && (version[0] === 'v' || version[0] === 'V') && version.charCodeAt(1) >= 48 && version.charCodeAt(1) <= 57 ? version.slice(1) : version;
    default: return version;
  }
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
