/** JSON text with object keys sorted: equal for deeply equal values whatever their key order. */
export function canonicalJson(value: unknown): string {
  if (typeof value !== 'object' || value === null) return JSON.stringify(value) ?? 'null';
  let out: string;
  if (Array.isArray(value)) {
    out = '[';
    for (let i = 0; i < value.length; i++) out += (i > 0 ? ',' : '') + canonicalJson(value[i]);
    return `${out}]`;
  }
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj).sort();
  out = '{';
  for (let i = 0; i < keys.length; i++) out += `${i > 0 ? ',' : ''}${JSON.stringify(keys[i])}:${canonicalJson(obj[keys[i]])}`;
  return `${out}}`;
}

// `jsonHash` and `jsonEquivalent` answer "is canonicalJson(a) === canonicalJson(b)?" without building
// the texts: finding duplicates among 10,000 rules by canonical text cost more than the rest of lint
// (string building, flattening for the map lookup, garbage). Equal canonical texts give equal hashes;
// equal hashes are then confirmed by `jsonEquivalent`.

const isEnumerableOwn = Object.prototype.propertyIsEnumerable;

function hashString(text: string, seed: number): number {
  let h = (seed ^ 0x811c9dc5 ^ text.length) | 0;
  // A long string (a 100 MB URL) is hashed by its length and ends: equal strings still hash equal,
  // and jsonEquivalent settles collisions.
  if (text.length > 1024) {
    for (let i = 0; i < 512; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
    for (let i = text.length - 512; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
    return h;
  }
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h;
}

/** Murmur3's finaliser: spreads the bits so that summing member hashes (order-free) stays well mixed. */
function mix(h: number): number {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return h ^ (h >>> 16);
}

/** A finite number's canonical text is String(n) (`-0` gives `0`, like JSON.stringify). */
function isPlainPrimitive(value: unknown): value is string | number {
  return typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));
}

/** A 32-bit hash, equal for values with equal canonicalJson (object key order ignored). */
export function jsonHash(value: unknown): number {
  if (typeof value === 'string') return hashString(value, 1);
  if (typeof value !== 'object' || value === null) {
    return hashString(typeof value === 'number' && Number.isFinite(value) ? String(value) : canonicalJson(value), 2);
  }
  if (Array.isArray(value)) {
    let h = 3;
    for (let i = 0; i < value.length; i++) h = (Math.imul(h, 31) + jsonHash(value[i])) | 0;
    return mix(h);
  }
  // Members are summed, so key order does not matter. for-in with an own-enumerable check visits the
  // keys of Object.keys without allocating their array (one per object of every rule).
  let sum = 4;
  for (const key in value) {
    if (!isEnumerableOwn.call(value, key)) continue;
    sum = (sum + mix(keyHash(key) ^ Math.imul(jsonHash((value as Record<string, unknown>)[key]), 0x9e3779b1))) | 0;
  }
  return mix(sum);
}

/**
 * hashString(key, 5), remembered: a policy repeats a few dozen member names thousands of times, and
 * a map lookup of a parsed key (whose hash the engine keeps) is cheaper than hashing its characters.
 * Bounded: cleared when full (a document of distinct keys still hashes them all, just not cached).
 */
const keyHashes = new Map<string, number>();
function keyHash(key: string): number {
  let h = keyHashes.get(key);
  if (h === undefined) {
    h = hashString(key, 5);
    if (key.length <= 64) {
      if (keyHashes.size >= 4096) keyHashes.clear();
      keyHashes.set(key, h);
    }
  }
  return h;
}


/** canonicalJson(a) === canonicalJson(b), without building either text. */
export function jsonEquivalent(a: unknown, b: unknown): boolean {
  if (isPlainPrimitive(a) && isPlainPrimitive(b)) return a === b;
  if (typeof a !== 'object' || a === null || typeof b !== 'object' || b === null) {
    // Rare shapes (null, booleans, non-finite numbers, non-JSON values): compare the texts themselves.
    return (typeof a !== 'object' || a === null) && (typeof b !== 'object' || b === null) && canonicalJson(a) === canonicalJson(b);
  }
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEquivalent(a[i], b[i])) return false;
    return true;
  }
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  for (const key of keys) {
    if (!isEnumerableOwn.call(b, key)) return false;
    if (!jsonEquivalent((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key])) return false;
  }
  return true;
}
