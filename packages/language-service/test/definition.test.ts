import { defaultPresetCatalog, parsePolicyDocument } from '@netpolicy/core';
import { describe, expect, it } from 'vitest';
import { catalogEntryOf, catalogNameAt, configPathAt, presetAt, presetDocumentText, presetDocumentUri, presetOfDocumentUri } from '../src/definition';
import { withCursor } from './helpers';

const textOf = (doc: { text: string; lineIndex: { offsetAt(p: unknown): number } }, r: { start: unknown; end: unknown }) => doc.text.slice(doc.lineIndex.offsetAt(r.start), doc.lineIndex.offsetAt(r.end));

describe('presetAt', () => {
  it('finds the preset name under the cursor in presets, and nothing elsewhere', () => {
    const { doc, position } = withCursor('{ "presets": ["npm", "py|pi"], "sources": [] }');
    const found = presetAt(doc, position)!;
    expect(found.value).toBe('pypi');
    expect(textOf(doc, found.range)).toBe('"pypi"');
    expect(presetAt(withCursor('{ "pre|sets": ["npm"] }').doc, withCursor('{ "pre|sets": ["npm"] }').position)).toBeUndefined();
    const other = withCursor('{ "sources": [{ "npm": { "urls": ["https://r|egistry.npmjs.org"] } }] }');
    expect(presetAt(other.doc, other.position)).toBeUndefined();
  });

  it('takes a `__proto__` or bidi name as text, and a document with no tree gives nothing', () => {
    const proto = withCursor('{ "presets": ["__pro|to__"] }');
    expect(presetAt(proto.doc, proto.position)?.value).toBe('__proto__');
    const bidi = withCursor('{ "presets": ["np\u202em|"] }');
    expect(presetAt(bidi.doc, bidi.position)?.value).toBe('np\u202em');
    const deep = parsePolicyDocument('['.repeat(100_000));
    expect(presetAt(deep, { line: 0, character: 5 })).toBeUndefined();
  });
});

describe('catalog entries', () => {
  const catalog = parsePolicyDocument(`{
  "presets": [
    { "name": "internal-pypi", "description": "Our PyPI mirror", "known": { "sources": [] } },
    { "description": "no name first", "name": "artifactory" }
  ]
}`);
  it('finds the entry and its name value', () => {
    const found = catalogEntryOf(catalog, 'artifactory')!;
    expect(textOf(catalog, found.name)).toBe('"artifactory"');
    expect(textOf(catalog, found.entry)).toBe('{ "description": "no name first", "name": "artifactory" }');
    expect(catalogEntryOf(catalog, 'pypi')).toBeUndefined();
    expect(catalogEntryOf(catalog, '__proto__')).toBeUndefined();
    expect(catalogEntryOf(parsePolicyDocument('[1]'), 'x')).toBeUndefined();
  });
  it('finds the name under the cursor in a catalog file', () => {
    const at = catalog.text.indexOf('internal-pypi') + 2;
    expect(catalogNameAt(catalog, catalog.lineIndex.positionAt(at))?.value).toBe('internal-pypi');
    expect(catalogNameAt(catalog, catalog.lineIndex.positionAt(catalog.text.indexOf('Our PyPI')))).toBeUndefined();
  });
});

describe('config paths', () => {
  it('finds presetCatalog and traces items, nothing else', () => {
    const c = withCursor('{ "presetCatalog": "cat|alog.json", "traces": ["a.json"] }', 'netpolicy.config.json');
    expect(configPathAt(c.doc, c.position)).toMatchObject({ value: 'catalog.json', member: 'presetCatalog' });
    const t = withCursor('{ "traces": ["traces/a|.json"] }', 'netpolicy.config.json');
    expect(configPathAt(t.doc, t.position)).toMatchObject({ value: 'traces/a.json', member: 'traces' });
    const s = withCursor('{ "severity": { "broad-cidr": "er|ror" } }', 'netpolicy.config.json');
    expect(configPathAt(s.doc, s.position)).toBeUndefined();
  });
});

describe('the preset view', () => {
  it('round-trips the URI, percent-encoding what needs it', () => {
    expect(presetDocumentUri('pypi')).toBe('netpolicy-preset:/pypi.json');
    for (const name of ['pypi', 'a/b', '__proto__', 'x y', 'np\u202em', '%']) expect(presetOfDocumentUri(presetDocumentUri(name))).toBe(name);
    expect(presetOfDocumentUri('file:///pypi.json')).toBeUndefined();
    expect(presetOfDocumentUri('netpolicy-preset:/%E0%A4%A.json')).toBeUndefined();
  });
  it('shows what a known preset allows, and says an opaque one is not published', () => {
    const pypi = JSON.parse(presetDocumentText(defaultPresetCatalog.byName.get('pypi')!));
    expect(pypi).toMatchObject({ name: 'pypi', sources: defaultPresetCatalog.byName.get('pypi')!.known!.sources });
    const opaque = defaultPresetCatalog.presets.find((p) => p.opaque)!;
    expect(JSON.parse(presetDocumentText(opaque))).toMatchObject({ name: opaque.name, opaque: true });
    expect(presetDocumentText(opaque)).toContain('does not publish');
  });
});
