// The published schema names only the built-in presets; `netpolicy check` knows the catalog in
// force, so a user catalog's preset names are valid there (--presets, or presetCatalog in
// netpolicy.config.json) and unknown without it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot, runCli } from './run-cli';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'netpolicy-preset-names-'));
  const catalog = { presets: [{ name: 'internal-mirror', known: { sources: [{ pypi: { urls: ['https://pypi.internal.example/simple'] } }] } }] };
  writeFileSync(join(dir, 'catalog.json'), JSON.stringify(catalog));
  writeFileSync(join(dir, 'policy.netpolicy.json'), '{\n  "default": "deny",\n  "presets": ["pypi", "internal-mirror"]\n}\n');
  mkdirSync(join(dir, 'project'));
  writeFileSync(join(dir, 'project/netpolicy.config.json'), JSON.stringify({ presetCatalog: '../catalog.json' }));
  writeFileSync(join(dir, 'project/policy.netpolicy.json'), '{\n  "default": "deny",\n  "presets": ["internal-mirror"]\n}\n');
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('preset names in netpolicy check (as a process)', () => {
  it("a user catalog's preset checks clean with that catalog (--presets)", () => {
    const r = runCli(['check', '--format', 'json', '--presets', join(dir, 'catalog.json'), join(dir, 'policy.netpolicy.json')]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).files[0].diagnostics).toEqual([]);
  });

  it("a user catalog's preset checks clean with that catalog (presetCatalog in netpolicy.config.json)", () => {
    const r = runCli(['check', '--format', 'json', join(dir, 'project/policy.netpolicy.json')]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).files[0].diagnostics).toEqual([]);
  });

  it('without the catalog, the name is unknown-preset (one diagnostic, nothing from the schema)', () => {
    const r = runCli(['check', '--format', 'json', join(dir, 'policy.netpolicy.json')]);
    expect(r.code).toBe(1);
    const diagnostics = JSON.parse(r.stdout).files[0].diagnostics;
    expect(diagnostics.map((d: { code: string; pointer: string }) => [d.code, d.pointer])).toEqual([['unknown-preset', '/presets/1']]);
  });

  it("the extension contributes the published schema, built-in names listed", () => {
    // extension/package.json jsonValidation points at the copy the build makes.
    const contributed = JSON.parse(readFileSync(join(repoRoot, 'extension/schemas/network-policy.schema.json'), 'utf8'));
    const published = JSON.parse(readFileSync(join(repoRoot, 'schemas/network-policy.schema.json'), 'utf8'));
    expect(contributed).toEqual(published);
    expect(contributed.$defs.presetName.enum).toContain('pypi');
    expect(contributed.$defs.presetName.enum).not.toContain('internal-mirror');
  });
});
