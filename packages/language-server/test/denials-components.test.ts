import { afterEach, describe, expect, it } from 'vitest';
import { copyFileSync, mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { poll, startClient, fileUri, type TestClient } from './harness';

const NPM = fileURLToPath(new URL('../../../fixtures/attribution/npm/', import.meta.url));

let clients: TestClient[] = [];
afterEach(async () => {
  await Promise.all(clients.map((c) => c.close()));
  clients = [];
});

const denialsOf = (c: TestClient, uri: string, ok: (r: any) => boolean): Promise<any> => poll(() => c.request<any>('netpolicy/denials', { uri }), ok, 20_000);

describe('netpolicy/denials names the SBOM components behind denials', () => {
  it('reads NAME.cdx.json beside a trace NAME.json; a trace without one lists no components', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'np-ls-sbom-'));
    mkdirSync(join(dir, 'traces'));
    copyFileSync(join(NPM, 'trace.json'), join(dir, 'traces/job.json'));
    copyFileSync(join(NPM, 'sbom.cdx.json'), join(dir, 'traces/job.cdx.json'));
    const text = '{ "default": "deny" }';
    const uri = fileUri(join(dir, 'ci.netpolicy.json'));
    writeFileSync(join(dir, 'ci.netpolicy.json'), text);
    const c = await startClient({ rootUri: fileUri(dir), settings: { traces: ['traces'] } });
    clients.push(c);
    await c.open(uri, text, 1);
    const r = await denialsOf(c, uri, (x) => x.denials.length > 0);
    // The SBOM is not taken for a trace of its own.
    expect(r.traces).toEqual([join(dir, 'traces/job.json')]);
    expect(r.errors).toEqual([]);
    const named = r.denials.filter((d: any) => d.components?.length);
    expect(named.length).toBeGreaterThan(0);
    for (const d of named) expect(d.components[0].purl ?? d.components[0].name).toMatch(/npm|\w/);
    expect(named.some((d: any) => String(d.components[0].purl).startsWith('pkg:npm/'))).toBe(true);

    // Without the SBOM, the same denials and no components.
    const dir2 = mkdtempSync(join(tmpdir(), 'np-ls-sbom-'));
    copyFileSync(join(NPM, 'trace.json'), join(dir2, 'job.json'));
    const uri2 = fileUri(join(dir2, 'ci.netpolicy.json'));
    writeFileSync(join(dir2, 'ci.netpolicy.json'), text);
    const c2 = await startClient({ rootUri: fileUri(dir2), settings: { traces: ['job.json'] } });
    clients.push(c2);
    await c2.open(uri2, text, 1);
    const r2 = await denialsOf(c2, uri2, (x) => x.denials.length > 0);
    expect(r2.denials.length).toBe(r.denials.length);
    expect(r2.denials.every((d: any) => d.components === undefined)).toBe(true);
  });
});

describe('netpolicy.filePatterns from the editor with too many {} alternatives', () => {
  it('leaves that pattern out with one message, and the other patterns still apply', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'np-ls-globs-'));
    mkdirSync(join(dir, 'policies'));
    const text = '{ "default": "deny", "presets": ["pypy"] }';
    writeFileSync(join(dir, 'policies/x.json'), text);
    const bomb = `${'{a,b}'.repeat(9)}.json`;
    const c = await startClient({ rootUri: fileUri(dir), settings: { filePatterns: [bomb, 'policies/*.json'] } });
    clients.push(c);
    const uri = fileUri(join(dir, 'policies/x.json'));
    await c.open(uri, text, 1);
    const until = Date.now() + 20_000;
    while (!c.published.some((p) => p.uri === uri && p.diagnostics.some((d: any) => d.code === 'unknown-preset')) && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    expect(c.published.some((p) => p.uri === uri && p.diagnostics.some((d: any) => d.code === 'unknown-preset'))).toBe(true);
    const said = c.messages.filter((m) => m.message.includes('netpolicy.filePatterns') && m.message.includes('the limit'));
    expect(said.length).toBe(1);
  });
});
