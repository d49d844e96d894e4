/**
 * fixtures/attribution/<ecosystem>/: an SBOM, a trace and, per observation, the components it is
 * attributed to (`expected.json`, written from each ecosystem's documented layout). Each trace is
 * read by the trace reader and each access attributed by the index and by the reference scan.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { accessOf } from '../eval/access';
import { parseTrace } from '../trace/reader';
import { indexSbom } from './index-sbom';
import { attributeNaive } from './naive';

const root = join(__dirname, '../../../../fixtures/attribution');
const ecosystems = readdirSync(root, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name).sort();

interface Expected { sequence: number; access: string; components: { bomRef: string; match: string }[] }

describe('fixtures/attribution', () => {
  it('has an SBOM and a trace for every ecosystem of docs/attribution.md', () => {
    expect(ecosystems).toEqual(['alpine', 'cargo', 'debian', 'git', 'golang', 'npm', 'oci', 'pypi', 'rubygems']);
  });

  for (const eco of ecosystems) {
    it(`${eco}: every observation is attributed as expected.json says`, () => {
      const dir = join(root, eco);
      const sbom = JSON.parse(readFileSync(join(dir, 'sbom.cdx.json'), 'utf8'));
      const trace = parseTrace(readFileSync(join(dir, 'trace.json'), 'utf8'));
      const expected = JSON.parse(readFileSync(join(dir, 'expected.json'), 'utf8')) as Expected[];
      expect(expected.map((e) => e.sequence)).toEqual(trace.observations.map((o) => o.sequence));
      const index = indexSbom(sbom);
      let attributed = 0;
      for (const [i, o] of trace.observations.entries()) {
        const access = accessOf(o);
        const remoteUrl = o.protocol === 'ssh_git' ? (o as { remoteUrl?: string }).remoteUrl : undefined;
        const got = access ? index.attribute(access, remoteUrl) : [];
        expect({ access: expected[i].access, components: got.map((m) => ({ bomRef: m.bomRef, match: m.match })) }).toEqual({ access: expected[i].access, components: expected[i].components });
        if (access) expect(attributeNaive(sbom, access, remoteUrl)).toEqual(got);
        if (got.length > 0) attributed++;
      }
      // Each fixture has attributed and unattributed accesses.
      expect(attributed).toBeGreaterThan(0);
      expect(attributed).toBeLessThan(trace.observations.length);
    });
  }

  it('every SBOM is valid CycloneDX 1.7 (the library\'s strict JSON validator)', async () => {
    const lib = await import('@cyclonedx/cyclonedx-library');
    const validator = new lib.Validation.JsonStrictValidator(lib.Spec.Version.v1dot7);
    for (const eco of ecosystems) {
      expect([eco, await validator.validate(readFileSync(join(root, eco, 'sbom.cdx.json'), 'utf8'))]).toEqual([eco, null]);
    }
  });

  it('results carry the component as the SBOM gives it', () => {
    const sbom = JSON.parse(readFileSync(join(root, 'npm/sbom.cdx.json'), 'utf8'));
    const index = indexSbom(sbom);
    expect(index.attribute({ kind: 'http', method: 'GET', url: 'https://registry.npmjs.org/@babel/core/-/core-7.26.0.tgz' })).toEqual([
      { bomRef: 'pkg:npm/%40babel/core@7.26.0', purl: 'pkg:npm/%40babel/core@7.26.0', name: 'core', version: '7.26.0', match: 'purl' },
    ]);
    expect(index.componentCount).toBe(6);
  });
});
