/**
 * Plain addresses as a trace records them (`remote_ip`): what ipaddr.js accepts, read by hand
 * (`parseAddress`) once per observation, with ipaddr.js itself as the reference (`parseAddressSlow`).
 */
import ipaddr from 'ipaddr.js';
import { MAX_ADDRESS_TEXT } from './ip-check';
import { plainIpv4, plainIpv6, plainPrefix, plainV6Bytes, plainV6Groups } from './ip-plain';

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
