/**
 * Workspace diagnostics (issue 20, item 5): every policy file of each workspace folder is checked
 * from disk and published without being opened; file events update and clear them; the
 * `workspaceDiagnostics.maxFiles` bound holds; open documents' diagnostics come from the buffer.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { WorkspaceTrustNotificationMethod } from '../src/protocol';
import { clientPerTest, fileUri, type PublishedDiagnostics, type TestClient, writeWorkspace } from './harness';

const client = clientPerTest();
const onPosix = process.platform !== 'win32';
const CLI = fileURLToPath(new URL('../../cli/bin/netpolicy.js', import.meta.url));

const CLEAN = '{"presets": []}\n';
const UNKNOWN = '{"presets": ["nope"]}\n';
const INSECURE = '{\n  "presets": [],\n  "sources": [{ "npm": { "urls": ["http://npm.internal.example"] } }]\n}\n';
/** Created = 1, Changed = 2, Deleted = 3 (LSP FileChangeType). */
const CREATED = 1;
const CHANGED = 2;
const DELETED = 3;

/** A temporary workspace with `files` (relative path -> text). */
const workspace = (files: Record<string, string>): string => writeWorkspace(files, 'np-ls-ws-');

/** Resolves once the workspace check has gone through the whole workspace (its closing log line) `times` times. */
async function checked(c: TestClient, times = 1): Promise<void> {
  await expect.poll(() => c.logs.filter((l) => /workspace diagnostics: \d+ policy files checked/.test(l.message)).length, { timeout: 20_000 }).toBeGreaterThanOrEqual(times);
}

/** The last publish of each URI, as codes. */
function latest(c: TestClient): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const p of c.published) out[p.uri] = p.diagnostics.map((d) => d.code);
  return out;
}

const last = (c: TestClient, uri: string): PublishedDiagnostics | undefined => c.published.filter((p) => p.uri === uri).at(-1);
const watched = (c: TestClient, changes: Array<[string, number]>) => c.notify('workspace/didChangeWatchedFiles', { changes: changes.map(([uri, type]) => ({ uri, type })) });

describe('workspace diagnostics', () => {
  it('publishes every policy file of the folder without opening it; skips node_modules, .git, other JSON and the project file', async () => {
    const dir = workspace({
      'ci.netpolicy.json': UNKNOWN,
      'clean.netpolicy.json': CLEAN,
      'deep/er/network-policy.json': INSECURE,
      'edit.netpolicy.jsonc': '// comments are fine here\n{"presets": ["npm", "nope"],}\n',
      'node_modules/dep/x.netpolicy.json': UNKNOWN,
      '.git/x.netpolicy.json': UNKNOWN,
      'package.json': '{"presets": ["nope"]}',
      'netpolicy.config.json': '{"severity": {"insecure-url": "error"}}',
    });
    const c = await client({ rootUri: fileUri(dir) });
    await checked(c);
    const uri = (rel: string) => fileUri(join(dir, rel));
    expect(latest(c)).toEqual({
      [uri('ci.netpolicy.json')]: ['unknown-preset'],
      [uri('clean.netpolicy.json')]: [],
      [uri('deep/er/network-policy.json')]: ['insecure-url'],
      [uri('edit.netpolicy.jsonc')]: ['unknown-preset'],
    });
    const insecure = last(c, uri('deep/er/network-policy.json'))!;
    // Unopened: no version; the project file's severity applies; ranges as in the file.
    expect(insecure.version).toBeUndefined();
    expect(insecure.diagnostics[0]).toMatchObject({ severity: 1, source: 'netpolicy', range: { start: { line: 2, character: 34 } } });
    expect(c.logs.find((l) => l.message.includes('policy files checked'))!.message).toMatch(/: 4 policy files checked/);
  });

  it('the same codes and ranges as `netpolicy check DIR` for every file', async () => {
    const dir = workspace({
      'a.netpolicy.json': UNKNOWN,
      'b/network-policy.json': INSECURE,
      'b/c/d.netpolicy.json': '{"presets": [], "connections": [{"tcp": {"cidrs": ["10.0.0.1/8"], "ports": [5432]}}, {"tcp": {"cidrs": ["10.0.0.1/8"], "ports": [5432]}}]}',
      'e.netpolicy.json': '{"presets": [}',
      'f.netpolicy.json': CLEAN,
    });
    const cli = spawnSync(process.execPath, [CLI, 'check', '--format', 'json', dir], { encoding: 'utf8' });
    const report = JSON.parse(cli.stdout);
    const expected: Record<string, unknown[]> = {};
    for (const f of report.files) expected[fileUri(f.file.startsWith('/') ? f.file : join(dir, f.file))] = f.diagnostics.map((d: any) => [d.code, d.range.start, d.range.end]);
    expect(Object.keys(expected)).toHaveLength(5);
    const c = await client({ rootUri: fileUri(dir) });
    await checked(c);
    const got: Record<string, unknown[]> = {};
    for (const p of c.published) got[p.uri] = p.diagnostics.map((d) => [d.code, d.range.start, d.range.end]);
    expect(got).toEqual(expected);
  });

  it('a change event re-checks the file, a created one is checked, a deleted one is cleared', async () => {
    const dir = workspace({ 'a.netpolicy.json': UNKNOWN, 'b.netpolicy.json': CLEAN });
    const a = fileUri(join(dir, 'a.netpolicy.json'));
    const b = fileUri(join(dir, 'b.netpolicy.json'));
    const created = fileUri(join(dir, 'sub', 'new.netpolicy.jsonc'));
    const c = await client({ rootUri: fileUri(dir) });
    await checked(c);
    expect(latest(c)).toEqual({ [a]: ['unknown-preset'], [b]: [] });

    // Malformed events are ignored.
    await c.notify('workspace/didChangeWatchedFiles', { changes: null });
    await c.notify('workspace/didChangeWatchedFiles', { changes: [null, { uri: 5, type: 2 }, { type: 3 }] });
    writeFileSync(join(dir, 'b.netpolicy.json'), INSECURE);
    await watched(c, [[b, CHANGED]]);
    await expect.poll(() => last(c, b)?.diagnostics.map((d) => d.code)).toEqual(['insecure-url']);

    mkdirSync(join(dir, 'sub'));
    writeFileSync(join(dir, 'sub', 'new.netpolicy.jsonc'), '{"presets": ["zzz"]}');
    // Not a policy file: nothing, even when an event names it.
    writeFileSync(join(dir, 'sub', 'other.json'), UNKNOWN);
    await watched(c, [[created, CREATED], [fileUri(join(dir, 'sub', 'other.json')), CREATED]]);
    await expect.poll(() => last(c, created)?.diagnostics.map((d) => d.code)).toEqual(['unknown-preset']);

    rmSync(join(dir, 'a.netpolicy.json'));
    await watched(c, [[a, DELETED]]);
    await expect.poll(() => last(c, a)?.diagnostics).toEqual([]);
    // A folder deleted clears the files in it.
    rmSync(join(dir, 'sub'), { recursive: true });
    await watched(c, [[fileUri(join(dir, 'sub')), DELETED]]);
    await expect.poll(() => last(c, created)?.diagnostics).toEqual([]);
    expect(c.published.some((p) => p.uri.endsWith('other.json'))).toBe(false);
    // A change event for a file that is gone (no delete event came) clears it too.
    rmSync(join(dir, 'b.netpolicy.json'));
    await watched(c, [[b, CHANGED]]);
    await expect.poll(() => last(c, b)?.diagnostics).toEqual([]);
  });

  it('maxFiles bounds the files checked; 0 turns it off and clears what was published; a larger bound checks them again', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 6; i++) files[`p${i}.netpolicy.json`] = UNKNOWN;
    const dir = workspace(files);
    const c = await client({ rootUri: fileUri(dir), capabilities: { workspace: { configuration: true } }, settings: { workspaceDiagnostics: { maxFiles: 2 } } });
    await checked(c);
    expect(Object.keys(latest(c)).sort()).toEqual([fileUri(join(dir, 'p0.netpolicy.json')), fileUri(join(dir, 'p1.netpolicy.json'))]);
    expect(c.logs.some((l) => l.message.includes('more than 2 policy files in the workspace; the first 2 are checked'))).toBe(true);
    // An event for a file past the bound does not take it in.
    await watched(c, [[fileUri(join(dir, 'p5.netpolicy.json')), CHANGED]]);

    c.settings = { workspaceDiagnostics: { maxFiles: 0 } };
    await c.notify('workspace/didChangeConfiguration', { settings: null });
    await expect.poll(() => Object.values(latest(c)).flat()).toEqual([]);
    expect(Object.keys(latest(c))).toHaveLength(2);

    c.settings = { workspaceDiagnostics: { maxFiles: 4 } };
    await c.notify('workspace/didChangeConfiguration', { settings: null });
    await checked(c, 2);
    const nonEmpty = Object.entries(latest(c)).filter(([, codes]) => codes.length > 0).map(([uri]) => uri).sort();
    expect(nonEmpty).toEqual([0, 1, 2, 3].map((i) => fileUri(join(dir, `p${i}.netpolicy.json`))));
  });

  it('open documents win: their diagnostics come from the buffer; on close, from the disk again (cleared when the file is gone)', async () => {
    const dir = workspace({ 'a.netpolicy.json': UNKNOWN, 'b.netpolicy.json': UNKNOWN });
    const a = fileUri(join(dir, 'a.netpolicy.json'));
    const b = fileUri(join(dir, 'b.netpolicy.json'));
    const c = await client({ rootUri: fileUri(dir) });
    // Opened before the first check: the buffer (clean) is what is published for it, never the disk's finding.
    await c.open(a, CLEAN, 1);
    await checked(c);
    expect(c.published.filter((p) => p.uri === a)).toEqual([{ uri: a, version: 1, diagnostics: [] }]);
    expect(last(c, b)!.diagnostics.map((d) => d.code)).toEqual(['unknown-preset']);

    // A change on disk to an open file changes nothing.
    writeFileSync(join(dir, 'a.netpolicy.json'), INSECURE);
    await watched(c, [[a, CHANGED]]);
    await c.notify('textDocument/didChange', { textDocument: { uri: a, version: 2 }, contentChanges: [{ text: '{"presets": ["pypi"]}' }] });
    await c.diagnostics(a, 2);
    await new Promise((r) => setTimeout(r, 200));
    expect(c.published.filter((p) => p.uri === a).map((p) => p.version)).toEqual([1, 2]);

    // Closed: the file on disk is what counts.
    const since = c.published.length;
    await c.notify('textDocument/didClose', { textDocument: { uri: a } });
    await expect.poll(() => c.published.slice(since).filter((p) => p.uri === a).at(-1)?.diagnostics.map((d) => d.code)).toEqual(['insecure-url']);

    // Open b, delete it on disk, close it: cleared.
    await c.open(b, UNKNOWN, 1);
    await c.diagnostics(b, 1);
    rmSync(join(dir, 'b.netpolicy.json'));
    await c.notify('textDocument/didClose', { textDocument: { uri: b } });
    await expect.poll(() => last(c, b)?.diagnostics).toEqual([]);
    await new Promise((r) => setTimeout(r, 200));
    expect(last(c, b)?.diagnostics).toEqual([]);
  });

  it('an open document is published first, and answered, while a large workspace is being checked', async () => {
    const rules = Array.from({ length: 300 }, (_, i) => `    { "npm": { "urls": ["https://npm${i}.example.com/"] } }`).join(',\n');
    const files: Record<string, string> = {};
    for (let i = 0; i < 150; i++) files[`p${String(i).padStart(3, '0')}.netpolicy.json`] = `{\n  "presets": [],\n  "sources": [\n${rules}\n  ]\n}\n`;
    const dir = workspace(files);
    const c = await client({ rootUri: fileUri(dir) });
    const first = fileUri(join(dir, 'p000.netpolicy.json'));
    await c.diagnostics(first);
    const opened = fileUri(join(dir, 'zz.netpolicy.json'));
    await c.open(opened, UNKNOWN, 1);
    const hover = c.request('textDocument/hover', { textDocument: { uri: opened }, position: { line: 0, character: 16 } });
    await c.diagnostics(opened, 1);
    const at = c.published.length;
    expect(await hover).not.toBeNull();
    await checked(c);
    // Files were still being checked after the open document's publish and the hover's answer.
    const lastFile = fileUri(join(dir, 'p149.netpolicy.json'));
    expect(c.published.findIndex((p) => p.uri === lastFile)).toBeGreaterThanOrEqual(at);
    expect(Object.keys(latest(c))).toHaveLength(151);
  });

  it('an untrusted workspace is checked too (its files are inside it), with the built-in presets', async () => {
    const dir = workspace({ 'a.netpolicy.json': '{"presets": ["corp"]}', 'catalog.json': JSON.stringify({ presets: [{ name: 'corp', known: { sources: [{ npm: { urls: ['https://npm.corp.example'] } }] } }] }) });
    const a = fileUri(join(dir, 'a.netpolicy.json'));
    const c = await client({ rootUri: fileUri(dir), settings: { presetCatalog: 'catalog.json' }, initializationOptions: { workspaceTrusted: false } });
    await checked(c);
    expect(last(c, a)!.diagnostics.map((d) => d.code)).toEqual(['unknown-preset']);
    await c.notify(WorkspaceTrustNotificationMethod, { trusted: true });
    await expect.poll(() => last(c, a)!.diagnostics).toEqual([]);
  });

  it('several workspace folders, one inside another: each file once; a folder removed is cleared', async () => {
    const outer = workspace({ 'a.netpolicy.json': UNKNOWN, 'inner/b.netpolicy.json': UNKNOWN });
    const other = workspace({ 'c.netpolicy.json': UNKNOWN });
    const c = await client({
      capabilities: { workspace: { workspaceFolders: true, configuration: true } },
      workspaceFolders: [{ uri: fileUri(outer), name: 'outer' }, { uri: fileUri(join(outer, 'inner')), name: 'inner' }, { uri: fileUri(other), name: 'other' }],
    });
    await checked(c);
    expect(c.published.map((p) => p.uri).sort()).toEqual([fileUri(join(outer, 'a.netpolicy.json')), fileUri(join(outer, 'inner/b.netpolicy.json')), fileUri(join(other, 'c.netpolicy.json'))].sort());
    await c.notify('workspace/didChangeWorkspaceFolders', { event: { added: [], removed: [{ uri: fileUri(other), name: 'other' }] } });
    await expect.poll(() => last(c, fileUri(join(other, 'c.netpolicy.json')))!.diagnostics).toEqual([]);
    expect(last(c, fileUri(join(outer, 'a.netpolicy.json')))!.diagnostics).not.toEqual([]);
  });
});

/** A FIFO with a writer waiting in `open`: `opened()` turns true once anything opened the FIFO to read. */
const writers: ChildProcess[] = [];
afterEach(() => { for (const w of writers.splice(0)) w.kill('SIGKILL'); });
function watchedFifo(path: string): { opened: () => boolean } {
  const made = spawnSync('mkfifo', [path]);
  if (made.status !== 0) throw new Error(`mkfifo failed: ${made.stderr}`);
  const writer = spawn('sh', ['-c', 'exec 3>"$0" && echo opened', path], { stdio: ['ignore', 'pipe', 'ignore'] });
  writers.push(writer);
  let opened = false;
  writer.stdout!.on('data', (d: Buffer) => { if (d.toString().includes('opened')) opened = true; });
  return { opened: () => opened };
}

describe.skipIf(!onPosix)('workspace diagnostics: files that are not plain policy files (spawned server)', () => {
  it('a FIFO named like a policy is never opened, a link to one is opened without blocking, links out of the folder are not followed; the rest is checked and the server answers', async () => {
    const outside = workspace({ 'x.netpolicy.json': UNKNOWN });
    const dir = workspace({ 'a.netpolicy.json': UNKNOWN, 'sub/real.json': INSECURE });
    const fifo = watchedFifo(join(dir, 'pipe.netpolicy.json'));
    spawnSync('mkfifo', [join(dir, 'sub', 'fifo')]);
    symlinkSync(join(dir, 'sub', 'fifo'), join(dir, 'to-fifo.netpolicy.json'));
    symlinkSync(join(outside, 'x.netpolicy.json'), join(dir, 'out.netpolicy.json'));
    symlinkSync(outside, join(dir, 'linked-folder'));
    symlinkSync(join(dir, 'sub', 'real.json'), join(dir, 'in.netpolicy.json'));
    writeFileSync(join(dir, 'big.netpolicy.json'), `{"presets": [], "x": "${'a'.repeat(4 * 1024 * 1024)}"}`);
    const c = await client({ spawn: true, rootUri: fileUri(dir) });
    await checked(c);
    expect(latest(c)).toEqual({
      [fileUri(join(dir, 'a.netpolicy.json'))]: ['unknown-preset'],
      [fileUri(join(dir, 'in.netpolicy.json'))]: ['insecure-url'],
    });
    expect(fifo.opened()).toBe(false);
    const logged = c.logs.map((l) => l.message).join('\n');
    expect(logged).toContain(`${join(dir, 'pipe.netpolicy.json')} not checked: it is not a regular file`);
    expect(logged).toContain(`${join(dir, 'to-fifo.netpolicy.json')} not checked: it is a FIFO (named pipe), not a regular file`);
    expect(logged).toContain(`${join(dir, 'out.netpolicy.json')} not checked: it is a symbolic link that leads out of the workspace folder`);
    expect(logged).toMatch(/big\.netpolicy\.json not checked: it is 4 MB, more than the 4 MB/);
    const uri = fileUri(join(dir, 'a.netpolicy.json'));
    await c.open(uri, UNKNOWN, 1);
    expect((await c.diagnostics(uri, 1)).diagnostics.map((d) => d.code)).toEqual(['unknown-preset']);
    expect(await c.request('textDocument/hover', { textDocument: { uri }, position: { line: 0, character: 16 } })).not.toBeNull();
  });
});
