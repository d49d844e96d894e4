import { describe, expect, it } from 'vitest';
import { presetCatalogData } from '../generated/data';
import { presetsValidator } from '../generated/validators';
import { defaultPresetCatalog, loadPresetCatalog, PresetCatalogError } from './catalog';
import { PRESET_NAMES } from '../policy/types';

describe('preset catalog', () => {
  it('the built-in catalog satisfies presets.schema.json (core trusts it at load time)', () => {
    expect(presetsValidator(presetCatalogData)).toBe(true);
    expect(defaultPresetCatalog.presets.map((p) => p.name)).toEqual([...PRESET_NAMES]);
  });

  it('a user catalog is checked, then overrides by name and appends new names', () => {
    expect(() => loadPresetCatalog({ presets: [{ name: 'x' }] }, 'my.json')).toThrow(PresetCatalogError);
    const catalog = loadPresetCatalog({ presets: [{ name: 'pypi', opaque: true }, { name: 'corp', opaque: true }] });
    expect(catalog.byName.get('pypi')?.opaque).toBe(true);
    expect(catalog.presets.at(-1)?.name).toBe('corp');
    expect(catalog.presets.length).toBe(defaultPresetCatalog.presets.length + 1);
  });
});
