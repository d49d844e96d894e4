import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LineIndex, explain, type Policy } from '@netpolicy/core';
import { MAX_TRACE_REFERENCES } from '@netpolicy/language-service';
import { SHOW_REFERENCES_COMMAND } from '../src/protocol';
import { clientPerTest, fileUri, poll, writeWorkspace, type TestClient } from './harness';

const client = clientPerTest();

/** The client's commands, as the VS Code extension says them (and rust-analyzer's clients theirs). */
const WITH_SHOW = {
  workspace: { configuration: true, codeLens: { refreshSupport: true } },
  textDocument: { publishDiagnostics: { versionSupport: true } },
  experimental: { commands: { commands: ['netpolicy.showReferences'] } },
};

const POLICY = `{
  "default": "deny",
  "presets": ["pypi"],
  "sources": [
    { "npm": { "urls": ["https://npm.internal.example"] } },
    { "pypi": { "urls": ["https://pypi.internal.example/simple"] } }
  ],
  "connections": [{ "tls": { "serverNamePatterns": ["*.cdn.example.net"], "ports": [443] } }]
}
`;

/** Observations of several protocols, IPv4 and IPv6, to many destinations. */
function observations(n: number): object[] {
  return Array.from({ length: n }, (_, i) => {
    switch (i % 5) {
      case 0: return { protocol: 'http', sequence: i + 1, method: 'GET', url: `https://npm.internal.example/p${i}/-/p-1.0.${i}.tgz`, remote_ip: `151.64.${i >> 8 & 255}.${i & 255}`, denied: false };
      case 1: return { protocol: 'http', sequence: i + 1, method: 'GET', url: `https://pypi.org/simple/p${i}/`, remote_ip: `2a04:4e42::${i.toString(16)}`, denied: false, note: 'é😀' };
      case 2: return { protocol: 'tcp', sequence: i + 1, remote_ip: `2606:4700::${i.toString(16)}`, remote_port: 443, server_name: `a${i}.cdn.example.net`, allowed: true };
      case 3: return { protocol: 'dns', sequence: i + 1, query_name: `a${i}.cdn.example.net`, answers: [`198.18.${i >> 8 & 255}.${i & 255}`] };
      default: return { protocol: 'ssh_git', sequence: i + 1, allowed: false, host: 'git.example.com', port: 22, user: 'git', repository_path: `/other/r${i}.git` };
    }
  });
}

/** A trace file's text as a person's editor may leave it: CRLF line breaks, non-ASCII text before the observations, one observation over several lines. */
function traceText(list: object[]): string {
  const lines = list.map((o, i) => (i % 7 === 3 ? JSON.stringify(o, null, 2) : JSON.stringify(o)).replace(/\n/g, '\r\n'));
  return `{\r\n  "schema_version": "1.0",\r\n  "job": { "provider": "ci", "repository": "acme/ümlaut-😀" },\r\n  "observations": [\r\n    ${lines.join(',\r\n    ')}\r\n  ]\r\n}\r\n`;
}

/** The indexes of the observations explain says `rule` decided (explain run directly on the text). */
async function decidedBy(text: string, rule: string): Promise<number[]> {
  const report = await explain(JSON.parse(POLICY) as Policy, text);
  return report.results.filter((r) => r.model.verdict !== 'none' && (r.model.rule ?? 'default') === rule).map((r) => r.index);
}

/** The range of the `nth` occurrence of `needle` in `text`. */
function rangeIn(text: string, needle: string, nth = 0) {
  let at = -1;
  for (let k = 0; k <= nth; k++) at = text.indexOf(needle, at + 1);
  const lines = new LineIndex(text);
  return { start: lines.positionAt(at), end: lines.positionAt(at + needle.length) };
}

const references = (c: TestClient, uri: string, position: { line: number; character: number }, includeDeclaration = false) =>
  c.request<any[]>('textDocument/references', { textDocument: { uri }, position, context: { includeDeclaration } });

/** Opens the policy and waits for its traces' lenses (the evaluation is done). */
async function evaluated(c: TestClient, uri: string, text = POLICY): Promise<any[]> {
  await c.open(uri, text, 1);
  return poll(() => c.request<any[]>('textDocument/codeLens', { textDocument: { uri } }), (l) => l.length > 0, 30_000);
}

describe('references', () => {
  it('from a rule: the tests bound to the policy that name it, then exactly the observations explain says it decided, each its own lines in the trace', async () => {
    const list = observations(60);
    const trace = traceText(list);
    const tests = '{\r\n  "tests": [\r\n    { "name": "npm", "http": { "url": "https://npm.internal.example/x" }, "expect": "allow", "rule": "/sources/0" },\r\n    { "name": "cdn", "tls": { "serverName": "a.cdn.example.net", "port": 443 }, "expect": "allow", "rule": "/connections/0" }\r\n  ]\r\n}\r\n';
    const dir = writeWorkspace({ 'trace.json': trace, 'ci.netpolicy.json': POLICY, 'ci.tests.json': tests, 'other/x.tests.json': tests });
    const c = await client({ rootUri: fileUri(dir), settings: { traces: ['trace.json'] }, capabilities: WITH_SHOW });
    expect(c.initializeResult.capabilities.referencesProvider).toBe(true);
    const uri = fileUri(join(dir, 'ci.netpolicy.json'));
    await evaluated(c, uri);
    const lines = new LineIndex(trace);
    const traceUri = fileUri(join(dir, 'trace.json'));
    for (const [rule, position] of [['/sources/0', { line: 4, character: 30 }], ['/connections/0', { line: 7, character: 22 }], ['preset:pypi', { line: 2, character: 16 }], ['default', { line: 1, character: 5 }]] as const) {
      const found = await references(c, uri, position);
      const inTrace = found.filter((l) => l.uri === traceUri);
      const expected = await decidedBy(trace, rule);
      expect(expected.length).toBeGreaterThan(0);
      expect(inTrace.map((l) => JSON.parse(trace.slice(lines.offsetAt(l.range.start), lines.offsetAt(l.range.end))))).toEqual(expected.map((i) => list[i]));
      // The tests come first, from the test file bound to this policy only (not other/x.tests.json).
      const inTests = found.filter((l) => l.uri !== traceUri);
      expect(found.slice(0, inTests.length)).toEqual(inTests);
      if (rule === '/sources/0') expect(inTests).toEqual([{ uri: fileUri(join(dir, 'ci.tests.json')), range: rangeIn(tests, '"/sources/0"') }]);
      if (rule === '/connections/0') expect(inTests.map((l) => [l.uri, l.range.start.line])).toEqual([[fileUri(join(dir, 'ci.tests.json')), 3]]);
    }
    // With the declaration: the rule itself first.
    const withDeclaration = await references(c, uri, { line: 4, character: 30 }, true);
    expect(withDeclaration[0]).toEqual({ uri, range: rangeIn(POLICY, '{ "npm": { "urls": ["https://npm.internal.example"] } }') });
    expect(await references(c, uri, { line: 3, character: 5 })).toBeNull();
  });

  it('the count lenses open them: the client command, at the lens, lists what the lens counts', async () => {
    const list = observations(30);
    const dir = writeWorkspace({ 'trace.json': traceText(list), 'ci.netpolicy.json': POLICY });
    const uri = fileUri(join(dir, 'ci.netpolicy.json'));
    const c = await client({ rootUri: fileUri(dir), settings: { traces: ['trace.json'] }, capabilities: WITH_SHOW });
    const lenses = await evaluated(c, uri);
    const clickable = lenses.filter((l) => l.command.command === 'netpolicy.showReferences');
    expect(clickable.map((l) => l.command.title.replace(/:.*/, ''))).toEqual(['6 traced accesses decided here', '6 traced accesses decided here', '6 traced accesses decided here', 'default']);
    for (const l of clickable) {
      const [at, position] = l.command.arguments;
      expect(at).toBe(uri);
      const count = Number(/(\d+) traced/.exec(l.command.title)![1]);
      expect((await references(c, at, position)).filter((x) => x.uri.endsWith('trace.json'))).toHaveLength(count);
    }
    // A lens on a rule no access used has nothing to open.
    expect(lenses.find((l) => l.command.title.startsWith('no traced access')).command.command).toBe('');
  });

  it('a client without the command gets the titles alone', async () => {
    const dir = writeWorkspace({ 'trace.json': traceText(observations(10)), 'ci.netpolicy.json': POLICY });
    const uri = fileUri(join(dir, 'ci.netpolicy.json'));
    const c = await client({ rootUri: fileUri(dir), settings: { traces: ['trace.json'] } });
    const lenses = await evaluated(c, uri);
    expect(lenses.every((l) => l.command.command === '' && l.command.arguments === undefined)).toBe(true);
    // References answer all the same (Shift+F12 in any client).
    expect((await references(c, uri, { line: 4, character: 30 })).length).toBe(2);
  });

  it('a rule that decided more than 1,000 accesses lists the first 1,000, and its lens says so', async () => {
    const list = Array.from({ length: 2400 }, (_, i) => ({ protocol: 'http', sequence: i + 1, method: 'GET', url: `https://npm.internal.example/p${i}`, denied: false }));
    const trace = traceText(list);
    const dir = writeWorkspace({ 'trace.json': trace, 'ci.netpolicy.json': POLICY });
    const uri = fileUri(join(dir, 'ci.netpolicy.json'));
    const c = await client({ rootUri: fileUri(dir), settings: { traces: ['trace.json'] }, capabilities: WITH_SHOW });
    const lenses = await evaluated(c, uri);
    expect(lenses[0].command.title).toBe('2400 traced accesses decided here (first 1,000 listed): npm.internal.example');
    const found = await references(c, uri, { line: 4, character: 30 });
    expect(found).toHaveLength(1000);
    const lines = new LineIndex(trace);
    expect(found.map((l) => JSON.parse(trace.slice(lines.offsetAt(l.range.start), lines.offsetAt(l.range.end))).sequence)).toEqual(list.slice(0, 1000).map((o) => o.sequence));
  });

  it('a trace changed since it was evaluated lists none of its observations (their places moved) until it is evaluated again', async () => {
    const list = observations(20);
    const dir = writeWorkspace({ 'trace.json': traceText(list), 'ci.netpolicy.json': POLICY });
    const uri = fileUri(join(dir, 'ci.netpolicy.json'));
    const c = await client({ rootUri: fileUri(dir), settings: { traces: ['trace.json'] } });
    await evaluated(c, uri);
    // Not told (no file event): one more line before every observation.
    writeFileSync(join(dir, 'trace.json'), traceText(list).replace('"observations": [', '"observations": [\r\n'));
    expect(await references(c, uri, { line: 4, character: 30 })).toEqual([]);
    expect(c.logs.some((l) => l.message.includes('changed since it was evaluated'))).toBe(true);
    await c.notify('workspace/didChangeWatchedFiles', { changes: [{ uri: fileUri(join(dir, 'trace.json')), type: 2 }] });
    const again = await poll(() => references(c, uri, { line: 4, character: 30 }), (l) => l.length > 0, 30_000);
    const text = readFileSync(join(dir, 'trace.json'), 'utf8');
    const lines = new LineIndex(text);
    expect(again.map((l) => JSON.parse(text.slice(lines.offsetAt(l.range.start), lines.offsetAt(l.range.end))).sequence)).toEqual([1, 6, 11, 16]);
  });

  it('after an edit that moves rules, each rule keeps its own observations until the traces are evaluated again; a rule the edit added has none', async () => {
    const list = observations(40);
    const trace = traceText(list);
    const dir = writeWorkspace({ 'trace.json': trace, 'ci.netpolicy.json': POLICY });
    const uri = fileUri(join(dir, 'ci.netpolicy.json'));
    const c = await client({ rootUri: fileUri(dir), settings: { traces: ['trace.json'] }, capabilities: WITH_SHOW });
    await evaluated(c, uri);
    const traceUri = fileUri(join(dir, 'trace.json'));
    const lines = new LineIndex(trace);
    const inTrace = async (position: { line: number; character: number }) =>
      (await references(c, uri, position)).filter((l) => l.uri === traceUri).map((l) => JSON.parse(trace.slice(lines.offsetAt(l.range.start), lines.offsetAt(l.range.end))));
    const npm = (await decidedBy(trace, '/sources/0')).map((i) => list[i]);
    const cdn = (await decidedBy(trace, '/connections/0')).map((i) => list[i]);
    expect(npm.length).toBeGreaterThan(0);
    expect(cdn.length).toBeGreaterThan(0);
    // The second source decided none (the preset answers for pypi.org).
    expect(await decidedBy(trace, '/sources/1')).toEqual([]);
    // A source added first (with a URL the schema refuses: the policy is not valid, so its traces
    // are not evaluated again and what is shown stays the last evaluation's), the two sources
    // swapped, and a connection added before the one there was.
    const edited = POLICY.replace(
      `    { "npm": { "urls": ["https://npm.internal.example"] } },\n    { "pypi": { "urls": ["https://pypi.internal.example/simple"] } }`,
      `    { "cargo": { "urls": ["not a url"] } },\n    { "pypi": { "urls": ["https://pypi.internal.example/simple"] } },\n    { "npm": { "urls": ["https://npm.internal.example"] } }`,
    ).replace('"connections": [{ "tls"', '"connections": [{ "tcp": { "cidrs": ["10.0.0.0/8"], "ports": [5432] } }, { "tls"');
    await c.notify('textDocument/didChange', { textDocument: { uri, version: 2 }, contentChanges: [{ text: edited }] });
    expect((await c.diagnostics(uri, 2)).diagnostics.some((d) => d.severity === 1)).toBe(true);
    const at = (needle: string) => rangeIn(edited, needle).start;
    expect(await inTrace(at('"npm": {'))).toEqual(npm);
    expect(await inTrace(at('"tls": {'))).toEqual(cdn);
    expect(await inTrace(at('"pypi": {'))).toEqual([]);
    expect(await inTrace(at('"cargo": {'))).toEqual([]);
    expect(await inTrace(at('"tcp": {'))).toEqual([]);
    const lenses = await c.request<any[]>('textDocument/codeLens', { textDocument: { uri } });
    const titleAt = (needle: string) => lenses.find((l) => l.range.start.line === at(needle).line && l.range.start.character <= at(needle).character)?.command.title;
    expect(titleAt('"cargo": {')).toBe('changed since the traces were evaluated');
    expect(titleAt('"npm": {')).toMatch(new RegExp(`^${npm.length} traced accesses decided here`));
    expect(titleAt('"pypi": {')).toBe('no traced access used this rule');
  });

  it('not trusted: no trace is read, the tests are still listed', async () => {
    const tests = '{ "tests": [{ "http": { "url": "https://npm.internal.example/x" }, "expect": "allow", "rule": "/sources/0" }] }';
    const dir = writeWorkspace({ 'trace.json': traceText(observations(10)), 'ci.netpolicy.json': POLICY, 'ci.tests.json': tests });
    const uri = fileUri(join(dir, 'ci.netpolicy.json'));
    const c = await client({ rootUri: fileUri(dir), settings: { traces: ['trace.json'] }, initializationOptions: { workspaceTrusted: false }, capabilities: WITH_SHOW });
    await c.open(uri, POLICY, 1);
    await c.diagnostics(uri, 1);
    expect(await references(c, uri, { line: 4, character: 30 })).toEqual([{ uri: fileUri(join(dir, 'ci.tests.json')), range: rangeIn(tests, '"/sources/0"') }]);
    expect(await c.request('textDocument/codeLens', { textDocument: { uri } })).toEqual([]);
  });

  it('from a preset: the policies of the workspace that enable it and the tests that name it; from the catalog file too', async () => {
    const catalog = '{ "presets": [{ "name": "internal-pypi", "description": "Our mirror", "opaque": true }] }\n';
    const closed = '{ "presets": ["npm", "internal-pypi"] }\n';
    const tests = '{ "tests": [{ "http": { "url": "https://x.example/" }, "expect": "allow", "rule": "preset:internal-pypi" }] }\n';
    const policy = '{ "presets": ["internal-pypi"] }';
    const dir = writeWorkspace({
      'netpolicy.config.json': '{ "presetCatalog": "catalog.json" }',
      'catalog.json': catalog,
      'a/closed.netpolicy.json': closed,
      'a/policy.tests.json': tests,
      'b/other.netpolicy.json': '{ "presets": ["npm"] }\n',
    });
    const c = await client({ rootUri: fileUri(dir) });
    const uri = fileUri(join(dir, 'ci.netpolicy.json'));
    await c.open(uri, policy, 1);
    await c.diagnostics(uri, 1);
    await c.diagnostics(fileUri(join(dir, 'a/closed.netpolicy.json')));
    const expected = [
      { uri, range: rangeIn(policy, '"internal-pypi"') },
      { uri: fileUri(join(dir, 'a/closed.netpolicy.json')), range: rangeIn(closed, '"internal-pypi"') },
      { uri: fileUri(join(dir, 'a/policy.tests.json')), range: rangeIn(tests, '"preset:internal-pypi"') },
    ];
    const sorted = (l: any[]) => [...l].sort((x, y) => x.uri.localeCompare(y.uri));
    expect(sorted(await references(c, uri, { line: 0, character: 18 }))).toEqual(sorted(expected));
    const entry = { uri: fileUri(join(dir, 'catalog.json')), range: rangeIn(catalog, '"internal-pypi"') };
    expect((await references(c, uri, { line: 0, character: 18 }, true))[0]).toEqual(entry);
    // From the catalog file's entry.
    const catalogUri = fileUri(join(dir, 'catalog.json'));
    await c.open(catalogUri, catalog, 1, 'json');
    expect(sorted(await references(c, catalogUri, { line: 0, character: 30 }))).toEqual(sorted(expected));
    expect(await references(c, catalogUri, { line: 0, character: 30 }, true)).toContainEqual(entry);
  });

  it('refuses malformed params by name', async () => {
    const c = await client({});
    await expect(c.request('textDocument/references', { textDocument: { uri: 1 }, position: { line: 0, character: 0 } })).rejects.toThrow(/params.textDocument.uri must be a string/);
  });

  it('docs/editor.md and the extension name the command and the cap the server has', () => {
    const page = readFileSync(new URL('../../../docs/editor.md', import.meta.url), 'utf8');
    expect(page).toContain(`\`${SHOW_REFERENCES_COMMAND}\``);
    expect(page).toContain(`first ${MAX_TRACE_REFERENCES.toLocaleString('en-US')} listed`);
    expect(readFileSync(new URL('../../../extension/src/show-references.ts', import.meta.url), 'utf8')).toContain(`SHOW_REFERENCES_COMMAND = '${SHOW_REFERENCES_COMMAND}'`);
  });
});
