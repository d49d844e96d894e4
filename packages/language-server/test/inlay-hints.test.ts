import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { clientPerTest, fileUri } from './harness';

const client = clientPerTest();

const POLICY = '{ "presets": ["npm"], "connections": [{ "tcp": { "cidrs": ["10.0.0.0/8"], "ports": [5432] } }] }';
const ALL = { start: { line: 0, character: 0 }, end: { line: 1, character: 0 } };

describe('inlay hints', () => {
  it('are advertised and answer for the range; netpolicy.inlayHints.* turn each kind off', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'np-hints-'));
    const c = await client({ rootUri: fileUri(dir) });
    expect(c.initializeResult.capabilities.inlayHintProvider).toEqual({ resolveProvider: false });
    const uri = fileUri(join(dir, 'ci.netpolicy.json'));
    await c.open(uri, POLICY);
    await c.diagnostics(uri);
    const hints = await c.request('textDocument/inlayHint', { textDocument: { uri }, range: ALL });
    expect(hints.map((h: any) => h.label)).toEqual(['The public npm registry (registry.npmjs.org)', '16,777,216 addresses', 'postgres']);
    expect(hints[1].position).toEqual({ line: 0, character: POLICY.indexOf('"10.0.0.0/8"') + 12 });
    c.settings = { inlayHints: { presets: false, services: false } };
    await c.notify('workspace/didChangeConfiguration', { settings: null });
    await expect.poll(async () => (await c.request('textDocument/inlayHint', { textDocument: { uri }, range: ALL })).map((h: any) => h.label), { timeout: 20_000 }).toEqual(['16,777,216 addresses']);
    await expect(c.request('textDocument/inlayHint', { textDocument: { uri } })).rejects.toThrow(/params.range is missing/);
  });

  it('a client that can refresh them is asked to when the settings change; one that cannot is not', async () => {
    const refreshes = (c: { serverRequests: Array<{ method: string }> }) => c.serverRequests.filter((r) => r.method === 'workspace/inlayHint/refresh').length;
    const capabilities = (inlayHint: object) => ({ workspace: { configuration: true, inlayHint }, textDocument: { publishDiagnostics: { versionSupport: true } } });
    const counts: number[] = [];
    for (const inlayHint of [{ refreshSupport: true }, {}]) {
      const dir = mkdtempSync(join(tmpdir(), 'np-hints-'));
      const c = await client({ rootUri: fileUri(dir), capabilities: capabilities(inlayHint) });
      const uri = fileUri(join(dir, 'ci.netpolicy.json'));
      await c.open(uri, POLICY);
      await c.diagnostics(uri);
      const before = refreshes(c);
      c.settings = { inlayHints: { services: false } };
      await c.notify('workspace/didChangeConfiguration', { settings: null });
      // The new settings are in force once the hints say so; a refresh, when asked, goes out as they are applied.
      await expect.poll(async () => (await c.request('textDocument/inlayHint', { textDocument: { uri }, range: ALL })).length, { timeout: 20_000 }).toBe(2);
      counts.push(refreshes(c) - before);
    }
    expect(counts[0]).toBeGreaterThan(0);
    expect(counts[1]).toBe(0);
  });
});
