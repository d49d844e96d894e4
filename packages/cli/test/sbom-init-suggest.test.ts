/** `init --sbom` (presets and sources from an SBOM's components) and `suggest --sbom` (components per suggested rule). */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot, runCli } from './run-cli';

const fixture = (eco: string, file: string) => join(repoRoot, 'fixtures/attribution', eco, file);
const ECOSYSTEMS = ['alpine', 'cargo', 'debian', 'git', 'golang', 'npm', 'oci', 'pypi', 'rubygems'];

describe('init --sbom', () => {
  for (const eco of ECOSYSTEMS) {
    it(`${eco}: the starter allows every component's download, passes check --strict and its own tests`, () => {
      const dir = mkdtempSync(join(tmpdir(), `netpolicy-init-sbom-${eco}-`));
      const init = runCli(['init', '--sbom', fixture(eco, 'sbom.cdx.json'), dir]);
      expect(init.stderr).toBe('');
      expect(init.code).toBe(0);
      expect(init.stdout).toMatch(/from the SBOM: \d+ components? with a known source/);
      const policy = join(dir, 'policy.netpolicy.jsonc');
      expect(runCli(['check', '--strict', dir]).code).toBe(0);
      const test = runCli(['test', '--policy', policy, join(dir, 'policy.tests.json')]);
      expect(test.stdout).toMatch(/(\d+) passed, 0 failed/);
      expect(test.code).toBe(0);
      // The fixture's trace: every access attributed to a component with a purl match is allowed.
      const expected = JSON.parse(readFileSync(fixture(eco, 'expected.json'), 'utf8')) as { sequence: number; components: { match: string }[] }[];
      const report = JSON.parse(runCli(['explain', '--policy', policy, '--trace', fixture(eco, 'trace.json'), '--sbom', fixture(eco, 'sbom.cdx.json'), '--format', 'json']).stdout);
      const denied = report.results.filter((r: { model: { verdict: string }; components: { match: string }[] }) => r.model.verdict === 'deny' && r.components.some((c) => c.match === 'purl'));
      // Not the SBOM's to allow: mirrors and other registries than the purls' (artifactory, a Go
      // proxy, public.ecr); crates.io's API download (cargo downloads from static.crates.io); GitHub
      // archives (init allows the repository's git transfers); the job's push of its own image
      // (init allows pulls).
      const elsewhere = /artifactory|goproxy\.example|public\.ecr|crates\.io\/api\/|\/archive\/|^PUT /;
      expect(denied.filter((r: { destination: string }) => !elsewhere.test(r.destination)).map((r: { destination: string }) => r.destination)).toEqual([]);
      expect(expected.length).toBe(report.results.length);
    });
  }

  it('npm: the registry of a purl\'s repository_url becomes a source, the public one a preset', () => {
    const dir = mkdtempSync(join(tmpdir(), 'netpolicy-init-sbom-'));
    expect(runCli(['init', '--sbom', fixture('npm', 'sbom.cdx.json'), dir]).code).toBe(0);
    const text = readFileSync(join(dir, 'policy.netpolicy.jsonc'), 'utf8');
    expect(text).toContain('"presets": ["npm"]');
    expect(text).toContain('"https://npm.pkg.example.com"');
    const tests = JSON.parse(readFileSync(join(dir, 'policy.tests.json'), 'utf8')).tests as { rule: string; http?: { url: string } }[];
    expect(tests.map((t) => t.rule)).toEqual(['preset:npm', '/sources/0', '/sources/1', 'default']);
    expect(tests[1].http!.url).toBe('https://npm.pkg.example.com/@acme/ui/-/ui-3.1.0.tgz');
  });

  it('a bad SBOM writes nothing (exit 2)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'netpolicy-init-sbom-'));
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, '[1, 2]');
    const r = runCli(['init', '--sbom', bad, dir]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('not a CycloneDX SBOM');
    expect(runCli(['init', dir]).code).toBe(0); // nothing had been written
  });
});

describe('suggest --sbom', () => {
  it('names on stderr the components each suggested rule serves, and those left out', () => {
    const r = runCli(['suggest', '--sbom', fixture('npm', 'sbom.cdx.json'), fixture('npm', 'trace.json')]);
    expect(r.code).toBe(0);
    const policy = JSON.parse(r.stdout);
    expect(policy.sources[0]).toEqual({ npm: { urls: ['https://artifactory.example.com'] } });
    const lines = r.stderr.split('\n');
    const at = lines.indexOf('netpolicy suggest: SBOM components whose downloads each rule allows:');
    expect(at).toBeGreaterThanOrEqual(0);
    expect(lines.slice(at + 1, at + 4)).toEqual([
      '  preset:npm: pkg:npm/express@4.21.2, pkg:npm/%40babel/core@7.26.0 (2 components)',
      '  /sources/0 (npm artifactory.example.com): pkg:npm/lodash@4.17.21 (1 component)',
      '  not allowed (left out, see above): pkg:npm/%40acme/ui@3.1.0?repository_url=https://npm.pkg.example.com, left-pad@1.3.0 (2 components)',
    ]);
  });

  it('git: SSH commands and smart HTTP by repository; without --sbom nothing is said about components', () => {
    const r = runCli(['suggest', '--include-denied', '--sbom', fixture('git', 'sbom.cdx.json'), fixture('git', 'trace.json')]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('(git git.example.com): thirdparty-lib@0.9.0 (1 component)');
    expect(r.stderr).toContain('(git github.com): pkg:github/acme/docs (1 component)');
    const plain = runCli(['suggest', '--include-denied', fixture('git', 'trace.json')]);
    expect(plain.stdout).toBe(r.stdout);
    expect(plain.stderr).not.toContain('SBOM');
  });
});
