/**
 * Pull diagnostics (issue 30, item 7) over real LSP: negotiated once (a client that pulls and takes
 * workspace/diagnostic/refresh pulls, any other is pushed to, never both), pulls equal to pushes
 * for every kind of file, result ids and `unchanged`, a refresh when diagnostics change without an
 * edit, waiting and cancellation, and workspace/diagnostic as a long poll with partial results.
 */
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CancellationTokenSource, ProgressType } from 'vscode-jsonrpc/node';
import { clientPerTest, fileUri, poll, type TestClient, writeWorkspace } from './harness';

const client = clientPerTest();
const FIXTURE = fileURLToPath(new URL('../../../fixtures/traces/denials/', import.meta.url));

/** What VS Code's client says (vscode-languageclient 9): it pulls, and takes refresh requests. */
const PULL = {
  workspace: { configuration: true, codeLens: { refreshSupport: true }, didChangeWatchedFiles: { dynamicRegistration: true }, diagnostics: { refreshSupport: true } },
  textDocument: { diagnostic: { dynamicRegistration: true, relatedDocumentSupport: false }, publishDiagnostics: { versionSupport: true } },
};
/** What Neovim 0.10 says: it pulls, but cannot be asked to pull again. */
const NEOVIM_0_10 = { workspace: { configuration: true }, textDocument: { diagnostic: { dynamicRegistration: false }, publishDiagnostics: { relatedInformation: true } } };

const UNKNOWN = '{"presets": ["nope"]}\n';
const CLEAN = '{"presets": []}\n';
const CATALOG = '{\n  "presets": [\n    { "name": "internal-pypi", "description": "Our PyPI mirror", "known": { "sources": [{ "pypi": { "urls": ["https://pypi.corp.example"] } }] } }\n  ]\n}\n';
const TESTS = JSON.stringify({ tests: [{ name: 'telemetry', tls: { serverName: 'telemetry.example.io', port: 443 }, expect: 'allow' }] }, null, 2);

const workspace = (files: Record<string, string>): string => writeWorkspace(files, 'np-ls-pull-');
const pull = (c: TestClient, uri: string, previousResultId?: string) => c.request<any>('textDocument/diagnostic', { textDocument: { uri }, ...(previousResultId ? { previousResultId } : {}) });
const codes = (items: any[]) => items.map((d) => d.code);
/** Resolves once the workspace check has gone through the folders `times` times (its closing log line). */
const checked = (c: TestClient, times = 1) => poll(() => c.logs.filter((l) => /workspace diagnostics: \d+ policy files checked/.test(l.message)).length, (n) => n >= times, 20_000);
const edit = (c: TestClient, uri: string, version: number, text: string) => c.notify('textDocument/didChange', { textDocument: { uri, version }, contentChanges: [{ text }] });

describe('negotiation', () => {
  it('a client that pulls and takes refreshes is offered pull diagnostics, documents and workspace', async () => {
    const c = await client({ capabilities: PULL });
    expect(c.initializeResult.capabilities.diagnosticProvider).toEqual({ identifier: 'netpolicy', interFileDependencies: true, workspaceDiagnostics: true });
  });

  it('a client that does not pull gets publishDiagnostics, and its pulls are refused', async () => {
    const c = await client();
    expect(c.initializeResult.capabilities.diagnosticProvider).toBeUndefined();
    const uri = 'file:///tmp/np-push/ci.netpolicy.json';
    await c.open(uri, UNKNOWN);
    expect(codes((await c.diagnostics(uri, 1)).diagnostics)).toEqual(['unknown-preset']);
    await expect(pull(c, uri)).rejects.toMatchObject({ code: -32601 });
    await expect(c.request('workspace/diagnostic', { previousResultIds: [] })).rejects.toMatchObject({ code: -32601 });
  });

  it('Neovim 0.10 (pulls, but no workspace.diagnostics.refreshSupport) stays on push: what changes without an edit would go unseen', async () => {
    const c = await client({ capabilities: NEOVIM_0_10 });
    expect(c.initializeResult.capabilities.diagnosticProvider).toBeUndefined();
    const uri = 'file:///tmp/np-nvim010/ci.netpolicy.json';
    await c.open(uri, UNKNOWN);
    expect(codes((await c.diagnostics(uri, 1)).diagnostics)).toEqual(['unknown-preset']);
  });
});

describe('pulled, never pushed', () => {
  it('a pull client gets no publishDiagnostics: open documents pulled, the other files through workspace/diagnostic', async () => {
    const dir = workspace({ 'a.netpolicy.json': UNKNOWN, 'b.netpolicy.json': CLEAN, 'open.netpolicy.json': UNKNOWN });
    const c = await client({ rootUri: fileUri(dir), capabilities: PULL });
    // As VS Code: the workspace pull starts with the client.
    const whole = c.request<any>('workspace/diagnostic', { previousResultIds: [] });
    const open = fileUri(join(dir, 'open.netpolicy.json'));
    await c.open(open, '{"presets": ["npm", "zzz"]}');
    const report = await pull(c, open);
    expect(report).toMatchObject({ kind: 'full', resultId: expect.any(String) });
    expect(codes(report.items)).toEqual(['unknown-preset']);
    expect(report.items[0].message).toMatch(/zzz/);
    const files = (await whole).items;
    // The open document is the document pull's; the others are here, once each.
    expect(files.map((f: any) => [f.uri, f.kind, f.version, codes(f.items)]).sort()).toEqual([
      [fileUri(join(dir, 'a.netpolicy.json')), 'full', null, ['unknown-preset']],
      [fileUri(join(dir, 'b.netpolicy.json')), 'full', null, []],
    ]);
    await checked(c);
    expect(c.published).toEqual([]);
  });

  it('pulled diagnostics equal pushed ones for every kind of file: policy, invalid JSON, project file, catalog, policy test file', async () => {
    const files = {
      'netpolicy.config.json': '{\n  "presetCatalog": "presets/catalog.json",\n  "severty": {}\n}\n',
      'presets/catalog.json': CATALOG,
      'ci/policy.netpolicy.json': readFileSync(join(FIXTURE, 'policy.netpolicy.json'), 'utf8'),
      'ci/policy.tests.json': TESTS,
      'broken.netpolicy.json': '{"presets": [}',
      'insecure.netpolicy.jsonc': '// ok\n{\n  "presets": ["internal-pypi", "nope"],\n  "sources": [{ "npm": { "urls": ["http://npm.internal.example"] } }],\n}\n',
    };
    const dir = workspace(files);
    const pulled = await client({ rootUri: fileUri(dir), capabilities: PULL });
    const pushed = await client({ rootUri: fileUri(dir) });
    const got: Record<string, unknown> = {};
    const want: Record<string, unknown> = {};
    for (const [name, text] of Object.entries(files)) {
      const uri = fileUri(join(dir, name));
      await pulled.open(uri, text);
      await pushed.open(uri, text);
      got[name] = (await pull(pulled, uri)).items;
    }
    // Every kind has something to compare, the catalog (not a policy) nothing.
    expect(Object.fromEntries(Object.entries(got).map(([k, v]) => [k, codes(v as any[])]))).toEqual({
      'netpolicy.config.json': ['unknown-property'],
      'presets/catalog.json': [],
      'ci/policy.netpolicy.json': expect.any(Array),
      'ci/policy.tests.json': ['policy-test'],
      'broken.netpolicy.json': expect.arrayContaining([expect.any(String)]),
      'insecure.netpolicy.jsonc': ['unknown-preset', 'insecure-url'],
    });
    for (const name of Object.keys(files)) {
      const uri = fileUri(join(dir, name));
      want[name] = await poll(() => pushed.published.filter((p) => p.uri === uri).at(-1)?.diagnostics ?? [], (d) => JSON.stringify(d) === JSON.stringify(got[name]));
    }
    expect(got).toEqual(want);
  });

  it('files not open: workspace/diagnostic equals what is pushed to another client', async () => {
    const dir = workspace({ 'a.netpolicy.json': UNKNOWN, 'b/network-policy.json': '{"presets": [], "connections": [{"tcp": {"cidrs": ["10.0.0.1/8"], "ports": [5432]}}]}', 'c.netpolicy.json': '{"presets": [}', 'd.netpolicy.json': CLEAN });
    const pushed = await client({ rootUri: fileUri(dir) });
    const pulled = await client({ rootUri: fileUri(dir), capabilities: PULL });
    const report = await pulled.request<any>('workspace/diagnostic', { previousResultIds: [] });
    await checked(pushed);
    const byUri = (list: Array<{ uri: string; items?: any[]; diagnostics?: any[] }>) => Object.fromEntries(list.map((p) => [p.uri, p.items ?? p.diagnostics]));
    expect(Object.keys(byUri(report.items))).toHaveLength(4);
    expect(byUri(report.items)).toEqual(byUri(pushed.published));
  });
});

describe('result ids', () => {
  it('unchanged while the report is the same (an edit that changes no diagnostic too), a new id when it changes', async () => {
    const c = await client({ capabilities: PULL });
    const uri = 'file:///tmp/np-pull-ids/ci.netpolicy.json';
    await c.open(uri, UNKNOWN);
    const first = await pull(c, uri);
    expect(codes(first.items)).toEqual(['unknown-preset']);
    expect(await pull(c, uri, first.resultId)).toEqual({ kind: 'unchanged', resultId: first.resultId });
    // Another client's id (or none) gets the full report.
    expect(await pull(c, uri, 'not-an-id')).toEqual(first);
    await edit(c, uri, 2, `${UNKNOWN}\n\n`);
    expect(await pull(c, uri, first.resultId)).toEqual({ kind: 'unchanged', resultId: first.resultId });
    await edit(c, uri, 3, CLEAN);
    const fixed = await pull(c, uri, first.resultId);
    expect(fixed).toEqual({ kind: 'full', resultId: expect.any(String), items: [] });
    expect(fixed.resultId).not.toBe(first.resultId);
    // Back to the first text: a new id all the same (ids are never reused).
    await edit(c, uri, 4, UNKNOWN);
    const again = await pull(c, uri, fixed.resultId);
    expect(codes(again.items)).toEqual(['unknown-preset']);
    expect(new Set([first.resultId, fixed.resultId, again.resultId]).size).toBe(3);
  });

  it('a pull waits for the version under validation and answers that version', async () => {
    const c = await client({ capabilities: PULL });
    const uri = 'file:///tmp/np-pull-wait/ci.netpolicy.json';
    await c.open(uri, CLEAN);
    // Edits in a burst wait DEBOUNCE_MS: the pull sent with them gets the last one.
    await edit(c, uri, 2, '{"presets": ["a1"]}');
    await edit(c, uri, 3, '{"presets": ["a2"]}');
    const report = await pull(c, uri);
    expect(report.items.map((d: any) => d.message)).toEqual([expect.stringContaining('a2')]);
  });

  it('a pull waiting for its document honours cancellation', async () => {
    // Settings never come: nothing is validated for CONFIGURATION_TIMEOUT_MS, the pull waits.
    const c = await client({ capabilities: PULL, configuration: 'never' });
    const uri = 'file:///tmp/np-pull-cancel/ci.netpolicy.json';
    await c.open(uri, UNKNOWN);
    const source = new CancellationTokenSource();
    const waiting = c.connection.sendRequest('textDocument/diagnostic', { textDocument: { uri } }, source.token);
    source.cancel();
    await expect(waiting).rejects.toMatchObject({ code: -32800 });
    // The next pull gets the report once the server settles.
    expect(codes((await pull(c, uri)).items)).toEqual(['unknown-preset']);
  });

  it('a document not open is answered from the workspace check, else empty', async () => {
    const dir = workspace({ 'a.netpolicy.json': UNKNOWN });
    const c = await client({ rootUri: fileUri(dir), capabilities: PULL });
    const whole = await c.request<any>('workspace/diagnostic', { previousResultIds: [] });
    const a = fileUri(join(dir, 'a.netpolicy.json'));
    expect(await pull(c, a)).toEqual({ kind: 'full', resultId: whole.items[0].resultId, items: whole.items[0].items });
    expect(await pull(c, a, whole.items[0].resultId)).toEqual({ kind: 'unchanged', resultId: whole.items[0].resultId });
    expect(await pull(c, fileUri(join(dir, 'none.netpolicy.json')))).toEqual({ kind: 'full', items: [] });
  });
});

describe('refresh: diagnostics that change without an edit', () => {
  it('after trace evaluation: workspace/diagnostic/refresh, then the pull has the trace hints', async () => {
    const dir = workspace({ 'ci.netpolicy.json': readFileSync(join(FIXTURE, 'policy.netpolicy.json'), 'utf8') });
    copyFileSync(join(FIXTURE, 'trace.json'), join(dir, 'trace.json'));
    const c = await client({ rootUri: fileUri(dir), capabilities: PULL, settings: { traces: ['trace.json'] } });
    const uri = fileUri(join(dir, 'ci.netpolicy.json'));
    await c.open(uri, readFileSync(join(dir, 'ci.netpolicy.json'), 'utf8'));
    const before = await pull(c, uri);
    expect(codes(before.items)).not.toContain('unused-in-traces');
    await poll(() => c.serverRequests.filter((r) => r.method === 'workspace/diagnostic/refresh').length, (n) => n > 0);
    const after = await pull(c, uri, before.resultId);
    expect(after.kind).toBe('full');
    expect(codes(after.items)).toContain('unused-in-traces');
    expect(c.published).toEqual([]);
  });

  it('after a settings change, and when the policy a test file is bound to changes', async () => {
    const policy = readFileSync(join(FIXTURE, 'policy.netpolicy.json'), 'utf8');
    const dir = workspace({ 'ci/policy.netpolicy.json': policy, 'ci/policy.tests.json': TESTS, 'x.netpolicy.json': '{"presets": [], "sources": [{ "npm": { "urls": ["http://npm.internal.example"] } }]}' });
    const c = await client({ rootUri: fileUri(dir), capabilities: PULL });
    const refreshes = () => c.serverRequests.filter((r) => r.method === 'workspace/diagnostic/refresh').length;
    const x = fileUri(join(dir, 'x.netpolicy.json'));
    await c.open(x, readFileSync(join(dir, 'x.netpolicy.json'), 'utf8'));
    const warned = await pull(c, x);
    expect(warned.items.map((d: any) => [d.code, d.severity])).toEqual([['insecure-url', 2]]);
    c.settings = { severity: { 'insecure-url': 'error' } };
    await c.notify('workspace/didChangeConfiguration', { settings: {} });
    await poll(refreshes, (n) => n >= 1);
    const raised = await pull(c, x, warned.resultId);
    expect(raised.items.map((d: any) => [d.code, d.severity])).toEqual([['insecure-url', 1]]);

    const tests = fileUri(join(dir, 'ci/policy.tests.json'));
    const policyUri = fileUri(join(dir, 'ci/policy.netpolicy.json'));
    await c.open(tests, TESTS);
    await c.open(policyUri, policy);
    const failing = await pull(c, tests);
    expect(codes(failing.items)).toEqual(['policy-test']);
    const seen = refreshes();
    // The policy now allows the telemetry host: the test passes, its file's report changes without an edit of its own.
    const allowing = JSON.parse(policy);
    allowing.connections = [...(allowing.connections ?? []), { tls: { serverNamePatterns: ['telemetry.example.io'], ports: [443] } }];
    await edit(c, policyUri, 2, JSON.stringify(allowing, null, 2));
    await poll(refreshes, (n) => n > seen);
    expect(await poll(() => pull(c, tests, failing.resultId), (r) => r.kind === 'full')).toEqual({ kind: 'full', resultId: expect.any(String), items: [] });
  });
});

describe('workspace/diagnostic', () => {
  it('streams partial results, then holds until a file changes and answers with that file alone', async () => {
    const dir = workspace({ 'a.netpolicy.json': UNKNOWN, 'b.netpolicy.json': CLEAN, 'sub/c.netpolicy.json': UNKNOWN });
    const c = await client({ rootUri: fileUri(dir), capabilities: PULL });
    const partials: any[] = [];
    const token = 'partial-1';
    c.connection.onProgress(new ProgressType<any>(), token, (p) => partials.push(...p.items));
    const final = await c.request<any>('workspace/diagnostic', { previousResultIds: [], partialResultToken: token });
    // With partial results the answer itself is empty (LSP: the parts are the result).
    expect(final).toEqual({ items: [] });
    expect(partials.map((p) => p.uri).sort()).toEqual(['a.netpolicy.json', 'b.netpolicy.json', 'sub/c.netpolicy.json'].map((n) => fileUri(join(dir, n))));
    const held = partials.map((p) => ({ uri: p.uri, value: p.resultId }));

    let answered: any;
    const next = c.request<any>('workspace/diagnostic', { previousResultIds: held }).then((r) => (answered = r));
    // Nothing differs from what the client holds: no answer (another check of the folder changes nothing).
    await c.notify('workspace/didChangeWatchedFiles', { changes: [{ uri: fileUri(join(dir, 'a.netpolicy.json')), type: 2 }] });
    await checked(c);
    await new Promise((r) => setTimeout(r, 300));
    expect(answered).toBeUndefined();
    writeFileSync(join(dir, 'b.netpolicy.json'), UNKNOWN);
    await c.notify('workspace/didChangeWatchedFiles', { changes: [{ uri: fileUri(join(dir, 'b.netpolicy.json')), type: 2 }] });
    const changed = await next;
    expect(changed.items.map((i: any) => [i.uri, codes(i.items)])).toEqual([[fileUri(join(dir, 'b.netpolicy.json')), ['unknown-preset']]]);
    expect(c.published).toEqual([]);
  });

  it('an id the server does not know for a file it does not follow: an empty report, once', async () => {
    const dir = workspace({ 'a.netpolicy.json': UNKNOWN });
    const c = await client({ rootUri: fileUri(dir), capabilities: PULL });
    const gone = fileUri(join(dir, 'gone.netpolicy.json'));
    await checked(c);
    const report = await c.request<any>('workspace/diagnostic', { previousResultIds: [{ uri: gone, value: 'from-another-run' }] });
    const byUri = Object.fromEntries(report.items.map((i: any) => [i.uri, codes(i.items)]));
    expect(byUri).toEqual({ [fileUri(join(dir, 'a.netpolicy.json'))]: ['unknown-preset'], [gone]: [] });
    // Held now: the client has every report.
    const held = report.items.map((i: any) => ({ uri: i.uri, value: i.resultId }));
    let answered: unknown;
    void c.request('workspace/diagnostic', { previousResultIds: held }).then((r) => (answered = r), (e) => (answered = e));
    await new Promise((r) => setTimeout(r, 300));
    expect(answered).toBeUndefined();
  });

  it('a client that pulls documents but not the workspace: the files not open are pushed, cleared when opened or when it asks for the workspace', async () => {
    const dir = workspace({ 'a.netpolicy.json': UNKNOWN, 'b.netpolicy.json': UNKNOWN, 'c.netpolicy.json': CLEAN });
    const c = await client({ rootUri: fileUri(dir), capabilities: PULL });
    const [a, b] = [fileUri(join(dir, 'a.netpolicy.json')), fileUri(join(dir, 'b.netpolicy.json'))];
    await checked(c);
    const last = (uri: string) => c.published.filter((p) => p.uri === uri).at(-1)?.diagnostics;
    expect(codes(last(a)!)).toEqual(['unknown-preset']);
    // Opened: pulled, and what was pushed for it cleared (no diagnostic twice).
    await c.open(a, UNKNOWN);
    expect(codes((await pull(c, a)).items)).toEqual(['unknown-preset']);
    await poll(() => last(a), (d) => d?.length === 0);
    // The first workspace pull takes the others over.
    const whole = await c.request<any>('workspace/diagnostic', { previousResultIds: [] });
    expect(whole.items.map((i: any) => i.uri).sort()).toEqual([b, fileUri(join(dir, 'c.netpolicy.json'))]);
    await poll(() => last(b), (d) => d?.length === 0);
    const count = c.published.length;
    await edit(c, a, 2, CLEAN);
    expect((await pull(c, a)).items).toEqual([]);
    expect(c.published.length).toBe(count);
  });

  it('shutdown answers a held workspace pull: ServerCancelled, not to be asked again', async () => {
    const c = await client({ capabilities: PULL });
    const held = c.request('workspace/diagnostic', { previousResultIds: [] });
    await new Promise((r) => setTimeout(r, 100));
    await c.request('shutdown', undefined);
    await expect(held).rejects.toMatchObject({ code: -32802, data: { retriggerRequest: false } });
  });
});
