import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parsePolicyDocument } from '@netpolicy/core';
import { DEFAULT_SETTINGS, getInlayHints } from '@netpolicy/language-service';
import { MIN_PIECES } from '../src/frozen-json';
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

  it('a long answer (framed from each hint\'s kept bytes) reads back as the service gives it, edit after edit', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'np-hints-'));
    // Spawned: the server over stdio writes with FrameWriter.
    const c = await client({ rootUri: fileUri(dir), spawn: true });
    const uri = fileUri(join(dir, 'ci.netpolicy.json'));
    const rules = Array.from({ length: 400 }, (_, i) => `    { "tcp": { "cidrs": ["10.${i % 256}.0.0/16", "fd00::/${8 + (i % 100)}"], "ports": [${i % 2 ? 5432 : 22}] } }`);
    const policy = `{\n  "presets": ["npm"],\n  "connections": [\n${rules.join(',\n')}\n  ]\n}\n`;
    await c.open(uri, policy);
    await c.diagnostics(uri);
    const lines = policy.split('\n').length;
    const range = { start: { line: 0, character: 0 }, end: { line: lines, character: 0 } };
    const expected = getInlayHints(parsePolicyDocument(policy), range, DEFAULT_SETTINGS);
    expect(expected.length).toBeGreaterThan(MIN_PIECES);
    expect(await c.request('textDocument/inlayHint', { textDocument: { uri }, range })).toEqual(JSON.parse(JSON.stringify(expected)));
    // An edit inside one rule that moves nothing: the other hints are the same objects, their bytes kept.
    const at = policy.indexOf('5432');
    const edited = `${policy.slice(0, at)}5433${policy.slice(at + 4)}`;
    const line = policy.slice(0, at).split('\n').length - 1;
    const character = at - policy.lastIndexOf('\n', at) - 1;
    await c.notify('textDocument/didChange', { textDocument: { uri, version: 2 }, contentChanges: [{ range: { start: { line, character }, end: { line, character: character + 4 } }, text: '5433' }] });
    const again = getInlayHints(parsePolicyDocument(edited), range, DEFAULT_SETTINGS);
    await expect.poll(async () => c.request('textDocument/inlayHint', { textDocument: { uri }, range }), { timeout: 20_000 }).toEqual(JSON.parse(JSON.stringify(again)));
  });
});
