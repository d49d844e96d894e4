/** The client must run in a browser: it bundles for the browser platform with no Node built-ins. */
import { build } from 'esbuild';
import { expect, it } from 'vitest';

it('bundles for the browser without Node modules, loading the CycloneDX validator only on demand', async () => {
  const result = await build({
    entryPoints: [new URL('../src/index.ts', import.meta.url).pathname],
    bundle: true, platform: 'browser', format: 'esm', write: false, logLevel: 'silent',
  });
  expect(result.errors).toEqual([]);
  const code = result.outputFiles[0].text;
  expect(code).not.toMatch(/from ["']node:|require\(["'](fs|path|http|crypto)["']\)/);
  expect(code).not.toContain('JsonStrictValidator = '); // the library is not bundled in
  expect(code).toContain('["@cyclonedx", "cyclonedx-library"].join("/")');
});
