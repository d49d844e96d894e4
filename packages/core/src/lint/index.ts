/** The lint rules (warnings; docs/diagnostics/README.md), one module per code. */
import { defaultPresetCatalog } from '../presets/catalog';
import type { PresetCatalog } from '../presets/catalog';
import type { LintFinding, LintRule } from './types';
import type { LintCode } from '../validate/types';
import { cidrHostBits } from './cidr-host-bits';
import { duplicateRule } from './duplicate-rule';
import { shadowedRule } from './shadowed-rule';
import { redundantWithPreset } from './redundant-with-preset';
import { rulesUnusedWithDefaultAllow } from './rules-unused-with-default-allow';
import { broadCidr } from './broad-cidr';
import { metadataAddress } from './metadata-address';
import { insecureUrl } from './insecure-url';
import { wildcardPush } from './wildcard-push';
import { unmatchableHostPattern } from './unmatchable-host-pattern';

export type { LintContext, LintFinding, LintRule } from './types';
export { METADATA_ADDRESSES } from './metadata-address';
export { BROAD_PREFIX_LIMIT } from './broad-cidr';

/** Every lint rule (docs/diagnostics has a page per code); findings at one pointer come in this order. */
export const lintRules: LintRule[] = [
  cidrHostBits, duplicateRule, shadowedRule, redundantWithPreset, rulesUnusedWithDefaultAllow,
  broadCidr, metadataAddress, insecureUrl, wildcardPush, unmatchableHostPattern,
];

/**
 * Codes whose findings about a rule depend on that rule alone, and point inside it (no `related`
 * elsewhere): validate/chunked.ts runs them on a batch of rules at a time. Every other code compares
 * rules (coverage) or reads the whole policy; a new rule that looks at one rule at a time belongs here.
 */
export const PER_RULE_LINT_CODES: ReadonlySet<LintCode> = new Set<LintCode>([
  'cidr-host-bits', 'broad-cidr', 'metadata-address', 'insecure-url', 'wildcard-push', 'unmatchable-host-pattern',
]);

/**
 * Options of `lint`: the preset catalog in force and which rules run.
 * @public
 */
export interface LintOptions {
  /** The preset catalog in force (the built-in one by default). */
  catalog?: PresetCatalog;
  /** Which rules run (default all): a rule whose code is not enabled does no work. */
  enabled?: (code: LintCode) => boolean;
}

/** Compares pointers by document order: token by token, array indexes numerically. */
function comparePointers(a: string, b: string): number {
  const as = a.split('/'), bs = b.split('/');
  for (let i = 0; i < Math.min(as.length, bs.length); i++) {
    if (as[i] === bs[i]) continue;
    const an = /^\d+$/.test(as[i]) ? Number(as[i]) : NaN, bn = /^\d+$/.test(bs[i]) ? Number(bs[i]) : NaN;
    if (!Number.isNaN(an) && !Number.isNaN(bn)) return an - bn;
    return as[i] < bs[i] ? -1 : 1;
  }
  return as.length - bs.length;
}

/**
 * Runs every enabled lint rule on a parsed document (any JSON value; never throws on its shape) and
 * stamps each finding with its rule's code. A rule that is not enabled does no work (the analyses
 * rules share, such as coverage, are built only when a rule asks). Findings are sorted by pointer,
 * then by the order of `lintRules`.
 * @public
 */
export function lint(value: unknown, options: LintOptions = {}): LintFinding[] {
  const context = { value, catalog: options.catalog ?? defaultPresetCatalog };
  const enabled = options.enabled;
  const findings: Array<{ finding: LintFinding; order: number }> = [];
  lintRules.forEach((rule, order) => {
    if (enabled && !enabled(rule.code)) return;
    for (const f of rule.check(context)) findings.push({ finding: { code: rule.code, ...f }, order });
  });
  if (findings.length > 1) findings.sort((x, y) => comparePointers(x.finding.pointer, y.finding.pointer) || x.order - y.order);
  return findings.map((f) => f.finding);
}
