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
});
