import { describe, expect, test } from 'vitest';
import { redundantWithPreset } from './redundant-with-preset';
import { shadowedRule } from './shadowed-rule';
import { loadPresetCatalog } from '../presets/catalog';
import { pointers, run } from './test-helpers';

describe('redundant-with-preset', () => {
  test('a source the pypi preset provides, presets omitted: reported at the source, naming the preset', () => {
    const policy = { sources: [{ npm: { urls: ['https://npm.example'] } }, { pypi: { urls: ['https://pypi.org'] } }] };
    expect(run(redundantWithPreset, policy)).toEqual([{
      code: 'redundant-with-preset',
      pointer: '/sources/1',
      message: expect.stringMatching(/Preset `pypi` already allows everything this pypi source allows \(every preset is enabled because `presets` is omitted\)/),
      data: { kind: 'remove-element', title: 'Remove source provided by a preset' },
      related: [{ pointer: '', message: 'preset:pypi (enabled because `presets` is omitted) allows what this rule allows.' }],
      tags: ['unnecessary'],
    }]);
    expect(pointers(shadowedRule, policy)).toEqual([]);
    // With `presets` listed, the related place is the preset's item.
    const listed = run(redundantWithPreset, { presets: ['npm', 'pypi'], sources: [{ pypi: { urls: ['https://pypi.org/simple'] } }] });
    expect(listed.map((f) => f.related)).toEqual([[{ pointer: '/presets/1', message: 'preset:pypi allows what this rule allows.' }]]);
  });

  test('presets listing the preset; URL paths under a preset URL; several presets together', () => {
    expect(pointers(redundantWithPreset, { presets: ['pypi'], sources: [{ pypi: { urls: ['https://files.pythonhosted.org/packages', 'https://PyPI.org/simple/'] } }] }))
      .toEqual(['/sources/0']);
    const both = run(redundantWithPreset, { presets: ['npm', 'golang'], sources: [{ golang: { urls: ['https://proxy.golang.org', 'https://registry.npmjs.org/'] } }] });
    expect(both.map((f) => f.pointer)).toEqual(['/sources/0']);
    expect(both[0].message).toContain('Presets `golang` and `npm` already allow');
    expect(pointers(redundantWithPreset, { sources: [{ cargo: { indexUrl: 'https://index.crates.io', downloadUrl: 'https://static.crates.io' } }] })).toEqual(['/sources/0']);
    expect(pointers(redundantWithPreset, { sources: [{ apt: { urls: ['http://deb.debian.org/debian'], purlNamespace: 'debian' } }] })).toEqual(['/sources/0']);
  });

  test('presets disabled, the preset not listed, a URL outside the preset, opaque presets: no finding', () => {
    const pypi = { pypi: { urls: ['https://pypi.org'] } };
    expect(pointers(redundantWithPreset, { presets: [], sources: [pypi] })).toEqual([]);
    expect(pointers(redundantWithPreset, { presets: ['npm', 'forge-a', 'generic-http'], sources: [pypi] })).toEqual([]);
    expect(pointers(redundantWithPreset, { sources: [{ pypi: { urls: ['https://pypi.org', 'https://mirror.example'] } }] })).toEqual([]);
    expect(pointers(redundantWithPreset, { sources: [{ pypi: { urls: ['http://pypi.org', 'https://pypi.org:8443', 'https://pypi.org.example'] } }] })).toEqual([]);
    // A different purl namespace names different packages: not replaced by the debian preset.
    expect(pointers(redundantWithPreset, { sources: [{ apt: { urls: ['https://deb.debian.org'], purlNamespace: 'mine' } }] })).toEqual([]);
    // oci and git sources are never provided by HTTP presets... unless an HTTP preset covers their URLs.
    expect(pointers(redundantWithPreset, { sources: [{ git: { ssh: [{ host: 'pypi.org', port: 22 }] } }] })).toEqual([]);
  });

  test('a user catalog filling in an opaque preset makes it count', () => {
    const catalog = loadPresetCatalog({ version: 1, presets: [{ name: 'forge-a', description: 'filled in', known: { sources: [{ git: { https: [{ baseUrl: 'https://forge.example' }] } }] } }] });
    const policy = { presets: ['forge-a'], sources: [{ git: { https: [{ baseUrl: 'https://forge.example' }], repositoryPatterns: ['me/*'] } }] };
    expect(pointers(redundantWithPreset, policy, catalog)).toEqual(['/sources/0']);
    expect(pointers(redundantWithPreset, policy)).toEqual([]);
  });
});
