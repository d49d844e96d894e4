/**
 * Files named by settings or netpolicy.config.json that are not plain files (issue 19.3): a FIFO
 * trace, a folder, /dev/zero or an oversized file as the preset catalog, a FIFO as the project file.
 * The (spawned) server opens without blocking, reads none of them, says so once, and keeps
 * publishing and answering. A disposed server exits even with a libuv thread blocked.
 */
import { describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMessageConnection, StreamMessageReader, StreamMessageWriter } from 'vscode-jsonrpc/node';
import { FILE_NOT_USED_CODE } from '../src/file-problems';
import { MAX_SETTINGS_FILE_BYTES } from '../src/host';
import { SERVER_BIN, clientPerTest, fileUri, type TestClient, poll, lensesByLine as lenses } from './harness';

const client = clientPerTest();
const onPosix = process.platform !== 'win32';

/** Line 3: the npm rule (an `insecure-url` warning), line 4: the pypi rule. */
const POLICY = '{\n  "presets": [],\n  "sources": [\n    { "npm": { "urls": ["https://registry.npmjs.org", "http://npm.internal.example"] } },\n    { "pypi": { "urls": ["https://pypi.org"] } }\n  ]\n}\n';
/** What the issue asks for is under a second; asserted at ten times that. */
const ANSWER_MS = 10_000;

function trace(hosts: string[]): string {
  return JSON.stringify({
    schema_version: '1.0', job: { provider: 'ciprovider', repository: 'acme/app', job_id: '1', status: 'success' },
    observations: hosts.map((h, i) => ({ protocol: 'http', observed_at: '2026-03-02T10:15:01.037Z', sequence: i + 1, method: 'GET', url: `https://${h}/p${i}`, denied: false })),
  });
}

function mkfifo(path: string): void {
  const r = spawnSync('mkfifo', [path]);
  if (r.status !== 0) throw new Error(`mkfifo ${path} failed: ${r.stderr}`);
}

/** Diagnostics published for the policy, and a hover answered in time. */
async function stillWorks(c: TestClient, uri: string): Promise<void> {
  const published = await c.diagnostics(uri, 1);
  expect(published.diagnostics.map((d) => d.code)).toEqual(['insecure-url']);
  const t = performance.now();
  const hover = await c.request<any>('textDocument/hover', { textDocument: { uri }, position: { line: 3, character: 40 } });
  expect(performance.now() - t).toBeLessThan(ANSWER_MS);
  expect(hover?.contents?.value).toMatch(/registry\.npmjs\.org/);
}

/** The window/showMessage notifications naming `path`. */
const messagesAbout = (c: TestClient, path: string) => c.messages.filter((m) => m.message.includes(path));

function workspace(): { dir: string; uri: string } {
  const dir = mkdtempSync(join(tmpdir(), 'np-ls-special-'));
  const uri = fileUri(join(dir, 'ci.netpolicy.json'));
  writeFileSync(join(dir, 'ci.netpolicy.json'), POLICY);
  return { dir, uri };
}

describe.skipIf(!onPosix)('special files named by settings (issue 19.3)', () => {
  it('a FIFO trace: edits and a settings change later, the other trace\'s lenses appear and the settings apply; one message', async () => {
    const { dir, uri } = workspace();
    mkfifo(join(dir, 'fifo1'));
    writeFileSync(join(dir, 'good.json'), trace(['pypi.org', 'pypi.org']));
    const c = await client({ spawn: true, rootUri: fileUri(dir), settings: { traces: ['fifo1', 'good.json'] } });
    await c.open(uri, POLICY, 1);
    await stillWorks(c, uri);
    // Five edits, each re-evaluating the traces (the issue: four parked the whole libuv pool).
    for (let v = 2; v <= 6; v++) {
      await c.notify('textDocument/didChange', { textDocument: { uri, version: v }, contentChanges: [{ range: { start: { line: 6, character: 1 }, end: { line: 6, character: 1 } }, text: ' ' }] });
      // The evaluation of version v is done when its publish carries the unused-rule hint (the npm rule).
      const evaluated = await poll(() => c.published.find((p) => p.uri === uri && p.version === v && p.diagnostics.some((d) => d.code === 'unused-in-traces')), (p) => p !== undefined);
      expect(evaluated).toBeDefined();
      const denials = await c.request<any>('netpolicy/denials', { uri });
      expect(denials.traces).toEqual([join(dir, 'good.json')]);
      expect(denials.errors[0].trace).toBe(join(dir, 'fifo1'));
      expect(denials.errors[0].message).toMatch(/FIFO/);
    }
    const since = c.published.length;
    c.settings = { traces: ['fifo1', 'good.json'], severity: { 'insecure-url': 'error' } };
    await c.notify('workspace/didChangeConfiguration', { settings: { netpolicy: c.settings } });
    const applied = await poll(() => c.published.slice(since).filter((p) => p.uri === uri).at(-1), (p) => p?.diagnostics.find((d) => d.code === 'insecure-url')?.severity === 1);
    expect(applied?.diagnostics.find((d) => d.code === 'insecure-url')?.severity).toBe(1);
    expect((await poll(() => lenses(c, uri), (l) => /^2 traced/.test(l[4] ?? '')))[4]).toMatch(/^2 traced accesses decided here: pypi\.org/);
    const said = messagesAbout(c, join(dir, 'fifo1'));
    expect(said).toHaveLength(1);
    expect(said[0].message).toMatch(/FIFO/);
  });

  for (const [name, make, problem] of [
    ['a folder', (dir: string) => { mkdirSync(join(dir, 'catalog.json')); return join(dir, 'catalog.json'); }, /a folder, not a regular file/],
    ['/dev/zero', () => '/dev/zero', /a character device, not a regular file/],
    ['a file over the limit', (dir: string) => { writeFileSync(join(dir, 'catalog.json'), `{"presets": [], "x": "${'a'.repeat(MAX_SETTINGS_FILE_BYTES)}"}`); return join(dir, 'catalog.json'); }, /more than the 4 MB/],
    ['a FIFO', (dir: string) => { mkfifo(join(dir, 'catalog.json')); return join(dir, 'catalog.json'); }, /FIFO/],
  ] as const) {
    it(`${name} as the preset catalog: diagnostics, hover, one message`, async () => {
      const { dir, uri } = workspace();
      const catalog = make(dir);
      const c = await client({ spawn: true, rootUri: fileUri(dir), settings: { presetCatalog: catalog } });
      await c.open(uri, POLICY, 1);
      await stillWorks(c, uri);
      // A settings change reads the catalog again: the same problem is not said twice.
      c.settings = { presetCatalog: catalog, severity: { 'insecure-url': 'hint' } };
      const since = c.published.length;
      await c.notify('workspace/didChangeConfiguration', { settings: { netpolicy: c.settings } });
      expect((await poll(() => c.published.slice(since).find((p) => p.uri === uri), (p) => p !== undefined))?.diagnostics[0].severity).toBe(4);
      const said = messagesAbout(c, catalog);
      expect(said).toHaveLength(1);
      expect(said[0].message).toMatch(problem);
    });
  }

  it('the content of a catalog that is not JSON is never shown', async () => {
    const { dir, uri } = workspace();
    writeFileSync(join(dir, 'catalog.json'), 'root:x:0:0:secret-hash:/root:/bin/bash\n');
    const c = await client({ rootUri: fileUri(dir), settings: { presetCatalog: 'catalog.json' } });
    await c.open(uri, POLICY, 1);
    await stillWorks(c, uri);
    const said = messagesAbout(c, join(dir, 'catalog.json'));
    expect(said.map((m) => m.message)).toEqual([`netpolicy: preset catalog ${join(dir, 'catalog.json')} not used: it is not valid JSON`]);
    expect(JSON.stringify([c.messages, c.logs])).not.toMatch(/secret|root:x/);
  });

  it('netpolicy.config.json names a FIFO catalog and a FIFO trace: a diagnostic on each member while it is open', async () => {
    const { dir, uri } = workspace();
    mkfifo(join(dir, 'catalog.json'));
    mkfifo(join(dir, 'trace.json'));
    const configText = '{\n  "presetCatalog": "catalog.json",\n  "traces": ["trace.json"]\n}\n';
    writeFileSync(join(dir, 'netpolicy.config.json'), configText);
    const c = await client({ spawn: true, rootUri: fileUri(dir) });
    await c.open(uri, POLICY, 1);
    await stillWorks(c, uri);
    const configUri = fileUri(join(dir, 'netpolicy.config.json'));
    await c.open(configUri, configText, 1, 'jsonc');
    const config = await poll(() => c.published.filter((p) => p.uri === configUri).at(-1), (p) => (p?.diagnostics.length ?? 0) === 2);
    expect(config?.diagnostics.map((d) => [d.code, d.range.start.line, d.severity])).toEqual([[FILE_NOT_USED_CODE, 1, 2], [FILE_NOT_USED_CODE, 2, 2]]);
    expect(config?.diagnostics[0].message).toBe(`preset catalog ${join(dir, 'catalog.json')} not used: it is a FIFO (named pipe), not a regular file`);
    expect(config?.diagnostics[1].message).toBe(`trace ${join(dir, 'trace.json')} not used: it is a FIFO (named pipe), not a regular file`);
    expect(messagesAbout(c, join(dir, 'catalog.json'))).toHaveLength(1);
    expect(messagesAbout(c, join(dir, 'trace.json'))).toHaveLength(1);
  });

  it('netpolicy.config.json itself a FIFO: diagnostics all the same, one message', async () => {
    const { dir, uri } = workspace();
    mkfifo(join(dir, 'netpolicy.config.json'));
    const c = await client({ spawn: true, rootUri: fileUri(dir) });
    await c.open(uri, POLICY, 1);
    await stillWorks(c, uri);
    const said = messagesAbout(c, join(dir, 'netpolicy.config.json'));
    expect(said).toHaveLength(1);
    expect(said[0].message).toMatch(/project file .* not used: it is a FIFO/);
  });
});

describe.skipIf(!onPosix)('a disposed server exits, whatever it is doing', () => {
  /** The built server, started with a libuv pool thread parked in a blocking `open` of a FIFO when `blocked`. */
  async function startServer(blocked: boolean, processId: number | null = null) {
    const dir = mkdtempSync(join(tmpdir(), 'np-ls-exit-'));
    mkfifo(join(dir, 'block'));
    const preload = `import { open } from "node:fs"; open(${JSON.stringify(join(dir, 'block'))}, "r", () => {});`;
    const child = spawn(process.execPath, [...(blocked ? ['--import', `data:text/javascript,${encodeURIComponent(preload)}`] : []), SERVER_BIN, '--stdio'], { stdio: ['pipe', 'pipe', 'pipe'] });
    child.stderr!.resume();
    const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
    const connection = createMessageConnection(new StreamMessageReader(child.stdout!), new StreamMessageWriter(child.stdin!));
    connection.onRequest(() => null);
    connection.listen();
    await connection.sendRequest('initialize', { processId, rootUri: fileUri(dir), capabilities: {} });
    await connection.sendNotification('initialized', {});
    return { child, connection, exited };
  }
  const within = <T>(p: Promise<T>, ms: number) => Promise.race([p, new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), ms))]);

  it('shutdown and exit: code 0; with a pool thread blocked: ended all the same', async () => {
    for (const blocked of [false, true]) {
      const { child, connection, exited } = await startServer(blocked);
      try {
        await connection.sendRequest('shutdown');
        await connection.sendNotification('exit');
        const how = await within(exited, ANSWER_MS);
        expect(how).not.toBe('timeout');
        if (!blocked) expect(how).toEqual({ code: 0, signal: null });
      } finally {
        connection.dispose();
        child.kill('SIGKILL');
      }
    }
  });

  it('node IPC: the channel closing (the client gone), with a pool thread blocked', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'np-ls-exit-'));
    mkfifo(join(dir, 'block'));
    const preload = `import { open } from "node:fs"; open(${JSON.stringify(join(dir, 'block'))}, "r", () => {});`;
    const child = spawn(process.execPath, ['--import', `data:text/javascript,${encodeURIComponent(preload)}`, SERVER_BIN, '--node-ipc'], { stdio: ['ignore', 'ignore', 'ignore', 'ipc'] });
    const exited = new Promise((resolve) => child.on('exit', resolve));
    try {
      // The server is up once it answers initialize.
      const answered = new Promise((resolve) => child.on('message', (m: any) => { if (m?.id === 1) resolve(m); }));
      child.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { processId: null, rootUri: null, capabilities: {} } });
      expect(await within(answered, ANSWER_MS)).not.toBe('timeout');
      child.disconnect();
      expect(await within(exited, ANSWER_MS)).not.toBe('timeout');
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('the client\'s process (initialize\'s processId) gone, with a pool thread blocked', async () => {
    const parent = spawn('sleep', ['60'], { stdio: 'ignore' });
    const { child, connection, exited } = await startServer(true, parent.pid!);
    try {
      parent.kill('SIGKILL');
      // vscode-languageserver looks for the client's process every 3 s.
      expect(await within(exited, 30_000)).not.toBe('timeout');
    } finally {
      connection.dispose();
      child.kill('SIGKILL');
      parent.kill('SIGKILL');
    }
  });

  it('the end of stdin (the client gone), with a pool thread blocked', async () => {
    const { child, connection, exited } = await startServer(true);
    try {
      child.stdin!.end();
      expect(await within(exited, ANSWER_MS)).not.toBe('timeout');
    } finally {
      connection.dispose();
      child.kill('SIGKILL');
    }
  });
});

describe('docs/editor.md', () => {
  it('states the limit and the diagnostic code of a file not used', () => {
    const page = readFileSync(new URL('../../../docs/editor.md', import.meta.url), 'utf8');
    expect(page).toContain(`| \`netpolicy.config.json\`, a preset catalog | ${MAX_SETTINGS_FILE_BYTES / (1024 * 1024)} MB (\`MAX_SETTINGS_FILE_BYTES\`)`);
    expect(page).toContain(`(code \`${FILE_NOT_USED_CODE}\`)`);
  });
});
