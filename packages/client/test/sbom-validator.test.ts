/** The default SBOM validator agrees with CycloneDX 1.7's own conformance cases. */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { cyclonedxStrictValidator } from '../src/index';

const dir = new URL('../../../fixtures/cyclonedx-1.7/', import.meta.url).pathname;
const fixtures = new URL('../../../fixtures/sboms/', import.meta.url).pathname;
const cases = readdirSync(dir).filter((f) => f.endsWith('.json')).sort();

describe('cyclonedxStrictValidator', () => {
  it('has the conformance cases', () => {
    expect(cases.length).toBeGreaterThanOrEqual(90);
  });

  it.each(cases)('%s', async (name) => {
    const reasons = await cyclonedxStrictValidator(readFileSync(dir + name, 'utf8'));
    if (name.startsWith('valid-')) expect(reasons).toEqual([]);
    else expect(reasons.length).toBeGreaterThan(0);
  });

  it('accepts the fixture SBOMs and rejects the invalid one with reasons', async () => {
    expect(await cyclonedxStrictValidator(readFileSync(`${fixtures}webapp-1001.cdx.json`, 'utf8'))).toEqual([]);
    expect(await cyclonedxStrictValidator(readFileSync(`${fixtures}api-18446744073709551615.cdx.json`, 'utf8'))).toEqual([]);
    const reasons = await cyclonedxStrictValidator(readFileSync(`${fixtures}invalid-legacy-7.cdx.json`, 'utf8'));
    expect(reasons[0]).toMatch(/^\/serialNumber: must match pattern/);
  });
});
