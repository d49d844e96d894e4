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

/** The shortest token the client accepts. */
export const MIN_TOKEN_LENGTH = 8;
/** Prefixes of the token this long or longer are never printed (other pieces: half the token). */
export const FRAGMENT_LENGTH = 6;
const MARK = '[redacted]';

/** ASCII lower case: the same length as the input, so positions carry over. */
const fold = (s: string) => s.replace(/[A-Z]+/g, (c) => c.toLowerCase());

/** Removes the token, its prefixes of FRAGMENT_LENGTH or more, and its pieces of half its length or more from `text`. */
export function redact(text: string, token: string | undefined): string {
  if (!token || text.length < Math.min(FRAGMENT_LENGTH, token.length)) return text;
  const t = fold(text);
  const k = fold(token);
  let covered: Uint8Array | undefined;
  const cover = (from: number, to: number) => { (covered ??= new Uint8Array(text.length)).fill(1, from, to); };
  // Prefixes (the whole token included): find the first FRAGMENT_LENGTH characters, then extend.
  const head = k.slice(0, FRAGMENT_LENGTH);
  for (let at = t.indexOf(head); at >= 0; at = t.indexOf(head, at + 1)) {
    let end = at + head.length;
    while (end < t.length && end - at < k.length && t[end] === k[end - at]) end++;
    cover(at, end);
  }
  // Any other piece of half the token or more: every window of that length is looked up.
  const n = Math.max(FRAGMENT_LENGTH, Math.ceil(k.length / 2));
  if (n <= k.length && t.length >= n) {
    const pieces = piecesOf(k, n);
    for (let i = 0; i + n <= t.length; i++) if (pieces.has(t.slice(i, i + n))) cover(i, i + n);
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

/**
 * `redact` for a body that is not a parsed document: JSON `\uXXXX` escapes are decoded first, so a
 * token written with them (in a document cut short or otherwise unparsable) is found too.
 */
export function redactBody(text: string, token: string | undefined): string {
  if (!token) return text;
  const decoded = text.includes('\\u') ? text.replace(/\\u([0-9a-fA-F]{4})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))) : text;
  return redact(decoded, token);
}

const cache = new Map<string, Set<string>>();

function piecesOf(token: string, k: number): Set<string> {
  const key = `${k}:${token}`;
  let set = cache.get(key);
  if (!set) {
    set = new Set();
    for (let i = 0; i + k <= token.length; i++) set.add(token.slice(i, i + k));
    cache.clear(); // one token per client in practice: keep only the latest
    cache.set(key, set);
  }
  return set;
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
