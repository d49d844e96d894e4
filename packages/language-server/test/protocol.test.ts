import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { validate } from '@netpolicy/core';
import { fileUri, clientPerTest } from './harness';

const POLICY = `{
  "default": "deny",
  "presets": ["npm", "nope"],
  "sources": [
    { "pypi": { "urls": ["http://pypi.internal.example"] } },
    { "pypi": { "urls": ["http://pypi.internal.example"] } }
  ],
  "connections": [ { "tcp": { "cidrs": ["10.0.0.1/8"], "ports": [5432] } } ]
}
`;

const CLI = fileURLToPath(new URL('../../cli/bin/netpolicy.js', import.meta.url));

const client = clientPerTest();

function asCheck(text: string, fileName: string) {
  return validate(text, { fileName }).diagnostics.map((d) => ({ code: d.code, offset: d.offset }));
}

describe.each([['in-process', false], ['spawned --stdio', true]])('the server %s', (_name, spawned) => {
  it('publishes what check reports, with the version, source, docs link, related places and tags', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'np-ls-'));
    const uri = fileUri(join(dir, 'ci.netpolicy.json'));
    const c = await client({ spawn: spawned, rootUri: fileUri(dir) });
    await c.open(uri, POLICY, 7);
    const published = await c.diagnostics(uri, 7);
    const codes = published.diagnostics.map((d) => d.code).sort();
    expect(codes).toEqual(asCheck(POLICY, 'ci.netpolicy.json').map((d) => d.code).sort());
    expect(codes).toEqual(expect.arrayContaining(['unknown-preset', 'duplicate-rule', 'insecure-url', 'cidr-host-bits']));
    for (const d of published.diagnostics) {
      expect(d.source).toBe('netpolicy');
      expect(d.codeDescription.href).toContain(`/docs/diagnostics/${d.code}.md`);
    }
    const dup = published.diagnostics.find((d) => d.code === 'duplicate-rule');
    expect(dup.tags).toEqual([1]);
    expect(dup.relatedInformation[0].location.range.start.line).toBe(4);
    expect(dup.range.start).toEqual({ line: 5, character: 4 });
  });
});

function workspace(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'np-ls-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

const change = (uri: string, version: number, text: string) => ({ textDocument: { uri, version }, contentChanges: [{ text }] });

describe('document lifecycle', () => {
  it('acts on policy files only, whatever the languageId; other JSON gets nothing', async () => {
    const dir = workspace({});
    const c = await client({ rootUri: fileUri(dir) });
    const other = fileUri(join(dir, 'package.json'));
    const policy = fileUri(join(dir, 'network-policy.json'));
    await c.open(other, '{"presets": ["nope"], }', 1, 'json');
    await c.open(policy, '{"presets": ["nope"]}', 1, 'jsonc');
    expect((await c.diagnostics(policy, 1)).diagnostics.map((d) => d.code)).toEqual(['unknown-preset']);
    expect(c.published.filter((p) => p.uri === other)).toEqual([]);
    expect(await c.request('textDocument/hover', { textDocument: { uri: other }, position: { line: 0, character: 3 } })).toBeNull();
    expect(await c.request('textDocument/completion', { textDocument: { uri: other }, position: { line: 0, character: 1 } })).toBeNull();
  });

  it('publishes once for the settled version of a burst of incremental edits, never a stale one', async () => {
    const dir = workspace({});
    const uri = fileUri(join(dir, 'a.netpolicy.json'));
    const c = await client({ rootUri: fileUri(dir) });
    await c.open(uri, '{"presets": []}', 1);
    await c.diagnostics(uri, 1);
    const since = c.published.length;
    for (let v = 2; v <= 200; v++) {
      // Incremental: insert one character of a preset name at the end of the array.
      await c.notify('textDocument/didChange', { textDocument: { uri, version: v }, contentChanges: [{ range: { start: { line: 0, character: 13 + (v - 2) }, end: { line: 0, character: 13 + (v - 2) } }, text: v === 2 ? '"' : 'x' }] });
    }
    await c.notify('textDocument/didChange', change(uri, 201, '{"presets": ["zzz"]}'));
    const last = await c.diagnostics(uri, 201, since);
    expect(last.diagnostics.map((d) => d.code)).toEqual(['unknown-preset']);
    const after = c.published.slice(since).filter((p) => p.uri === uri);
    expect(after.length).toBeLessThan(20);
    const versions = after.map((p) => p.version!);
    expect(versions).toEqual([...versions].sort((a, b) => a - b));
    expect(versions[versions.length - 1]).toBe(201);
  });

  it('drops the work of a closed document and clears its diagnostics', async () => {
    const dir = workspace({});
    const uri = fileUri(join(dir, 'a.netpolicy.json'));
    const c = await client({ rootUri: fileUri(dir) });
    await c.open(uri, '{"presets": ["nope"]}', 1);
    await c.diagnostics(uri, 1);
    await c.notify('textDocument/didChange', change(uri, 2, '{"presets": ["nope", "nope2"]}'));
    await c.notify('textDocument/didClose', { textDocument: { uri } });
    const cleared = await c.diagnostics(uri, undefined);
    await new Promise((r) => setTimeout(r, 150));
    const last = c.published.filter((p) => p.uri === uri).at(-1)!;
    expect(cleared.diagnostics.length === 0 || last.diagnostics.length === 0).toBe(true);
    expect(last.diagnostics).toEqual([]);
    expect(c.published.some((p) => p.uri === uri && p.version === 2)).toBe(false);
  });

  it('survives malformed requests and positions past the end', async () => {
    const dir = workspace({});
    const uri = fileUri(join(dir, 'a.netpolicy.json'));
    const c = await client({ rootUri: fileUri(dir) });
    await c.open(uri, '{"presets": ["npm"]}', 1);
    await c.diagnostics(uri, 1);
    expect(await c.request('textDocument/hover', { textDocument: { uri }, position: { line: 1e9, character: 5 } })).toBeNull();
    // Malformed params are InvalidParams (-32602) naming the member (params.ts).
    await expect(c.request('textDocument/hover', { textDocument: { uri }, position: { line: 1e9, character: -5 } })).rejects.toMatchObject({ code: -32602, message: 'textDocument/hover: params.position.character must be a non-negative integer' });
    await expect(c.request('textDocument/completion', { textDocument: { uri }, position: { line: 'x', character: null } })).rejects.toMatchObject({ code: -32602 });
    await expect(c.request('textDocument/codeAction', { textDocument: { uri }, range: null, context: null })).rejects.toMatchObject({ code: -32602, message: 'textDocument/codeAction: params.range must be an object' });
    await expect(c.request('textDocument/hover', null)).rejects.toBeDefined();
    await expect(c.request('netpolicy/denials', { uri: 42 })).rejects.toMatchObject({ code: -32602, message: 'netpolicy/denials: params.uri must be a string' });
    expect(await c.request('textDocument/documentSymbol', { textDocument: { uri } })).toHaveLength(1);
  });
});

describe('settings', () => {
  it('applies severity from workspace/configuration without a restart, and off removes a rule', async () => {
    const dir = workspace({});
    const uri = fileUri(join(dir, 'a.netpolicy.json'));
    const c = await client({ rootUri: fileUri(dir) });
    const text = '{"presets": [], "connections": [{"tcp": {"cidrs": ["10.0.0.1/8", "0.0.0.0/1"]}}]}';
    await c.open(uri, text, 1);
    const before = await c.diagnostics(uri, 1);
    expect(before.diagnostics.map((d) => [d.code, d.severity])).toEqual([['cidr-host-bits', 2], ['broad-cidr', 2]]);
    c.settings = { severity: { 'cidr-host-bits': 'error', 'broad-cidr': 'off' } };
    const since = c.published.length;
    await c.notify('workspace/didChangeConfiguration', { settings: null });
    const after = await c.diagnostics(uri, 1, since);
    expect(after.diagnostics.map((d) => [d.code, d.severity])).toEqual([['cidr-host-bits', 1]]);
  });

  it('reads netpolicy.config.json at the workspace root; editor settings override it', async () => {
    const dir = workspace({
      'netpolicy.config.json': JSON.stringify({ filePatterns: ['policies/*.json'], severity: { 'insecure-url': 'error', 'broad-cidr': 'hint' } }),
    });
    const c = await client({ rootUri: fileUri(dir), settings: { severity: { 'broad-cidr': 'information' } } });
    const uri = fileUri(join(dir, 'policies', 'ci.json'));
    await c.open(uri, '{"presets": [], "sources": [{"npm": {"urls": ["http://a.example"]}}], "connections": [{"tcp": {"cidrs": ["0.0.0.0/1"]}}]}', 1);
    const got = await c.diagnostics(uri, 1);
    expect(got.diagnostics.map((d) => [d.code, d.severity])).toEqual([['insecure-url', 1], ['broad-cidr', 3]]);
  });

  it('reports a bad netpolicy.config.json with its position', async () => {
    const dir = workspace({ 'netpolicy.config.json': '{\n  "severty": {}\n}' });
    const c = await client({ rootUri: fileUri(dir) });
    const uri = fileUri(join(dir, 'a.netpolicy.json'));
    await c.open(uri, '{}', 1);
    await c.diagnostics(uri, 1);
    expect(c.messages.map((m) => m.message).join('\n')).toMatch(/netpolicy\.config\.json:2:3: .*severty/);
    const configUri = fileUri(join(dir, 'netpolicy.config.json'));
    await c.open(configUri, '{\n  "severty": {}\n}', 1);
    expect((await c.diagnostics(configUri, 1)).diagnostics.map((d) => [d.code, d.range.start.line])).toEqual([['unknown-property', 1]]);
  });
});

describe('the same findings as netpolicy check', () => {
  const fixtures = fileURLToPath(new URL('../../../fixtures/', import.meta.url));
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(dir, e.name));
      else if (/\.netpolicy\.jsonc?$|^network-policy\.json$/.test(e.name)) files.push(join(dir, e.name));
    }
  };
  walk(fixtures);

  it('finds the fixture policies', () => {
    expect(files.length).toBeGreaterThanOrEqual(4);
  });

  it.each(files.map((f) => [f.slice(fixtures.length), f]))('%s: codes, ranges and severities as `check --format json` gives them', async (_name, file) => {
    const cli = spawnSync(process.execPath, [CLI, 'check', '--format', 'json', file], { encoding: 'utf8' });
    const report = JSON.parse(cli.stdout);
    const expected = report.files[0].diagnostics.map((d: any) => ({ code: d.code, range: d.range, severity: d.severity, message: d.message }));
    const c = await client({ rootUri: fileUri(dirname(file)) });
    const uri = fileUri(file);
    await c.open(uri, readFileSync(file, 'utf8'), 1);
    const got = (await c.diagnostics(uri, 1)).diagnostics.map((d) => ({ code: d.code, range: d.range, severity: ['', 'error', 'warning', 'information', 'hint'][d.severity], message: d.message }));
    expect(got).toEqual(expected);
  });
});

describe('settings, more', () => {
  it('a preset catalog from the settings adds preset names (no unknown-preset), and completion offers them', async () => {
    const dir = workspace({ 'catalog.json': JSON.stringify({ presets: [{ name: 'corp-mirror', description: 'Our artifact mirror', known: { sources: [{ npm: { urls: ['https://npm.corp.example'] } }] } }] }) });
    const c = await client({ rootUri: fileUri(dir), settings: { presetCatalog: 'catalog.json' } });
    const uri = fileUri(join(dir, 'a.netpolicy.json'));
    await c.open(uri, '{"presets": ["corp-mirror", "nope"]}', 1);
    expect((await c.diagnostics(uri, 1)).diagnostics.map((d) => [d.code, d.range.start.character])).toEqual([['unknown-preset', 28]]);
    const other = fileUri(join(dir, 'b.netpolicy.json'));
    await c.open(other, '{"presets": []}', 1);
    const items: any = await c.request('textDocument/completion', { textDocument: { uri: other }, position: { line: 0, character: 13 } });
    expect(items.items.find((i: any) => i.label === 'corp-mirror').documentation.value).toMatch(/Our artifact mirror/);
  });

  it('links the lint codes of netpolicy.config.json to their pages', async () => {
    const dir = workspace({});
    const c = await client({ rootUri: fileUri(dir) });
    const uri = fileUri(join(dir, 'netpolicy.config.json'));
    await c.open(uri, '{"severity": {"broad-cidr": "error"}}', 1);
    const links: any[] = await c.request('textDocument/documentLink', { textDocument: { uri } });
    expect(links.map((l) => l.target)).toEqual(['https://github.com/netpolicy/netpolicy/blob/main/docs/diagnostics/broad-cidr.md']);
  });
});
