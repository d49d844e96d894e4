/** Shared by the rule tests: run one rule on a document as `lint()` would and keep what the tests assert. */
import { defaultPresetCatalog } from '../presets/catalog';
import type { PresetCatalog } from '../presets/catalog';
import { lint } from './index';
import type { LintFinding, LintRule } from './types';

export function run(rule: LintRule, value: unknown, catalog: PresetCatalog = defaultPresetCatalog): LintFinding[] {
  return lint(value, { catalog, enabled: (code) => code === rule.code });
}

/** Pointers of the findings, in report order. */
export function pointers(rule: LintRule, value: unknown, catalog?: PresetCatalog): string[] {
  return run(rule, value, catalog).map((f) => f.pointer);
}
