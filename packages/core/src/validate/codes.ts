/** One line per diagnostic code: SARIF rule descriptions, docs index, hovers. */
import type { DiagnosticCode } from './types';

/**
 * The title of each diagnostic code, one sentence: SARIF rule descriptions, the docs index, hovers.
 * @public
 */
export const CODE_TITLES: Record<DiagnosticCode, string> = {
  'json-syntax': 'The file is not valid JSON.',
  'comment-not-allowed': 'A comment in a strict .json policy file.',
  'trailing-comma': 'A trailing comma in a strict .json policy file.',
  'duplicate-key': 'The same key twice in one object.',
  'unknown-property': 'A property the policy format does not have.',
  'missing-property': 'A required property is missing.',
  'wrong-type': 'A value of the wrong JSON type.',
  'invalid-value': 'A value outside the allowed set.',
  'unknown-preset': 'A preset name that does not exist.',
  'source-kind': 'A source without exactly one kind.',
  'connection-kind': 'A connection without exactly one kind.',
  'invalid-url': 'A URL that breaks the URL rule.',
  'invalid-host-pattern': 'A host pattern that breaks the host-pattern rule.',
  'invalid-port': 'A port outside 1 to 65535.',
  'invalid-cidr': 'Text that is not an IP address or prefix.',
  'ipv6-not-allowed': 'An IPv6 address in an IPv4-only (udp, icmp) rule.',
  'invalid-repository-pattern': 'A repository pattern that breaks the pattern rule.',
  'invalid-purl-namespace': 'A package-URL namespace with forbidden characters.',
  'empty-array': 'An array that needs at least one item is empty.',
  'duplicate-item': 'The same item twice in an array of unique items.',
  'missing-target': 'A rule that says neither where nor how to connect.',
  'cidr-host-bits': 'A prefix with host bits set.',
  'duplicate-rule': 'A rule identical to an earlier one.',
  'shadowed-rule': 'A rule entirely covered by an earlier rule or an enabled preset.',
  'redundant-with-preset': 'A source an enabled preset already provides.',
  'rules-unused-with-default-allow': 'Rules that change nothing because the default is allow.',
  'broad-cidr': 'A very wide address range.',
  'metadata-address': 'A range containing a cloud metadata endpoint.',
  'insecure-url': 'A plain http:// source URL.',
  'wildcard-push': 'Push or delete to any repository of a registry.',
  'unmatchable-host-pattern': 'A host pattern that can never match a real host name.',
};
