/** The server under abuse: a 10 MB document, 10,000 rapid edits; it keeps answering, and publishes the settled version. */
import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileUri, startClient, type TestClient } from './harness';

let c: TestClient | undefined;
afterEach(async () => { await c?.close(); c = undefined; });

function bigPolicy(bytes: number): string {
  const rules: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const rule = `    { "tls": { "serverNamePatterns": ["host-${i}.svc-${i % 97}.example.com"], "cidrs": ["10.${(i >> 8) & 255}.${i & 255}.0/24"], "ports": [443, ${1024 + (i % 60000)}] } }`;
    rules.push(rule);
    size += rule.length + 2;
  }
  return `{\n  "default": "deny",\n  "presets": [],\n  "connections": [\n${rules.join(',\n')}\n  ]\n}\n`;
}

describe('abuse', () => {
  // Latency is `npm run bench`'s (language-server.bench.mjs: hover and completion round trips, and
  // documentSymbol after 10,000 queued edits): on a loaded machine these take ten or more times
  // their quiet figures, so the tests assert the answers; a server that stops answering meets the
  // test timeout.
  it('a 10 MB document: diagnostics, then hover and completion answered', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'np-ls-big-'));
    const uri = fileUri(join(dir, 'big.netpolicy.json'));
    c = await startClient({ spawn: true, rootUri: fileUri(dir) });
    const text = bigPolicy(10 * 1024 * 1024);
    await c.open(uri, text, 1);
    const published = await c.diagnostics(uri, 1);
    expect(published.diagnostics.filter((d) => d.severity === 1)).toEqual([]);
    const hover: any = await c.request('textDocument/hover', { textDocument: { uri }, position: { line: 50000, character: 30 } });
    expect(hover.contents.value).toMatch(/host pattern|Matches exactly/);
    const completion: any = await c.request('textDocument/completion', { textDocument: { uri }, position: { line: 1, character: 2 } });
    expect((Array.isArray(completion) ? completion : completion.items).length).toBeGreaterThan(0);
  });

  it('10,000 rapid edits: answers in between, and the last version is the one published', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'np-ls-edits-'));
    const uri = fileUri(join(dir, 'a.netpolicy.json'));
    c = await startClient({ spawn: true, rootUri: fileUri(dir) });
    await c.open(uri, '{"presets": [], "sources": []}', 1);
    await c.diagnostics(uri, 1);
    const since = c.published.length;
    const sends: Promise<void>[] = [];
    for (let v = 2; v <= 10001; v++) {
      const at = 28 + (v - 2);
      sends.push(c.notify('textDocument/didChange', { textDocument: { uri, version: v }, contentChanges: [{ range: { start: { line: 0, character: at }, end: { line: 0, character: at } }, text: v % 2 ? ' ' : '\t' }] }));
    }
    await Promise.all(sends);
    const symbols: any[] = await c.request('textDocument/documentSymbol', { textDocument: { uri } });
    expect(symbols.map((s) => s.name)).toEqual(['presets', 'sources']);
    const last = await c.diagnostics(uri, 10001, since);
    expect(last.diagnostics).toEqual([]);
    const versions = c.published.slice(since).filter((p) => p.uri === uri).map((p) => p.version);
    // One publication an edit would be 10,000; on a loaded machine the debounce may end between bursts a few more times.
    expect(versions.length).toBeLessThan(1000);
    expect(versions.at(-1)).toBe(10001);
  });
});

describe('malformed requests (fuzz)', () => {
  it('random params to every method never stop the server from answering', async () => {
    const fc = (await import('fast-check')).default;
    const dir = mkdtempSync(join(tmpdir(), 'np-ls-fuzz-'));
    const uri = fileUri(join(dir, 'a.netpolicy.json'));
    c = await startClient({ rootUri: fileUri(dir) });
    await c.open(uri, '{"presets": ["npm"], "connections": [{"tcp": {"cidrs": ["10.0.0.1/8"]}}]}', 1);
    await c.diagnostics(uri, 1);
    const methods = ['textDocument/hover', 'textDocument/completion', 'textDocument/codeAction', 'textDocument/documentSymbol', 'textDocument/foldingRange',
      'textDocument/selectionRange', 'textDocument/formatting', 'textDocument/rangeFormatting', 'textDocument/documentLink', 'textDocument/codeLens', 'netpolicy/denials'];
    const position = fc.record({ line: fc.oneof(fc.integer(), fc.constant(1e12), fc.string()), character: fc.oneof(fc.integer(), fc.double(), fc.constant(null)) });
    const params = fc.oneof(
      fc.anything(),
      fc.record({ textDocument: fc.record({ uri: fc.oneof(fc.constant(uri), fc.string()) }), position, range: fc.oneof(fc.record({ start: position, end: position }), fc.anything()), context: fc.anything(), options: fc.anything(), positions: fc.array(position, { maxLength: 3 }) }),
    );
    await fc.assert(fc.asyncProperty(fc.constantFrom(...methods), params, async (method, p) => {
      await c!.request(method, p).catch(() => undefined);
      await c!.notify('textDocument/didChange', p).catch(() => undefined);
    }), { numRuns: 300 });
    const symbols: any[] = await c.request('textDocument/documentSymbol', { textDocument: { uri } });
    expect(symbols.map((s) => s.name)).toEqual(['presets', 'connections']);
    await c.notify('textDocument/didChange', { textDocument: { uri, version: 2 }, contentChanges: [{ text: '{"presets": ["nope"]}' }] });
    expect((await c.diagnostics(uri, 2)).diagnostics.map((d) => d.code)).toEqual(['unknown-preset']);
  });
});
