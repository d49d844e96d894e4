/**
 * `explain --sbom` with the SBOM of security issue 28 (item 4): 300,000 identical lodash
 * components (26 MB) and 50 denied downloads of it. It gave no answer in a minute; now each
 * result names the component once and the summary counts 50 denials of it. The timeout is a hang
 * bound (runCli's 60 s), not a time budget: bench/sbom.bench.mjs measures it.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LODASH, writeDeniedDownloads, writeDenyingPolicy, writeSbom } from '../../../bench/sbom-data.mjs';
import { runCli } from './run-cli';

const dir = mkdtempSync(join(tmpdir(), 'netpolicy-explain-sbom-linear-'));
const sbom = join(dir, 'sbom.cdx.json'), trace = join(dir, 'trace.json'), policy = join(dir, 'policy.json');
writeSbom(sbom, 300_000);
writeDeniedDownloads(trace, 50);
writeDenyingPolicy(policy);
const lodash = { purl: LODASH.purl, name: LODASH.name, version: LODASH.version };

describe('explain --sbom is linear in components plus accesses', () => {
  it('300,000 identical components, 50 denied downloads: JSON names the component once per result', () => {
    const r = runCli(['explain', '--policy', policy, '--trace', trace, '--sbom', sbom, '--format', 'json']);
    expect([r.code, r.stderr]).toEqual([0, '']);
    const report = JSON.parse(r.stdout);
    expect(report.results.length).toBe(50);
    for (const x of report.results) expect(x.components).toEqual([{ ...lodash, match: 'purl' }]);
    expect(report.summary.components).toEqual([{ ...lodash, denied: 50, downloadDenied: true }]);
    expect(report.summary.unattributedDenials).toBe(0);
  });

  it('the text report: one component line, one tally', () => {
    const r = runCli(['explain', '--policy', policy, '--trace', trace, '--sbom', sbom, '--only', 'denied']);
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(r.stdout).toContain('component: pkg:npm/lodash@4.17.21 (purl)\n');
    expect(r.stdout).toContain('SBOM components with denied accesses: 1 (1 with a denied download)');
    expect(r.stdout).toContain('✗ pkg:npm/lodash@4.17.21  ×50  (download denied)');
  });
});
