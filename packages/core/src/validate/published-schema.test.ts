// The published policy schema (schemas/network-policy.schema.json: $id, the VS Code extension's
// jsonValidation, any JSON Schema tool) names the built-in presets; netpolicy itself checks names
// against the catalog in force (unknown-preset), so a user catalog's names stay valid with it.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import Ajv2020 from 'ajv/dist/2020.js';
import { ajvFormats } from '../formats/index';
import { BUILTIN_PRESET_NAMES, policySchema } from '../generated/data';
import { loadPresetCatalog } from '../presets/catalog';
import { validate } from './validate';

const read = (name: string) => JSON.parse(readFileSync(new URL(`../../../../schemas/${name}`, import.meta.url), 'utf8'));
const published = read('network-policy.schema.json');
const catalogNames: string[] = read('presets.json').presets.map((p: { name: string }) => p.name);

describe('the published policy schema', () => {
  it('lists exactly the names of schemas/presets.json, in catalog order', () => {
    expect(published.$defs.presetName.enum).toEqual(catalogNames);
    expect([...BUILTIN_PRESET_NAMES]).toEqual(catalogNames);
  });

  // With netpolicy's formats, and as a tool that knows none of them would compile it.
  const validators = {
    'with our formats': new Ajv2020({ allErrors: true, strict: true, strictRequired: false, formats: ajvFormats }).compile(published),
    'without formats': new Ajv2020({ allErrors: true, strict: false, validateFormats: false }).compile(published),
  };
  for (const [how, check] of Object.entries(validators)) {
    it(`rejects a name that is not built in, accepts every built-in name (${how})`, () => {
      expect(check({ presets: ['pypy'] })).toBe(false);
      expect(check.errors).toEqual([expect.objectContaining({ keyword: 'enum', instancePath: '/presets/0' })]);
      expect(check({ presets: ['pypi', 'PyPI'] })).toBe(false);
      for (const name of catalogNames) expect(check({ presets: [name] }), name).toBe(true);
      expect(check({ default: 'deny', presets: catalogNames })).toBe(true);
    });
  }
});

describe("netpolicy's own schema and validation", () => {
  const policy = '{\n  "presets": ["pypi", "internal-mirror"]\n}\n';

  it('leave preset names to the catalog in force', () => {
    expect(policySchema.$defs.presetName.enum).toBeUndefined();
    // Apart from that list, the schema netpolicy uses is the published one.
    const { enum: _names, ...rest } = published.$defs.presetName;
    expect(policySchema).toEqual({ ...published, $defs: { ...published.$defs, presetName: rest } });
  });

  it("a user catalog's preset checks clean; without that catalog it is unknown-preset, as before", () => {
    const catalog = loadPresetCatalog({ presets: [{ name: 'internal-mirror', known: { sources: [{ pypi: { urls: ['https://pypi.internal.example/simple'] } }] } }] });
    expect(validate(policy, { catalog }).diagnostics).toEqual([]);
    const { diagnostics } = validate(policy);
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]).toMatchObject({ code: 'unknown-preset', severity: 'error', pointer: '/presets/1' });
    expect(diagnostics[0].message).toMatch(/^unknown preset `internal-mirror`\. Presets: `/);
    // The published schema alone refuses it: that is what the catalog in force is for.
    expect(publishedAccepts(policy)).toBe(false);
  });
});

function publishedAccepts(text: string): boolean {
  return new Ajv2020({ strict: true, strictRequired: false, formats: ajvFormats }).compile(published)(JSON.parse(text)) as boolean;
}
