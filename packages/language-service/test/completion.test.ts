import { describe, expect, it } from 'vitest';
import { CONNECTION_KINDS, SOURCE_KINDS, loadPresetCatalog, parsePolicyDocument, validate } from '@netpolicy/core';
import { DEFAULT_SETTINGS, doComplete } from '../src/index';
import { CONNECTION_SKELETONS, SOURCE_SKELETONS } from '../src/skeletons';
import { applyLspEdits, expandSnippet, withCursor } from './helpers';

function complete(marked: string, settings = DEFAULT_SETTINGS) {
  const { doc, position } = withCursor(marked);
  return { doc, items: doComplete(doc, position, settings).items };
}
const labels = (marked: string) => complete(marked).items.map((i) => i.label);

/** The text after accepting the item labelled `label` with every placeholder's default. */
function accept(marked: string, label: string): string {
  const { doc, items } = complete(marked);
  const item = items.find((i) => i.label === label);
  if (!item) throw new Error(`no completion ${label}; got ${items.map((i) => i.label).join(', ')}`);
  const edit = item.textEdit as { range: any; newText: string };
  return applyLspEdits(doc, [{ range: edit.range, newText: expandSnippet(edit.newText) }]);
}

describe('completion of member names', () => {
  it('offers the top-level members in an empty object', () => {
    expect(labels('{ | }')).toEqual(['default', 'presets', 'sources', 'connections']);
  });
  it('never offers a member already present', () => {
    expect(labels('{ "default": "deny", | }')).toEqual(['presets', 'sources', 'connections']);
  });
  it('inserts the key with a value skeleton, and a comma before a following member', () => {
    expect(accept('{ | "presets": [] }', 'default')).toBe('{ "default": "deny", "presets": [] }');
    expect(accept('{ "default": "deny", | }', 'sources')).toBe('{ "default": "deny", "sources": [] }');
  });
  it('completes a half-typed key with or without its quotes', () => {
    expect(accept('{ "def| }', 'default')).toBe('{ "default": "deny" }');
    expect(accept('{ def| }', 'default')).toBe('{ "default": "deny" }');
    expect(accept('{ "def|": "allow" }', 'default')).toBe('{ "default": "allow" }');
  });
  it('offers each source kind in an empty source, nothing once it has one (exactly one kind)', () => {
    expect(labels('{ "sources": [ { | } ] }')).toEqual([...SOURCE_KINDS]);
    expect(labels('{ "sources": [ { "pypi": { "urls": ["https://a.example"] }, | } ] }')).toEqual([]);
    expect(labels('{ "connections": [ { "tls": { | } } ] }')).toEqual(['serverNamePatterns', 'cidrs', 'ports', 'alpn']);
  });
  it('gives a source kind its valid skeleton', () => {
    const text = accept('{ "presets": [], "sources": [ { | } ] }', 'oci');
    expect(JSON.parse(text).sources[0].oci).toEqual(SOURCE_SKELETONS.oci);
    expect(validate(text, { fileName: 'p.json' }).diagnostics).toEqual([]);
  });
});

describe('completion of values', () => {
  it('offers enum values and writes them quoted', () => {
    expect(labels('{ "default": | }')).toEqual(['deny', 'allow']);
    expect(accept('{ "default": | }', 'allow')).toBe('{ "default": "allow" }');
    expect(accept('{ "default": "d|" }', 'deny')).toBe('{ "default": "deny" }');
  });
  it('offers preset names of the catalog in force with their description, minus those listed', () => {
    const { items } = complete('{ "presets": [ "npm", | ] }');
    expect(items.map((i) => i.label)).not.toContain('npm');
    expect(items.map((i) => i.label)).toContain('pypi');
    const pypi = items.find((i) => i.label === 'pypi')!;
    expect((pypi.documentation as { value: string }).value).toMatch(/Contents known/);
    const catalog = loadPresetCatalog({ presets: [{ name: 'corp-mirror', description: 'Our mirror', opaque: true }] });
    const { doc, position } = withCursor('{ "presets": [ | ] }');
    const custom = doComplete(doc, position, { catalog, severity: {} }).items.find((i) => i.label === 'corp-mirror');
    expect(custom?.detail).toBe('preset (opaque)');
  });
  it('completes inside an unfinished array', () => {
    expect(accept('{ "presets": ["pyp|', 'pypi')).toBe('{ "presets": ["pypi"');
    expect(accept('{ "presets": [ "npm", py| ] }', 'pypi')).toBe('{ "presets": [ "npm", "pypi" ] }');
  });
  it('offers common ports (not those listed) and ALPN ids', () => {
    const ports = labels('{ "connections": [ { "tls": { "serverNamePatterns": ["a.example"], "ports": [ 443, | ] } } ] }');
    expect(ports).toContain('80');
    expect(ports).not.toContain('443');
    expect(labels('{ "connections": [ { "tls": { "serverNamePatterns": ["a.example"], "ports": [443], "alpn": [ | ] } } ] }')).toEqual(expect.arrayContaining(['h2', 'http/1.1']));
  });
  it('offers a snippet of each source and connection kind in the arrays, each a valid rule', () => {
    expect(labels('{ "sources": [ | ] }')).toEqual(SOURCE_KINDS.map((k) => `${k} source`));
    expect(labels('{ "connections": [ | ] }')).toEqual(CONNECTION_KINDS.map((k) => `${k} connection`));
    for (const kind of SOURCE_KINDS) {
      const text = accept('{ "presets": [], "sources": [ | ] }', `${kind} source`);
      expect(JSON.parse(text).sources[0]).toEqual({ [kind]: SOURCE_SKELETONS[kind] });
      expect(validate(text, { fileName: 'p.json' }).diagnostics, kind).toEqual([]);
    }
    for (const kind of CONNECTION_KINDS) {
      const text = accept('{ "presets": [], "connections": [ |, { "icmp": { "cidrs": ["198.51.100.0/24"] } } ] }', `${kind} connection`);
      expect(JSON.parse(text).connections[0]).toEqual({ [kind]: CONNECTION_SKELETONS[kind] });
      expect(validate(text, { fileName: 'p.json' }).diagnostics.filter((d) => d.severity === 'error'), kind).toEqual([]);
    }
  });
  it('never throws at any offset of a document, however unfinished', () => {
    const texts = ['', '{', '{"sources":[{"pypi":{"urls":["htt', '[1,2', '{"a":}', '{"presets":[,,]}', '// c\n{', '{"connections":[{"tls":{"ports":[4'];
    for (const text of texts) {
      const doc = parsePolicyDocument(text, { fileName: 'x.netpolicy.jsonc' });
      for (let o = 0; o <= text.length; o++) expect(() => doComplete(doc, doc.lineIndex.positionAt(o), DEFAULT_SETTINGS)).not.toThrow();
    }
  });
});

describe('completion in an empty document and for SSH', () => {
  it('offers a starter policy that validates', () => {
    const text = accept('|', 'netpolicy policy');
    expect(JSON.parse(text)).toEqual({ default: 'deny', presets: [], sources: [], connections: [] });
    expect(validate(text, { fileName: 'p.json' }).diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  });
  it('gives an SSH transport port 22', () => {
    expect(accept('{ "sources": [ { "git": { "ssh": [ { "host": "g.example", | } ] } } ] }', 'port')).toContain('"port": 22');
  });
});
