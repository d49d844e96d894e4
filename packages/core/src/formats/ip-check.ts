/**
 * The address formats of decisions.md D3, `ipv4-or-prefix` and `ip-or-prefix`, as checks that say
 * what is wrong. Hand-written scanning (no regular expressions) so that hostile input costs linear
 * time; IPv6 text is checked by ipaddr.js after the character rules D3 adds. The common forms are
 * accepted first by the fast paths of ip-plain.ts.
 */
import ipaddr from 'ipaddr.js';
import { plainIpv4, plainIpv6 } from './ip-plain';

export const MAX_ADDRESS_TEXT = 64;

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
