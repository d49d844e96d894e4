/**
 * Keeping the access token out of every text the client hands over (error messages, reasons,
 * problem documents, retry notices). Service text is hostile: it may echo the token whole,
 * JSON-escaped (so problem documents are checked after parsing, and `\uXXXX` escapes in other
 * bodies are decoded first), cut to its first characters, upper-cased, or glued to other text.
 *
 * - Tokens shorter than MIN_TOKEN_LENGTH are refused by the client: a one-character token
 *   cannot be told apart from ordinary text, so nothing printed could be trusted.
 * - `redact` replaces, in one pass, every stretch of text that is the whole token, a prefix of it
 *   at least FRAGMENT_LENGTH characters long (a service that echoes "the first 7 characters"),
 *   or any other piece of it at least half its length (and at least FRAGMENT_LENGTH), by
 *   `[redacted]`, ignoring ASCII case. Nothing shorter is touched, so ordinary words never lose
 *   letters (`netpolicy fetch` stays whole) and a short word that happens to occur inside a
 *   token (say `expired` at the end of `demo-token-expired`) stays readable.
 */

/**
 * The shortest token the client accepts.
 * @public
 */
export const MIN_TOKEN_LENGTH = 8;
/**
 * Prefixes of the token this long or longer are never printed (other pieces: half the token).
 * @public
 */
export const FRAGMENT_LENGTH = 6;
const MARK = '[redacted]';

/** ASCII lower case: the same length as the input, so positions carry over. */
const fold = (s: string) => s.replace(/[A-Z]+/g, (c) => c.toLowerCase());

/**
 * Removes the token, its prefixes of FRAGMENT_LENGTH or more, and its pieces of half its length or more from `text`.
 * @public
 */
export function redact(text: string, token: string | undefined): string {
  if (!token || text.length < Math.min(FRAGMENT_LENGTH, token.length)) return text;
  const t = fold(text);
  const { folded: k, automaton } = tokenIndex(token);
  let covered: Uint8Array | undefined;
  // Both sweeps below yield intervals in order of their start, so a running "filled to" keeps the
  // union linear in the text, whatever the token (even `aaaaaaaa…`).
  let filled = 0;
  const cover = (from: number, to: number) => {
    if (to <= filled) return;
    (covered ??= new Uint8Array(text.length)).fill(1, Math.max(from, filled), to);
    filled = to;
  };
  // Prefixes (the whole token included): the longest prefix of the token at each position (Z-function).
  const z = prefixMatches(k, t);
  for (let i = 0; i < t.length; i++) if (z[i] >= FRAGMENT_LENGTH) cover(i, i + z[i]);
  // Any other piece of half the token or more: the longest piece of the token ending at each
  // position (matching statistics over the token's suffix automaton).
  const min = Math.max(FRAGMENT_LENGTH, Math.ceil(k.length / 2));
  filled = 0;
  let state = 0;
  let length = 0;
  for (let i = 0; i < t.length; i++) {
    const c = t[i];
    while (state !== 0 && !automaton.next[state].has(c)) {
      state = automaton.link[state];
      length = automaton.len[state];
    }
    const to = automaton.next[state].get(c);
    if (to === undefined) { state = 0; length = 0; } else { state = to; length++; }
    if (length >= min) cover(i - length + 1, i + 1);
  }
  if (!covered) return text;
  const marks = covered as Uint8Array;
  let out = '';
  let i = 0;
  while (i < text.length) {
    const start = i;
    const masked = marks[i] === 1;
    while (i < text.length && (marks[i] === 1) === masked) i++;
    out += masked ? MARK : text.slice(start, i);
  }
  return out;
}

/** For each position of `text`, how many characters from there equal the start of `pattern` (Z-function, linear). */
function prefixMatches(pattern: string, text: string): Int32Array {
  const n = pattern.length;
  // Z-function of pattern + separator + text; the separator (index n) equals nothing.
  const total = n + 1 + text.length;
  const at = (i: number): string | undefined => (i < n ? pattern[i] : i === n ? undefined : text[i - n - 1]);
  const z = new Int32Array(total);
  let left = 0;
  let right = 0;
  for (let i = 1; i < total; i++) {
    let length = i < right ? Math.min(right - i, z[i - left]) : 0;
    while (i + length < total && length < n) {
      const a = at(length);
      if (a === undefined || a !== at(i + length)) break;
      length++;
    }
    z[i] = length;
    if (i + length > right) { left = i; right = i + length; }
  }
  return z.subarray(n + 1);
}

interface SuffixAutomaton { next: Map<string, number>[]; link: Int32Array; len: Int32Array }

let indexCache: { token: string; folded: string; automaton: SuffixAutomaton } | undefined;

/** The folded token and its suffix automaton (kept for the latest token: one per client in practice). */
function tokenIndex(token: string): { folded: string; automaton: SuffixAutomaton } {
  if (indexCache?.token === token) return indexCache;
  const folded = fold(token);
  indexCache = { token, folded, automaton: suffixAutomaton(folded) };
  return indexCache;
}

/** The suffix automaton of `s` (every substring of `s` is a path from state 0), built in linear time. */
function suffixAutomaton(s: string): SuffixAutomaton {
  const size = 2 * s.length + 1;
  const next: Map<string, number>[] = [new Map()];
  const link = new Int32Array(size).fill(-1);
  const len = new Int32Array(size);
  let last = 0;
  let count = 1;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    const cur = count++;
    next[cur] = new Map();
    len[cur] = len[last] + 1;
    let p = last;
    while (p !== -1 && !next[p].has(c)) { next[p].set(c, cur); p = link[p]; }
    if (p === -1) {
      link[cur] = 0;
    } else {
      const q = next[p].get(c)!;
      if (len[p] + 1 === len[q]) {
        link[cur] = q;
      } else {
        const clone = count++;
        next[clone] = new Map(next[q]);
        len[clone] = len[p] + 1;
        link[clone] = link[q];
        while (p !== -1 && next[p].get(c) === q) { next[p].set(c, clone); p = link[p]; }
        link[q] = clone;
        link[cur] = clone;
      }
    }
    last = cur;
  }
  link[0] = 0; // the matching loop stops at state 0
  return { next, link, len };
}

/**
 * `redact` for a body that is not a parsed document: JSON `\uXXXX` escapes are decoded first, so a
 * token written with them (in a document cut short or otherwise unparsable) is found too.
 */
export function redactBody(text: string, token: string | undefined): string {
  if (!token) return text;
  const decoded = text.includes('\\u') ? text.replace(/\\u([0-9a-fA-F]{4})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))) : text;
  return redact(decoded, token);
}

/** `redact` over every string (member names included) of a parsed JSON value. */
export function redactValue<T>(value: T, token: string | undefined, depth = 0): T {
  if (!token) return value;
  if (typeof value === 'string') return redact(value, token) as T;
  if (typeof value !== 'object' || value === null) return value;
  if (depth > 64) return undefined as T; // no problem document nests this deep: dropped, not passed on unchecked
  if (Array.isArray(value)) return value.map((v) => redactValue(v, token, depth + 1)) as T;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    Object.defineProperty(out, redact(k, token), { value: redactValue(v, token, depth + 1), enumerable: true, writable: true, configurable: true });
  }
  return out as T;
}
