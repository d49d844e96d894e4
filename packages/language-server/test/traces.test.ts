import { afterEach, describe, expect, it } from 'vitest';
import { copyFileSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startClient, fileUri, type TestClient, poll } from './harness';

const FIXTURE = fileURLToPath(new URL('../../../fixtures/traces/denials/', import.meta.url));
const policyName = readdirSync(FIXTURE).find((n) => /^(policy|.*\.netpolicy|network-policy)\.jsonc?$/.test(n) && !n.includes('tests'))!;

let clients: TestClient[] = [];
afterEach(async () => {
  await Promise.all(clients.map((c) => c.close()));
  clients = [];
});

describe('trace-aware editing', () => {
  it('shows per-rule lenses, hints on unused rules and lists denials with their fix', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'np-ls-trace-'));
    copyFileSync(join(FIXTURE, 'trace.json'), join(dir, 'trace.json'));
    const text = readFileSync(join(FIXTURE, policyName), 'utf8');
    const uri = fileUri(join(dir, 'ci.netpolicy.json'));
    writeFileSync(join(dir, 'ci.netpolicy.json'), text);
    const c = await startClient({ rootUri: fileUri(dir), settings: { traces: ['trace.json'] } });
    clients.push(c);
    await c.open(uri, text, 1);
    const lenses = await poll(() => c.request<any[]>('textDocument/codeLens', { textDocument: { uri } }), (l) => l.length > 0);
    const titles = lenses.map((l) => l.command.title);
    expect(titles.some((t) => /^1 traced access decided here: registry\.npmjs\.org/.test(t))).toBe(true);
    expect(titles.some((t) => /^default: \d+ traced accesses decided here/.test(t))).toBe(true);
    const denials = await c.request<any>('netpolicy/denials', { uri });
    expect(denials.traces).toEqual([join(dir, 'trace.json')]);
    expect(denials.observations).toBe(15);
    expect(denials.denials.length).toBe(10);
    expect(denials.denials.find((d: any) => d.destination.includes('registry.yarnpkg.com')).fix).toEqual({ pointer: '/sources/-', value: { npm: { urls: ['https://registry.yarnpkg.com'] } } });
    const withHints = await poll(async () => c.published.filter((p) => p.uri === uri).at(-1)!, (p) => p.diagnostics.some((d) => d.code === 'unused-in-traces'));
    const hint = withHints.diagnostics.find((d) => d.code === 'unused-in-traces');
    expect(hint.severity).toBe(4);
    expect(hint.tags).toEqual([1]);
  });

  it('reports a trace that is not valid without failing the policy', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'np-ls-trace-'));
    writeFileSync(join(dir, 'broken.json'), '{"job": 1, "observations": [');
    const uri = fileUri(join(dir, 'ci.netpolicy.json'));
    const c = await startClient({ rootUri: fileUri(dir), settings: { traces: ['broken.json', 'missing-folder'] } });
    clients.push(c);
    await c.open(uri, '{"presets": []}', 1);
    const result = await poll(() => c.request<any>('netpolicy/denials', { uri }), (r) => r.errors.length === 2);
    expect(result.errors.map((e: any) => e.trace)).toEqual([join(dir, 'broken.json'), join(dir, 'missing-folder')]);
    expect(result.errors[0].message).toMatch(/job/);
    expect(result.errors[1].message).toMatch(/ENOENT|no such file/);
    expect((await c.diagnostics(uri, 1)).diagnostics).toEqual([]);
  });
});

describe('a big trace', () => {
  it('is explained in the background: the server keeps answering', async () => {
    // @ts-expect-error: a plain script without types
    const { writeMixedTrace } = await import('../../../bench/explain-data.mjs');
    const dir = mkdtempSync(join(tmpdir(), 'np-ls-bigtrace-'));
    writeMixedTrace(join(dir, 'big.json'), 150_000);
    const uri = fileUri(join(dir, 'ci.netpolicy.json'));
    const c = await startClient({ spawn: true, rootUri: fileUri(dir), settings: { traces: ['big.json'] } });
    clients.push(c);
    await c.open(uri, '{\n  "default": "deny",\n  "presets": ["pypi", "npm"],\n  "sources": [{ "npm": { "urls": ["https://npm.internal.example"] } }]\n}\n', 1);
    await c.diagnostics(uri, 1);
    const slowest: number[] = [];
    let denials: any = { traces: [] };
    const until = Date.now() + 60_000;
    while (denials.traces.length === 0 && Date.now() < until) {
      const t = performance.now();
      await c.request('textDocument/hover', { textDocument: { uri }, position: { line: 3, character: 20 } });
      slowest.push(performance.now() - t);
      denials = await c.request('netpolicy/denials', { uri });
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(denials.observations).toBe(150_000);
    expect(denials.denials.length).toBe(1000);
    expect(denials.more).toBeGreaterThan(0);
    // Hovers answered while the explanation was still running: a server busy with it until the end
    // would have answered the first hover only after it (and the denials with it). How fast each
    // answer is depends on the machine's load (quiet: under 100 ms; ten times that loaded), so it
    // is not asserted here.
    expect(slowest.length).toBeGreaterThan(3);
  });
});

describe('trace changes', () => {
  it('re-evaluates when a watched trace file changes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'np-ls-trace-'));
    const trace = (n: number) => JSON.stringify({ schema_version: '1.0', job: { provider: 'ciprovider', repository: 'acme/app', job_id: '1', status: 'success' }, observations: Array.from({ length: n }, (_, i) => ({ protocol: 'http', observed_at: '2026-03-02T10:15:01.037Z', sequence: i + 1, method: 'GET', url: `https://registry.npmjs.org/p${i}`, denied: false })) });
    writeFileSync(join(dir, 't.json'), trace(2));
    const uri = fileUri(join(dir, 'ci.netpolicy.json'));
    const c = await startClient({ rootUri: fileUri(dir), settings: { traces: ['t.json'] } });
    clients.push(c);
    await c.open(uri, '{\n  "presets": [],\n  "sources": [{ "npm": { "urls": ["https://registry.npmjs.org"] } }]\n}', 1);
    const lens = async () => ((await c.request<any[]>('textDocument/codeLens', { textDocument: { uri } }))[0]?.command.title ?? '') as string;
    expect(await poll(lens, (t) => t.startsWith('2 traced'))).toMatch(/^2 traced accesses decided here: registry\.npmjs\.org/);
    writeFileSync(join(dir, 't.json'), trace(5));
    await c.notify('workspace/didChangeWatchedFiles', { changes: [{ uri: fileUri(join(dir, 't.json')), type: 2 }] });
    expect(await poll(lens, (t) => t.startsWith('5 traced'))).toMatch(/^5 traced accesses/);
  });
});
