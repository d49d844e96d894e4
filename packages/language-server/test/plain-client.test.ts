/**
 * The server as a plain LSP 3.17 client written cold from the spec meets it: capabilities left
 * out (no workspace/configuration, no dynamic registration, no CodeAction literals, no snippets,
 * plain-text hovers, other position encodings), the lifecycle (shutdown, exit, a dead parent,
 * stdin closed), and documents with unusual URIs and text.
 */
import { describe, expect, it, vi } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMessageConnection, StreamMessageReader, StreamMessageWriter } from 'vscode-jsonrpc/node';
import { SERVER_BIN, fileUri, clientPerTest, type PublishedDiagnostics, type TestClient } from './harness';

const client = clientPerTest();

const dir = () => mkdtempSync(join(tmpdir(), 'np-ls-plain-'));
const change = (uri: string, version: number, text: string) => ({ textDocument: { uri, version }, contentChanges: [{ text }] });

describe('capability negotiation', () => {
  it('a client with no capabilities is sent no registration, and one that never answers workspace/configuration waits for nothing', async () => {
    // The server used to wait 2 s (its configuration timeout) for an answer that never comes. Its
    // timers are faked here (the in-process server's setTimeout): the clock is moved on a little at
    // a time and stops short of 2 s, so the diagnostics can arrive only if they did not wait for that
    // timeout, on a quiet machine or a loaded one.
    const realSetTimeout = setTimeout;
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const d = dir();
      const c = await client({ rootUri: fileUri(d), capabilities: {}, configuration: 'never' });
      const uri = fileUri(join(d, 'a.netpolicy.json'));
      await c.open(uri, '{"presets": ["nope"]}', 1);
      let published: PublishedDiagnostics | undefined;
      void c.diagnostics(uri, 1).then((p) => { published = p; });
      for (let clock = 0; !published && clock < 1900; clock += 5) {
        await vi.advanceTimersByTimeAsync(5);
        await new Promise((r) => realSetTimeout(r, 20)); // real time for the messages to travel
      }
      expect(published?.diagnostics.map((x) => x.code)).toEqual(['unknown-preset']);
      expect(c.serverRequests.filter((r) => r.method === 'client/registerCapability')).toEqual([]);
    } finally {
      vi.useRealTimers();
    }
  });

  it('a client that does not advertise workspace/configuration but answers it (Neovim 0.7) gets its settings applied; a null answer keeps initializationOptions', async () => {
    const d = dir();
    const text = '{"presets": [], "connections": [{"tcp": {"cidrs": ["0.0.0.0/1"]}}]}';
    const answers = await client({ rootUri: fileUri(d), capabilities: {}, settings: { severity: { 'broad-cidr': 'error' } } });
    const uri = fileUri(join(d, 'a.netpolicy.json'));
    await answers.open(uri, text, 1);
    await expect.poll(() => answers.published.filter((p) => p.uri === uri).at(-1)?.diagnostics.map((x) => [x.code, x.severity])).toEqual([['broad-cidr', 1]]);

    const nulls = await client({ rootUri: fileUri(d), capabilities: {}, settings: null as any, initializationOptions: { settings: { severity: { 'broad-cidr': 'hint' } } } });
    await nulls.open(uri, text, 1);
    expect((await nulls.diagnostics(uri, 1)).diagnostics.map((x) => [x.code, x.severity])).toEqual([['broad-cidr', 4]]);
    await new Promise((r) => setTimeout(r, 200));
    expect(nulls.published.filter((p) => p.uri === uri).at(-1)!.diagnostics.map((x) => [x.code, x.severity])).toEqual([['broad-cidr', 4]]);
  });

  it('initializationOptions null, a string, an array, or settings of the wrong type are the defaults', async () => {
    const d = dir();
    const uri = fileUri(join(d, 'a.netpolicy.json'));
    for (const initializationOptions of [null, 'garbage', [1, 2], { settings: 'x' }, { settings: [] }, { settings: { severity: 'all', filePatterns: 7, traces: {} } }]) {
      const c = await client({ rootUri: fileUri(d), capabilities: {}, initializationOptions });
      await c.open(uri, '{"presets": ["nope"]}', 1);
      expect((await c.diagnostics(uri, 1)).diagnostics.map((x) => x.code)).toEqual(['unknown-preset']);
    }
  });

  it('registers for configuration changes only with a client that supports dynamic registration', async () => {
    const c = await client({ rootUri: fileUri(dir()), capabilities: { workspace: { configuration: true, didChangeConfiguration: { dynamicRegistration: true } } } });
    await expect.poll(() => c.serverRequests.filter((r) => r.method === 'client/registerCapability').length).toBe(1);
  });

  it('code actions become commands for a client without CodeAction literals; executing one applies the fix through workspace/applyEdit', async () => {
    const d = dir();
    const c = await client({ rootUri: fileUri(d), capabilities: { workspace: { applyEdit: true } } });
    expect(c.initializeResult.capabilities.executeCommandProvider.commands).toEqual(['netpolicy.server.runPolicyTests', 'netpolicy.server.applyEdit']);
    const uri = fileUri(join(d, 'a.netpolicy.json'));
    await c.open(uri, '{"presets": ["pypy"]}', 1);
    const [diagnostic] = (await c.diagnostics(uri, 1)).diagnostics;
    const commands: any[] = await c.request('textDocument/codeAction', { textDocument: { uri }, range: diagnostic.range, context: { diagnostics: [diagnostic] } });
    expect(commands.length).toBeGreaterThan(0);
    for (const command of commands) {
      expect(Object.keys(command).sort()).toEqual(['arguments', 'command', 'title']);
      expect(command.command).toBe('netpolicy.server.applyEdit');
    }
    const fix = commands.find((x) => /pypi/.test(x.title));
    expect(await c.request('workspace/executeCommand', { command: fix.command, arguments: fix.arguments })).toBeNull();
    const applied = c.serverRequests.find((r) => r.method === 'workspace/applyEdit')!;
    expect(applied.params.edit.changes[uri]).toEqual([{ range: diagnostic.range, newText: '"pypi"' }]);
    // Offered for version 1: after an edit it is refused, not applied to other text.
    await c.notify('textDocument/didChange', change(uri, 2, '{"presets": ["pypy"] }'));
    await expect(c.request('workspace/executeCommand', { command: fix.command, arguments: fix.arguments })).rejects.toMatchObject({ code: -32801 });
    await expect(c.request('workspace/executeCommand', { command: 'nope', arguments: [] })).rejects.toMatchObject({ code: -32602 });
    expect(c.serverRequests.filter((r) => r.method === 'workspace/applyEdit')).toHaveLength(1);
  });

  it('a client with CodeAction literals gets literals and no command to apply them (only the test files\' lens command)', async () => {
    const d = dir();
    const c = await client({ rootUri: fileUri(d), capabilities: { textDocument: { codeAction: { codeActionLiteralSupport: { codeActionKind: { valueSet: ['quickfix'] } } } } } });
    expect(c.initializeResult.capabilities.executeCommandProvider.commands).toEqual(['netpolicy.server.runPolicyTests']);
    const uri = fileUri(join(d, 'a.netpolicy.json'));
    await c.open(uri, '{"presets": ["pypy"]}', 1);
    const [diagnostic] = (await c.diagnostics(uri, 1)).diagnostics;
    const actions: any[] = await c.request('textDocument/codeAction', { textDocument: { uri }, range: diagnostic.range, context: { diagnostics: [diagnostic] } });
    expect(actions[0].kind).toBe('quickfix');
    expect(actions[0].edit.changes[uri]).toEqual([{ range: diagnostic.range, newText: '"pypi"' }]);
  });

  it('completion sends snippets only to a client with snippetSupport, and plain-text documentation to one without Markdown', async () => {
    const d = dir();
    const uri = fileUri(join(d, 'a.netpolicy.json'));
    const text = '{"sources": [  ]}';
    const position = { line: 0, character: 14 };
    const plain = await client({ rootUri: fileUri(d), capabilities: { textDocument: { completion: { completionItem: { documentationFormat: ['plaintext'] } }, hover: { contentFormat: ['plaintext'] } } } });
    await plain.open(uri, text, 1);
    const items: any[] = (await plain.request('textDocument/completion', { textDocument: { uri }, position })).items;
    const npm = items.find((i) => i.label === 'npm source');
    expect(npm.insertTextFormat).not.toBe(2);
    expect(npm.textEdit.newText).toBe('{ "npm": { "urls": ["https://npm.example.com"] } }');
    for (const i of items) {
      expect(i.insertTextFormat ?? 1).toBe(1);
      expect(i.textEdit.newText).not.toMatch(/\$\{?\d/);
      if (i.documentation) expect(i.documentation.kind).toBe('plaintext');
    }
    const hover: any = await plain.request('textDocument/hover', { textDocument: { uri }, position: { line: 0, character: 4 } });
    expect(hover.contents.kind).toBe('plaintext');
    expect(hover.contents.value).not.toMatch(/\*\*|`/);
    expect(hover.contents.value).toMatch(/^sources\n/);

    const rich = await client({ rootUri: fileUri(d), capabilities: { textDocument: { completion: { completionItem: { snippetSupport: true, documentationFormat: ['markdown', 'plaintext'] } }, hover: { contentFormat: ['markdown'] } } } });
    await rich.open(uri, text, 1);
    const snippets: any[] = (await rich.request('textDocument/completion', { textDocument: { uri }, position })).items;
    expect(snippets.find((i) => i.label === 'npm source')).toMatchObject({ insertTextFormat: 2, textEdit: { newText: expect.stringContaining('${1:') } });
    expect(((await rich.request('textDocument/hover', { textDocument: { uri }, position: { line: 0, character: 4 } })) as any).contents.kind).toBe('markdown');
  });

  it('answers utf-16 to a client offering only utf-8 or utf-32, and counts UTF-16 code units (astral characters, CRLF, BOM)', async () => {
    const d = dir();
    for (const positionEncodings of [['utf-8'], ['utf-32'], ['utf-8', 'utf-32']]) {
      const c = await client({ rootUri: fileUri(d), capabilities: { general: { positionEncodings } } });
      expect(c.initializeResult.capabilities.positionEncoding).toBe('utf-16');
      const uri = fileUri(join(d, 'a.netpolicy.json'));
      await c.open(uri, '\uFEFF{\r\n  "x😀😀": 1,\r\n  "presets": ["😀", "nope"]\r\n}\r\n', 1);
      const got = (await c.diagnostics(uri, 1)).diagnostics.map((x) => [x.code, x.range]);
      expect(got).toEqual([
        ['unknown-property', { start: { line: 1, character: 2 }, end: { line: 1, character: 9 } }],
        ['unknown-preset', { start: { line: 2, character: 14 }, end: { line: 2, character: 18 } }],
        ['unknown-preset', { start: { line: 2, character: 20 }, end: { line: 2, character: 26 } }],
      ]);
    }
  });
});

describe('lifecycle', () => {
  it('after shutdown a request is an InvalidRequest; unknown requests are MethodNotFound; unknown notifications, $/setTrace and $/cancelRequest of unknown ids are ignored', async () => {
    const d = dir();
    const c = await client({ rootUri: fileUri(d) });
    const uri = fileUri(join(d, 'a.netpolicy.json'));
    await c.open(uri, '{"presets": ["npm"]}', 1);
    await c.diagnostics(uri, 1);
    await expect(c.request('netpolicy/nothing', {})).rejects.toMatchObject({ code: -32601 });
    await c.notify('netpolicy/nothing', {});
    await c.notify('$/setTrace', { value: 'verbose' });
    await c.notify('$/cancelRequest', { id: 987654 });
    await c.notify('$/cancelRequest', { id: 'unknown' });
    expect(await c.request('textDocument/documentSymbol', { textDocument: { uri } })).toHaveLength(1);
    expect(await c.request('shutdown', null)).toBeNull();
    for (const [method, params] of [
      ['textDocument/hover', { textDocument: { uri }, position: { line: 0, character: 3 } }],
      ['textDocument/documentSymbol', { textDocument: { uri } }],
      ['textDocument/completion', { textDocument: { uri }, position: { line: 0, character: 14 } }],
      ['textDocument/documentLink', { textDocument: { uri } }],
      ['netpolicy/denials', { uri }],
    ] as const) {
      await expect(c.request(method, params)).rejects.toMatchObject({ code: -32600 });
    }
  });

  const spawnServer = () => {
    const child = spawn(process.execPath, [SERVER_BIN, '--stdio'], { stdio: ['pipe', 'pipe', 'pipe'] });
    child.stderr.resume();
    const connection = createMessageConnection(new StreamMessageReader(child.stdout), new StreamMessageWriter(child.stdin));
    connection.onRequest(() => null);
    connection.listen();
    const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    return { child, connection, exit };
  };

  it('a request before initialize is ServerNotInitialized (-32002); the server then initializes as usual', async () => {
    const a = spawnServer();
    const hover = { textDocument: { uri: 'file:///w/a.netpolicy.json' }, position: { line: 0, character: 0 } };
    await expect(a.connection.sendRequest('textDocument/hover', hover)).rejects.toMatchObject({ code: -32002 });
    await expect(a.connection.sendRequest('textDocument/documentSymbol', { textDocument: { uri: 'file:///w/a.netpolicy.json' } })).rejects.toMatchObject({ code: -32002 });
    const init: any = await a.connection.sendRequest('initialize', { processId: null, rootUri: null, capabilities: {} });
    expect(init.capabilities.hoverProvider).toBe(true);
    expect(await a.connection.sendRequest('textDocument/hover', hover)).toBeNull();
    a.child.kill();
    await a.exit;
  });

  it('exit after shutdown: code 0; exit without shutdown: code 1', async () => {
    const a = spawnServer();
    await a.connection.sendRequest('initialize', { processId: null, rootUri: null, capabilities: {} });
    await a.connection.sendRequest('shutdown');
    await a.connection.sendNotification('exit');
    expect(await a.exit).toBe(0);
    const b = spawnServer();
    await b.connection.sendRequest('initialize', { processId: null, rootUri: null, capabilities: {} });
    await b.connection.sendNotification('exit');
    expect(await b.exit).toBe(1);
  });

  it('exits when stdin closes (before or after initialize) and when the parent process named in initialize is dead', async () => {
    const a = spawnServer();
    await a.connection.sendRequest('initialize', { processId: null, rootUri: null, capabilities: {} });
    a.child.stdin.end();
    expect(await a.exit).not.toBeNull();
    const b = spawnServer();
    b.child.stdin.end();
    expect(await b.exit).not.toBeNull();
    const dead = spawnSync(process.execPath, ['-e', '0']).pid;
    const c = spawnServer();
    await c.connection.sendRequest('initialize', { processId: dead, rootUri: null, capabilities: {} });
    await c.connection.sendNotification('initialized', {});
    expect(await c.exit).not.toBeNull();
  });
});

describe('documents', () => {
  it('acts on URIs by their path: untitled: and percent-encoded names, Windows drive letters; not on other untitled documents', async () => {
    const c = await client({ capabilities: {} });
    const text = '{"presets": ["nope"]}';
    const policies = ['untitled:ci.netpolicy.json', 'file:///tmp/my%20dir/a%20b.netpolicy.json', 'file:///c%3A/Users/x/ci.netpolicy.json', 'file:///C:/Users/x/network-policy.json', 'vscode-vfs://github/acme/repo/ci.netpolicy.jsonc'];
    for (const uri of [...policies, 'untitled:Untitled-1']) await c.open(uri, text, 1);
    for (const uri of policies) expect((await c.diagnostics(uri, 1)).diagnostics.map((x) => x.code)).toEqual(['unknown-preset']);
    await new Promise((r) => setTimeout(r, 150));
    expect(c.published.filter((p) => p.uri === 'untitled:Untitled-1')).toEqual([]);
  });

  it('a change to an unopened document is ignored; a document opened twice takes the second text; a full-text change after incremental ones; CR-only line ends', async () => {
    const d = dir();
    const c = await client({ rootUri: fileUri(d), capabilities: {} });
    const uri = fileUri(join(d, 'a.netpolicy.json'));
    await c.notify('textDocument/didChange', change(uri, 2, '{"presets": ["nope"]}'));
    await c.open(uri, '{"presets": ["nope"]}', 1);
    await c.open(uri, '{"presets": ["npm"]}', 5);
    expect((await c.diagnostics(uri, 5)).diagnostics).toEqual([]);
    await c.notify('textDocument/didChange', { textDocument: { uri, version: 6 }, contentChanges: [{ range: { start: { line: 0, character: 14 }, end: { line: 0, character: 17 } }, text: 'pypy' }] });
    await c.notify('textDocument/didChange', { textDocument: { uri, version: 7 }, contentChanges: [{ text: '{\r  "presets": [\r "nope"]}' }, { range: { start: { line: 2, character: 2 }, end: { line: 2, character: 6 } }, text: 'zzzz' }] });
    expect((await c.diagnostics(uri, 7)).diagnostics.map((x) => [x.code, x.range.start, x.message.includes('zzzz')])).toEqual([['unknown-preset', { line: 2, character: 1 }, true]]);
  });

  it('comments: allowed in a .jsonc file, an error in a .json one; an empty document is a syntax error, not a crash', async () => {
    const d = dir();
    const c = await client({ rootUri: fileUri(d), capabilities: {} });
    const text = '// CI policy\n{"presets": []}';
    await c.open(fileUri(join(d, 'a.netpolicy.jsonc')), text, 1);
    await c.open(fileUri(join(d, 'a.netpolicy.json')), text, 1);
    await c.open(fileUri(join(d, 'b.netpolicy.json')), '', 1);
    expect((await c.diagnostics(fileUri(join(d, 'a.netpolicy.jsonc')), 1)).diagnostics).toEqual([]);
    expect((await c.diagnostics(fileUri(join(d, 'a.netpolicy.json')), 1)).diagnostics.map((x) => x.code)).toEqual(['comment-not-allowed']);
    expect((await c.diagnostics(fileUri(join(d, 'b.netpolicy.json')), 1)).diagnostics.map((x) => x.code)).toEqual(['json-syntax']);
    expect(await c.request('textDocument/formatting', { textDocument: { uri: fileUri(join(d, 'b.netpolicy.json')) }, options: { tabSize: 2, insertSpaces: true } })).toEqual([]);
  });
});

describe('workspace folders', () => {
  const TEXT = '{"presets": [], "connections": [{"tcp": {"cidrs": ["0.0.0.0/1"]}}]}';
  const levels = async (c: TestClient, uri: string, since = 0) => (await c.diagnostics(uri, 1, since)).diagnostics.map((x) => [x.code, x.severity]);

  it('each folder has its own netpolicy.config.json; folders added later are followed', async () => {
    const a = dir();
    const b = dir();
    const extra = dir();
    const { mkdirSync, writeFileSync } = await import('node:fs');
    writeFileSync(join(b, 'netpolicy.config.json'), JSON.stringify({ filePatterns: ['policies/*.json'], severity: { 'broad-cidr': 'error' } }));
    writeFileSync(join(extra, 'netpolicy.config.json'), JSON.stringify({ severity: { 'broad-cidr': 'hint' } }));
    mkdirSync(join(b, 'policies'));
    const two = await startClientWithFolders([a, b]);
    expect(two.initializeResult.capabilities.workspace.workspaceFolders).toEqual({ supported: true, changeNotifications: true });
    const inA = fileUri(join(a, 'ci.netpolicy.json'));
    const inB = fileUri(join(b, 'policies', 'ci.json'));
    await two.open(inA, TEXT, 1);
    await two.open(inB, TEXT, 1);
    expect(await levels(two, inA)).toEqual([['broad-cidr', 2]]);
    expect(await levels(two, inB)).toEqual([['broad-cidr', 1]]);
    const inExtra = fileUri(join(extra, 'ci.netpolicy.json'));
    await two.open(inExtra, TEXT, 1);
    expect(await levels(two, inExtra)).toEqual([['broad-cidr', 2]]);
    const since = two.published.length;
    await two.notify('workspace/didChangeWorkspaceFolders', { event: { added: [{ uri: fileUri(extra), name: 'extra' }], removed: [{ uri: fileUri(b), name: 'b' }] } });
    expect(await levels(two, inExtra, since)).toEqual([['broad-cidr', 4]]);
    // b's patterns are gone with it: policies/ci.json is no longer a policy file, and its diagnostics are cleared.
    await expect.poll(() => two.published.filter((p) => p.uri === inB).at(-1)!.diagnostics).toEqual([]);
  });
});

describe('without file watching', () => {
  it('netpolicy.config.json is read again on didChangeConfiguration', async () => {
    const { writeFileSync } = await import('node:fs');
    const d = dir();
    writeFileSync(join(d, 'netpolicy.config.json'), JSON.stringify({ severity: { 'broad-cidr': 'error' } }));
    const c = await client({ rootUri: fileUri(d), capabilities: {} });
    const uri = fileUri(join(d, 'ci.netpolicy.json'));
    await c.open(uri, '{"presets": [], "connections": [{"tcp": {"cidrs": ["0.0.0.0/1"]}}]}', 1);
    expect((await c.diagnostics(uri, 1)).diagnostics.map((x) => x.severity)).toEqual([1]);
    writeFileSync(join(d, 'netpolicy.config.json'), JSON.stringify({ severity: { 'broad-cidr': 'hint' } }));
    const since = c.published.length;
    await c.notify('workspace/didChangeConfiguration', { settings: {} });
    expect((await c.diagnostics(uri, 1, since)).diagnostics.map((x) => x.severity)).toEqual([4]);
  });
});

async function startClientWithFolders(roots: string[]): Promise<TestClient> {
  return client({ capabilities: { workspace: { workspaceFolders: true, configuration: true } }, workspaceFolders: roots.map((r, i) => ({ uri: fileUri(r), name: `f${i}` })) });
}

describe('docs', () => {
  it('docs/editor.md names the command code actions become, and the test of each case', async () => {
    const { readFileSync } = await import('node:fs');
    const { APPLY_EDIT_COMMAND } = await import('../src/server');
    const page = readFileSync(new URL('../../../docs/editor.md', import.meta.url), 'utf8');
    expect(page).toContain(`\`${APPLY_EDIT_COMMAND}\``);
    expect(page).toContain('packages/language-server/test/plain-client.test.ts');
  });
});

describe('Windows URIs', () => {
  it('a drive letter matches whatever its case and encoding (VS Code sends file:///c%3A/..., Neovim file:///C:/...)', async () => {
    const c = await client({ rootUri: 'file:///c%3A/Users/me/ws', capabilities: { workspace: { configuration: true } }, settings: { filePatterns: ['policies/*.json'] } });
    for (const uri of ['file:///C:/Users/me/ws/policies/ci.json', 'file:///c%3A/Users/me/ws/policies/b.json', 'file:///C%3A/Users/me/ws/policies/c.json']) {
      await c.open(uri, '{"presets": ["nope"]}', 1);
      expect((await c.diagnostics(uri, 1)).diagnostics.map((x) => x.code)).toEqual(['unknown-preset']);
    }
  });
});
