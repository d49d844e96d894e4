/** The contract between lint rules and `validate` (which turns findings into positioned diagnostics). */
import type { PresetCatalog } from '../presets/catalog';
import type { DiagnosticData, DiagnosticTag, LintCode, RangeTarget, RelatedInformation } from '../validate/types';

/**
 * What a lint rule reads: the parsed document and the preset catalog in force.
 * @public
 */
export interface LintContext {
  /** The parsed document. Untrusted: any JSON value (rules must tolerate every shape without throwing). */
  value: unknown;
  catalog: PresetCatalog;
}

/**
 * A lint rule's finding before it is placed in the text: `validateDocument` turns its pointer into an offset range.
 * @public
 */
export interface LintFinding {
  code: LintCode;
  /** RFC 6901 pointer to what the finding is about. */
  pointer: string;
  /** Range covers the value (default) or the key of the member the pointer names. */
  target?: RangeTarget;
  message: string;
  data?: DiagnosticData;
  /** Other places involved (the earlier rule, the preset): carried to the diagnostic. */
  related?: RelatedInformation[];
  /** `unnecessary` for rules that never decide an access. */
  tags?: DiagnosticTag[];
}

/** What a rule reports: a finding without its code (`lint()` stamps the rule's code on each). */
export type RuleFinding = Omit<LintFinding, 'code'>;

/**
 * A lint rule: its code, a one-line description, and the check that returns its findings.
 * @public
 */
export interface LintRule {
  code: LintCode;
  /** One line for docs and hovers. */
  description: string;
  check(context: LintContext): RuleFinding[];
}
