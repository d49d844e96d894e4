/**
 * The fast paths of the address formats: canonical IPv4 (`a.b.c.d`, `a.b.c.d/n`) and the common
 * IPv6 forms read by hand, without allocating, without regular expressions and without ipaddr.js.
 * They only accept; anything they decline goes to the full checks (ip-check.ts, ipaddr.js), which
 * judge and explain it. Their results are left in module state (`plainPrefix`, `plainV6Bytes`)
 * so that the hot callers allocate nothing.
 */

/**
 * `/n` from `text[slash]` to the end: decimal, no leading zero, at most `max` (32 or 128); -1 for
 * anything else (the full checks then explain it).
 */
function plainPrefixAt(text: string, slash: number, max: number): number {
  const n = text.length, digits = n - slash - 1;
  if (text.charCodeAt(slash) !== 47 || digits < 1 || digits > (max > 99 ? 3 : 2)) return -1;
  if (digits > 1 && text.charCodeAt(slash + 1) === 48) return -1;
  let prefix = 0;
  for (let k = slash + 1; k < n; k++) {
    const c = text.charCodeAt(k);
    if (c < 48 || c > 57) return -1;
    prefix = prefix * 10 + (c - 48);
  }
  return prefix > max ? -1 : prefix;
}

export const plainV6Bytes: number[] = new Array(16).fill(0);
export const plainV6Groups: number[] = new Array(8).fill(0);
/**
 * The common IPv6 forms without ipaddr.js: groups of one to four hex digits (either case) separated
 * by `:`, eight of them or fewer around one `::`, optionally `/n` (0 to 128, no leading zero). Fills
 * `plainV6Bytes` and sets `plainPrefix` (-1 without `/`); false for anything else (an embedded IPv4
 * part, a zone, a malformed text), which the full checks then judge and explain. Whatever it
 * accepts, the full checks accept with the same bytes (fast-paths.property.test.ts).
 */
export function plainIpv6(text: string): boolean {
  const n = text.length;
  if (n < 2 || n > 44) return false; // 8 groups of 4 and 7 colons (39), then `/128`
  let groups = 0, gap = -1, value = 0, digits = 0, i = 0;
  if (text.charCodeAt(0) === 58) {
    // A leading `::` (a single leading `:` is malformed).
    if (text.charCodeAt(1) !== 58) return false;
    gap = 0;
    i = 2;
  }
  for (; i < n; i++) {
    const c = text.charCodeAt(i);
    const d = c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 102 ? c - 87 : c >= 65 && c <= 70 ? c - 55 : -1;
    if (d >= 0) {
      if (++digits > 4) return false;
      value = value * 16 + d;
      continue;
    }
    if (c !== 58) break; // the end of the address (a `/`, or a character the full checks explain)
    if (digits === 0 || groups === 8) return false; // `:::`, `:` after `::`, or a ninth group
    plainV6Groups[groups++] = value;
    value = 0;
    digits = 0;
    if (text.charCodeAt(i + 1) === 58) {
      if (gap >= 0) return false; // a second `::`
      gap = groups;
      i++;
    }
  }
  if (digits > 0) {
    if (groups === 8) return false;
    plainV6Groups[groups++] = value;
  } else if (gap !== groups) return false; // ends in a single `:`, or is empty
  // Eight groups, or fewer around a `::` that stands for at least one.
  if (gap < 0 ? groups !== 8 : groups > 7) return false;
  if (i === n) plainPrefix = -1;
  else if ((plainPrefix = plainPrefixAt(text, i, 128)) < 0) return false;
  // The groups before the gap, zeros for the gap, the groups after it.
  const after = gap < 0 ? 8 : 8 - (groups - gap);
  for (let g = 0, k = 0; g < 8; g++) {
    const v = gap < 0 || g < gap || g >= after ? plainV6Groups[k++] : 0;
    plainV6Bytes[2 * g] = v >> 8;
    plainV6Bytes[2 * g + 1] = v & 255;
  }
  return true;
}

/**
 * The common case without allocating: `a.b.c.d` or `a.b.c.d/n` in canonical form (decimal octets
 * up to 255 without leading zeros, prefix up to 32 without leading zero). Returns the packed
 * address, or undefined for anything else (which the full checks then judge and explain). Sets
 * `plainPrefix` (-1 without `/`). Tested against the full checks and ipaddr.js (ip.property.test.ts).
 */
export let plainPrefix = -1;
export function plainIpv4(text: string): number | undefined {
  const n = text.length;
  if (n < 7 || n > 18) return undefined;
  let address = 0, octet = 0, digits = 0, dots = 0, i = 0;
  for (; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c >= 48 && c <= 57) {
      if (digits > 0 && octet === 0) return undefined; // leading zero
      octet = octet * 10 + (c - 48);
      if (++digits > 3 || octet > 255) return undefined;
    } else if (c === 46 && digits > 0 && dots < 3) {
      address = address * 256 + octet;
      octet = 0; digits = 0; dots++;
    } else break;
  }
  if (dots !== 3 || digits === 0) return undefined;
  address = address * 256 + octet;
  if (i === n) { plainPrefix = -1; return address; }
  const prefix = plainPrefixAt(text, i, 32);
  if (prefix < 0) return undefined;
  plainPrefix = prefix;
  return address;
}

/** A plain IPv4 address or prefix (as `plainIpv4` reads it) for callers that keep no ParsedCidr. */
export interface PlainIpv4 {
  /** The packed address (0 to 2^32 - 1). */
  address: number;
  /** The prefix length; 32 without `/`. */
  prefix: number;
}

/**
 * `a.b.c.d` or `a.b.c.d/n` in canonical form into `out`, without allocating; false for any other
 * text (parseCidr then reads it). Where true, parseCidr gives version 4, these bytes and this prefix.
 */
export function plainIpv4Cidr(text: string, out: PlainIpv4): boolean {
  const packed = plainIpv4(text);
  if (packed === undefined) return false;
  out.address = packed;
  out.prefix = plainPrefix < 0 ? 32 : plainPrefix;
  return true;
}
