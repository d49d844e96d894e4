import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { validate } from '@netpolicy/core';
import { fileUri, startClient, type TestClient } from './harness';

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

let clients: TestClient[] = [];
afterEach(async () => {
  await Promise.all(clients.map((c) => c.close()));
  clients = [];
});

async function client(options: Parameters<typeof startClient>[0] = {}): Promise<TestClient> {
  const c = await startClient(options);
  clients.push(c);
  return c;
}

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
