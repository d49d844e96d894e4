import { loadPresetCatalog, parsePolicyDocument } from '@netpolicy/core';
import { describe, expect, it } from 'vitest';
import { addressCount, getInlayHints } from '../src/inlay-hints';
import { DEFAULT_SETTINGS } from '../src/settings';
import { emptyUsage } from '../src/trace-usage';

const POLICY = `{
  "presets": ["pypi", "internal", "nope"],
  "sources": [{ "git": { "ssh": [{ "host": "git.example", "port": 22 }, { "host": "odd.example", "port": 443 }] } }],
  "connections": [
    { "tcp": { "cidrs": ["10.0.0.0/8", "2001:db8::/32", "192.0.2.1/32", "fd00::/120"], "ports": [5432, 1] } }
  ]
}`;
const everything = (doc: ReturnType<typeof parsePolicyDocument>) => ({ start: { line: 0, character: 0 }, end: doc.lineIndex.positionAt(doc.text.length) });
const labels = (hints: Array<{ label: unknown }>) => hints.map((h) => h.label);

describe('inlay hints', () => {
  const catalog = loadPresetCatalog({ presets: [{ name: 'internal', description: 'Our mirror of everything the build needs, and then some more words. Second sentence.', opaque: true }] });
  const settings = { ...DEFAULT_SETTINGS, catalog };

  it('counts addresses, names services (not one its member already names: ssh on 22), says what a preset adds', () => {
    const doc = parsePolicyDocument(POLICY);
    expect(labels(getInlayHints(doc, everything(doc), settings))).toEqual([
      'The Python Package Index (pypi.org, files.pythonhosted.org)', 'Our mirror of everything the build needs, and then some more…',
      'https', '16,777,216 addresses', '2^96 addresses', '1 address', '256 addresses', 'postgres',
    ]);
  });

  it('each kind can be turned off', () => {
    const doc = parsePolicyDocument(POLICY);
    expect(getInlayHints(doc, everything(doc), settings, { addresses: false, services: false, presets: false })).toEqual([]);
  });

  it('gives trace hit counts per rule and preset when traces were evaluated', () => {
    const doc = parsePolicyDocument(POLICY);
    const usage = emptyUsage();
    usage.traces.push('t.json');
    usage.byRule.set('/connections/0', { count: 3, hosts: [] });
    usage.byRule.set('preset:pypi', { count: 1, hosts: [] });
    const hints = labels(getInlayHints(doc, everything(doc), settings, { addresses: false, services: false, presets: false }, usage));
    expect(hints).toEqual(['1 hit', '0 hits', '0 hits', '0 hits', '3 hits']);
    expect(getInlayHints(doc, everything(doc), settings, { addresses: false, services: false, presets: false, traceHits: false }, usage)).toEqual([]);
  });

  it('only for the requested range', () => {
    const doc = parsePolicyDocument(POLICY);
    const line = POLICY.split('\n').findIndex((l) => l.includes('cidrs'));
    expect(labels(getInlayHints(doc, { start: { line, character: 0 }, end: { line, character: 30 } }, settings))).toEqual(['16,777,216 addresses']);
  });

  it('escapes control and bidi characters of a catalog description', () => {
    const cat = loadPresetCatalog({ presets: [{ name: '__proto__', description: 'a\u202eb', opaque: true }] });
    const doc = parsePolicyDocument('{ "presets": ["__proto__"] }');
    expect(labels(getInlayHints(doc, everything(doc), { ...DEFAULT_SETTINGS, catalog: cat }))).toEqual(['a\\u202eb']);
  });

  it('addressCount', () => {
    expect(addressCount('10.0.0.0/8')).toBe('16,777,216 addresses');
    expect(addressCount('::/0')).toBe('2^128 addresses');
    expect(addressCount('::/80')).toBe('281,474,976,710,656 addresses');
    expect(addressCount('10.0.0.0/33')).toBeUndefined();
    expect(addressCount('example.com/8')).toBeUndefined();
  });

  it('a range of a few lines in a 10,000-rule policy gives the hints of those rules only', () => {
    const rules = Array.from({ length: 10_000 }, (_, i) => `    { "tcp": { "cidrs": ["10.${i >> 8}.${i & 255}.0/24"], "ports": [5432] } }`).join(',\n');
    const doc = parsePolicyDocument(`{\n  "connections": [\n${rules}\n  ]\n}`);
    void doc.root;
    // Its time is the bench's business (language-server row); here, what it answers.
    const hints = getInlayHints(doc, { start: { line: 5000, character: 0 }, end: { line: 5050, character: 0 } }, DEFAULT_SETTINGS);
    expect(hints).toHaveLength(50 * 2);
    expect(hints.every((h) => h.position.line >= 5000 && h.position.line <= 5050)).toBe(true);
  });
});
