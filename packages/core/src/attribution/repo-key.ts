/**
 * Git repositories as one comparable key, `host/path`: lower case, no port, no user, no leading or
 * trailing `/`, no `.git`. Read from remote URLs in every spelling git accepts and purls use.
 */
import { decodeSegment } from './names';

/** Hosts whose repositories are exactly `owner/name`: later segments (`/tree/main`, `/archive/...`) are pages of it. */
const TWO_SEGMENT_HOSTS = new Set(['github.com', 'bitbucket.org']);

/** The key of a repository at `host` with path `path` (as sent: may start with `/`, `~`, end with `.git`). */
export function repoKey(host: string, path: string): string | undefined {
  let h = host.toLowerCase();
  if (h.endsWith('.')) h = h.slice(0, -1);
  if (h.length === 0 || h.includes('/')) return undefined;
  let p = decodeSegment(path).trim();
  // A repository path sent over SSH may be quoted (`git-upload-pack 'acme/app.git'`).
  if (p.length >= 2 && (p[0] === "'" || p[0] === '"') && p[p.length - 1] === p[0]) p = p.slice(1, -1);
  let start = 0;
  let end = p.length;
  while (start < end && p.charCodeAt(start) === 47) start++;
  while (end > start && p.charCodeAt(end - 1) === 47) end--;
  p = p.slice(start, end);
  if (p.toLowerCase().endsWith('.git')) p = p.slice(0, -4);
  while (p.endsWith('/')) p = p.slice(0, -1);
  if (p.length === 0) return undefined;
  p = p.toLowerCase();
  if (TWO_SEGMENT_HOSTS.has(h)) {
    const parts = p.split('/');
    if (parts.length < 2 || parts[0] === '' || parts[1] === '') return undefined;
    let name = parts[1];
    if (name.endsWith('.git')) name = name.slice(0, -4);
    p = `${parts[0]}/${name}`;
  }
  return `${h}/${p}`;
}

/**
 * The key of a git remote URL: `https://host/path(.git)`, `git+https://...`, `ssh://[user@]host[:port]/path`,
 * `git+ssh://...`, `git://host/path`, scp-like `[user@]host:path`. A purl `vcs_url` may end in
 * `@<revision>` (dropped), a URL in `#<ref>` or `?query` (dropped). Undefined when it is none of these.
 */
export function repoKeyOfUrl(text: string): string | undefined {
  if (typeof text !== 'string' || text.length === 0 || text.length > 4096) return undefined;
  let t = text.trim();
  const hash = t.indexOf('#');
  if (hash >= 0) t = t.slice(0, hash);
  const q = t.indexOf('?');
  if (q >= 0) t = t.slice(0, q);
  const sep = t.indexOf('://');
  let host: string;
  let path: string;
  if (sep > 0) {
    let scheme = t.slice(0, sep).toLowerCase();
    if (scheme.startsWith('git+')) scheme = scheme.slice(4);
    if (scheme !== 'https' && scheme !== 'http' && scheme !== 'ssh' && scheme !== 'git') return undefined;
    const rest = t.slice(sep + 3);
    const slash = rest.indexOf('/');
    let authority = slash >= 0 ? rest.slice(0, slash) : rest;
    path = slash >= 0 ? rest.slice(slash) : '';
    const at = authority.lastIndexOf('@');
    if (at >= 0) authority = authority.slice(at + 1);
    if (authority.startsWith('[')) return undefined; // an address literal names no repository host we compare
    const colon = authority.indexOf(':');
    host = colon >= 0 ? authority.slice(0, colon) : authority;
  } else {
    // scp-like: [user@]host:path (no slash before the colon).
    const colon = t.indexOf(':');
    if (colon <= 0) return undefined;
    const before = t.slice(0, colon);
    if (before.includes('/')) return undefined;
    const at = before.lastIndexOf('@');
    host = at >= 0 ? before.slice(at + 1) : before;
    path = t.slice(colon + 1);
  }
  // A purl vcs_url's revision: `...repo.git@v1.0` (an `@` in the last segment).
  const lastSlash = path.lastIndexOf('/');
  const revision = path.indexOf('@', lastSlash + 1);
  if (revision >= 0) path = path.slice(0, revision);
  return repoKey(host, path);
}

/**
 * Is this a git remote rather than a download URL: `git+SCHEME://`, `git://`, `ssh://`, or scp-like
 * `user@host:path`? (npm writes a git dependency's distribution as `git+ssh://git@host/o/r.git#COMMIT`.)
 */
export function isGitRemote(text: string): boolean {
  if (/^(?:git\+[a-z]+|git|ssh):\/\//i.test(text)) return true;
  return /^[^\s/:@]+@[^\s/:@]+:[^/]/.test(text);
}

/**
 * The revision a remote URL names: its `#REF` fragment (npm, pip, CycloneDX tools), else a purl
 * `vcs_url`'s `@REF` after the last `/`. Undefined when it names none, or a range (`#semver:^6`).
 */
export function gitRefOfUrl(text: string): string | undefined {
  if (typeof text !== 'string' || text.length > 4096) return undefined;
  const t = text.trim();
  let ref: string | undefined;
  const hash = t.indexOf('#');
  if (hash >= 0) ref = decodeSegment(t.slice(hash + 1));
  else {
    const q = t.indexOf('?');
    const path = q >= 0 ? t.slice(0, q) : t;
    const at = path.indexOf('@', path.lastIndexOf('/') + 1);
    // `git@host:o/r.git` has its `@` before any `/`: a user, not a revision.
    if (at >= 0 && path.lastIndexOf('/') >= 0) ref = decodeSegment(path.slice(at + 1));
  }
  if (ref === undefined || ref.length === 0 || ref.includes(':')) return undefined;
  return ref;
}
