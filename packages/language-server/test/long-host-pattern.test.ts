/**
 * A hostile host pattern through a spawned server: found by probing the server, fixed in core
 * (lint/coverage-keys.ts makes a pattern's keys in one right-to-left pass).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileUri, startClient, type TestClient } from './harness';

let c: TestClient | undefined;
// The server may still be blocked: no shutdown handshake, the process is killed.
afterEach(() => {
  c?.connection.dispose();
  c?.child?.kill('SIGKILL');
  c = undefined;
});

describe('a long host pattern', () => {
  // Core's coverage keys used to hash the suffix after every dot of a host pattern and dedupe with
  // a linear scan: quadratic. A 400 KB pattern `*.a.a.…a.-` blocked the server for minutes.
  it('a 400 KB host pattern of 200,000 labels is checked in seconds, and the server keeps answering', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'np-ls-core-bug-'));
    const uri = fileUri(join(dir, 'a.netpolicy.json'));
    c = await startClient({ spawn: true, rootUri: fileUri(dir) });
    const pattern = `*.${'a.'.repeat(200_000)}-`;
    await c.open(uri, JSON.stringify({ presets: [], connections: [{ tcp: { hostPatterns: [pattern] } }] }), 1);
    const published = await c.diagnostics(uri, 1);
    expect(published.diagnostics.map((d) => d.code)).toContain('invalid-host-pattern');
    const hover = await c.request('textDocument/hover', { textDocument: { uri }, position: { line: 0, character: 3 } });
    expect(hover).not.toBeNull();
  });
});
