// One build for every package: generates the precompiled (standalone) Ajv validators, then bundles.
// Run by `npm ci` (prepare), `npm run build`, `npm test` and `npm run bench`.
// The steps are in scripts/build/: shared.mjs (paths, common options); schema-data.mjs,
// validators.mjs and standalone-module.mjs (core's generated modules); libraries.mjs, cli.mjs and
// extension.mjs (bundles; the language server's self-contained bundles are below).
// Options: `--release` (scripts/build/extension.mjs), `--watch` (not supported yet).
import { build } from 'esbuild';
import { mkdirSync, rmSync } from 'node:fs';
import { cliBundle } from './scripts/build/cli.mjs';
import { extensionBundles } from './scripts/build/extension.mjs';
import { libraryBundles, libraryModules } from './scripts/build/libraries.mjs';
import { generateData, syncPresetNameEnum } from './scripts/build/schema-data.mjs';
import { common, generated, lazyPackageUrl, root, workspaceSources } from './scripts/build/shared.mjs';
import { generateValidators } from './scripts/build/validators.mjs';

mkdirSync(generated, { recursive: true });

const watch = process.argv.includes('--watch');

async function bundles() {
  // The language server's Node entry was an ES module (dist/node.js) before it became CommonJS.
  for (const stale of ['node.js', 'node.js.map']) rmSync(`${root}packages/language-server/dist/${stale}`, { force: true });
  await Promise.all([
    libraryModules('core', ['index', 'internal']),
    libraryModules('client', ['index', 'sbom-validator']),
    cliBundle(),
    ...libraryBundles('language-service', ['index']),
    ...libraryBundles('language-server', ['index', 'protocol']),
    // The server as one self-contained file per runtime: Node (stdio, IPC; CommonJS, as the
    // extension runs it, so `require.resolve` and `import` both reach it on any Node 20) and a
    // classic worker script (IIFE) for browsers.
    build({
      ...common,
      entryPoints: [`${root}packages/language-server/src/node.ts`],
      outfile: `${root}packages/language-server/dist/node.cjs`,
      format: 'cjs',
      platform: 'node',
      alias: workspaceSources,
      plugins: [lazyPackageUrl],
    }),
    build({
      ...common,
      entryPoints: [`${root}packages/language-server/src/browser.ts`],
      outfile: `${root}packages/language-server/dist/browser.js`,
      format: 'iife',
      platform: 'browser',
      mainFields: ['browser', 'module', 'main'],
      alias: workspaceSources,
      plugins: [lazyPackageUrl],
    }),
    ...extensionBundles(),
  ]);
}

syncPresetNameEnum();
generateData();
await generateValidators();
await bundles();
if (watch) console.log('watch mode is not supported yet; rerun `npm run build`');
