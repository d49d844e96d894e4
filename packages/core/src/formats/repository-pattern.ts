/**
 * `repository-pattern` (decisions.md D3): `/`-separated segments of letters, digits, `.`, `_`, `-`
 * and `*`; a segment that is exactly `**` matches zero or more whole segments. Matching is
 * case-insensitive, runs in O(segments x pattern segments) with no backtracking regex.
 */

function isSegmentChar(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 46 || code === 95 || code === 45 || code === 42;
}

/**
 * Why `text` is not a repository pattern (undefined when it is one).
 * @internal
 */
export function repositoryPatternProblem(text: string): string | undefined {
  if (text.length === 0) return 'the pattern is empty';
  if (text[0] === '/') return 'a leading `/` is not allowed';
  if (text[text.length - 1] === '/') return 'a trailing `/` is not allowed';
  let start = 0;
  for (let i = 0; i <= text.length; i++) {
    if (i < text.length && text[i] !== '/') {
      const code = text.charCodeAt(i);
      if (!isSegmentChar(code)) {
        const ch = text[i];
        return /\s/.test(ch) ? 'whitespace is not allowed' : `character \`${ch}\` is not allowed (letters, digits, \`.\`, \`_\`, \`-\`, \`*\`)`;
      }
      continue;
    }
    const segment = text.slice(start, i);
    if (segment.length === 0) return 'empty segment (`//`)';
    if (segment !== '**' && segment.includes('**')) return `\`**\` must be a whole segment, not part of \`${segment.length > 40 ? segment.slice(0, 40) + '…' : segment}\``;
    let onlyDots = true;
    for (let j = 0; j < segment.length; j++) if (segment[j] !== '.') { onlyDots = false; break; }
    if (onlyDots) return `segment \`${segment.length > 10 ? segment.slice(0, 10) + '…' : segment}\` is made only of dots`;
    start = i + 1;
  }
  return undefined;
}

/**
 * `repositoryPatternProblem(text) === undefined`, in one scan that builds nothing (the schema and the
 * rule reader ask it of every pattern of a policy); tested against it (fast-paths.property.test.ts).
 * @public
 */
export function isRepositoryPattern(text: string): boolean {
  if (typeof text !== 'string') return false;
  const n = text.length;
  let start = 0, onlyDots = true, doubleStar = false;
  for (let i = 0; i <= n; i++) {
    const c = i < n ? text.charCodeAt(i) : 47;
    if (c === 47) {
      // An empty segment (also a leading or trailing `/`), one made only of dots, `**` inside a longer segment.
      if (i === start || onlyDots || (doubleStar && i - start !== 2)) return false;
      start = i + 1; onlyDots = true; doubleStar = false;
    } else {
      if (!isSegmentChar(c)) return false;
      if (c !== 46) onlyDots = false;
      if (c === 42 && i > start && text.charCodeAt(i - 1) === 42) doubleStar = true;
    }
  }
  return true;
}

/** Normalises a repository path for matching: leading `/` and trailing `.git` ignored, lower case. */
export function normaliseRepositoryPath(path: string): string {
  let p = path;
  while (p.startsWith('/')) p = p.slice(1);
  if (p.toLowerCase().endsWith('.git')) p = p.slice(0, -4);
  while (p.endsWith('/')) p = p.slice(0, -1);
  return p.toLowerCase();
}

/**
 * A pattern prepared once for matching (an evaluator compiles the patterns of a policy when it
 * reads it): its lower-cased `/` segments, `**` among them.
 */
export interface CompiledRepositoryPattern {
  readonly pattern: string;
  readonly segments: readonly string[];
}

/** Prepares a repository pattern for `matchCompiledRepositoryPattern` (case-insensitive). */
export function compileRepositoryPattern(pattern: string): CompiledRepositoryPattern {
  return { pattern, segments: pattern.toLowerCase().split('/') };
}

/** `*` within one segment: linear-time wildcard match (greedy with one backtrack point). */
function segmentMatches(pattern: string, text: string): boolean {
  let p = 0, t = 0, star = -1, mark = 0;
  while (t < text.length) {
    if (p < pattern.length && pattern[p] !== '*' && pattern[p] === text[t]) { p++; t++; }
    else if (p < pattern.length && pattern[p] === '*') { star = p++; mark = t; }
    else if (star >= 0) { p = star + 1; t = ++mark; }
    else return false;
  }
  while (p < pattern.length && pattern[p] === '*') p++;
  return p === pattern.length;
}

/**
 * `segmentMatches(pattern, path.slice(start, end).toLowerCase())` for an ASCII `path`, in place:
 * the path's characters are lower-cased as they are compared (`pattern` is lower case already).
 */
function segmentMatchesAt(pattern: string, path: string, start: number, end: number): boolean {
  const m = pattern.length;
  let p = 0, t = start, star = -1, mark = start;
  while (t < end) {
    const pc = p < m ? pattern.charCodeAt(p) : -1;
    let tc = path.charCodeAt(t);
    if (tc >= 65 && tc <= 90) tc += 32;
    if (pc >= 0 && pc !== 42 && pc === tc) { p++; t++; }
    else if (pc === 42) { star = p++; mark = t; }
    else if (star >= 0) { p = star + 1; t = ++mark; }
    else return false;
  }
  while (p < m && pattern.charCodeAt(p) === 42) p++;
  return p === m;
}

/** Scratch of `matchCompiledRepositoryPattern` (matching is synchronous): segment bounds, then two rows of reached prefixes. */
let bounds = new Int32Array(64);
let reach = new Uint8Array(33);
let next = new Uint8Array(33);

/**
 * Does repository `path` match a compiled pattern? What `matchRepositoryPattern` answers, without
 * splitting, lower-casing or slicing the path: its segments are read in place by index (a trace
 * whose every repository is new, its every path distinct, matched each one against the patterns
 * of every candidate rule). A path with a character outside ASCII takes the general way (Unicode
 * lower-casing may turn it into ASCII, the Kelvin sign into `k`). Held to the split-and-compare
 * version by repository-pattern.property.test.ts.
 */
export function matchCompiledRepositoryPattern(compiled: CompiledRepositoryPattern, path: string): boolean {
  const n = path.length;
  for (let i = 0; i < n; i++) if (path.charCodeAt(i) > 127) return matchSegments(compiled.segments, normaliseRepositoryPath(path).split('/'));
  // normaliseRepositoryPath's bounds: leading `/`s, then a trailing `.git` (any case), then trailing `/`s.
  let from = 0, to = n;
  while (from < to && path.charCodeAt(from) === 47) from++;
  if (to - from >= 4 && path.charCodeAt(to - 4) === 46 && (path.charCodeAt(to - 3) | 32) === 103 && (path.charCodeAt(to - 2) | 32) === 105 && (path.charCodeAt(to - 1) | 32) === 116) to -= 4;
  while (to > from && path.charCodeAt(to - 1) === 47) to--;
  if (to === from) return false;
  // Segment k is path[bounds[2k], bounds[2k + 1]).
  let count = 0;
  for (let start = from; ; ) {
    let end = path.indexOf('/', start);
    if (end < 0 || end > to) end = to;
    if (2 * count + 2 > bounds.length) { const grown = new Int32Array(bounds.length * 2); grown.set(bounds); bounds = grown; }
    bounds[2 * count] = start;
    bounds[2 * count + 1] = end;
    count++;
    if (end === to) break;
    start = end + 1;
  }
  if (count + 1 > reach.length) { reach = new Uint8Array(2 * count + 2); next = new Uint8Array(2 * count + 2); }
  // Dynamic programming over (pattern segment, path segment): reach[j] = path prefix of j segments matched.
  let r = reach, x = next;
  r.fill(0, 0, count + 1);
  r[0] = 1;
  const segments = compiled.segments;
  for (let s = 0; s < segments.length; s++) {
    const p = segments[s];
    let any = 0;
    if (p === '**') {
      for (let j = 0; j <= count; j++) { any |= r[j]; x[j] = any; }
    } else {
      x[0] = 0;
      for (let j = 0; j < count; j++) {
        const hit = r[j] === 1 && segmentMatchesAt(p, path, bounds[2 * j], bounds[2 * j + 1]) ? 1 : 0;
        x[j + 1] = hit;
        any |= hit;
      }
    }
    const t = r; r = x; x = t;
    if (any === 0) return false; // no prefix reached: none will be
  }
  return r[count] === 1;
}

/** The general match of lower-cased pattern segments against a normalised path's segments. */
function matchSegments(pat: readonly string[], segs: readonly string[]): boolean {
  if (segs.length === 1 && segs[0] === '') return false;
  // Dynamic programming over (pattern segment, path segment): reach[j] = path prefix of j segments matched.
  let reached = new Array<boolean>(segs.length + 1).fill(false);
  reached[0] = true;
  for (const p of pat) {
    const following = new Array<boolean>(segs.length + 1).fill(false);
    if (p === '**') {
      let any = false;
      for (let j = 0; j <= segs.length; j++) { any = any || reached[j]; following[j] = any; }
    } else {
      for (let j = 0; j < segs.length; j++) if (reached[j] && segmentMatches(p, segs[j])) following[j + 1] = true;
    }
    reached = following;
  }
  return reached[segs.length];
}

/**
 * Does repository `path` (as sent by a client) match `pattern`? Case-insensitive; `.git` and leading `/` ignored.
 * @public
 */
export function matchRepositoryPattern(pattern: string, path: string): boolean {
  return matchCompiledRepositoryPattern(compileRepositoryPattern(pattern), path);
}
