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
    await expect.poll(async () => (await c.request('textDocument/inlayHint', { textDocument: { uri }, range: ALL })).map((h: any) => h.label)).toEqual(['16,777,216 addresses']);
    await expect(c.request('textDocument/inlayHint', { textDocument: { uri } })).rejects.toThrow(/params.range is missing/);
  });

  it('a client that can refresh them is asked to when the settings change; one that cannot is not', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'np-hints-'));
    const refreshes = (c: { serverRequests: Array<{ method: string }> }) => c.serverRequests.filter((r) => r.method === 'workspace/inlayHint/refresh').length;
    const capabilities = (inlayHint: object) => ({ workspace: { configuration: true, inlayHint }, textDocument: { publishDiagnostics: { versionSupport: true } } });
    const able = await client({ rootUri: fileUri(dir), capabilities: capabilities({ refreshSupport: true }) });
    const unable = await client({ rootUri: fileUri(dir), capabilities: capabilities({}) });
    for (const c of [able, unable]) {
      const uri = fileUri(join(dir, 'ci.netpolicy.json'));
      await c.open(uri, POLICY);
      await c.diagnostics(uri);
      c.settings = { inlayHints: { services: false } };
      await c.notify('workspace/didChangeConfiguration', { settings: null });
      await expect.poll(async () => (await c.request('textDocument/inlayHint', { textDocument: { uri }, range: ALL })).length).toBe(2);
    }
    await expect.poll(() => refreshes(able)).toBeGreaterThan(0);
    expect(refreshes(unable)).toBe(0);
  });
});
