/**
 * A small glob matcher for policy file patterns: `*` and `?` within a path segment, `[abc]`,
 * `[a-z]` and `[!x]` classes, `{a,b}` alternatives, `**` for any number of segments, `\` to
 * escape (patterns use `/`). Case-insensitive (as D6's file names); `\` separators in paths read as `/`.
 *
 * No regular expression is built from a pattern: segments and paths are matched with the greedy
 * wildcard algorithm (backtracking only to the last star), so a match costs at most
 * O(pattern × path) steps whatever the input; `{}` expansion is capped.
 */

type Token = { kind: 'char'; c: string } | { kind: 'any' } | { kind: 'star' } | { kind: 'class'; negate: boolean; items: Array<[string, string]> };
type Segment = { kind: 'globstar' } | { kind: 'tokens'; tokens: Token[] };

/**
 * At most this many patterns from one pattern's `{}` alternatives (`{a,b}{a,b}` makes 4): nine
 * groups of two already make 512, and every one is matched against every path.
 */
export const MAX_BRACE_EXPANSION = 256;

/**
 * Why `pattern` cannot be matched (its `{}` alternatives make more than `MAX_BRACE_EXPANSION`
 * patterns), or undefined. A project config reports it on the pattern (`parseProjectConfig`);
 * `globMatcher` throws a RangeError with this message.
 */
export function globPatternProblem(pattern: string): string | undefined {
  try {
    expandBraces(pattern);
    return undefined;
  } catch (error) {
    if (error instanceof RangeError) return error.message;
    throw error;
  }
}

/** `{a,b}` alternatives expanded (nested allowed); an unbalanced brace is literal. Throws a RangeError past `MAX_BRACE_EXPANSION`. */
export function expandBraces(pattern: string): string[] {
  let out = [pattern];
  for (let round = 0; round < 16; round++) {
    const next: string[] = [];
    let changed = false;
    for (const p of out) {
      const group = firstGroup(p);
      if (!group) {
        next.push(p);
        continue;
      }
      changed = true;
      for (const alt of group.alternatives) {
        if (next.length === MAX_BRACE_EXPANSION) throw new RangeError(tooMany(pattern));
        next.push(p.slice(0, group.start) + alt + p.slice(group.end + 1));
      }
    }
    out = next;
    if (!changed) break;
  }
  return out;
}

function tooMany(pattern: string): string {
  const shown = pattern.length > 80 ? `${pattern.slice(0, 77)}...` : pattern;
  return `the {} alternatives of \`${shown}\` make more than ${MAX_BRACE_EXPANSION} patterns (the limit): split it into several patterns, or use * and ? for the parts that vary`;
}

/**
 * The first `{...}` (by its opening brace) with a top-level comma, as start/end offsets and its
 * alternatives. One pass with a stack of open braces: a brace that never closes costs nothing more
 * (a scan for its match from every `{` of `{{{{...` had been quadratic in the pattern).
 */
function firstGroup(p: string): { start: number; end: number; alternatives: string[] } | undefined {
  const open: number[] = [];
  const cuts: number[][] = [];
  let best: { start: number; end: number; cuts: number[] } | undefined;
  for (let j = 0; j < p.length; j++) {
    const c = p[j];
    if (c === '\\') j++;
    else if (c === '{') {
      open.push(j);
      cuts.push([]);
    } else if (c === ',' && open.length > 0) cuts[cuts.length - 1].push(j);
    else if (c === '}' && open.length > 0) {
      const start = open.pop()!;
      const at = cuts.pop()!;
      // `{x}` is literal; of the groups, the one opened first.
      if (at.length > 0 && (!best || start < best.start)) best = { start, end: j, cuts: at };
    }
  }
  if (!best) return undefined;
  const bounds = [best.start, ...best.cuts, best.end];
  return { start: best.start, end: best.end, alternatives: bounds.slice(0, -1).map((b, k) => p.slice(b + 1, bounds[k + 1])) };
}

function tokenize(segment: string): Token[] {
  const tokens: Token[] = [];
  // Once a `[` has no `]` after it, none later has: no search again (`[[[[...` stays linear).
  let unclosed = false;
  for (let i = 0; i < segment.length; i++) {
    const c = segment[i];
    if (c === '\\' && i + 1 < segment.length) tokens.push({ kind: 'char', c: segment[++i].toLowerCase() });
    else if (c === '*') {
      if (tokens[tokens.length - 1]?.kind !== 'star') tokens.push({ kind: 'star' });
    } else if (c === '?') tokens.push({ kind: 'any' });
    else if (c === '[') {
      const close = unclosed ? -1 : segment.indexOf(']', i + 2);
      if (close < 0) {
        unclosed = true;
        tokens.push({ kind: 'char', c });
        continue;
      }
      let body = segment.slice(i + 1, close);
      const negate = body[0] === '!' || body[0] === '^';
      if (negate) body = body.slice(1);
      const items: Array<[string, string]> = [];
      for (let k = 0; k < body.length; k++) {
        const lo = body[k].toLowerCase();
        if (body[k + 1] === '-' && k + 2 < body.length) {
          items.push([lo, body[k + 2].toLowerCase()]);
          k += 2;
        } else items.push([lo, lo]);
      }
      tokens.push({ kind: 'class', negate, items });
      i = close;
    } else tokens.push({ kind: 'char', c: c.toLowerCase() });
  }
  return tokens;
}

function tokenMatches(t: Token, c: string): boolean {
  switch (t.kind) {
    case 'char': return t.c === c;
    case 'any': return true;
    case 'class': return t.items.some(([lo, hi]) => c >= lo && c <= hi) !== t.negate;
    default: return false;
  }
}

/**
 * Greedy wildcard matching of `items` against `pattern` (stars match any run of items):
 * on a mismatch, only the last star takes one more item. O(|pattern| × |items|).
 */
function wildcard<P, I>(pattern: readonly P[], items: readonly I[], isStar: (p: P) => boolean, matches: (p: P, i: I) => boolean): boolean {
  let p = 0, s = 0, starP = -1, starS = 0;
  while (s < items.length) {
    if (p < pattern.length && !isStar(pattern[p]) && matches(pattern[p], items[s])) {
      p++;
      s++;
    } else if (p < pattern.length && isStar(pattern[p])) {
      starP = p++;
      starS = s;
    } else if (starP >= 0) {
      p = starP + 1;
      s = ++starS;
    } else return false;
  }
  while (p < pattern.length && isStar(pattern[p])) p++;
  return p === pattern.length;
}

function compileOne(pattern: string): Segment[] {
  const segments = pattern.split('/').filter((s) => s !== '' && s !== '.');
  // A pattern without `/` matches a file name at any depth.
  const rooted = pattern.includes('/') ? segments : ['**', ...segments];
  return rooted.map((s) => (s === '**' ? { kind: 'globstar' } : { kind: 'tokens', tokens: tokenize(s) }));
}

function matchSegments(pattern: Segment[], path: string[]): boolean {
  return wildcard(pattern, path, (p) => p.kind === 'globstar', (p, seg) => p.kind === 'tokens' && wildcard(p.tokens, [...seg], (t) => t.kind === 'star', tokenMatches));
}

/**
 * At most this many patterns in all, from all of a list's patterns and their `{}` alternatives
 * together: 20,000 patterns of 256 alternatives each would otherwise be 5 million compiled
 * patterns (gigabytes), each matched against every path.
 */
export const MAX_TOTAL_EXPANSION = 4096;

/**
 * A pattern of a list left out, and why: `pattern` is its index, absent when the rest of the list is left out at once.
 * @internal
 */
export interface GlobPatternProblem {
  pattern?: number;
  message: string;
}

/**
 * The patterns of a list that can be matched together, and why the others cannot: a pattern
 * whose `{}` alternatives make more than `MAX_BRACE_EXPANSION` patterns is left out (a problem
 * naming its index), and once the patterns kept expand to `MAX_TOTAL_EXPANSION` in all, the rest
 * are left out too (one problem, with how many). `globMatcher` applies the same bound; this says
 * what it left out.
 * @internal
 */
export function usableGlobPatterns(patterns: readonly string[]): { usable: string[]; problems: GlobPatternProblem[] } {
  const usable: string[] = [];
  const problems: GlobPatternProblem[] = [];
  let total = 0;
  for (let i = 0; i < patterns.length; i++) {
    let expanded: number;
    try {
      expanded = expandBraces(patterns[i]).length;
    } catch (error) {
      if (!(error instanceof RangeError)) throw error;
      problems.push({ pattern: i, message: error.message });
      continue;
    }
    if (total + expanded > MAX_TOTAL_EXPANSION) {
      problems.push({ message: `the ${patterns.length} patterns expand to more than ${MAX_TOTAL_EXPANSION} patterns in all (the limit); the first ${usable.length} are used, the other ${patterns.length - i} are left out` });
      break;
    }
    total += expanded;
    usable.push(patterns[i]);
  }
  return { usable, problems };
}

/**
 * A predicate for paths (`/` or `\` separated) matching any of `patterns`. A pattern with too
 * many `{}` alternatives throws a RangeError (`globPatternProblem`); past `MAX_TOTAL_EXPANSION`
 * patterns in all, the rest are not matched (`usableGlobPatterns` says which).
 */
export function globMatcher(patterns: readonly string[]): (path: string) => boolean {
  const expanded: string[] = [];
  for (const pattern of patterns) {
    const alternatives = expandBraces(pattern);
    if (expanded.length + alternatives.length > MAX_TOTAL_EXPANSION) break;
    expanded.push(...alternatives);
  }
  const compiled = expanded.map(compileOne);
  return (path) => {
    const segments = path.toLowerCase().replace(/\\/g, '/').split('/').filter((s) => s !== '' && s !== '.');
    return compiled.some((c) => matchSegments(c, segments));
  };
}
