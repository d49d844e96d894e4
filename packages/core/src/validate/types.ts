/** Diagnostics: stable codes (docs/diagnostics/README.md), a JSON Pointer, and an offset range into the text. */

/**
 * The codes of syntax and schema problems: always errors, whatever the severity settings.
 * @public
 */
export const SCHEMA_CODES = [
  'json-syntax', 'comment-not-allowed', 'trailing-comma', 'duplicate-key',
  'unknown-property', 'missing-property', 'wrong-type', 'invalid-value', 'unknown-preset',
  'source-kind', 'connection-kind', 'invalid-url', 'invalid-host-pattern', 'invalid-port',
  'invalid-cidr', 'ipv6-not-allowed', 'invalid-repository-pattern', 'invalid-purl-namespace',
  'empty-array', 'duplicate-item', 'missing-target',
] as const;

/**
 * The codes of lint rules: findings in a valid policy, each with a configurable severity (`SeverityOptions`).
 * @public
 */
export const LINT_CODES = [
  'cidr-host-bits', 'duplicate-rule', 'shadowed-rule', 'redundant-with-preset',
  'rules-unused-with-default-allow', 'broad-cidr', 'metadata-address', 'insecure-url',
  'wildcard-push', 'unmatchable-host-pattern',
] as const;

/**
 * A syntax or schema problem's code.
 * @public
 */
export type SchemaCode = (typeof SCHEMA_CODES)[number];
/**
 * A lint rule's code.
 * @public
 */
export type LintCode = (typeof LINT_CODES)[number];
/**
 * Any diagnostic code: stable, each with its page under docs/diagnostics (`docsUrl`).
 * @public
 */
export type DiagnosticCode = SchemaCode | LintCode;

/**
 * How serious a diagnostic is; the names and order are LSP's.
 * @public
 */
export type Severity = 'error' | 'warning' | 'information' | 'hint';

/**
 * Which part of the node a pointer names the range covers: the value, or the key of the member.
 * @public
 */
export type RangeTarget = 'value' | 'key';

/**
 * A problem found in a policy document: a stable code, where it is (a JSON Pointer and an offset
 * range into the text), and typed fix data. Offsets, not lines: `LineIndex` turns them into positions.
 * @public
 */
export interface Diagnostic {
  code: DiagnosticCode;
  severity: Severity;
  message: string;
  /** RFC 6901 pointer: to the offending value, the unknown property, the object lacking a member, or "" for the document. */
  pointer: string;
  /** Zero-based UTF-16 offset and length of what the pointer names (see docs/cli.md, check's JSON, for which part). */
  offset: number;
  length: number;
  /** Typed data for quick fixes (for example the corrected prefix of `cidr-host-bits`); `fixEdits` turns it into text edits. */
  data?: DiagnosticData;
  /** Other places involved (the earlier rule that shadows, the preset that makes a rule redundant). */
  related?: RelatedInformation[];
  /** `unnecessary` for shadowed, duplicate and redundant rules (editors fade them). */
  tags?: DiagnosticTag[];
}

/**
 * Another place of the same document that a diagnostic involves, with what it has to do with it.
 * @public
 */
export interface RelatedInformation {
  /** RFC 6901 pointer into the same document (or `preset:<name>` text in the message for presets). */
  pointer: string;
  message: string;
}

/**
 * LSP's diagnostic tags: editors fade `unnecessary` code and strike out `deprecated`.
 * @public
 */
export type DiagnosticTag = 'unnecessary' | 'deprecated';

/**
 * One way to fix a diagnostic, relative to its pointer.
 * @public
 */
export type FixData =
  /** Replace the JSON value at the pointer. */
  | { kind: 'replace'; value: unknown; title: string }
  /** Delete exactly the diagnostic's range (a trailing comma, a comment). */
  | { kind: 'delete-text'; title: string }
  /** Remove the array element or object member at the pointer, with its separator. */
  | { kind: 'remove-element'; title: string }
  /** Rename the key at the pointer; candidates nearest first. */
  | { kind: 'rename-key'; candidates: string[] }
  /** Add a member to the object at the pointer. */
  | { kind: 'insert-member'; key: string; value: unknown; title: string };

/**
 * Fix data of a diagnostic: one fix, or several alternatives (preferred first).
 * @public
 */
export type DiagnosticData = FixData | { kind: 'choices'; fixes: FixData[] };

/**
 * The fixes a diagnostic's data offers, preferred first.
 * @public
 */
export function fixesOf(data: DiagnosticData | undefined): FixData[] {
  if (data === undefined) return [];
  return data.kind === 'choices' ? data.fixes : [data];
}

/**
 * A severity option of a lint code: a severity, or `off` (the rule does not run).
 * @public
 */
export type SeveritySetting = Severity | 'off';
/**
 * Severity per lint code (schema and syntax problems stay errors).
 * @public
 */
export type SeverityOptions = Partial<Record<LintCode, SeveritySetting>>;
/**
 * Every value a lint code's severity setting may take, for validating configuration.
 * @public
 */
export const SEVERITY_SETTINGS: readonly SeveritySetting[] = ['error', 'warning', 'information', 'hint', 'off'];

/**
 * Documentation link of a code (codeDescription in LSP, helpUri in SARIF).
 * @public
 */
export function docsUrl(code: string): string {
  return `https://github.com/netpolicy/netpolicy/blob/main/docs/diagnostics/${code}.md`;
}
