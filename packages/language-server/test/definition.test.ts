import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { clientPerTest, fileUri, writeWorkspace } from './harness';

const client = clientPerTest();

const CATALOG = `{
  "presets": [
    { "name": "internal-pypi", "description": "Our PyPI mirror", "known": { "sources": [{ "pypi": { "urls": ["https://pypi.corp.example"] } }] } }
  ]
}
`;

const workspace = (files: Record<string, string>): string => writeWorkspace(files, 'np-def-');

const at = (text: string, needle: string, delta = 1) => {
  const offset = text.indexOf(needle) + delta;
  const before = text.slice(0, offset).split('\n');
  return { line: before.length - 1, character: before[before.length - 1].length };
};

describe('go to definition', () => {
  it('is advertised; a catalog preset goes to its entry, a built-in one to its read-only view, served by netpolicy/presetDocument', async () => {
    const dir = workspace({ 'netpolicy.config.json': '{ "presetCatalog": "presets/catalog.json" }', 'presets/catalog.json': CATALOG });
    const c = await client({ rootUri: fileUri(dir) });
    expect(c.initializeResult.capabilities.definitionProvider).toBe(true);
    const uri = fileUri(join(dir, 'ci.netpolicy.json'));
    const policy = '{ "presets": ["internal-pypi", "pypi", "nope"] }\n';
    await c.open(uri, policy);
    await c.diagnostics(uri);
    const toCatalog = await c.request('textDocument/definition', { textDocument: { uri }, position: at(policy, 'internal-pypi') });
    expect(toCatalog).toEqual({ uri: fileUri(join(dir, 'presets/catalog.json')), range: { start: at(CATALOG, '"internal-pypi"', 0), end: at(CATALOG, '", "description"', 1) } });
    const toView = await c.request('textDocument/definition', { textDocument: { uri }, position: at(policy, '"pypi"') });
    expect(toView.uri).toBe('netpolicy-preset:/pypi.json');
    const view = await c.request('netpolicy/presetDocument', { uri: toView.uri });
    expect(JSON.parse(view.text)).toMatchObject({ name: 'pypi', sources: [expect.anything()] });
    expect(await c.request('netpolicy/presetDocument', { uri: 'netpolicy-preset:/__proto__.json' })).toBeNull();
    expect(await c.request('textDocument/definition', { textDocument: { uri }, position: at(policy, 'nope') })).toBeNull();
    await expect(c.request('netpolicy/presetDocument', { uri: 7 })).rejects.toThrow(/params.uri must be a string/);
  });

  it('the catalog as open in the editor wins over the file on disk', async () => {
    const dir = workspace({ 'netpolicy.config.json': '{ "presetCatalog": "catalog.json" }', 'catalog.json': CATALOG });
    const c = await client({ rootUri: fileUri(dir) });
    const catalogUri = fileUri(join(dir, 'catalog.json'));
    const edited = `\n\n${CATALOG}`;
    await c.open(catalogUri, edited);
    const uri = fileUri(join(dir, 'ci.netpolicy.json'));
    await c.open(uri, '{ "presets": ["internal-pypi"] }');
    await c.diagnostics(uri);
    const found = await c.request('textDocument/definition', { textDocument: { uri }, position: { line: 0, character: 16 } });
    expect(found.range.start.line).toBe(4);
  });

  it('an untrusted workspace reads no catalog: built-in names still go to their view', async () => {
    const dir = workspace({ 'netpolicy.config.json': '{ "presetCatalog": "catalog.json" }', 'catalog.json': CATALOG });
    const c = await client({ rootUri: fileUri(dir), initializationOptions: { workspaceTrusted: false } });
    const uri = fileUri(join(dir, 'ci.netpolicy.json'));
    await c.open(uri, '{ "presets": ["internal-pypi", "npm"] }');
    await c.diagnostics(uri);
    expect(await c.request('textDocument/definition', { textDocument: { uri }, position: { line: 0, character: 16 } })).toBeNull();
    expect((await c.request('textDocument/definition', { textDocument: { uri }, position: { line: 0, character: 34 } })).uri).toBe('netpolicy-preset:/npm.json');
  });

  it('presetCatalog and traces paths of netpolicy.config.json go to their files', async () => {
    const config = '{\n  "presetCatalog": "presets/catalog.json",\n  "traces": ["traces/a.json", "traces/"]\n}\n';
    const dir = workspace({ 'netpolicy.config.json': config, 'presets/catalog.json': CATALOG });
    const c = await client({ rootUri: fileUri(dir) });
    const uri = fileUri(join(dir, 'netpolicy.config.json'));
    await c.open(uri, config);
    const zero = { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };
    expect(await c.request('textDocument/definition', { textDocument: { uri }, position: at(config, 'catalog.json') })).toEqual({ uri: fileUri(join(dir, 'presets/catalog.json')), range: zero });
    expect(await c.request('textDocument/definition', { textDocument: { uri }, position: at(config, 'a.json') })).toEqual({ uri: fileUri(join(dir, 'traces/a.json')), range: zero });
    expect(await c.request('textDocument/definition', { textDocument: { uri }, position: at(config, '"traces/"', 2) })).toBeNull();
    expect(await c.request('textDocument/definition', { textDocument: { uri }, position: at(config, '"traces"', 2) })).toBeNull();
  });
});
