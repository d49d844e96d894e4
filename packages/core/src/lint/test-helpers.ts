/** Shared by the rule tests: run one rule on a document and keep what the tests assert. */
import { defaultPresetCatalog } from '../presets/catalog';
import type { PresetCatalog } from '../presets/catalog';
import type { LintFinding, LintRule } from './types';

export function run(rule: LintRule, value: unknown, catalog: PresetCatalog = defaultPresetCatalog): LintFinding[] {
  const findings = rule.check({ value, catalog });
  for (const f of findings) if (f.code !== rule.code) throw new Error(`rule ${rule.code} reported ${f.code}`);
  return findings;
}

/** Pointers of the findings, in report order. */
export function pointers(rule: LintRule, value: unknown, catalog?: PresetCatalog): string[] {
  return run(rule, value, catalog).map((f) => f.pointer);
}
