/** Diagnostics: stable codes (contracts.md), a JSON Pointer, and an offset range into the text. */

export const SCHEMA_CODES = [
  'json-syntax', 'comment-not-allowed', 'trailing-comma', 'duplicate-key',
  'unknown-property', 'missing-property', 'wrong-type', 'invalid-value', 'unknown-preset',
  'source-kind', 'connection-kind', 'invalid-url', 'invalid-host-pattern', 'invalid-port',
  'invalid-cidr', 'ipv6-not-allowed', 'invalid-repository-pattern', 'invalid-purl-namespace',
  'empty-array', 'duplicate-item', 'missing-target',
] as const;

export const LINT_CODES = [
  'cidr-host-bits', 'duplicate-rule', 'shadowed-rule', 'redundant-with-preset',
  'rules-unused-with-default-allow', 'broad-cidr', 'metadata-address', 'insecure-url',
  'wildcard-push', 'unmatchable-host-pattern',
] as const;

export type SchemaCode = (typeof SCHEMA_CODES)[number];
export type LintCode = (typeof LINT_CODES)[number];
export type DiagnosticCode = SchemaCode | LintCode;

export type Severity = 'error' | 'warning' | 'information' | 'hint';

/** Which part of the node a pointer names the range covers: the value, or the key of the member. */
export type RangeTarget = 'value' | 'key';

export interface Diagnostic {
  code: DiagnosticCode;
  severity: Severity;
  message: string;
  /** RFC 6901 pointer: to the offending value, the unknown property, the object lacking a member, or "" for the document. */
  pointer: string;
  /** Zero-based UTF-16 offset and length of what the pointer names (see contracts.md for which part). */
  offset: number;
  length: number;
  /** Typed data for quick fixes (for example the corrected prefix of `cidr-host-bits`). */
  data?: DiagnosticData;
}

export type DiagnosticData =
  | { kind: 'replace'; value: unknown; title: string }
  | { kind: 'remove'; title: string }
  | { kind: 'rename-key'; candidates: string[] };

/** Documentation link of a code (codeDescription in LSP, helpUri in SARIF). */
export function docsUrl(code: string): string {
  return `https://github.com/netpolicy/netpolicy/blob/main/docs/diagnostics/${code}.md`;
}
