/**
 * The keys coverage (coverage-keys.ts) reads from URLs, host names and repository patterns: the key
 * of a URL's host, found in place for a plain URL (through parseUrl otherwise) with its path, and
 * the keys that tell the oci and git sources of one host apart by the first segment of their
 * repository patterns. `RuleKeys` (coverage-keys.ts) combines them per rule.
 */
import { KeptByList } from './kept-by-list';
import { parseUrl } from '../eval/url';
import { beyondAscii, HASH_BASE, key, MAX_KEYS, suffixHash } from './coverage-hash';
import { plainUrlHostEnd, plainUrlHostStart } from './walk';

/** A URL's host and path, as the HTTP-kind sources that may cover it are indexed. */
export const PATH_TAG = 0x1a2b3c4d;
/** The seed of a path's hash (case-sensitive, as paths compare: `RuleKeys.lookCoveringPaths`). */
export const PATH_SEED = 0x3c6ef372;
export const OCI_TAG = 0x2b3c4d5e;
export const GIT_TAG = 0x6f7a8b9c;
/** The first segment of a pattern with a wildcard there, or of no pattern (any repository). */
export const STAR_SEGMENT = 42;
export const ANY_REPOSITORY = [STAR_SEGMENT];

export const SSH_TAG = 0x7d8e9fa1;

/**
 * What the repository patterns of an oci or git source add to its keys (see `RuleKeys.repositoryUrls`): the
 * first segment of each pattern (hashed), and of the first one; `segments` undefined when the rule
 * falls back to its host alone.
 */
export interface RepositoryKeys { segments: number[] | undefined; first: number | undefined }

const ANY_REPOSITORY_KEYS: RepositoryKeys = { segments: ANY_REPOSITORY, first: STAR_SEGMENT };
const HOST_ALONE: RepositoryKeys = { segments: undefined, first: undefined };

/** The keys of each list of repository patterns, kept by the list (0.86 MB of arrays an edit of a 10,000-rule policy before). */
const repositoryKeysByList = new KeptByList<RepositoryKeys>();

export function repositoryKeysOf(patterns: unknown): RepositoryKeys {
  if (patterns === undefined) return ANY_REPOSITORY_KEYS;
  // None (`[]`, covered by every list), or more than a rule may list keys for: the host alone.
  if (!Array.isArray(patterns) || patterns.length === 0 || patterns.length > MAX_KEYS) return HOST_ALONE;
  return repositoryKeysByList.get(patterns as readonly unknown[], readRepositoryKeys);
}

function readRepositoryKeys(patterns: readonly unknown[]): RepositoryKeys {
  const segments: number[] = [];
  let first: number | undefined;
  for (let i = 0; i < patterns.length; i++) {
    const segment = typeof patterns[i] === 'string' ? firstSegmentHash(patterns[i] as string) : undefined;
    if (segment === undefined) return HOST_ALONE;
    if (!segments.includes(segment)) segments.push(segment);
    if (i === 0) first = segment;
  }
  return { segments, first };
}

/** A key of a host (`readUrlKey`), a source shape and the hash of a pattern's first segment. */
export function repositoryKey(host: number, tag: number, segment: number): number {
  return key((Math.imul(host ^ tag, HASH_BASE) + segment) | 0);
}

/**
 * The hash of the first segment of a repository pattern (ASCII case-folded, as patterns compare
 * case-insensitively); STAR_SEGMENT when it holds a `*` (or is empty); undefined for text beyond
 * ASCII, whose lower case readers may take differently (the rule then falls back to its host).
 */
function firstSegmentHash(pattern: string): number | undefined {
  if (beyondAscii(pattern)) return undefined;
  let end = pattern.indexOf('/');
  if (end < 0) end = pattern.length;
  const star = pattern.indexOf('*');
  if (end === 0 || (star >= 0 && star < end)) return STAR_SEGMENT;
  // Never STAR_SEGMENT itself (a literal segment hashing to it takes the next value).
  const h = key(suffixHash(pattern, 0, end, 0x1234567));
  return h === STAR_SEGMENT ? STAR_SEGMENT + 1 : h;
}

/** Where a URL's path is: `text` from `from` to `to`. */
export interface PathSpan { text: string; from: number; to: number }

/**
 * The key of the host of a URL as `parseUrl` reads it (undefined when it reads none), its path as
 * parseUrl reads it left in `path`: a plain host (`plainUrlHostEnd`) is hashed in place and its
 * path found in the text, anything else goes through parseUrl.
 */
export function readUrlKey(text: string, path: PathSpan): number | undefined {
  const end = plainUrlHostEnd(text);
  if (end >= 0) {
    // parseUrl's path: from the host's end to a `?` or `#`, or `/` when none follows the host.
    if (end === text.length || text.charCodeAt(end) !== 47) { path.text = '/'; path.from = 0; path.to = 1; }
    else {
      let to = text.indexOf('?', end);
      const fragment = text.indexOf('#', end);
      if (to < 0 || (fragment >= 0 && fragment < to)) to = fragment;
      path.text = text; path.from = end; path.to = to < 0 ? text.length : to;
    }
    return key(suffixHash(text, plainUrlHostStart(text), end, 0));
  }
  const url = parseUrl(text);
  if (url === undefined) return undefined;
  path.text = url.path; path.from = 0; path.to = url.path.length;
  return hostKey(url.host);
}

/** The key of the host of a URL (`readUrlKey`). */
export function urlHostKey(text: string): number | undefined {
  return readUrlKey(text, { text: '', from: 0, to: 0 });
}

/** The path `readUrlKey` finds in a URL (undefined when it reads no host): parseUrl's, for its property test. */
export function urlKeyPath(text: string): string | undefined {
  const path: PathSpan = { text: '', from: 0, to: 0 };
  return readUrlKey(text, path) === undefined ? undefined : path.text.slice(path.from, path.to);
}

/** The key of a host name as written (the reference `readUrlKey` is tested against). */
export function hostKey(host: string): number {
  return key(suffixHash(host, 0, host.length, 0));
}
