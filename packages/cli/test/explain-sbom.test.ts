/** `explain --sbom FILE`: components per result (JSON, text, Markdown), denials per component, bad SBOMs. */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot, runCli } from './run-cli';

const fixture = (eco: string, file: string) => join(repoRoot, 'fixtures/attribution', eco, file);
const dir = mkdtempSync(join(tmpdir(), 'netpolicy-explain-sbom-'));
// npm.pkg.example.com, artifactory and yarnpkg are denied; registry.npmjs.org is allowed.
const policy = join(dir, 'policy.netpolicy.json');
writeFileSync(policy, JSON.stringify({ presets: [], sources: [{ npm: { urls: ['https://registry.npmjs.org'] } }], connections: [{ tls: { serverNamePatterns: ['github.com'], ports: [443] } }] }));

interface Expected { sequence: number; components: { bomRef: string; match: string }[] }
const json = (eco: string, extra: string[] = []) => {
  const r = runCli(['explain', '--policy', policy, '--trace', fixture(eco, 'trace.json'), '--sbom', fixture(eco, 'sbom.cdx.json'), '--format', 'json', ...extra]);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout);
};

describe('explain --sbom', () => {
  for (const eco of ['npm', 'git']) {
    it(`${eco}: JSON results carry the components expected.json names (name-only as "name")`, () => {
      const expected = JSON.parse(readFileSync(fixture(eco, 'expected.json'), 'utf8')) as Expected[];
      const report = json(eco);
      const bySequence = new Map(expected.map((e) => [e.sequence, e.components.map((c) => ({ bomRef: c.bomRef, match: c.match === 'name-only' ? 'name' : c.match }))]));
      // DNS and TCP observations are results too: each has `components`.
      expect(report.results.length).toBe(expected.length);
      for (const r of report.results) {
        expect({ sequence: r.sequence, components: r.components.map((c: { bomRef: string; match: string }) => ({ bomRef: c.bomRef, match: c.match })) })
          .toEqual({ sequence: r.sequence, components: bySequence.get(r.sequence) });
      }
    });
  }

  it('JSON: a component as contracts.md shows it, and the summary counts denials per component', () => {
    const report = json('npm');
    const tarball = report.results.find((r: { destination: string }) => r.destination.endsWith('/@acme/ui/-/ui-3.1.0.tgz'));
    expect(tarball.components).toEqual([{ purl: 'pkg:npm/%40acme/ui@3.1.0?repository_url=https://npm.pkg.example.com', name: 'ui', version: '3.1.0', bomRef: 'pkg:npm/%40acme/ui@3.1.0?repository_url=https://npm.pkg.example.com', match: 'purl' }]);
    expect(Object.keys(tarball.components[0])).toEqual(['purl', 'name', 'version', 'bomRef', 'match']);
    // Denied by the model: @acme/ui's packument and tarball, left-pad's tarball (no purl), lodash from
    // artifactory, and a telemetry request that names no component.
    expect(report.summary.components).toEqual([
      { purl: 'pkg:npm/%40acme/ui@3.1.0?repository_url=https://npm.pkg.example.com', name: 'ui', version: '3.1.0', bomRef: 'pkg:npm/%40acme/ui@3.1.0?repository_url=https://npm.pkg.example.com', denied: 2, downloadDenied: true },
      { name: 'left-pad', version: '1.3.0', bomRef: 'left-pad@1.3.0', denied: 1, downloadDenied: false },
      { purl: 'pkg:npm/lodash@4.17.21', name: 'lodash', version: '4.17.21', bomRef: 'pkg:npm/lodash@4.17.21', denied: 1, downloadDenied: true },
    ]);
    expect(report.summary.unattributedDenials).toBe(1);
    expect(report.summary.denied).toBe(5);
  });

  it('--only denied lists fewer results but the summary still counts every denial', () => {
    const report = json('npm', ['--only', 'denied']);
    expect(report.results.length).toBeLessThan(json('npm').results.length);
    expect(report.results.every((r: { components?: unknown }) => Array.isArray(r.components))).toBe(true);
    expect(report.summary.components.map((c: { denied: number }) => c.denied)).toEqual([2, 1, 1]);
  });

  it('without --sbom the report has no components', () => {
    const r = runCli(['explain', '--policy', policy, '--trace', fixture('npm', 'trace.json'), '--format', 'json']);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.results.some((x: object) => 'components' in x)).toBe(false);
    expect('components' in report.summary).toBe(false);
    expect(runCli(['explain', '--policy', policy, '--trace', fixture('npm', 'trace.json')]).stdout).not.toContain('component');
  });

  it('text: a component line under each denial and the components section', () => {
    const r = runCli(['explain', '--policy', policy, '--trace', fixture('npm', 'trace.json'), '--sbom', fixture('npm', 'sbom.cdx.json'), '--only', 'denied']);
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    const at = lines.findIndex((l) => l.includes('GET https://npm.pkg.example.com/@acme/ui/-/ui-3.1.0.tgz'));
    expect(lines[at + 1]).toBe('      component: pkg:npm/%40acme/ui@3.1.0?repository_url=https://npm.pkg.example.com (purl)');
    const telemetry = lines.findIndex((l) => l.includes('GET https://telemetry.example.io/express'));
    expect(lines[telemetry + 1]).toBe('      component: none in the SBOM');
    const section = lines.indexOf('SBOM components with denied accesses: 3 (2 with a denied download)');
    expect(section).toBeGreaterThan(telemetry);
    expect(lines.slice(section + 2, section + 6)).toEqual([
      '  ✗ pkg:npm/%40acme/ui@3.1.0?repository_url=https://npm.pkg.example.com  ×2  (download denied)',
      '  · left-pad@1.3.0  ×1',
      '  ✗ pkg:npm/lodash@4.17.21  ×1  (download denied)',
      '  1 denied access named no component of the SBOM',
    ]);
  });

  it('markdown: a Component column and the components table', () => {
    const r = runCli(['explain', '--policy', policy, '--trace', fixture('npm', 'trace.json'), '--sbom', fixture('npm', 'sbom.cdx.json'), '--format', 'markdown']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('| Destination | Count | Recorded vs model | Nearest rule | Fix | Component |\n|---|---|---|---|---|---|');
    expect(r.stdout).toMatch(/\| `GET https:\/\/registry\.yarnpkg\.com\/left-pad\/-\/left-pad-1\.3\.0\.tgz` \|.*\| `left-pad@1\.3\.0` \(name only\) \|\n/);
    expect(r.stdout).toContain('### SBOM components with denied accesses\n\n| Component | Denied | Download denied |\n|---|---|---|\n| `pkg:npm/%40acme/ui@3.1.0?repository_url=https://npm.pkg.example.com` | 2 | yes |');
  });

  it('github: each denial annotation names its components; the summary and the log carry the components', () => {
    const summary = join(dir, 'step-summary.md');
    writeFileSync(summary, '');
    const r = runCli(['explain', '--policy', policy, '--trace', fixture('npm', 'trace.json'), '--sbom', fixture('npm', 'sbom.cdx.json'), '--format', 'github'], { env: { GITHUB_STEP_SUMMARY: summary } });
    expect(r.code).toBe(0);
    const annotation = r.stdout.split('\n').find((l) => l.startsWith('::warning') && l.includes('npm.pkg.example.com/@acme/ui/-/ui-3.1.0.tgz'));
    // Workflow commands escape newlines in a message as %0A.
    expect(annotation).toContain('%0Acomponent: pkg:npm/%2540acme/ui@3.1.0?repository_url=https://npm.pkg.example.com (purl)');
    const telemetry = r.stdout.split('\n').find((l) => l.startsWith('::warning') && l.includes('telemetry.example.io/express'));
    expect(telemetry).toContain('%0Acomponent: none in the SBOM');
    expect(r.stdout).toContain('SBOM components with denied accesses: 3 (2 with a denied download)');
    expect(readFileSync(summary, 'utf8')).toContain('### SBOM components with denied accesses');
  });

  it('an SBOM on stdin; two stdin arguments refused', () => {
    const sbom = readFileSync(fixture('git', 'sbom.cdx.json'), 'utf8');
    const r = runCli(['explain', '--policy', policy, '--trace', fixture('git', 'trace.json'), '--sbom', '-', '--format', 'json'], { input: sbom });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).results[3].components).toEqual([{ name: 'thirdparty-lib', version: '0.9.0', bomRef: 'thirdparty-lib@0.9.0', match: 'vcs-url' }]);
    const both = runCli(['explain', '--policy', policy, '--trace', '-', '--sbom', '-'], { input: sbom });
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('standard input (`-`) can be read only once');
  });

  it('an SBOM that is not JSON, not CycloneDX, or missing: exit 2 naming the file', () => {
    const notJson = join(dir, 'not-json.cdx.json');
    writeFileSync(notJson, '{"bomFormat": ');
    const notCdx = join(dir, 'spdx.json');
    writeFileSync(notCdx, JSON.stringify({ spdxVersion: 'SPDX-2.3', packages: [] }));
    for (const [file, message] of [[notJson, 'not valid JSON'], [notCdx, 'not a CycloneDX SBOM'], [join(dir, 'missing.json'), 'cannot read']] as const) {
      const r = runCli(['explain', '--policy', policy, '--trace', fixture('npm', 'trace.json'), '--sbom', file]);
      expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 2, stdout: '' });
      expect(r.stderr).toContain(message);
      expect(r.stderr).toContain(file.split('/').pop());
    }
  });

  it('a hostile SBOM (malformed components, control characters) is read and shown escaped', () => {
    const hostile = join(dir, 'hostile.cdx.json');
    writeFileSync(hostile, JSON.stringify({
      bomFormat: 'CycloneDX', specVersion: '1.7',
      components: [null, 5, { name: 7 }, { name: 'left-pad', version: '1.3.0', purl: 'pkg:npm/left-pad@1.3.0?note=a\u001b[31mb' }, { name: 'p', externalReferences: 'x' }],
    }));
    const r = runCli(['explain', '--policy', policy, '--trace', fixture('npm', 'trace.json'), '--sbom', hostile, '--only', 'denied']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('      component: pkg:npm/left-pad@1.3.0?note=a\\u001b[31mb (purl)');
    expect(r.stdout).not.toContain('\u001b');
  });
});
