/** `--presets FILE` (or a config's `presetCatalog`): a user's preset catalog filling in or overriding the built-in one. */
import { loadPresetCatalog, defaultPresetCatalog, PresetCatalogError, type PresetCatalog } from '@netpolicy/core';
import { MAX_SETTINGS_FILE_BYTES, readTextFile, UsageError } from './io';
import { readInput, shownName } from './report-output';

/**
 * Reads and loads a preset catalog. A catalog named by a config (`fromConfig`: the config's
 * name) must be a regular file; `--presets` may also be `-` or a pipe. Either holds at most
 * MAX_SETTINGS_FILE_BYTES. A file that is not a catalog is named with the problem, never with
 * its content (`presetCatalog: "/etc/passwd"` must not print the file's first line).
 */
export function presetCatalogOption(file: string | undefined, options: { fromConfig?: string } = {}): PresetCatalog {
  if (file === undefined) return defaultPresetCatalog;
  const text = file === '-' ? readInput(file) : readTextFile(file, {
    limit: MAX_SETTINGS_FILE_BYTES,
    regularOnly: options.fromConfig !== undefined,
    hint: options.fromConfig ? `"presetCatalog" in ${options.fromConfig} must name a regular file` : undefined,
  });
  file = shownName(file);
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${file}: the preset catalog is not valid JSON${jsonErrorPlace(text, error)} (give a JSON preset catalog, see docs/presets.md)`);
  }
  try {
    return loadPresetCatalog(data, file);
  } catch (error) {
    if (error instanceof PresetCatalogError) throw new UsageError(error.message);
    throw error;
  }
}

/** Where JSON.parse stopped, as ` (line L, column C)`, without any of the text (V8's message quotes it). */
function jsonErrorPlace(text: string, error: unknown): string {
  const message = String((error as Error)?.message ?? '');
  const at = /at position (\d+)/.exec(message);
  if (!at) return /end of JSON input/.test(message) ? ': it ends too early' : '';
  const offset = Number(at[1]);
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return ` at line ${line}, column ${offset - before.lastIndexOf('\n')}`;
}
