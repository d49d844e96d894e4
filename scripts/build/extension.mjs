// The VS Code extension's bundles (extension/dist, desktop and web) and the schemas copied beside
// them; `--release` (npm run package) minifies them and leaves out their source maps.
import { build } from 'esbuild';
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { common, lazyPackageUrl, root, workspaceSources } from './shared.mjs';

/** `--release`: the VS Code extension's bundles minified, without source maps (`npm run package`). */
const release = process.argv.includes('--release');

/**
 * The VS Code extension (extension/dist): the desktop extension and the server it starts over
 * node IPC (CommonJS, Node), the web extension (CommonJS, as VS Code for the Web loads it) and
 * the server as a classic worker script; `vscode` is provided by the editor. The schemas for
 * VS Code's own JSON support (used when the server is turned off) are copied beside them.
 */
export function extensionBundles() {
  const ext = `${root}extension/`;
  mkdirSync(`${ext}schemas`, { recursive: true });
  for (const name of ['network-policy.schema.json', 'netpolicy-config.schema.json', 'policy-tests.schema.json']) copyFileSync(`${root}schemas/${name}`, `${ext}schemas/${name}`);
  if (release) for (const map of ['extension.js.map', 'server.js.map', 'web/extension.js.map', 'web/server.js.map']) rmSync(`${ext}dist/${map}`, { force: true });
  const opts = { ...common, alias: workspaceSources, plugins: [lazyPackageUrl], minify: release, sourcemap: !release, legalComments: 'none', logOverride: { 'empty-import-meta': 'silent' } };
  return [
    build({ ...opts, entryPoints: [`${ext}src/node.ts`], outfile: `${ext}dist/extension.js`, format: 'cjs', platform: 'node', external: ['vscode'] }),
    build({ ...opts, entryPoints: [`${root}packages/language-server/src/node.ts`], outfile: `${ext}dist/server.js`, format: 'cjs', platform: 'node' }),
    build({ ...opts, entryPoints: [`${ext}src/web.ts`], outfile: `${ext}dist/web/extension.js`, format: 'cjs', platform: 'browser', external: ['vscode'], mainFields: ['browser', 'module', 'main'] }),
    build({ ...opts, entryPoints: [`${root}packages/language-server/src/browser.ts`], outfile: `${ext}dist/web/server.js`, format: 'iife', platform: 'browser', mainFields: ['browser', 'module', 'main'] }),
  ];
}
