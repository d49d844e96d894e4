/**
 * The denials list with an SBOM beside the trace (security issue 28, item 4): an SBOM of 300,000
 * identical lodash components and 50 denied downloads of it took the language server 80 s of
 * CPU. Each denial now names the component once. No time budget: vitest's timeout is the hang bound.
 */
import { describe, expect, it } from 'vitest';
import { explain, indexSbom, type Policy } from '@netpolicy/core';
import { addResult, emptyUsage } from '../src/trace-usage';

const url = 'https://registry.npmjs.org/lodash/-/lodash-4.17.21.tgz';
const observations = Array.from({ length: 50 }, (_, i) => ({ sequence: i + 1, protocol: 'http', method: 'GET', url, denied: true }));
const sbomOf = (component: (i: number) => object) => ({ bomFormat: 'CycloneDX', specVersion: '1.7', components: Array.from({ length: 300_000 }, (_, i) => component(i)) });
const lodash = { purl: 'pkg:npm/lodash@4.17.21', name: 'lodash', version: '4.17.21' };

async function denials(sbom: object) {
  const index = indexSbom(sbom);
  const usage = emptyUsage();
  usage.traces.push('t.json');
  const policy: Policy = { default: 'deny', presets: [], sources: [{ npm: { urls: ['https://npm.internal.example'] } }] } as Policy;
  await explain(policy, JSON.stringify({ observations }), { keep: false, onResult: (r) => addResult(usage, 't.json', r, index) });
  return usage.denials;
}

describe('trace denials with a 300,000-component SBOM', () => {
  it('identical components: each denial names the one component', async () => {
    const list = await denials(sbomOf(() => ({ type: 'library', ...lodash })));
    expect(list.length).toBe(50);
    for (const d of list) expect(d.components).toEqual([{ ...lodash, match: 'purl' }]);
  });

  it('a bom-ref each: each denial names the first five', async () => {
    const list = await denials(sbomOf((i) => ({ 'bom-ref': `r${i}`, ...lodash })));
    expect(list.length).toBe(50);
    for (const d of list) expect(d.components).toEqual([0, 1, 2, 3, 4].map((i) => ({ bomRef: `r${i}`, ...lodash, match: 'purl' })));
  });
});
