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

const MAX_ALTERNATIVES = 256;

/** `{a,b}` alternatives expanded (nested allowed); an unbalanced brace is literal. */
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
      for (const alt of group.alternatives) next.push(p.slice(0, group.start) + alt + p.slice(group.end + 1));
      if (next.length > MAX_ALTERNATIVES) throw new RangeError(`too many {} alternatives in ${pattern}`);
    }
    out = next;
    if (!changed) break;
  }
  return out;
}

/** The first `{...}` with a top-level comma, as start/end offsets and its alternatives. */
function firstGroup(p: string): { start: number; end: number; alternatives: string[] } | undefined {
  for (let i = 0; i < p.length; i++) {
    if (p[i] === '\\') { i++; continue; }
    if (p[i] !== '{') continue;
    let depth = 0;
    const cuts: number[] = [];
    for (let j = i; j < p.length; j++) {
      if (p[j] === '\\') { j++; continue; }
      if (p[j] === '{') depth++;
      else if (p[j] === '}') {
        depth--;
        if (depth === 0) {
          if (cuts.length === 0) break; // `{x}` is literal
          const bounds = [i, ...cuts, j];
          const alternatives = bounds.slice(0, -1).map((b, k) => p.slice(b + 1, bounds[k + 1]));
          return { start: i, end: j, alternatives };
        }
      } else if (p[j] === ',' && depth === 1) cuts.push(j);
    }
  }
  return undefined;
}

function tokenize(segment: string): Token[] {
  const tokens: Token[] = [];
  for (let i = 0; i < segment.length; i++) {
    const c = segment[i];
    if (c === '\\' && i + 1 < segment.length) tokens.push({ kind: 'char', c: segment[++i].toLowerCase() });
    else if (c === '*') {
      if (tokens[tokens.length - 1]?.kind !== 'star') tokens.push({ kind: 'star' });
    } else if (c === '?') tokens.push({ kind: 'any' });
    else if (c === '[') {
      const close = segment.indexOf(']', i + 2);
      if (close < 0) {
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

/** A predicate for paths (`/` or `\` separated) matching any of `patterns`. */
export function globMatcher(patterns: readonly string[]): (path: string) => boolean {
  const compiled = patterns.flatMap(expandBraces).map(compileOne);
  return (path) => {
    const segments = path.toLowerCase().replace(/\\/g, '/').split('/').filter((s) => s !== '' && s !== '.');
    return compiled.some((c) => matchSegments(c, segments));
  };
}
