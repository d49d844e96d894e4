/**
 * `explain --sbom` reads the SBOM with the policy in force: the URLs of its sources are Maven
 * repository bases (and registries) to attribution, so a Maven file fetched from a private
 * repository the policy names is attributed, and the same file is not without that source.
 * Through the CLI as a process, from a file and from stdin.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from './run-cli';

const dir = mkdtempSync(join(tmpdir(), 'netpolicy-explain-sbom-policy-'));
const REPO = 'https://maven.acme.example/repository/releases';
const path = 'com/acme/platform/billing-core/3.4.1';

// Neither the purl (no repository_url) nor a distribution reference names the private repository.
const sbom = join(dir, 'sbom.cdx.json');
writeFileSync(sbom, JSON.stringify({
  bomFormat: 'CycloneDX', specVersion: '1.6', version: 1,
  components: [
    { type: 'library', 'bom-ref': 'billing-core', group: 'com.acme.platform', name: 'billing-core', version: '3.4.1', purl: 'pkg:maven/com.acme.platform/billing-core@3.4.1?type=jar' },
    { type: 'library', 'bom-ref': 'guava', group: 'com.google.guava', name: 'guava', version: '33.0.0-jre', purl: 'pkg:maven/com.google.guava/guava@33.0.0-jre?type=jar' },
  ],
}));

const urls = [
  `${REPO}/${path}/billing-core-3.4.1.jar`, // 1: the component's jar
  `${REPO}/${path}/billing-core-3.4.1.pom.sha1`, // 2: its POM's checksum
  `${REPO}/com/acme/platform/billing-core/maven-metadata.xml`, // 3: the artifact's metadata (name only)
  `${REPO}/${path}/billing-core-3.4.2.jar`, // 4: a near miss: another version's file under the version folder
  `https://maven.acme.example/repository/snapshots/${path}/billing-core-3.4.1.jar`, // 5: a repository the policy does not name
  'https://repo1.maven.org/maven2/com/google/guava/guava/33.0.0-jre/guava-33.0.0-jre.jar', // 6: Maven Central, known either way
];
const trace = join(dir, 'trace.json');
writeFileSync(trace, JSON.stringify({
  schema_version: '1.0',
  job: { provider: 'ciprovider', repository: 'acme/billing', job_id: '41', status: 'success' },
  observations: urls.map((url, i) => ({
    protocol: 'http', observed_at: `2026-03-02T10:15:0${i}.000Z`, sequence: i + 1, method: 'GET', url,
    remote_ip: `2001:db8::${i + 1}`, status_code: 200, denied: false,
  })),
}));

const policyFile = (name: string, sources: unknown[]) => {
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify({ presets: [], sources, connections: [{ tls: { serverNamePatterns: ['repo1.maven.org'], ports: [443] } }] }));
  return file;
};
// No source kind is Maven's: the private repository is named by the URL of an HTTP registry source.
const withRepo = policyFile('with-repo.netpolicy.json', [{ npm: { urls: [REPO] } }]);
const withoutRepo = policyFile('without-repo.netpolicy.json', [{ npm: { urls: ['https://registry.npmjs.org'] } }]);

const componentsBySequence = (policy: string, sbomArg = sbom, input?: string) => {
  const r = runCli(['explain', '--policy', policy, '--trace', trace, '--sbom', sbomArg, '--format', 'json'], { input });
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  const report = JSON.parse(r.stdout) as { results: { sequence: number; components: { bomRef: string; match: string }[] }[] };
  return Object.fromEntries(report.results.map((x) => [x.sequence, x.components.map((c) => `${c.bomRef} ${c.match}`)]));
};

describe('explain --sbom with the policy in force', () => {
  it('a Maven file from a repository a policy source names is attributed; without that source it is not', () => {
    expect(componentsBySequence(withRepo)).toEqual({
      1: ['billing-core purl'],
      2: ['billing-core purl'],
      3: ['billing-core name'],
      4: [],
      5: [],
      6: ['guava purl'],
    });
    expect(componentsBySequence(withoutRepo)).toEqual({ 1: [], 2: [], 3: [], 4: [], 5: [], 6: ['guava purl'] });
  });

  it('the same from an SBOM on stdin, and in the text report under each denial', () => {
    expect(componentsBySequence(withRepo, '-', readFileSync(sbom, 'utf8'))[1]).toEqual(['billing-core purl']);
    // A base is compared by host and path: the source's scheme and port do not allow the https
    // downloads (denied by the model), but they name the repository.
    const otherPort = policyFile('other-port.netpolicy.json', [{ npm: { urls: ['http://maven.acme.example:8081/repository/releases'] } }]);
    const text = runCli(['explain', '--policy', otherPort, '--trace', trace, '--sbom', sbom]);
    expect(text.code).toBe(0);
    const lines = text.stdout.split('\n');
    const under = (url: string) => lines[lines.findIndex((l) => l.includes(`GET ${url}  (sequence`)) + 1];
    expect(under(urls[0])).toBe('      component: pkg:maven/com.acme.platform/billing-core@3.4.1?type=jar (purl)');
    expect(under(urls[3])).toBe('      component: none in the SBOM');
    expect(under(urls[4])).toBe('      component: none in the SBOM');
  });
});
