/**
 * Workspace symbols over real LSP (issue 30 item 4): the rules of every policy of the workspace
 * (read by the workspace check, open documents from their buffers) found by host, URL, repository
 * or address; files changed, deleted, opened and closed; the catalog in force and workspace trust.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CancellationTokenSource } from 'vscode-jsonrpc/node';
import { describe, expect, it } from 'vitest';
import { WorkspaceTrustNotificationMethod } from '../src/protocol';
import { clientPerTest, fileUri, writeWorkspace, type TestClient } from './harness';

const client = clientPerTest();

const CI = `{
  "presets": ["npm"],
  "sources": [
    { "pypi": { "urls": ["https://pypi.org/simple"] } },
    { "git": { "repositoryPatterns": ["org/*"], "ssh": [{ "host": "github.com", "port": 22, "user": "git" }] } }
  ],
  "connections": [{ "tcp": { "cidrs": ["10.0.0.0/8"], "ports": [5432] } }]
}
`;
const DEPLOY = '{ "presets": ["internal"], "connections": [{ "tls": { "serverNamePatterns": ["*.pypi.org"], "ports": [443] } }] }\n';
const CATALOG = '{ "presets": [{ "name": "internal", "description": "Our mirror", "known": { "sources": [{ "pypi": { "urls": ["https://mirror.corp.example/pypi"] } }] } }] }';

/** Resolves once the workspace check has gone through the whole workspace `times` times. */
async function checked(c: TestClient, times = 1): Promise<void> {
  await expect.poll(() => c.logs.filter((l) => /workspace diagnostics: \d+ policy files checked/.test(l.message)).length, { timeout: 20_000 }).toBeGreaterThanOrEqual(times);
}

/** The answer as `container: name @line`. */
async function symbols(c: TestClient, query: unknown): Promise<string[]> {
  const found = await c.request<any[]>('workspace/symbol', { query });
  return found.map((s) => `${s.containerName}: ${s.name} @${s.location.range.start.line}`);
}

describe('workspace symbols', () => {
  it('finds the rules of the files on disk by host, URL, repository and address, without opening them', async () => {
    const dir = writeWorkspace({ 'ci.netpolicy.json': CI, 'deploy/network-policy.json': DEPLOY, 'netpolicy.config.json': '{ "presetCatalog": "catalog.json" }', 'catalog.json': CATALOG });
    const c = await client({ rootUri: fileUri(dir) });
    expect(c.initializeResult.capabilities.workspaceSymbolProvider).toBe(true);
    await checked(c);
    expect(await symbols(c, 'pypi.org')).toEqual(['ci.netpolicy.json: pypi https://pypi.org/simple @3', 'deploy/network-policy.json: tls *.pypi.org:443 @0']);
    // A catalog preset is found by what it contains.
    expect(await symbols(c, 'https://mirror.corp.example/pypi/simple/x')).toEqual([
      'deploy/network-policy.json: https://mirror.corp.example/pypi/simple/x via preset internal (https://mirror.corp.example/pypi) @0',
    ]);
    expect(await symbols(c, 'https://registry.npmjs.org/lodash')).toEqual(['ci.netpolicy.json: https://registry.npmjs.org/lodash via preset npm (https://registry.npmjs.org) @1']);
    expect(await symbols(c, 'git@github.com:org/tool.git')).toEqual(['ci.netpolicy.json: git@github.com:org/tool.git via git ssh git@github.com:22 org/* @4']);
    expect(await symbols(c, '10.20.30.40')).toEqual(['ci.netpolicy.json: 10.20.30.40 via tcp 10.0.0.0/8:5432 @6']);
    const [first] = await c.request<any[]>('workspace/symbol', { query: '10.20.30.40' });
    // The range of the rule's item in the file.
    const line = CI.split('\n')[6];
    expect(first).toEqual({
      name: '10.20.30.40 via tcp 10.0.0.0/8:5432', kind: 11, containerName: 'ci.netpolicy.json',
      location: { uri: fileUri(join(dir, 'ci.netpolicy.json')), range: { start: { line: 6, character: line.indexOf('{ "tcp"') }, end: { line: 6, character: line.lastIndexOf('}') + 1 } } },
    });
    // The empty query: every rule (2 sources, 1 connection, 1 preset; 1 connection, 1 preset).
    expect(await c.request<any[]>('workspace/symbol', { query: '' })).toHaveLength(6);
  });

  it('follows the files: a change on disk, a deletion, an open buffer (edited, then closed)', async () => {
    const dir = writeWorkspace({ 'ci.netpolicy.json': CI, 'other.netpolicy.json': DEPLOY });
    const c = await client({ rootUri: fileUri(dir) });
    await checked(c);
    const ci = fileUri(join(dir, 'ci.netpolicy.json'));
    writeFileSync(join(dir, 'ci.netpolicy.json'), CI.replace('https://pypi.org/simple', 'https://pypi.corp.example/simple'));
    await c.notify('workspace/didChangeWatchedFiles', { changes: [{ uri: ci, type: 2 }] });
    await expect.poll(() => symbols(c, 'pypi.corp.example')).toEqual(['ci.netpolicy.json: pypi https://pypi.corp.example/simple @3']);
    rmSync(join(dir, 'other.netpolicy.json'));
    await c.notify('workspace/didChangeWatchedFiles', { changes: [{ uri: fileUri(join(dir, 'other.netpolicy.json')), type: 3 }] });
    await expect.poll(() => symbols(c, 'upload.pypi.org')).toEqual([]);

    // Open: the buffer is what counts, at every version.
    await c.open(ci, '{ "presets": [], "sources": [{ "npm": { "urls": ["https://npm.buffer.example"] } }] }', 1);
    expect(await symbols(c, 'npm.buffer.example')).toEqual(['ci.netpolicy.json: npm https://npm.buffer.example @0']);
    expect(await symbols(c, 'pypi.corp.example')).toEqual([]);
    await c.notify('textDocument/didChange', { textDocument: { uri: ci, version: 2 }, contentChanges: [{ text: '{ "presets": [], "connections": [{ "tcp": { "cidrs": ["192.0.2.0/24"] } }] }' }] });
    expect(await symbols(c, '192.0.2.7')).toEqual(['ci.netpolicy.json: 192.0.2.7 via tcp 192.0.2.0/24 @0']);
    expect(await symbols(c, 'npm.buffer.example')).toEqual([]);
    // Closed: the file on disk again.
    await c.notify('textDocument/didClose', { textDocument: { uri: ci } });
    await expect.poll(() => symbols(c, 'pypi.corp.example')).toEqual(['ci.netpolicy.json: pypi https://pypi.corp.example/simple @3']);
    expect(await symbols(c, '192.0.2.7')).toEqual([]);
  });

  it('an open document outside the workspace check (none running) is found from its buffer', async () => {
    const c = await client({ settings: { workspaceDiagnostics: { maxFiles: 0 } } });
    const uri = 'file:///nowhere/team/a.netpolicy.json';
    await c.open(uri, '{ "presets": [], "sources": [{ "pypi": { "urls": ["https://pypi.org"] } }] }');
    await c.diagnostics(uri);
    expect(await symbols(c, 'pypi.org')).toEqual(['/nowhere/team/a.netpolicy.json: pypi https://pypi.org @0']);
    // Not a policy file: nothing from it.
    await c.open('file:///nowhere/package.json', '{ "sources": [{ "pypi": { "urls": ["https://pypi.org"] } }] }');
    expect(await symbols(c, 'pypi.org')).toHaveLength(1);
  });

  it('in Restricted Mode the files inside the folder are searched with the built-in presets; trust brings the catalog in', async () => {
    const dir = writeWorkspace({ 'deploy.netpolicy.json': DEPLOY, 'netpolicy.config.json': '{ "presetCatalog": "catalog.json" }', 'catalog.json': CATALOG });
    const c = await client({ rootUri: fileUri(dir), initializationOptions: { workspaceTrusted: false } });
    await checked(c);
    expect(await symbols(c, 'files.pypi.org')).toEqual(['deploy.netpolicy.json: files.pypi.org via tls *.pypi.org:443 @0']);
    expect(await symbols(c, 'mirror.corp.example')).toEqual([]);
    await c.notify(WorkspaceTrustNotificationMethod, { trusted: true });
    await expect.poll(() => symbols(c, 'mirror.corp.example'), { timeout: 20_000 }).toEqual(['deploy.netpolicy.json: preset internal (https://mirror.corp.example/pypi) @0']);
  });

  it('several folders: the container names the folder', async () => {
    const a = writeWorkspace({ 'ci.netpolicy.json': CI }, 'np-ws-a-');
    const b = writeWorkspace({ 'ci.netpolicy.json': DEPLOY }, 'np-ws-b-');
    const c = await client({ rootUri: fileUri(a), workspaceFolders: [{ uri: fileUri(a), name: 'a' }, { uri: fileUri(b), name: 'b' }] });
    await checked(c);
    const containers = (await c.request<any[]>('workspace/symbol', { query: 'pypi.org' })).map((s) => s.containerName).sort();
    expect(containers).toEqual([`${a.slice(a.lastIndexOf('/') + 1)}/ci.netpolicy.json`, `${b.slice(b.lastIndexOf('/') + 1)}/ci.netpolicy.json`].sort());
  });

  it('hostile queries: wrong params refused, a huge one answered with nothing, control characters escaped, a cancelled request cancelled', async () => {
    const dir = writeWorkspace({ 'ci.netpolicy.json': CI });
    const c = await client({ rootUri: fileUri(dir) });
    await checked(c);
    await expect(c.request('workspace/symbol', { query: 5 })).rejects.toMatchObject({ code: -32602, message: expect.stringContaining('params.query must be a string') });
    await expect(c.request('workspace/symbol', {})).rejects.toMatchObject({ code: -32602 });
    expect(await symbols(c, 'x'.repeat(100_000))).toEqual([]);
    expect(await symbols(c, 'tcp\u001b[2J\u202e')).toEqual([]);
    const names = (await c.request<any[]>('workspace/symbol', { query: 'pypi\u202e.org' })).map((s) => s.name);
    expect(names.every((n) => !/[\u0000-\u001f\u202e]/.test(n))).toBe(true);
    expect(await symbols(c, '__proto__')).toEqual([]);
    const source = new CancellationTokenSource();
    const answer = c.connection.sendRequest('workspace/symbol', { query: '' }, source.token);
    source.cancel();
    await expect(answer).rejects.toMatchObject({ code: -32800 });
  });
});
