/**
 * `netpolicy/denials` reads the SBOM beside a trace with the open policy's sources: their URLs are
 * Maven repository bases to attribution (core's `indexSbom(sbom, { policy })`). An edit of the
 * sources changes the components named, and an edit back names them again.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { poll, startClient, fileUri, type TestClient } from './harness';

let clients: TestClient[] = [];
afterEach(async () => {
  await Promise.all(clients.map((c) => c.close()));
  clients = [];
});

const REPO = 'maven.acme.example/repository/releases';
const JAR = `https://${REPO}/com/acme/platform/billing-core/3.4.1/billing-core-3.4.1.jar`;
const ELSEWHERE = `https://maven.acme.example/repository/snapshots/com/acme/platform/billing-core/3.4.1/billing-core-3.4.1.jar`;

/**
 * A policy naming the private repository on another port and scheme (a base is compared by host
 * and path), so that the https downloads stay denials; or one naming another repository.
 */
const policyText = (url: string) => JSON.stringify({ presets: [], sources: [{ npm: { urls: [url] } }] });
const WITH = policyText(`http://${REPO.replace('/', ':8081/')}`);
const WITHOUT = policyText('https://registry.npmjs.org');

const componentsOf = (r: any) => Object.fromEntries(r.denials.map((d: any) => [d.destination, (d.components ?? []).map((c: any) => `${c.purl} ${c.match}`)]));

describe('netpolicy/denials with the policy\'s sources as Maven repository bases', () => {
  it('names the component of a file from a repository the open policy names, and none once the source is edited away', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'np-ls-sbom-policy-'));
    mkdirSync(join(dir, 'traces'));
    writeFileSync(join(dir, 'traces/job.json'), JSON.stringify({
      schema_version: '1.0',
      job: { provider: 'ciprovider', repository: 'acme/billing', job_id: '41', status: 'success' },
      observations: [JAR, ELSEWHERE].map((url, i) => ({
        protocol: 'http', observed_at: `2026-03-02T10:15:0${i}.000Z`, sequence: i + 1, method: 'GET', url, remote_ip: `2001:db8::${i + 1}`, status_code: 200, denied: false,
      })),
    }));
    writeFileSync(join(dir, 'traces/job.cdx.json'), JSON.stringify({
      bomFormat: 'CycloneDX', specVersion: '1.6', version: 1,
      components: [{ type: 'library', 'bom-ref': 'billing-core', group: 'com.acme.platform', name: 'billing-core', version: '3.4.1', purl: 'pkg:maven/com.acme.platform/billing-core@3.4.1?type=jar' }],
    }));
    const uri = fileUri(join(dir, 'ci.netpolicy.json'));
    writeFileSync(join(dir, 'ci.netpolicy.json'), WITH);
    const c = await startClient({ rootUri: fileUri(dir), settings: { traces: ['traces'] } });
    clients.push(c);
    await c.open(uri, WITH, 1);
    const named = { [`GET ${JAR}`]: ['pkg:maven/com.acme.platform/billing-core@3.4.1?type=jar purl'], [`GET ${ELSEWHERE}`]: [] };
    const none = { [`GET ${JAR}`]: [], [`GET ${ELSEWHERE}`]: [] };
    const denials = (ok: (r: any) => boolean) => poll(() => c.request<any>('netpolicy/denials', { uri }), ok, 20_000);
    const is = (expected: object) => (r: any) => r.denials.length === 2 && JSON.stringify(componentsOf(r)) === JSON.stringify(expected);

    expect(componentsOf(await denials(is(named)))).toEqual(named);
    let version = 1;
    const edit = async (text: string) => {
      version++;
      await c.notify('textDocument/didChange', { textDocument: { uri, version }, contentChanges: [{ text }] });
    };
    await edit(WITHOUT);
    expect(componentsOf(await denials(is(none)))).toEqual(none);
    await edit(WITH);
    expect(componentsOf(await denials(is(named)))).toEqual(named);
    expect(c.logs.filter((l) => l.type === 1)).toEqual([]);
  });
});
