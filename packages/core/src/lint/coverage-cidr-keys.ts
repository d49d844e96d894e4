/**
 * The keys coverage (coverage-keys.ts) reads from CIDRs: a CIDR is indexed under the hash of its
 * network and looks up the networks of every shorter prefix length some rule's CIDR has
 * (`CidrLengths`, found in a first pass), as atom-index.ts buckets them. A plain IPv4 CIDR is
 * hashed from its packed address, without a ParsedCidr.
 */
import { plainIpv4Cidr, type ParsedCidr, type PlainIpv4 } from '../formats/ip';
import { cidrOf } from '../policy/rules-read';
import { mix } from './coverage-hash';
import type { JsonObject } from './walk';

/** Scratch for plainIpv4Cidr (read at once, by addCidrLengths and `RuleKeys.connection`). */
export const plain: PlainIpv4 = { address: 0, prefix: 0 };

/** The prefix lengths of the CIDRs of connections, per IP version. */
export interface CidrLengths { 4: Set<number>; 6: Set<number> }

export function addCidrLengths(lengths: CidrLengths, body: JsonObject): void {
  const cidrs = body.cidrs;
  if (!Array.isArray(cidrs)) return;
  for (let i = 0; i < cidrs.length; i++) {
    const text = cidrs[i];
    if (typeof text !== 'string') continue;
    if (plainIpv4Cidr(text, plain)) { lengths[4].add(plain.prefix); continue; }
    const cidr = cidrOf(text);
    if (cidr !== undefined) lengths[cidr.version].add(cidr.prefix);
  }
}

/** networkHash of a plain IPv4 CIDR from its packed address (the bytes are its four octets, high first). */
export function networkHash4(address: number, length: number): number {
  let h = Math.imul(0x811c9dc5 ^ (4 * 256 + length), 0x01000193);
  let bits = length;
  for (let i = 0; bits > 0; i++, bits -= 8) {
    const byte = (address >>> (24 - 8 * i)) & (bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff);
    h = Math.imul(h ^ byte, 0x01000193);
  }
  return mix(h) | 0;
}

/** A hash of the network of the first `length` bits of a CIDR (as atom-index.ts buckets them). */
export function networkHash(cidr: ParsedCidr, length: number): number {
  let h = Math.imul(0x811c9dc5 ^ (cidr.version * 256 + length), 0x01000193);
  let bits = length;
  for (let i = 0; bits > 0; i++, bits -= 8) {
    const byte = cidr.bytes[i] & (bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff);
    h = Math.imul(h ^ byte, 0x01000193);
  }
  return mix(h) | 0;
}
