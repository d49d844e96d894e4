// Importing core does no work, and a bundle of one export holds only what that export uses
// (issue 31: "Tree-shaking that holds"). release:check measures the same on the published
// tarballs (scripts/bundle-budgets.mjs); this test catches a regression in the sources first.
import { build, type Metafile } from 'esbuild';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';

const entry = fileURLToPath(new URL('./index.ts', import.meta.url));

describe('importing @netpolicy/core', () => {
  afterEach(() => {
    vi.doUnmock('./generated/data');
    vi.doUnmock('ajv/dist/runtime/ucs2length.js');
    vi.resetModules();
  });

  it('reads no preset catalog and builds no validator until one is used', async () => {
    vi.resetModules();
    const reads = { catalog: 0, validators: 0 };
    vi.doMock('./generated/data', async (original) => {
      const real = await original<typeof import('./generated/data')>();
      return { ...real, get presetCatalogData() { reads.catalog++; return real.presetCatalogData; } };
    });
    // Every generated validator module (policy, presets, config, trace, policy tests) takes Ajv's
    // ucs2length helper when its validators are made, and only then.
    vi.doMock('ajv/dist/runtime/ucs2length.js', async (original) => {
      const real = await original<Record<string, unknown>>();
      return { get default() { reads.validators++; return real.default; } };
    });
    const core = await import('./index');
    expect(reads).toEqual({ catalog: 0, validators: 0 });

    expect(core.defaultPresetCatalog.byName.has('pypi')).toBe(true);
    expect(core.defaultPresetCatalog.presets.length).toBeGreaterThan(0);
    expect(reads).toEqual({ catalog: 1, validators: 0 });

    expect(core.validate('{ "default": "deny", "presets": ["pypi"] }').valid).toBe(true);
    expect(reads.validators).toBeGreaterThan(0);
    const made = reads.validators;
    core.validate('{ "default": "allow" }');
    expect(reads.validators).toBe(made);
  });

  it('keeps one catalog object, the same on every use', async () => {
    const { defaultPresetCatalog, loadPresetCatalog } = await import('./presets/catalog');
    expect(defaultPresetCatalog.presets).toBe(defaultPresetCatalog.presets);
    expect(defaultPresetCatalog.byName).toBe(defaultPresetCatalog.byName);
    expect(defaultPresetCatalog.presets.map((p) => p.name)).toEqual(loadPresetCatalog().presets.map((p) => p.name));
  });
});

/** A browser program's bundle of `import { name } from '@netpolicy/core'`, minified, and what it holds. */
async function bundleOf(names: string[]): Promise<{ bytes: number; inputs: string[] }> {
  const result = await build({
    stdin: { contents: `import { ${names.join(', ')} } from ${JSON.stringify(entry)};\nconsole.log(${names.join(', ')});\n`, resolveDir: fileURLToPath(new URL('.', import.meta.url)), loader: 'js' },
    bundle: true, minify: true, platform: 'browser', format: 'esm', write: false, metafile: true, logLevel: 'silent',
  });
  const output = Object.values(result.metafile.outputs)[0] as Metafile['outputs'][string];
  return { bytes: result.outputFiles[0]!.contents.length, inputs: Object.keys(output.inputs) };
}

describe('a bundle of one export', () => {
  it.each(['escapeControl', 'LineIndex'])('%s alone is under 10 KB and holds no validator, catalog or dependency', async (name) => {
    const { bytes, inputs } = await bundleOf([name]);
    expect(bytes).toBeLessThan(10 * 1024);
    expect(inputs.filter((i) => /generated\/|node_modules\//.test(i))).toEqual([]);
  });

  it('explainTrace alone does not carry the validator of user preset catalogs', async () => {
    const { inputs } = await bundleOf(['explainTrace']);
    expect(inputs.some((i) => i.includes('eval/explain'))).toBe(true);
    expect(inputs.filter((i) => /validators-(presets|config|policy-tests)/.test(i))).toEqual([]);
  });

  it('validate alone carries the policy validator, not those of traces, catalogs or configs', async () => {
    const { inputs } = await bundleOf(['validate']);
    expect(inputs.filter((i) => i.includes('generated/validators-'))).toEqual([expect.stringContaining('validators-policy.js')]);
  });
});
