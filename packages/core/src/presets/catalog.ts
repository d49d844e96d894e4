/**
 * The preset catalog (decisions.md D5): the built-in data file schemas/presets.json, optionally
 * filled in or overridden by a user's catalog of the same shape.
 */
import { presetCatalogData } from '../generated/data';
import { presetsValidator } from '../generated/validators-presets';
import type { Connection, Source } from '../policy/types';

/**
 * One preset of a catalog: a named software-source policy, with its rules when they are known.
 * @public
 */
export interface PresetEntry {
  name: string;
  description: string;
  /** Known contents (policy fragments), or undefined when the preset is opaque. */
  known?: { sources?: Source[]; connections?: Connection[] };
  /** True when the contents are unknown: a denial while it is enabled is uncertain. */
  opaque: boolean;
}

/**
 * The presets a policy's `presets` may name: the built-in catalog, or one a user's catalog fills in or overrides.
 * @public
 */
export interface PresetCatalog {
  /** All presets in catalog order (the order the evaluator reports them in). */
  presets: PresetEntry[];
  /** The same presets by name. */
  byName: Map<string, PresetEntry>;
}

/**
 * Thrown for a user catalog that is not a preset catalog (schemas/presets.schema.json); the message names the file and the problem.
 * @public
 */
export class PresetCatalogError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PresetCatalogError';
  }
}

/** A catalog file's entries, the file already known to be a preset catalog. */
function entriesOf(data: unknown): PresetEntry[] {
  return (data as { presets: Array<Record<string, any>> }).presets.map((p) => ({
    name: p.name,
    description: p.description ?? '',
    known: p.known,
    opaque: p.opaque === true,
  }));
}

/** A user's catalog file's entries, checked against presets.schema.json first. */
function checkedEntriesOf(data: unknown, origin: string): PresetEntry[] {
  if (!presetsValidator(data)) {
    const e = presetsValidator.errors?.[0];
    throw new PresetCatalogError(`${origin}: not a preset catalog: ${e ? `${e.instancePath || '/'} ${e.message}` : 'invalid'}`);
  }
  return entriesOf(data);
}

function catalogOf(presets: PresetEntry[]): PresetCatalog {
  return { presets, byName: new Map(presets.map((p) => [p.name, p])) };
}

// The built-in catalog is checked against presets.schema.json by the build (esbuild.mjs) and by
// catalog.test.ts, not again in every process that loads core. It is read on first use, not at
// import: a program that never looks at presets (or a bundle of `escapeControl`) does not pay
// for it, and one that uses only the built-in catalog does not carry the catalog validator.
let builtinEntries: PresetEntry[] | undefined;
let builtinCatalog: PresetCatalog | undefined;
const builtin = (): PresetEntry[] => (builtinEntries ??= entriesOf(presetCatalogData));

/**
 * The catalog: the built-in one, with the entries of `overrides` (a parsed user catalog file)
 * replacing built-in entries of the same name and new names appended in their order.
 * @public
 */
export function loadPresetCatalog(overrides?: unknown, origin = 'preset catalog'): PresetCatalog {
  const presets = builtin().slice();
  if (overrides !== undefined) {
    for (const entry of checkedEntriesOf(overrides, origin)) {
      const at = presets.findIndex((p) => p.name === entry.name);
      if (at >= 0) presets[at] = entry;
      else presets.push(entry);
    }
  }
  return catalogOf(presets);
}

/**
 * The built-in catalog. Its members are read on first use (then kept): importing core builds no
 * catalog. The object is the same one on every use, so `catalog === defaultPresetCatalog` holds.
 * @public
 */
export const defaultPresetCatalog: PresetCatalog = {
  get presets() {
    return (builtinCatalog ??= catalogOf(builtin().slice())).presets;
  },
  get byName() {
    return (builtinCatalog ??= catalogOf(builtin().slice())).byName;
  },
};
