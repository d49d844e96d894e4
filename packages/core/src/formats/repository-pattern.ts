/**
 * `repository-pattern` (decisions.md D3): `/`-separated segments of letters, digits, `.`, `_`, `-`
 * and `*`; a segment that is exactly `**` matches zero or more whole segments. Matching is
 * case-insensitive, runs in O(segments x pattern segments) with no backtracking regex.
 */

function isSegmentChar(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 46 || code === 95 || code === 45 || code === 42;
}

/** Why `text` is not a repository pattern (undefined when it is one). */
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

/** Does repository `path` (as sent by a client) match `pattern`? Case-insensitive; `.git` and leading `/` ignored. */
export function matchRepositoryPattern(pattern: string, path: string): boolean {
  const pat = pattern.toLowerCase().split('/');
  const segs = normaliseRepositoryPath(path).split('/');
  if (segs.length === 1 && segs[0] === '') return false;
  // Dynamic programming over (pattern segment, path segment): reach[j] = path prefix of j segments matched.
  let reach = new Array<boolean>(segs.length + 1).fill(false);
  reach[0] = true;
  for (const p of pat) {
    const next = new Array<boolean>(segs.length + 1).fill(false);
    if (p === '**') {
      let any = false;
      for (let j = 0; j <= segs.length; j++) { any = any || reach[j]; next[j] = any; }
    } else {
      for (let j = 0; j < segs.length; j++) if (reach[j] && segmentMatches(p, segs[j])) next[j + 1] = true;
    }
    reach = next;
  }
  return reach[segs.length];
}
