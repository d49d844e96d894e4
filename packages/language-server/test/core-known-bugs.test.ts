/**
 * Core bugs found by probing the server, which packages/core must fix (this package may not edit
 * core). Each is an `it.fails`: it passes while the bug is there and FAILS once core is fixed,
 * to be turned into a plain `it` then (it is not a skip: it runs, against a spawned server).
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

describe('known core bugs (it.fails: flip to it when core is fixed)', () => {
  // packages/core/src/lint/coverage-keys.ts RuleKeys.host() hashes the suffix after every dot of a
  // host pattern (hostHash(host, dot, true) is O(length) per dot) and dedupes with a linear scan:
  // quadratic. A 400 KB pattern `*.a.a.…a.-` blocks the server for minutes (16,000 labels: 0.8 s;
  // 524,288: the core test "a 1 MB adversarial string ..." in validate.test.ts never ends). A host
  // pattern over 253 characters can match nothing, so it needs no parent keys.
  // Fixed (branch check): the parent keys are hashed in one right-to-left pass, and a rule with over
  // 256 keys to look up makes every rule take part instead of listing them.
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
  }, 10_000);
});
