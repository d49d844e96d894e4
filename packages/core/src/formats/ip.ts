/**
 * The address formats of decisions.md D3, `ipv4-or-prefix` and `ip-or-prefix`.
 * Hand-written scanning (no regular expressions) so that hostile input costs linear time;
 * IPv6 text is checked by ipaddr.js after the character rules D3 adds.
 */
import ipaddr from 'ipaddr.js';

/**
 * An address or prefix as bytes and a prefix length, for matching and comparing networks.
 * @internal
 */
export interface ParsedCidr {
  version: 4 | 6;
  /** Address bytes (4 or 16), network byte order. */
  bytes: number[];
  /** Prefix length; a plain address has the full length (32 or 128) and `explicitPrefix` false. */
  prefix: number;
  /** True when the text wrote `/N`. */
  explicitPrefix: boolean;
}

const MAX_ADDRESS_TEXT = 64;

/** Why `text` is not an IPv4 address (undefined when it is one). */
function ipv4AddressProblem(text: string): string | undefined {
  if (text.length === 0) return 'the address is empty';
  if (text.length > 15) return 'an IPv4 address has four decimal octets separated by dots';
  const parts = text.split('.');
  if (parts.length !== 4) return `an IPv4 address has four decimal octets, \`${text}\` has ${parts.length}`;
  for (const part of parts) {
    if (part.length === 0) return 'an octet is empty';
    for (let i = 0; i < part.length; i++) {
      const c = part.charCodeAt(i);
      if (c < 48 || c > 57) return `octet \`${part}\` is not a decimal number`;
    }
    if (part.length > 1 && part[0] === '0') return `octet \`${part}\` has a leading zero (ambiguous: octal in some tools)`;
    if (Number(part) > 255) return `octet ${part} is greater than 255`;
  }
  return undefined;
}

function prefixProblem(text: string, max: number): string | undefined {
  if (text.length === 0) return 'the prefix length after `/` is empty';
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 48 || c > 57) return `prefix length \`${text}\` is not a decimal number`;
  }
  if (text.length > 1 && text[0] === '0') return `prefix length \`${text}\` has a leading zero`;
  if (text.length > 3 || Number(text) > max) return `prefix length ${text} is greater than ${max}`;
  return undefined;
}

function ipv6AddressProblem(text: string): string | undefined {
  if (text.length > MAX_ADDRESS_TEXT) return 'the text is too long for an IPv6 address';
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '%') return 'a zone index (`%...`) is not allowed';
    if (c === '[' || c === ']') return 'brackets are not allowed around an address';
    const code = text.charCodeAt(i);
    const ok = (code >= 48 && code <= 58) || (code >= 65 && code <= 70) || (code >= 97 && code <= 102) || c === '.';
    if (!ok) return `character \`${c}\` cannot appear in an IPv6 address`;
  }
  const lastColon = text.lastIndexOf(':');
  const tail = text.slice(lastColon + 1);
  if (tail.includes('.')) {
    const problem = ipv4AddressProblem(tail);
    if (problem) return `the embedded IPv4 part: ${problem}`;
  }
  for (const group of text.split(':')) {
    if (!group.includes('.') && group.length > 4) return `group \`${group}\` has more than four hex digits`;
  }
  if (!ipaddr.IPv6.isValid(text)) return `\`${text}\` is not a valid IPv6 address`;
  return undefined;
}

function looksLikeIpv6(address: string): boolean {
  return address.includes(':');
}

/**
 * Why `text` is not in the format (undefined when it is). `ipv4Only` selects `ipv4-or-prefix`.
 * The message says what is wrong: an octet over 255, a prefix over 32, a leading zero, IPv6 where
 * only IPv4 is allowed.
 */
export function ipOrPrefixProblem(text: string, ipv4Only = false): string | undefined {
  if (plainIpv4(text) !== undefined) return undefined;
  if (!ipv4Only && plainIpv6(text)) return undefined;
  return ipOrPrefixProblemSlow(text, ipv4Only);
}

/**
 * The common IPv6 forms without ipaddr.js: groups of one to four hex digits (either case) separated
 * by `:`, eight of them or fewer around one `::`, optionally `/n` (0 to 128, no leading zero). Fills
 * `plainV6Bytes` and sets `plainPrefix` (-1 without `/`); false for anything else (an embedded IPv4
 * part, a zone, a malformed text), which the full checks then judge and explain. Whatever it
 * accepts, the full checks accept with the same bytes (fast-paths.property.test.ts).
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

const plainV6Bytes: number[] = new Array(16).fill(0);
const plainV6Groups: number[] = new Array(8).fill(0);
function plainIpv6(text: string): boolean {
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
let plainPrefix = -1;
function plainIpv4(text: string): number | undefined {
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

/** The full checks, with messages (the reference of the fast path above). */
export function ipOrPrefixProblemSlow(text: string, ipv4Only = false): string | undefined {
  const slash = text.indexOf('/');
  const address = slash < 0 ? text : text.slice(0, slash);
  const prefix = slash < 0 ? undefined : text.slice(slash + 1);
  if (text.length !== text.trim().length || /\s/.test(text)) return 'whitespace is not allowed';
  if (looksLikeIpv6(address)) {
    if (ipv4Only) {
      const v6 = ipv6AddressProblem(address) ?? (prefix === undefined ? undefined : prefixProblem(prefix, 128));
      return v6 ? v6 : 'IPv6 is not allowed here: udp and icmp rules take IPv4 addresses only';
    }
    return ipv6AddressProblem(address) ?? (prefix === undefined ? undefined : prefixProblem(prefix, 128));
  }
  return ipv4AddressProblem(address) ?? (prefix === undefined ? undefined : prefixProblem(prefix, 32));
}

/**
 * Whether `text` is an IPv4 address or prefix `a.b.c.d/N` (the schema's `ipv4-or-prefix` format, for udp and icmp rules).
 * @public
 */
export function isIpv4OrPrefix(text: string): boolean {
  return typeof text === 'string' && !text.includes(':') && ipOrPrefixProblem(text, true) === undefined;
}

/**
 * Whether `text` is an IPv4 or IPv6 address or prefix (the schema's `ip-or-prefix` format).
 * @public
 */
export function isIpOrPrefix(text: string): boolean {
  if (typeof text !== 'string') return false;
  if (plainIpv4(text) !== undefined) return true;
  // Anything else is parsed once, here, for the readers after the schema check (`parsedCidr`).
  return parsedCidr(text) !== undefined;
}

/**
 * Prefixes in `ip-or-prefix` format by text, parsed (null: not in the format). Bounded; shared by
 * the schema's format check and lint's readers (policy/rules-read.ts `cidrOf`), so that a prefix
 * other than a plain IPv4 one is parsed once per check.
 */
let parsedCidrs = new Map<string, ParsedCidr | null>();

/** `parseCidr`, memoised (bounded). The result is shared: never mutate it. */
export function parsedCidr(text: string): ParsedCidr | undefined {
  let cidr = parsedCidrs.get(text);
  if (cidr === undefined) {
    cidr = parseCidr(text) ?? null;
    if (parsedCidrs.size >= 25000) parsedCidrs.clear();
    parsedCidrs.set(text, cidr);
  }
  return cidr ?? undefined;
}

/**
 * Starts the memo afresh. validate/chunked.ts calls it after each batch of rules: entries that
 * outlive their batch would be promoted to the old generation, and a table cleared in place stays
 * there with pointers to the next batch's strings (a million distinct CIDRs: 100 MB more at the peak).
 */
export function forgetParsedCidrs(): void {
  parsedCidrs = new Map();
}

/**
 * Parses an address or prefix in `ip-or-prefix` format; undefined when it is not one.
 * @internal
 */
export function parseCidr(text: string): ParsedCidr | undefined {
  if (typeof text !== 'string') return undefined;
  const packed = plainIpv4(text);
  if (packed !== undefined) {
    const prefix = plainPrefix;
    return { version: 4, bytes: [packed >>> 24, (packed >>> 16) & 255, (packed >>> 8) & 255, packed & 255], prefix: prefix < 0 ? 32 : prefix, explicitPrefix: prefix >= 0 };
  }
  if (plainIpv6(text)) {
    const prefix = plainPrefix;
    return { version: 6, bytes: plainV6Bytes.slice(), prefix: prefix < 0 ? 128 : prefix, explicitPrefix: prefix >= 0 };
  }
  return parseCidrSlow(text);
}

/** parseCidr through the full checks and ipaddr.js (the reference of its fast path). */
export function parseCidrSlow(text: string): ParsedCidr | undefined {
  if (typeof text !== 'string' || ipOrPrefixProblemSlow(text, false) !== undefined) return undefined;
  const slash = text.indexOf('/');
  const address = slash < 0 ? text : text.slice(0, slash);
  const addr = ipaddr.parse(address);
  const version = addr.kind() === 'ipv4' ? 4 : 6;
  const full = version === 4 ? 32 : 128;
  const prefix = slash < 0 ? full : Number(text.slice(slash + 1));
  return { version, bytes: addr.toByteArray(), prefix, explicitPrefix: slash >= 0 };
}

/** An address as parseAddress reads it: version and bytes (4 or 16), network byte order. */
export interface ParsedAddress {
  version: 4 | 6;
  bytes: number[];
}

/**
 * Parses a plain address (as recorded in a trace: `remote_ip`); undefined when it is not one.
 * Exactly what ipaddr.js accepts (`parseAddressSlow`, the reference), without a zone (`%eth0`):
 * a dotted quad in canonical form, IPv6 in any of its forms, IPv4-mapped and other IPv6 texts with
 * a dotted tail kept as IPv6. Read by hand, without regular expressions or exceptions: it runs
 * once per observation, and ipaddr.js's IPv4 check throws (and catches) a TypeError for each
 * IPv6 text (a third of `explain`'s time on a trace with IPv6 addresses). Held to the reference by
 * fast-paths.property.test.ts.
 */
export function parseAddress(text: string): ParsedAddress | undefined {
  if (typeof text !== 'string' || text.length > MAX_ADDRESS_TEXT) return undefined;
  const packed = plainIpv4(text);
  if (packed !== undefined) {
    return plainPrefix < 0 ? { version: 4, bytes: [packed >>> 24, (packed >>> 16) & 255, (packed >>> 8) & 255, packed & 255] } : undefined;
  }
  if (plainIpv6(text)) return plainPrefix < 0 ? { version: 6, bytes: plainV6Bytes.slice() } : undefined;
  // What is left that ipaddr.js accepts: IPv6 with a dotted IPv4 tail (after the last `:`).
  return dottedTailIpv6(text);
}

/**
 * One IPv4 part of ipaddr.js's grammar in `text[from, to)`: decimal digits (leading zeros
 * allowed) or `0x` and hex digits, read as `parseInt` reads it; -1 when it is not one or is over 255.
 */
function tailOctet(text: string, from: number, to: number): number {
  if (from >= to) return -1;
  let value = 0;
  if (to - from > 2 && text.charCodeAt(from) === 48 && (text.charCodeAt(from + 1) | 32) === 120) {
    for (let k = from + 2; k < to; k++) {
      const d = hexDigit(text.charCodeAt(k));
      if (d < 0) return -1;
      value = value * 16 + d;
      if (value > 255) value = 256; // stays over 255, without growing past what a number holds
    }
  } else {
    for (let k = from; k < to; k++) {
      const c = text.charCodeAt(k);
      if (c < 48 || c > 57) return -1;
      value = value * 10 + (c - 48);
      if (value > 255) value = 256;
    }
  }
  return value > 255 ? -1 : value;
}

function hexDigit(c: number): number {
  return c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 102 ? c - 87 : c >= 65 && c <= 70 ? c - 55 : -1;
}

/**
 * IPv6 with a dotted IPv4 tail as ipaddr.js reads it (its `transitional` and `deprecatedTransitional`
 * forms): groups of hex digits ending in `:` or `::` (at most one `::`, which stands for at least one
 * group), six groups in all with the gap, then four IPv4 parts (`tailOctet`). `::a.b.c.d` alone is
 * read as `::ffff:a.b.c.d`, as ipaddr.js does. Undefined for anything else (a zone included).
 */
function dottedTailIpv6(text: string): ParsedAddress | undefined {
  const n = text.length;
  const last = text.lastIndexOf(':');
  if (last < 1) return undefined; // no colon, or a single leading one
  // The tail: four parts separated by dots.
  const octets = [0, 0, 0, 0];
  let from = last + 1;
  for (let p = 0; p < 4; p++) {
    const dot = p < 3 ? text.indexOf('.', from) : n;
    if (dot < 0) return undefined;
    const v = tailOctet(text, from, dot);
    if (v < 0) return undefined;
    octets[p] = v;
    from = dot + 1;
  }
  const bytes = new Array<number>(16).fill(0);
  // The head, up to and including the last colon.
  if (last === 1) {
    if (text.charCodeAt(0) !== 58) return undefined;
    // `::a.b.c.d`: ipaddr.js reads it as `::ffff:a.b.c.d`.
    bytes[10] = 255;
    bytes[11] = 255;
  } else {
    const groups = plainV6Groups;
    // gapEnd: the index of the second colon of the `::`.
    let count = 0, gap = -1, gapEnd = -1, value = 0, digits = 0, i = 0;
    if (text.charCodeAt(0) === 58) {
      if (text.charCodeAt(1) !== 58) return undefined;
      gap = 0;
      gapEnd = 1;
      i = 2;
    }
    for (; i < last; i++) {
      const c = text.charCodeAt(i);
      const d = hexDigit(c);
      if (d >= 0) {
        if (++digits > 4) return undefined;
        value = value * 16 + d;
        continue;
      }
      if (c !== 58 || digits === 0 || count === 6) return undefined;
      groups[count++] = value;
      value = 0;
      digits = 0;
      if (text.charCodeAt(i + 1) === 58) {
        if (gap >= 0) return undefined; // a second `::`
        gap = count;
        gapEnd = ++i;
      }
    }
    // The colon at `last` ends the last group, or is the second of a `::` (`1::a.b.c.d`, not `:::a.b.c.d`).
    if (digits > 0) {
      if (count === 6) return undefined;
      groups[count++] = value;
    } else if (gapEnd !== last) return undefined;
    if (gap < 0 ? count !== 6 : count > 5) return undefined;
    const after = gap < 0 ? 6 : 6 - (count - gap);
    for (let g = 0, k = 0; g < 6; g++) {
      const v = gap < 0 || g < gap || g >= after ? groups[k++] : 0;
      bytes[2 * g] = v >> 8;
      bytes[2 * g + 1] = v & 255;
    }
  }
  bytes[12] = octets[0];
  bytes[13] = octets[1];
  bytes[14] = octets[2];
  bytes[15] = octets[3];
  return { version: 6, bytes };
}

/** parseAddress through ipaddr.js (the reference of the hand parser above; it throws and catches inside). */
export function parseAddressSlow(text: string): ParsedAddress | undefined {
  if (typeof text !== 'string' || text.length > MAX_ADDRESS_TEXT) return undefined;
  try {
    if (ipaddr.IPv4.isValidFourPartDecimal(text)) return { version: 4, bytes: ipaddr.IPv4.parse(text).toByteArray() };
    if (ipaddr.IPv6.isValid(text) && !text.includes('%')) return { version: 6, bytes: ipaddr.IPv6.parse(text).toByteArray() };
  } catch {
    return undefined;
  }
  return undefined;
}

/** True when the first `prefix` bits of `a` and `b` are equal. */
export function samePrefix(a: number[], b: number[], prefix: number): boolean {
  let bits = prefix;
  for (let i = 0; bits > 0; i++, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
    if ((a[i] & mask) !== (b[i] & mask)) return false;
  }
  return true;
}

/** The network address of a prefix (host bits cleared), in canonical text (RFC 5952 for IPv6). */
export function networkOf(cidr: ParsedCidr): string {
  const bytes = cidr.bytes.slice();
  for (let bit = cidr.prefix; bit < bytes.length * 8; bit++) bytes[bit >> 3] &= ~(0x80 >> (bit & 7));
  return `${formatAddress(bytes)}/${cidr.prefix}`;
}

/** True when the prefix has bits set after the prefix length. */
export function hasHostBits(cidr: ParsedCidr): boolean {
  const bytes = cidr.bytes;
  let i = cidr.prefix >> 3;
  // The byte the prefix ends in (its bits after the prefix), then every byte after it, whole.
  if (cidr.prefix & 7) { if (bytes[i] & (0xff >> (cidr.prefix & 7))) return true; i++; }
  for (; i < bytes.length; i++) if (bytes[i] !== 0) return true;
  return false;
}

/**
 * Address bytes in canonical text: dotted quad, or RFC 5952 for IPv6.
 * @internal
 */
export function formatAddress(bytes: number[]): string {
  return bytes.length === 4 ? bytes.join('.') : ipaddr.fromByteArray(bytes).toString();
}

/**
 * Exact number of addresses in a prefix, as a decimal string (IPv6 sizes exceed 2^53).
 * @internal
 */
export function prefixSize(cidr: ParsedCidr): string {
  return (1n << BigInt(cidr.bytes.length * 8 - cidr.prefix)).toString();
}

/** True when prefix `outer` contains every address of prefix `inner` (same IP version). */
export function cidrContains(outer: ParsedCidr, inner: ParsedCidr): boolean {
  return outer.version === inner.version && outer.prefix <= inner.prefix && samePrefix(outer.bytes, inner.bytes, outer.prefix);
}
