/** The default SBOM validator agrees with CycloneDX 1.7's own conformance cases. */
import { readdirSync, readFileSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
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

describe('cyclonedxStrictValidator without its optional peer dependencies', () => {
  afterEach(() => {
    vi.doUnmock('@cyclonedx/cyclonedx-library');
    vi.resetModules();
  });

  it('names the package to install when the CycloneDX library is missing', async () => {
    vi.resetModules();
    vi.doMock('@cyclonedx/cyclonedx-library', () => {
      throw new Error("Cannot find package '@cyclonedx/cyclonedx-library' imported from /app/node_modules/@netpolicy/client/dist/sbom-validator.js");
    });
    const { cyclonedxStrictValidator: validator } = await import('../src/sbom-validator');
    const { ConfigError } = await import('../src/errors');
    const error = await validator('{}').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as { cause?: unknown }).cause).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(/^SBOM validation needs @cyclonedx\/cyclonedx-library, an optional peer dependency of @netpolicy\/client, which could not be loaded \(.+\): install it with `npm install @cyclonedx\/cyclonedx-library ajv ajv-formats ajv-formats-draft2019`, or pass your own `sbomValidator`, or `sbomValidator: false` to skip SBOM validation$/);
  });

  it('names the Ajv packages when the library is there without them', async () => {
    vi.resetModules();
    vi.doMock('@cyclonedx/cyclonedx-library', () => {
      class MissingOptionalDependencyError extends Error {}
      class JsonStrictValidator {
        async validate(): Promise<unknown> { throw new MissingOptionalDependencyError("Cannot find module 'ajv'"); }
      }
      return { Validation: { JsonStrictValidator, MissingOptionalDependencyError }, Spec: { Version: { v1dot7: '1.7' } } };
    });
    const { cyclonedxStrictValidator: validator } = await import('../src/sbom-validator');
    const error = await validator('{}').catch((e: unknown) => e);
    expect((error as Error).name).toBe('ConfigError');
    expect((error as Error).message).toContain("SBOM validation needs ajv, ajv-formats and ajv-formats-draft2019, an optional peer dependency of @netpolicy/client, which could not be loaded (Cannot find module 'ajv')");
  });
});
