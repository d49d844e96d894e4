/** `--presets FILE`: a user's preset catalog filling in or overriding the built-in one. */
import { loadPresetCatalog, defaultPresetCatalog, PresetCatalogError, type PresetCatalog } from '@netpolicy/core';
import { UsageError } from './io';
import { readInput, shownName } from './report-output';

export function presetCatalogOption(file: string | undefined): PresetCatalog {
  if (file === undefined) return defaultPresetCatalog;
  const text = readInput(file); // `-` reads stdin
  file = shownName(file);
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${file}: the preset catalog is not valid JSON: ${(error as Error).message}`);
  }
  try {
    return loadPresetCatalog(data, file);
  } catch (error) {
    if (error instanceof PresetCatalogError) throw new UsageError(error.message);
    throw error;
  }
}
