/**
 * A purl read without packageurl-js, for the common spellings only: `pkg:TYPE/[NS/]NAME[@VERSION]
 * [?KEY=VALUE&...]` of a type attribution reads, in a small set of characters where the WHATWG URL
 * parser packageurl-js goes through changes nothing, and with the path's escapes of printable
 * ASCII characters only (`%40`, `%3A`, `%2B`). Anything else (an escape of a space, `/`, a
 * control or non-ASCII character, a `+` or `%` in the qualifiers, a subpath, an empty segment, a qualifier key
 * packageurl-js would refuse, a type it validates in ways not copied here) answers `undefined`:
 * the caller asks packageurl-js. Reading an SBOM, packageurl-js took about 35 µs a purl cold (the
 * URL parser, URLSearchParams, its validators; issue 32's profile).
 *
 * Held to `PackageURL.fromString` by fast-purl.property.test.ts (generated purls and every purl of
 * fixtures/sbom-corpus): whenever this answers, packageurl-js answers the same components, and
 * when packageurl-js throws this never answers.
 */

/** The components of a purl as packageurl-js gives them (after its normalisation). */
export interface FastPurl {
  type: string;
  namespace: string | undefined;
  name: string;
  version: string | undefined;
  /** Null-prototype object, keys lower case, empty values left out; undefined when none. */
  qualifiers: Record<string, string> | undefined;
}

/** Types read here, and how packageurl-js normalises their namespace and name. */
const LOWER_NAME = 1;
const LOWER_NAMESPACE = 2;
const UNDERSCORES = 4;
const TYPES: ReadonlyMap<string, number> = new Map([
  ['npm', LOWER_NAME | LOWER_NAMESPACE],
  ['pypi', LOWER_NAME | LOWER_NAMESPACE | UNDERSCORES],
  ['cargo', 0],
  ['golang', 0],
  ['gem', 0],
  ['maven', 0],
  ['oci', LOWER_NAME],
  ['apk', LOWER_NAME | LOWER_NAMESPACE],
  ['alpine', 0],
  ['deb', LOWER_NAME | LOWER_NAMESPACE],
  ['github', LOWER_NAME | LOWER_NAMESPACE],
  ['gitlab', LOWER_NAME | LOWER_NAMESPACE],
  ['bitbucket', LOWER_NAME | LOWER_NAMESPACE],
  ['generic', 0],
]);

/** packageurl-js's test of a golang version starting with `v` (strings.js, regexSemverNumberedGroups). */
const SEMVER = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;

/*
 * Runs of characters, matched from a position (sticky): the regular expression engine scans them,
 * where a loop over `charCodeAt` ran in the interpreter for the SBOM's first purls (an SBOM is read
 * once per process, cold).
 */
/** Characters of the path (before `?`): unreserved, `/`, `@`, `:`, `+` (and `%` of an escape, checked apart). */
const PATH_CHARS = /[A-Za-z0-9\-._~\/@:+%]*/y;
/** Characters of a qualifier's value: unreserved, `/`, `@`, `:` (no `+`: URLSearchParams reads it as a space; no `%`). */
const VALUE_CHARS = /[A-Za-z0-9\-._~\/@:]*/y;
/** Characters of a qualifier's key packageurl-js accepts; a key must not start with a digit. */
const KEY_CHARS = /[A-Za-z0-9\-._]*/y;

/** Whether `text[from, to)` is made of the characters `run` matches. */
function only(run: RegExp, text: string, from: number, to: number): boolean {
  run.lastIndex = from;
  run.test(text);
  return run.lastIndex >= to;
}

function hex(c: number): number {
  return c >= 48 && c <= 57 ? c - 48 : c >= 65 && c <= 70 ? c - 55 : c >= 97 && c <= 102 ? c - 87 : -1;
}

/**
 * True when every `%` of `text[from, to)` starts an escape of a printable ASCII character other
 * than a space or `/` (`%40`, `%3A`, `%2B`, ...): decoding is then exact, one character each, and gives
 * nothing packageurl-js's trimming would remove.
 */
function onlyPrintableEscapes(text: string, from: number, to: number): boolean {
  for (let i = text.indexOf('%', from); i >= 0 && i < to; i = text.indexOf('%', i + 1)) {
    if (i + 2 >= to) return false;
    const hi = hex(text.charCodeAt(i + 1)), lo = hex(text.charCodeAt(i + 2));
    if (hi < 0 || lo < 0) return false;
    const c = hi * 16 + lo;
    // Not a `/` either: packageurl-js normalises the decoded namespace as a path.
    if (c <= 0x20 || c >= 0x7f || c === 0x2f) return false;
  }
  return true;
}

const decode = (s: string): string => (s.includes('%') ? decodeURIComponent(s) : s);

/** The purl's components, or undefined when this reader does not take it (ask packageurl-js). */
export function fastPurl(purl: string): FastPurl | undefined {
  const n = purl.length;
  if (n < 7 || !purl.startsWith('pkg:')) return undefined;
  const q = purl.indexOf('?');
  const end = q < 0 ? n : q;
  if (!only(PATH_CHARS, purl, 4, end)) return undefined;
  if (!onlyPrintableEscapes(purl, 4, end)) return undefined;
  const slash = purl.indexOf('/', 4);
  if (slash < 5 || slash >= end) return undefined;
  const type = purl.slice(4, slash);
  const flags = TYPES.get(type);
  if (flags === undefined) return undefined;
  // The version: after the last `@` of the path, unless a `/` comes just before it (packageurl-js).
  let at = purl.lastIndexOf('@', end - 1);
  if (at <= slash || purl.charCodeAt(at - 1) === 47) at = -1;
  const nameEnd = at < 0 ? end : at;
  // Segments of the namespace and the name, none empty (packageurl-js collapses `//`: not read here).
  const lastSlash = purl.lastIndexOf('/', nameEnd - 1);
  if (lastSlash === nameEnd - 1) return undefined;
  for (let i = slash; i < lastSlash; i = purl.indexOf('/', i + 1)) if (purl.charCodeAt(i + 1) === 47) return undefined;
  let name = decode(purl.slice(lastSlash + 1, nameEnd));
  let namespace = lastSlash > slash ? decode(purl.slice(slash + 1, lastSlash)) : undefined;
  let version = at < 0 ? undefined : decode(purl.slice(at + 1, end));
  if ((flags & LOWER_NAME) !== 0) name = name.toLowerCase();
  if ((flags & LOWER_NAMESPACE) !== 0 && namespace !== undefined) namespace = namespace.toLowerCase();
  if ((flags & UNDERSCORES) !== 0) name = name.replaceAll('_', '-');
  // Validation packageurl-js does for these types (it throws: this reader leaves the purl to it).
  if (type === 'maven' && namespace === undefined) return undefined;
  if (type === 'oci' && namespace !== undefined) return undefined;
  if (type === 'golang' && version !== undefined && version.charCodeAt(0) === 118 && !SEMVER.test(version.slice(1))) return undefined;
  let qualifiers: Record<string, string> | undefined;
  if (q >= 0) {
    let from = q + 1;
    if (from >= n) return undefined;
    for (;;) {
      let amp = purl.indexOf('&', from);
      if (amp < 0) amp = n;
      if (amp === from) return undefined;
      const eq = purl.indexOf('=', from);
      if (eq < 0 || eq >= amp || eq === from) return undefined;
      const first = purl.charCodeAt(from);
      if (first >= 48 && first <= 57) return undefined;
      if (!only(KEY_CHARS, purl, from, eq) || !only(VALUE_CHARS, purl, eq + 1, amp)) return undefined;
      if (amp > eq + 1) {
        qualifiers ??= Object.create(null) as Record<string, string>;
        qualifiers[purl.slice(from, eq).toLowerCase()] = purl.slice(eq + 1, amp);
      }
      if (amp === n) break;
      from = amp + 1;
      if (from >= n) return undefined;
    }
  }
  if (name.length === 0) return undefined;
  return { type, namespace, name, version, qualifiers };
}
