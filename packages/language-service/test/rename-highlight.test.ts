import { defaultPresetCatalog, loadPresetCatalog, parsePolicyDocument } from '@netpolicy/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { presetNameProblem, presetRenameEdits } from '../src/rename';
import { presetOccurrences } from '../src/references';
import { documentHighlights, MAX_HIGHLIGHTS } from '../src/highlight';
import { applyLspEdits, withCursor } from './helpers';

const textsOf = (marked: string) => {
  const { doc, position } = withCursor(marked);
  return documentHighlights(doc, position).map((h) => doc.text.slice(doc.lineIndex.offsetAt(h.range.start), doc.lineIndex.offsetAt(h.range.end)));
};

describe('document highlight', () => {
  it('marks a preset in presets only', () => {
    expect(textsOf('{ "presets": ["np|m", "pypi", "npm"], "sources": [{ "npm": { "urls": ["https://npm"] } }] }')).toEqual(['npm', 'npm']);
  });
  it('marks a CIDR in every cidrs list', () => {
    expect(textsOf('{ "connections": [{ "tcp": { "cidrs": ["10.0.0.0/|8"] } }, { "udp": { "cidrs": ["10.0.0.0/8", "10.0.0.0/9"] } }] }')).toEqual(['10.0.0.0/8', '10.0.0.0/8']);
  });
  it('marks a host in host patterns, SSH hosts and URL hosts (after user@, before the port and path)', () => {
    const policy = `{
  "sources": [{ "pypi": { "urls": ["https://pypi.example/simple", "https://u@pypi.example:8443"] } },
              { "git": { "ssh": [{ "host": "pypi.example", "port": 22 }], "https": [{ "baseUrl": "https://other.example" }] } }],
  "connections": [{ "tls": { "serverNamePatterns": ["pypi.ex|ample", "*.pypi.example"], "ports": [443] } }]
}`;
    expect(textsOf(policy)).toEqual(['pypi.example', 'pypi.example', 'pypi.example', 'pypi.example']);
    expect(textsOf(policy.replace('pypi.ex|ample', 'pypi.example').replace('https://pypi.example/simple', 'https://pypi.ex|ample/simple'))).toHaveLength(4);
  });
  it('gives nothing on keys, numbers and other strings', () => {
    expect(textsOf('{ "pre|sets": ["npm"] }')).toEqual([]);
    expect(textsOf('{ "connections": [{ "tcp": { "ports": [54|32] } }] }')).toEqual([]);
    expect(textsOf('{ "default": "de|ny" }')).toEqual([]);
  });
  it('is bounded on a huge policy', () => {
    const rules = Array.from({ length: 10_000 }, () => '{ "tcp": { "hostPatterns": ["db.internal"] } }').join(',\n');
    const text = `{ "connections": [${rules}] }`;
    const doc = parsePolicyDocument(text);
    const offset = text.indexOf('db.internal') + 2;
    expect(documentHighlights(doc, doc.lineIndex.positionAt(offset))).toHaveLength(MAX_HIGHLIGHTS);
  });
  it('property: every range covers text equal to the text under the cursor', () => {
    const token = fc.constantFrom('npm', 'pypi', '10.0.0.0/8', 'a.example', '__proto__', 'x\u202ey', 'a"b', '\\u0041');
    fc.assert(fc.property(fc.array(fc.tuple(fc.constantFrom('presets', 'cidrs', 'hostPatterns', 'urls'), token), { minLength: 1, maxLength: 12 }), fc.nat(), (items, pick) => {
      const lists: Record<string, string[]> = { presets: [], cidrs: [], hostPatterns: [], urls: [] };
      for (const [list, t] of items) lists[list].push(list === 'urls' ? `https://${t}/x` : t);
      const text = JSON.stringify({ presets: lists.presets, connections: [{ tcp: { cidrs: lists.cidrs, hostPatterns: lists.hostPatterns } }], sources: [{ npm: { urls: lists.urls } }] });
      const doc = parsePolicyDocument(text);
      const [list, t] = items[pick % items.length];
      const raw = JSON.stringify(t).slice(1, -1);
      const offset = text.indexOf(raw, list === 'presets' ? 0 : text.indexOf(`"${list === 'urls' ? 'urls' : list}"`)) + (list === 'urls' ? 0 : 0);
      const found = documentHighlights(doc, doc.lineIndex.positionAt(offset));
      const under = found.length > 0 ? doc.text.slice(doc.lineIndex.offsetAt(found[0].range.start), doc.lineIndex.offsetAt(found[0].range.end)) : undefined;
      for (const h of found) expect(doc.text.slice(doc.lineIndex.offsetAt(h.range.start), doc.lineIndex.offsetAt(h.range.end))).toBe(under);
    }));
  });
});

describe('rename edits', () => {
  const catalog = loadPresetCatalog({ presets: [{ name: 'internal-pypi', description: 'ours', opaque: true }] });
  it('renames in presets, the catalog entry and test rules', () => {
    const policy = parsePolicyDocument('{ "presets": ["internal-pypi", "npm", "internal-pypi"] }');
    expect(applyLspEdits(policy, presetRenameEdits(policy, 'policy', 'internal-pypi', 'mirror'))).toBe('{ "presets": ["mirror", "npm", "mirror"] }');
    const cat = parsePolicyDocument('{ "presets": [{ "name": "internal-pypi", "description": "internal-pypi" }] }');
    expect(applyLspEdits(cat, presetRenameEdits(cat, 'catalog', 'internal-pypi', 'mirror'))).toBe('{ "presets": [{ "name": "mirror", "description": "internal-pypi" }] }');
    const tests = parsePolicyDocument('{ "tests": [{ "rule": "preset:internal-pypi", "name": "preset:internal-pypi" }, { "rule": "/sources/0" }] }');
    expect(applyLspEdits(tests, presetRenameEdits(tests, 'tests', 'internal-pypi', 'mir"ror'))).toBe('{ "tests": [{ "rule": "preset:mir\\"ror", "name": "preset:internal-pypi" }, { "rule": "/sources/0" }] }');
  });
  it('refuses an empty name, a name in use, and unseen characters', () => {
    expect(presetNameProblem('internal-pypi', '', catalog)).toMatch(/empty/);
    expect(presetNameProblem('internal-pypi', 'pypi', catalog)).toMatch(/already a preset/);
    expect(presetNameProblem('internal-pypi', 'a\u202eb', catalog)).toMatch(/bidirectional/);
    expect(presetNameProblem('internal-pypi', ' a', catalog)).toMatch(/spaces/);
    expect(presetNameProblem('internal-pypi', '__proto__', catalog)).toBeUndefined();
    expect(presetNameProblem('internal-pypi', 'mirror', defaultPresetCatalog)).toBeUndefined();
  });
  it('property: after the edits the old name is no longer a preset of the policy and the new one is, as often', () => {
    const name = fc.constantFrom('internal-pypi', 'mirror', 'npm', '__proto__', 'a"b', 'x\\y', 'é');
    fc.assert(fc.property(fc.array(name, { maxLength: 10 }), name, name, (presets, from, to) => {
      fc.pre(from !== to);
      const policy = parsePolicyDocument(JSON.stringify({ presets, sources: [] }, null, 2));
      const after = parsePolicyDocument(applyLspEdits(policy, presetRenameEdits(policy, 'policy', from, to)));
      const was = presets.filter((p) => p === from).length;
      expect(presetOccurrences(after, from)).toHaveLength(0);
      expect(presetOccurrences(after, to)).toHaveLength(was + presets.filter((p) => p === to).length);
      expect((after.value as { presets: string[] }).presets).toEqual(presets.map((p) => (p === from ? to : p)));
    }));
  });
});
