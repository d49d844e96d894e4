/**
 * Through the real server (in-process): every request at every few offsets of every fixture
 * policy and of hostile ones answers without an error and without a handler failing (the server
 * catches what a handler throws, logs it and answers null: a test must look at the log too).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { LineIndex } from '@netpolicy/core';
import { fixtures, policyFiles } from '../../language-service/test/fixture-files';
import { startClient, type TestClient } from './harness';

let c: TestClient | undefined;
afterEach(async () => { await c?.close(); c = undefined; });

const hostile: Array<[string, string]> = [
  ['deep.netpolicy.json', `{"sources": [${'{"a": ['.repeat(150)}${']}'.repeat(150)}]}`],
  ['proto.netpolicy.jsonc', '{"__proto__": {"default": "allow"}, "sources": [{"__proto__": {"urls": ["https://a.example"]}}], "presets": ["__proto__", "constructor"], "constructor": 1}'],
  ['lines.netpolicy.json', '\uFEFF{\r\n  "default": "deny",\r  "presets": ["npm", "😀"],\r\n  "connections": [{"tcp": {"cidrs": ["10.0.0.1/8"]}}]\r\n}\r\n'],
  ['broken.netpolicy.json', '{"presets": ["np", , "sources": [{"npm": {"urls": ["http://x'],
];

describe('every request, every few offsets, through the server', () => {
  const cases: Array<[string, string]> = [...policyFiles(fixtures).map((f) => [f.slice(fixtures.length).replace(/\//g, '_'), readFileSync(f, 'utf8')] as [string, string]), ...hostile];
  it.each(cases)('%s', async (name, text) => {
    c = await startClient({ capabilities: { workspace: { configuration: true } } });
    const uri = `untitled:${name.endsWith('.jsonc') || name.endsWith('.json') ? name : `${name}.netpolicy.json`}`;
    await c.open(uri, text, 1);
    const published = await c.diagnostics(uri, 1);
    const td = { uri };
    const lines = new LineIndex(text);
    const step = Math.max(1, Math.ceil(text.length / 300));
    const answers: Array<Promise<unknown>> = [];
    // Formatting refuses a document nested deeper than the parser's 128 levels (RequestFailed, saying why).
    const formatted = (answer: Promise<unknown>) => (name === 'deep.netpolicy.json' ? expect(answer).rejects.toMatchObject({ code: -32803, message: expect.stringContaining('128 levels') }) : answer);
    for (const m of ['textDocument/documentSymbol', 'textDocument/foldingRange', 'textDocument/documentLink', 'textDocument/codeLens']) answers.push(c.request(m, { textDocument: td }));
    for (const options of [{ tabSize: 2, insertSpaces: true }, { tabSize: 4, insertSpaces: false, insertFinalNewline: true, trimTrailingWhitespace: true, trimFinalNewlines: true }]) {
      answers.push(formatted(c.request('textDocument/formatting', { textDocument: td, options })));
    }
    for (let o = 0; o <= text.length; o += step) {
      const position = lines.positionAt(o);
      const range = { start: lines.positionAt(Math.max(0, o - 7)), end: position };
      answers.push(
        c.request('textDocument/completion', { textDocument: td, position }),
        c.request('textDocument/hover', { textDocument: td, position }),
        c.request('textDocument/codeAction', { textDocument: td, range, context: { diagnostics: published.diagnostics } }),
        c.request('textDocument/codeAction', { textDocument: td, range, context: { diagnostics: [], only: ['source.fixAll'] } }),
        c.request('textDocument/selectionRange', { textDocument: td, positions: [position] }),
        formatted(c.request('textDocument/rangeFormatting', { textDocument: td, range, options: { tabSize: 2, insertSpaces: true } })),
      );
    }
    const results = await Promise.all(answers);
    expect(results.length).toBe(answers.length);
    expect(c.logs.filter((l) => l.type === 1 || /failed/.test(l.message))).toEqual([]);
  });
});
