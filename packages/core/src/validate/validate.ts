// Placeholder: replaced by the real validate (in progress).
import type { Diagnostic } from './types';
import type { PresetCatalog } from '../presets/catalog';
export interface ValidateOptions { fileName?: string; catalog?: PresetCatalog; lint?: boolean }
export interface ValidateResult { value: unknown; diagnostics: Diagnostic[] }
export function validate(text: string, _options: ValidateOptions = {}): ValidateResult {
  return { value: JSON.parse(text), diagnostics: [] };
}
