import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { clientPerTest, fileUri, writeWorkspace } from './harness';

const client = clientPerTest();

const CATALOG = '{ "presets": [{ "name": "internal-pypi", "description": "Our PyPI mirror", "opaque": true }] }\n';

const workspace = (files: Record<string, string>): string => writeWorkspace(files, 'np-ren-');

const CAPS = {
  workspace: { configuration: true, workspaceEdit: { documentChanges: true } },
  textDocument: { publishDiagnostics: { versionSupport: true } },
};

describe('rename and document highlight', () => {
  it('are advertised; highlight marks the preset, CIDR or host under the cursor', async () => {
    const dir = workspace({});
    const c = await client({ rootUri: fileUri(dir) });
    expect(c.initializeResult.capabilities).toMatchObject({ documentHighlightProvider: true, renameProvider: { prepareProvider: true } });
    const uri = fileUri(join(dir, 'ci.netpolicy.json'));
    await c.open(uri, '{ "presets": ["npm", "npm"], "connections": [{ "tcp": { "cidrs": ["10.0.0.0/8", "10.0.0.0/8"] } }] }');
    await c.diagnostics(uri);
    const presets = await c.request('textDocument/documentHighlight', { textDocument: { uri }, position: { line: 0, character: 16 } });
    expect(presets.map((h: any) => h.range.start.character)).toEqual([15, 22]);
    const cidrs = await c.request('textDocument/documentHighlight', { textDocument: { uri }, position: { line: 0, character: 70 } });
    expect(cidrs).toHaveLength(2);
  });

  it('renames a catalog preset in the catalog, the open and closed policies and the test files, open ones at their version', async () => {
    const dir = workspace({
      'netpolicy.config.json': '{ "presetCatalog": "catalog.json" }',
      'catalog.json': CATALOG,
      'a/closed.netpolicy.json': '{ "presets": ["npm", "internal-pypi"] }\n',
      'a/policy.tests.json': '{ "tests": [{ "http": { "url": "https://x.example/" }, "expect": "allow", "rule": "preset:internal-pypi" }] }\n',
      'b/other.netpolicy.json': '{ "presets": ["npm"] }\n',
    });
    const c = await client({ rootUri: fileUri(dir), capabilities: CAPS });
    const uri = fileUri(join(dir, 'ci.netpolicy.json'));
    await c.open(uri, '{ "presets": ["internal-pypi"] }', 3);
    await c.diagnostics(uri, 3);
    // The workspace check finds the closed policies.
    await c.diagnostics(fileUri(join(dir, 'a/closed.netpolicy.json')));
    const position = { line: 0, character: 18 };
    expect(await c.request('textDocument/prepareRename', { textDocument: { uri }, position })).toEqual({
      range: { start: { line: 0, character: 15 }, end: { line: 0, character: 28 } }, placeholder: 'internal-pypi',
    });
    const edit = await c.request('textDocument/rename', { textDocument: { uri }, position, newName: 'mirror' });
    const byUri = Object.fromEntries(edit.documentChanges.map((d: any) => [d.textDocument.uri, d]));
    expect(Object.keys(byUri).sort()).toEqual([fileUri(join(dir, 'a/closed.netpolicy.json')), fileUri(join(dir, 'a/policy.tests.json')), fileUri(join(dir, 'catalog.json')), uri].sort());
    expect(byUri[uri].textDocument.version).toBe(3);
    expect(byUri[fileUri(join(dir, 'catalog.json'))].textDocument.version).toBeNull();
    expect(byUri[uri].edits).toEqual([{ range: { start: { line: 0, character: 14 }, end: { line: 0, character: 29 } }, newText: '"mirror"' }]);
    expect(byUri[fileUri(join(dir, 'a/policy.tests.json'))].edits[0].newText).toBe('"preset:mirror"');
    await expect(c.request('textDocument/rename', { textDocument: { uri }, position, newName: 'npm' })).rejects.toThrow(/already a preset/);
    await expect(c.request('textDocument/rename', { textDocument: { uri }, position, newName: 'a\u202eb' })).rejects.toThrow(/bidirectional/);
  });

  it('renames from a test file\'s preset:NAME (the name alone is edited), and refuses a built-in preset there', async () => {
    const tests = '{ "tests": [\n  { "http": { "url": "https://x.example/" }, "expect": "allow", "rule": "preset:internal-pypi" },\n  { "http": { "url": "https://pypi.org/" }, "expect": "allow", "rule": "preset:pypi" },\n  { "http": { "url": "https://e.example/" }, "expect": "deny", "rule": "preset:\\u0069nternal-pypi" }\n] }\n';
    const dir = workspace({
      'netpolicy.config.json': '{ "presetCatalog": "catalog.json" }',
      'catalog.json': CATALOG,
      'a/policy.netpolicy.json': '{ "presets": ["internal-pypi", "pypi"] }\n',
    });
    const c = await client({ rootUri: fileUri(dir), capabilities: CAPS });
    const uri = fileUri(join(dir, 'a/policy.tests.json'));
    await c.open(uri, tests, 7);
    await c.diagnostics(uri, 7);
    // The workspace check finds the policy (not open): the rename edits it too.
    await c.diagnostics(fileUri(join(dir, 'a/policy.netpolicy.json')));
    const line1 = tests.split('\n')[1]!;
    const at = line1.indexOf('preset:internal-pypi');
    expect(await c.request('textDocument/prepareRename', { textDocument: { uri }, position: { line: 1, character: at + 10 } })).toEqual({
      range: { start: { line: 1, character: at + 7 }, end: { line: 1, character: at + 20 } }, placeholder: 'internal-pypi',
    });
    const edit = await c.request('textDocument/rename', { textDocument: { uri }, position: { line: 1, character: at + 10 }, newName: 'mirror' });
    const byUri = Object.fromEntries(edit.documentChanges.map((d: any) => [d.textDocument.uri, d]));
    expect(Object.keys(byUri).sort()).toEqual([fileUri(join(dir, 'a/policy.netpolicy.json')), fileUri(join(dir, 'catalog.json')), uri].sort());
    expect(byUri[uri].textDocument.version).toBe(7);
    // The escaped spelling names the same preset: netpolicy test compares values, so it is renamed too.
    expect(byUri[uri].edits.map((e: any) => [e.range.start.line, e.newText])).toEqual([[1, '"preset:mirror"'], [3, '"preset:mirror"']]);
    const line2 = tests.split('\n')[2]!;
    await expect(c.request('textDocument/prepareRename', { textDocument: { uri }, position: { line: 2, character: line2.indexOf('preset:pypi') + 9 } })).rejects.toThrow(/pypi is a built-in preset/);
    // On the url, or on the escaped spelling: nothing to rename there.
    expect(await c.request('textDocument/prepareRename', { textDocument: { uri }, position: { line: 1, character: line1.indexOf('x.example') } })).toBeNull();
    expect(await c.request('textDocument/prepareRename', { textDocument: { uri }, position: { line: 3, character: tests.split('\n')[3]!.indexOf('preset:') + 3 } })).toBeNull();
  });

  it('renames from the catalog file too; a client without documentChanges gets changes', async () => {
    const dir = workspace({ 'netpolicy.config.json': '{ "presetCatalog": "catalog.json" }', 'catalog.json': CATALOG });
    const c = await client({ rootUri: fileUri(dir) });
    const uri = fileUri(join(dir, 'ci.netpolicy.json'));
    await c.open(uri, '{ "presets": ["internal-pypi"] }');
    await c.diagnostics(uri);
    const catalogUri = fileUri(join(dir, 'catalog.json'));
    await c.open(catalogUri, CATALOG);
    const edit = await c.request('textDocument/rename', { textDocument: { uri: catalogUri }, position: { line: 0, character: 30 }, newName: 'mirror' });
    expect(Object.keys(edit.changes).sort()).toEqual([catalogUri, uri].sort());
  });

  it('prepareRename refuses a built-in preset and an unknown one, saying why', async () => {
    const dir = workspace({});
    const c = await client({ rootUri: fileUri(dir) });
    const uri = fileUri(join(dir, 'ci.netpolicy.json'));
    await c.open(uri, '{ "presets": ["pypi", "__proto__", "x\u202ey"], "default": "deny" }');
    await c.diagnostics(uri);
    await expect(c.request('textDocument/prepareRename', { textDocument: { uri }, position: { line: 0, character: 17 } })).rejects.toThrow(/pypi is a built-in preset: it cannot be renamed/);
    await expect(c.request('textDocument/prepareRename', { textDocument: { uri }, position: { line: 0, character: 27 } })).rejects.toThrow(/__proto__ is not a preset/);
    await expect(c.request('textDocument/prepareRename', { textDocument: { uri }, position: { line: 0, character: 40 } })).rejects.toThrow(/x\\u202ey is not a preset/);
    expect(await c.request('textDocument/prepareRename', { textDocument: { uri }, position: { line: 0, character: 58 } })).toBeNull();
  });
});
