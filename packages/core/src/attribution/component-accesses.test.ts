/** The accesses made for a component are attributed back to it (every fixture SBOM, every component). */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeAccess } from '../eval/access';
import { sbomAccesses } from './component-accesses';
import { indexSbom } from './index-sbom';
import { readSbomComponents } from './components';

const root = join(__dirname, '../../../../fixtures/attribution');

describe('sbomAccesses', () => {
  for (const eco of readdirSync(root).sort()) {
    it(`${eco}: every component with a source has accesses, each attributed back to it`, () => {
      const sbom = JSON.parse(readFileSync(join(root, eco, 'sbom.cdx.json'), 'utf8'));
      const index = indexSbom(sbom);
      const list = sbomAccesses(sbom);
      // Every component whose purl names a known ecosystem's registry, or with references, has some.
      const sourced = readSbomComponents(sbom).filter((c) => (c.keys && (c.keys.eco !== 'oci' || c.keys.ociRepository)) || c.distribution.length || c.vcs.length);
      expect(list.map((x) => x.component.bomRef)).toEqual(sourced.map((c) => c.bomRef));
      for (const { component, accesses } of list) {
        for (const a of accesses) {
          const got = index.attribute(a).map((m) => m.bomRef);
          expect({ access: describeAccess(a), got }).toEqual({ access: describeAccess(a), got: expect.arrayContaining([component.bomRef]) });
        }
      }
    });
  }

  it('reads the registry from the purl and the distribution references', () => {
    const sbom = {
      components: [
        { name: 'ui', version: '3.1.0', purl: 'pkg:npm/%40acme/ui@3.1.0?repository_url=https://npm.pkg.example.com' },
        { name: 'debian', purl: 'pkg:oci/debian@sha256%3Aabc?repository_url=docker.io/library/debian' },
        { name: 'tool', version: '1', externalReferences: [{ type: 'distribution', url: 'https://downloads.example.com:8443/tool-1.tar.gz' }, { type: 'vcs', url: 'git@git.example.com:acme/tool.git' }] },
      ],
    };
    expect(sbomAccesses(sbom).map((x) => x.accesses.map(describeAccess))).toEqual([
      ['GET https://npm.pkg.example.com/@acme/ui/-/ui-3.1.0.tgz'],
      ['GET https://registry-1.docker.io/v2/library/debian/manifests/sha256:abc'],
      ['GET https://downloads.example.com:8443/tool-1.tar.gz', 'GET https://git.example.com/acme/tool.git/info/refs'],
    ]);
  });
});
