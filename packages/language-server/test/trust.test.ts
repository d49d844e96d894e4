/**
 * Workspace trust (issue 19.2, server side): in an untrusted workspace the server reads no trace,
 * no preset catalog and no other path named by settings or netpolicy.config.json (the project file
 * itself still is); `netpolicy/workspaceTrust` {trusted: true} turns reading on. "Not read" is
 * proved with FIFOs: a writer's open of a FIFO completes only when someone opens it to read.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WorkspaceTrustNotificationMethod } from '../src/protocol';
import { clientPerTest, fileUri, type TestClient, poll } from './harness';

const client = clientPerTest();
const onPosix = process.platform !== 'win32';

const POLICY = '{\n  "presets": [],\n  "sources": [\n    { "npm": { "urls": ["https://registry.npmjs.org"] } },\n    { "pypi": { "urls": ["https://pypi.org"] } }\n  ]\n}\n';

function trace(hosts: string[]): string {
  return JSON.stringify({
    schema_version: '1.0', job: { provider: 'ciprovider', repository: 'acme/app', job_id: '1', status: 'success' },
    observations: hosts.map((h, i) => ({ protocol: 'http', observed_at: '2026-03-02T10:15:01.037Z', sequence: i + 1, method: 'GET', url: `https://${h}/p${i}`, denied: false })),
  });
}

const lenses = (c: TestClient, uri: string) => c.request<any[]>('textDocument/codeLens', { textDocument: { uri } });

/** A FIFO with a writer waiting in `open`: `opened()` turns true once anything opened the FIFO to read. */
const watchers: ChildProcess[] = [];
afterEach(() => { for (const w of watchers.splice(0)) w.kill('SIGKILL'); });
function watchedFifo(path: string): { opened: () => boolean } {
  const made = spawnSync('mkfifo', [path]);
  if (made.status !== 0) throw new Error(`mkfifo failed: ${made.stderr}`);
  const writer = spawn('sh', ['-c', 'exec 3>"$0" && echo opened', path], { stdio: ['ignore', 'pipe', 'ignore'] });
  watchers.push(writer);
  let opened = false;
  writer.stdout!.on('data', (d: Buffer) => { if (d.toString().includes('opened')) opened = true; });
  return { opened: () => opened };
}

/** Long enough for a (debounced) trace evaluation and a catalog read to have happened. */
const settle = () => new Promise((r) => setTimeout(r, 1500));

describe.skipIf(!onPosix)('workspace trust', () => {
  it('untrusted: paths from netpolicy.config.json are not followed (not even opened); trust turns them on', async () => {
    const outer = mkdtempSync(join(tmpdir(), 'np-ls-trust-'));
    const dir = join(outer, 'ws');
    mkdirSync(dir);
    writeFileSync(join(outer, 'outside-trace.json'), trace(['pypi.org', 'pypi.org']));
    const fifo = watchedFifo(join(dir, 'fifo-trace.json'));
    writeFileSync(join(dir, 'netpolicy.config.json'), JSON.stringify({ traces: ['../outside-trace.json', 'fifo-trace.json'], presetCatalog: '/etc/passwd', severity: { 'insecure-url': 'error' } }));
    const uri = fileUri(join(dir, 'ci.netpolicy.json'));
    const c = await client({ rootUri: fileUri(dir), settings: {}, initializationOptions: { workspaceTrusted: false } });
    const text = POLICY.replace('"https://registry.npmjs.org"', '"https://registry.npmjs.org", "http://npm.internal.example"');
    await c.open(uri, text, 1);
    // The project file itself is read: its severity applies.
    const published = await c.diagnostics(uri, 1);
    expect(published.diagnostics.map((d) => [d.code, d.severity])).toEqual([['insecure-url', 1]]);
    const t = performance.now();
    expect((await c.request<any>('textDocument/hover', { textDocument: { uri }, position: { line: 3, character: 30 } }))?.contents?.value).toMatch(/registry\.npmjs\.org/);
    expect(performance.now() - t).toBeLessThan(10_000);
    await settle();
    expect(await lenses(c, uri)).toEqual([]);
    expect((await c.request<any>('netpolicy/denials', { uri })).traces).toEqual([]);
    expect(fifo.opened()).toBe(false);
    expect(c.messages).toEqual([]);
    expect(c.published.filter((p) => p.uri === uri).flatMap((p) => p.diagnostics).some((d) => d.code === 'unused-in-traces')).toBe(false);

    await c.notify(WorkspaceTrustNotificationMethod, { trusted: true });
    // Trusted: the trace outside the workspace is read, the FIFO opened (and refused), the catalog read (and refused).
    const titles = await poll(async () => (await lenses(c, uri)).map((l) => l.command.title as string), (l) => l.some((x) => /^2 traced/.test(x)));
    expect(titles.some((x) => /^2 traced accesses decided here: pypi\.org/.test(x))).toBe(true);
    expect(await poll(() => fifo.opened(), (o) => o)).toBe(true);
    const said = await poll(() => c.messages.map((m) => m.message), (m) => m.length === 2);
    expect(said.sort()).toEqual([
      'netpolicy: preset catalog /etc/passwd not used: it is not valid JSON',
      `netpolicy: trace ${join(dir, 'fifo-trace.json')} not used: it is a FIFO (named pipe), not a regular file`,
    ]);
  });

  it('untrusted: paths from editor settings are not opened either; the trust notification reads them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'np-ls-trust-'));
    const fifo = watchedFifo(join(dir, 'catalog.json'));
    writeFileSync(join(dir, 'trace.json'), trace(['registry.npmjs.org']));
    const uri = fileUri(join(dir, 'ci.netpolicy.json'));
    const c = await client({ rootUri: fileUri(dir), settings: { presetCatalog: 'catalog.json', traces: ['trace.json'] }, initializationOptions: { workspaceTrusted: false } });
    await c.open(uri, POLICY, 1);
    expect((await c.diagnostics(uri, 1)).diagnostics).toEqual([]);
    await settle();
    expect(fifo.opened()).toBe(false);
    expect(await lenses(c, uri)).toEqual([]);
    await c.notify(WorkspaceTrustNotificationMethod, { trusted: true });
    expect(await poll(() => fifo.opened(), (o) => o)).toBe(true);
    const titles = await poll(async () => (await lenses(c, uri)).map((l) => l.command.title as string), (l) => l.some((x) => /^1 traced/.test(x)));
    expect(titles.some((x) => /^1 traced access decided here: registry\.npmjs\.org/.test(x))).toBe(true);
  });

  it('absent workspaceTrusted is trusted (other editors are unchanged)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'np-ls-trust-'));
    writeFileSync(join(dir, 'trace.json'), trace(['registry.npmjs.org']));
    const uri = fileUri(join(dir, 'ci.netpolicy.json'));
    const c = await client({ rootUri: fileUri(dir), settings: { traces: ['trace.json'] }, initializationOptions: { settings: {} } });
    await c.open(uri, POLICY, 1);
    const titles = await poll(async () => (await lenses(c, uri)).map((l) => l.command.title as string), (l) => l.length > 0);
    expect(titles.some((x) => /^1 traced access decided here: registry\.npmjs\.org/.test(x))).toBe(true);
  });
});

describe('docs/editor.md', () => {
  it('names the trust option and notification', () => {
    const page = readFileSync(new URL('../../../docs/editor.md', import.meta.url), 'utf8');
    for (const s of ['### Workspace trust', '`workspaceTrusted`', `\`${WorkspaceTrustNotificationMethod}\``, '{ "trusted": true }']) expect(page).toContain(s);
  });
});
