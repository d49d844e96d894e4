/**
 * Through the real server: after any chain of incremental edits (one change or several per
 * notification, several notifications before a publish), the diagnostics published for a version
 * are those of the same text opened fresh. The server reparses one rule when an edit stays inside
 * it (core's reparsePolicyDocument, text-changes.ts); this holds it to a whole parse.
 */
import { afterEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { LineIndex } from '@netpolicy/core';
import { startClient, type TestClient } from './harness';

let c: TestClient | undefined;
afterEach(async () => { await c?.close(); c = undefined; });

const policy = JSON.stringify({
  default: 'deny',
  presets: ['npm'],
  sources: [
    { pypi: { urls: ['https://pypi.org/simple/'] } },
    { npm: { urls: ['https://registry.npmjs.org/'] } },
    { git: { urls: ['https://github.com/acme/app.git'] } },
    { npm: { urls: ['https://registry.npmjs.org/'] } },
  ],
  connections: [
    { tcp: { cidrs: ['10.0.0.0/8'], ports: [5432] } },
    { tls: { hosts: ['api.example.com'], ports: [443] } },
  ],
}, null, 2);

/** One change: replace [at, at + length) with `text`; `kind` picks where (see place). */
const change = fc.record({ at: fc.nat(), length: fc.nat({ max: 4 }), text: fc.constantFrom('', '1', 'x', '"', '}', ',', '"a": 1, ', 'ab', ' '), kind: fc.constantFrom('any', 'quote', 'digit') });

function place(text: string, ch: { at: number; length: number; text: string; kind: string }): { start: number; end: number; text: string } {
  const found = (re: RegExp) => [...text.matchAll(re)].map((m) => m.index!);
  if (ch.kind === 'quote') {
    const quotes = found(/"/g);
    const start = quotes.length > 0 ? quotes[ch.at % quotes.length]! + 1 : 0;
    return { start, end: start, text: 'q' };
  }
  if (ch.kind === 'digit') {
    const digits = found(/[0-9]/g);
    const start = digits.length > 0 ? digits[ch.at % digits.length]! : 0;
    return { start, end: Math.min(start + 1, text.length), text: String(ch.at % 10) };
  }
  const start = ch.at % (text.length + 1);
  return { start, end: Math.min(start + ch.length, text.length), text: ch.text };
}

const withoutUri = (diagnostics: any[]) => JSON.parse(JSON.stringify(diagnostics, (k, v) => (k === 'uri' ? undefined : v)));

describe('incremental edits', () => {
  it('publish what a fresh open of the same text publishes', async () => {
    c = await startClient({ capabilities: { workspace: { configuration: true } } });
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(fc.array(fc.array(change, { minLength: 1, maxLength: 2 }), { minLength: 1, maxLength: 2 }), { minLength: 1, maxLength: 5 }), async (steps) => {
        const client = c!;
        const uri = `untitled:edited-${++run}.netpolicy.json`;
        let text = policy;
        let version = 1;
        await client.open(uri, text, version);
        await client.diagnostics(uri, version);
        let fresh = 0;
        for (const notifications of steps) {
          // Several notifications before the publish that is compared, each with one or more changes.
          for (const changes of notifications) {
            const contentChanges = [];
            for (const ch of changes) {
              const { start, end, text: inserted } = place(text, ch);
              const lines = new LineIndex(text);
              contentChanges.push({ range: { start: lines.positionAt(start), end: lines.positionAt(end) }, text: inserted });
              text = text.slice(0, start) + inserted + text.slice(end);
            }
            await client.notify('textDocument/didChange', { textDocument: { uri, version: ++version }, contentChanges });
          }
          const edited = await client.diagnostics(uri, version);
          const freshUri = `untitled:fresh-${run}-${++fresh}.netpolicy.json`;
          await client.open(freshUri, text, 1);
          const expected = await client.diagnostics(freshUri, 1);
          expect(withoutUri(edited.diagnostics)).toEqual(withoutUri(expected.diagnostics));
          await client.notify('textDocument/didClose', { textDocument: { uri: freshUri } });
        }
        await client.notify('textDocument/didClose', { textDocument: { uri } });
      }),
      { numRuns: 40 },
    );
    expect(c.logs.filter((l) => l.type === 1)).toEqual([]);
  }, 120_000);
});
