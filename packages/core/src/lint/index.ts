// Placeholder until the lint rules land (the lint work replaces this file).
import type { PresetCatalog } from '../presets/catalog';
import type { LintFinding } from './types';
export * from './types';
export function lint(_value: unknown, _options: { catalog?: PresetCatalog } = {}): LintFinding[] {
  return [];
}
