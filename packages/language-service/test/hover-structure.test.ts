import { describe, expect, it } from 'vitest';
import { parsePolicyDocument } from '@netpolicy/core';
import { DEFAULT_SETTINGS, doHover, findDocumentLinks, findDocumentSymbols, format, getFoldingRanges, getSelectionRanges } from '../src/index';
import { applyLspEdits, withCursor } from './helpers';

function hover(marked: string): string {
  const { doc, position } = withCursor(marked);
  const h = doHover(doc, position, DEFAULT_SETTINGS);
  return h ? (h.contents as { value: string }).value : '';
}

describe('hover', () => {
  it('gives a member its schema description', () => {
    expect(hover('{ "def|ault": "deny" }')).toMatch(/What happens to an access that no rule permits/);
  });
  it('gives a CIDR its family, network, first and last address and exact size', () => {
    const v4 = hover('{ "connections": [ { "tcp": { "cidrs": ["10.1.2.3|/16"] } } ] }');
    expect(v4).toContain('IPv4 prefix');
    expect(v4).toContain('`10.1.0.0/16`');
    expect(v4).toContain('first address: `10.1.0.0`');
    expect(v4).toContain('last address: `10.1.255.255`');
    expect(v4).toContain('size: 65,536 addresses');
    expect(v4).toMatch(/Host bits are set/);
    const v6 = hover('{ "connections": [ { "tcp": { "cidrs": ["2001:db8::|/32"] } } ] }');
    expect(v6).toContain('IPv6 prefix');
    expect(v6).toContain('last address: `2001:db8:ffff:ffff:ffff:ffff:ffff:ffff`');
    expect(v6).toContain('size: 79,228,162,514,264,337,593,543,950,336 addresses');
  });
  it('says what a host pattern matches and does not', () => {
    expect(hover('{ "connections": [ { "tls": { "serverNamePatterns": ["*.exa|mple.com"], "ports": [443] } } ] }')).toMatch(/Does \*\*not\*\* match `example.com` itself/);
    expect(hover('{ "connections": [ { "tls": { "serverNamePatterns": ["exa|mple.com"], "ports": [443] } } ] }')).toMatch(/exactly `example.com`[\s\S]*use `\*.example.com`/);
  });
  it('says which requests a URL covers (the / boundary)', () => {
    const h = hover('{ "sources": [ { "pypi": { "urls": ["https://pypi.example/sim|ple"] } } ] }');
    expect(h).toContain('host `pypi.example` on port 443');
    expect(h).toContain('starts with `/simple/`');
    expect(h).toContain('Not `/simplex`');
  });
  it('gives a preset its contents, or says it is opaque', () => {
    expect(hover('{ "presets": ["py|pi"] }')).toMatch(/^\*\*preset\*\* `pypi`\n\nThe Python Package Index \\\(pypi\\\.org[\s\S]*\n- pypi `https:\/\/pypi.org`/);
    const opaque = DEFAULT_SETTINGS.catalog.presets.find((p) => p.opaque)!.name;
    expect(hover(`{ "presets": ["${opaque.slice(0, 2)}|${opaque.slice(2)}"] }`)).toMatch(/opaque/);
  });
  it('says what a rule permits under D4', () => {
    expect(hover('{ "sources": [ { "o|ci": { "urls": ["https://r.example"], "operations": ["pull", "push"] } } ] }')).toMatch(/repositories matching any repository; operations: pull \(GET, HEAD\), push \(POST, PUT, PATCH\)/);
    expect(hover('{ "connections": [ { "t|cp": { "hostPatterns": ["db.example"] } } ] }')).toMatch(/on any port/);
  });
  it('answers nothing outside the document and never throws past the end', () => {
    const doc = parsePolicyDocument('{}', { fileName: 'p.netpolicy.json' });
    expect(() => doHover(doc, { line: 99, character: 99 }, DEFAULT_SETTINGS)).not.toThrow();
    expect(doHover(parsePolicyDocument('', {}), { line: 0, character: 0 }, DEFAULT_SETTINGS)).toBeNull();
  });
});

const POLICY = `{
  "default": "deny",
  "presets": ["npm", "pypi"],
  "sources": [
    { "oci": { "urls": ["https://registry.example.org"], "operations": ["pull"] } }
  ],
  "connections": [
    { "tls": { "serverNamePatterns": ["api.example.com"], "ports": [443] } }
  ]
}`;

describe('structure', () => {
  const doc = parsePolicyDocument(POLICY, { fileName: 'p.netpolicy.json' });
  it('outlines default, presets, each source by kind and first URL, each connection by kind and target', () => {
    const symbols = findDocumentSymbols(doc);
    expect(symbols.map((s) => s.name)).toEqual(['default', 'presets', 'sources', 'connections']);
    expect(symbols[1].children!.map((s) => s.name)).toEqual(['npm', 'pypi']);
    expect(symbols[2].children!.map((s) => s.name)).toEqual(['oci https://registry.example.org']);
    expect(symbols[3].children!.map((s) => s.name)).toEqual(['tls api.example.com']);
    expect(symbols[2].children![0].range.start.line).toBe(4);
  });
  it('folds objects and arrays that span lines', () => {
    expect(getFoldingRanges(doc)).toEqual(expect.arrayContaining([{ startLine: 0, endLine: 8 }, { startLine: 3, endLine: 4 }, { startLine: 6, endLine: 7 }]));
  });
  it('selects from the value outwards', () => {
    const [sel] = getSelectionRanges(doc, [{ line: 4, character: 25 }]);
    const chain: string[] = [];
    for (let s: typeof sel | undefined = sel; s; s = s.parent) chain.push(`${s.range.start.line}:${s.range.start.character}`);
    expect(chain.slice(0, 2)).toEqual(['4:24', '4:23']);
    expect(chain[chain.length - 1]).toBe('0:0');
  });
  it('never selects between the halves of a surrogate pair (a cursor inside an emoji outside any value)', () => {
    const emoji = parsePolicyDocument('{"default": "deny"}\n😀', { fileName: 'p.netpolicy.jsonc' });
    const [sel] = getSelectionRanges(emoji, [{ line: 1, character: 1 }]);
    expect(sel.range).toEqual({ start: { line: 1, character: 0 }, end: { line: 1, character: 0 } });
    expect(sel.parent).toBeUndefined();
  });
  it('formats with the client tab settings, the whole document or a range', () => {
    const compact = parsePolicyDocument('{"default":"deny","presets":["npm"]}', { fileName: 'p.netpolicy.json' });
    expect(applyLspEdits(compact, format(compact, undefined, { tabSize: 4, insertSpaces: true }))).toBe('{\n    "default": "deny",\n    "presets": [\n        "npm"\n    ]\n}');
    expect(applyLspEdits(compact, format(compact, undefined, { tabSize: 4, insertSpaces: false }))).toContain('\n\t"default"');
  });
  it('links preset names to their docs', () => {
    const links = findDocumentLinks(doc);
    expect(links.map((l) => l.target)).toEqual(['https://github.com/netpolicy/netpolicy/blob/main/docs/presets.md#npm', 'https://github.com/netpolicy/netpolicy/blob/main/docs/presets.md#pypi']);
  });
});

describe('hover on ports', () => {
  it('names what usually runs on a port', () => {
    expect(hover('{ "connections": [ { "tcp": { "hostPatterns": ["db.example"], "ports": [54|32] } } ] }')).toMatch(/^Port 5432: usually PostgreSQL/);
  });
});
