/**
 * Addresses and prefixes (the `ip-or-prefix` format of decisions.md D3) as bytes and a prefix
 * length: the schema's format predicates, the parser and its memo shared by the schema check and
 * lint, and the comparisons of networks. The checks with messages are in ip-check.ts, the fast
 * paths in ip-plain.ts and the reading of trace addresses in ip-address.ts; this module re-exports
 * them, so the rest of core imports from here.
 */
import ipaddr from 'ipaddr.js';
import { ipOrPrefixProblem, ipOrPrefixProblemSlow } from './ip-check';
import { plainIpv4, plainIpv6, plainPrefix, plainV6Bytes } from './ip-plain';

export { ipOrPrefixProblem, ipOrPrefixProblemSlow } from './ip-check';
export { plainIpv4Cidr, type PlainIpv4 } from './ip-plain';
export { parseAddress, parseAddressSlow, type ParsedAddress } from './ip-address';

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