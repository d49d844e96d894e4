/**
 * `serverNodeOptions` (protocol.ts): the Node.js options the VS Code extension starts the server
 * with. Their values for each machine size, and the built server started with them over stdio:
 * Node accepts them (a bad option ends the process before it answers), the server checks a policy,
 * answers a request, and ends with code 0 on `shutdown` and `exit`.
 */
import { availableParallelism } from 'node:os';
import { describe, expect, it } from 'vitest';
import { serverNodeOptions } from '../src/protocol';
import { startClient } from './harness';

/** A hung server, not a measure: the test fails after this long. */
const HANG_MS = 60_000;

describe('serverNodeOptions', () => {
  it('leaves the main thread a core: one background thread fewer than the cores, between 1 and Node’s 4', () => {
    expect(serverNodeOptions(1)).toEqual(['--v8-pool-size=1']);
    expect(serverNodeOptions(2)).toEqual(['--v8-pool-size=1']);
    expect(serverNodeOptions(3)).toEqual(['--v8-pool-size=2']);
    expect(serverNodeOptions(4)).toEqual(['--v8-pool-size=3']);
    expect(serverNodeOptions(5)).toEqual(['--v8-pool-size=4']);
    expect(serverNodeOptions(64)).toEqual(['--v8-pool-size=4']);
  });

  it('asks for no more than Node’s own pool when the count is not a number, and for one thread when it is 0 or less', () => {
    expect(serverNodeOptions(Number.NaN)).toEqual(['--v8-pool-size=4']);
    expect(serverNodeOptions(Number.POSITIVE_INFINITY)).toEqual(['--v8-pool-size=4']);
    expect(serverNodeOptions(0)).toEqual(['--v8-pool-size=1']);
    expect(serverNodeOptions(-3)).toEqual(['--v8-pool-size=1']);
    expect(serverNodeOptions(2.9)).toEqual(['--v8-pool-size=1']);
  });

  for (const cores of [1, availableParallelism()]) {
    it(`starts the built server that works and ends cleanly (options for ${cores} core${cores === 1 ? '' : 's'})`, async () => {
      const c = await startClient({ spawn: true, nodeOptions: serverNodeOptions(cores) });
      const child = c.child!;
      const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
      try {
        const uri = 'file:///options/p.netpolicy.json';
        await c.open(uri, '{ "sources": [ { "pypi": { "urls": ["http://pypi.internal.example"] } } ], "connections": [ { "tcp": { "cidrs": ["10.0.0.0/8"], "ports": [5432] } } ] }');
        const published = await c.diagnostics(uri, 1);
        expect(published.diagnostics.map((d) => d.code)).toContain('insecure-url');
        const hints = await c.request('textDocument/inlayHint', { textDocument: { uri }, range: { start: { line: 0, character: 0 }, end: { line: 1, character: 0 } } }) as Array<{ label: string }>;
        expect(hints.map((h) => h.label)).toEqual(expect.arrayContaining(['16,777,216 addresses', 'postgres']));
        await c.connection.sendRequest('shutdown');
        await c.connection.sendNotification('exit');
        expect(await ended).toEqual({ code: 0, signal: null });
      } finally {
        await c.close();
      }
    }, HANG_MS);
  }
});
