/** What the language service needs to know besides the document: the catalog and severities in force. */
import { defaultPresetCatalog, type PresetCatalog, type SeverityOptions } from '@netpolicy/core';

export interface ServiceSettings {
  /** The preset catalog in force (built-in, or with a user catalog's entries). */
  catalog: PresetCatalog;
  /** Severity per lint code (`off`: the rule does not run). */
  severity: SeverityOptions;
}

export const DEFAULT_SETTINGS: ServiceSettings = { catalog: defaultPresetCatalog, severity: {} };
