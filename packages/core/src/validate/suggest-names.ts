/** "Did you mean" support: allowed names ordered nearest first by edit distance. */

const MAX_COMPARED = 64;

/**
 * Optimal string alignment distance, case-insensitive, over the first 64 characters: insertions,
 * deletions, substitutions and adjacent transpositions each count one (`pyip` is one typo from `pypi`).
 */
export function editDistance(a: string, b: string): number {
  const s = a.slice(0, MAX_COMPARED).toLowerCase();
  const t = b.slice(0, MAX_COMPARED).toLowerCase();
  let before: number[] = [];
  let prev = Array.from({ length: t.length + 1 }, (_, j) => j);
  for (let i = 1; i <= s.length; i++) {
    const cur = [i];
    for (let j = 1; j <= t.length; j++) {
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (s[i - 1] === t[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && s[i - 1] === t[j - 2] && s[i - 2] === t[j - 1]) cur[j] = Math.min(cur[j], before[j - 2] + 1);
    }
    before = prev;
    prev = cur;
  }
  return prev[t.length];
}

/** `allowed` sorted nearest first (stable for ties). */
export function nearestFirst(name: string, allowed: readonly string[]): string[] {
  return allowed
    .map((candidate, index) => ({ candidate, index, d: editDistance(name, candidate) }))
    .sort((x, y) => x.d - y.d || x.index - y.index)
    .map((x) => x.candidate);
}

/**
 * The close candidates (what a typo could have meant), nearest first.
 * @internal
 */
export function closeMatches(name: string, allowed: readonly string[]): string[] {
  const limit = Math.max(1, Math.floor(Math.min(name.length, MAX_COMPARED) / 3));
  return nearestFirst(name, allowed).filter((c) => editDistance(name, c) <= limit || c.toLowerCase() === name.toLowerCase());
}

/** Short, safe rendering of untrusted text inside a message. */
export function quote(text: string, max = 60): string {
  const clipped = text.length > max ? `${text.slice(0, max)}…` : text;
  return '`' + clipped.replace(/[\u0000-\u001f`]/g, (c) => (c === '`' ? "'" : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)) + '`';
}
