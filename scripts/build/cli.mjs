// The CLI (packages/cli/dist): a CommonJS entry and one self-contained bundle per command, each
// holding only the modules it uses, then the V8 code cache of the commands a CI job runs, so that
// a one-shot command starts fast.
import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { readdirSync, rmSync } from 'node:fs';
import { resolve as resolvePath } from 'node:path';
import { common, lazyPackageUrl, root, workspaceSources, writeGenerated } from './shared.mjs';

/**
 * Marks the modules of the workspace packages (core, client) as free of side effects at import
 * (none has any: no module is imported for its effects alone), so that a command's bundle holds
 * only the modules whose exports it uses: `check` does not load the evaluator, the trace reader or
 * the HTTP client just because they are re-exported by the package's index.
 */
const workspaceWithoutSideEffects = {
  name: 'workspace-without-side-effects',
  setup(b) {
    const workspace = /\/packages\/(core|client)\/src\//;
    b.onResolve({ filter: /.*/ }, async (args) => {
      if (args.pluginData === workspaceWithoutSideEffects) return undefined;
      if (!workspace.test(args.importer) && !args.path.startsWith('@netpolicy/')) return undefined;
      const r = await b.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, importer: args.importer, pluginData: workspaceWithoutSideEffects });
      if (r.errors.length > 0 || r.external || !workspace.test(r.path)) return r;
      return { path: r.path, sideEffects: false };
    });
  },
};

/**
 * Commands that use the client but never validate an SBOM as CycloneDX 1.7 (explain fetches the
 * job's SBOM with `sbomValidator: false`): their bundle gets packages/cli/src/sbom-validator-absent.ts
 * for the client's sbom-validator, whose dynamic `import()` a bundle run from its V8 code cache
 * cannot run (scripts/code-cache.cjs refuses such a bundle).
 */
const WITHOUT_SBOM_VALIDATOR = new Set(['explain']);
const withoutSbomValidator = {
  name: 'without-sbom-validator',
  setup(b) {
    b.onResolve({ filter: /\/sbom-validator$/ }, (args) => (/\/packages\/client\/src\//.test(args.importer) ? { path: `${root}packages/cli/src/sbom-validator-absent.ts`, sideEffects: false } : undefined));
  },
};

/**
 * The CLI, self-contained (built from the sources of every package), as CommonJS: an entry
 * (dist/netpolicy.js: argument dispatch, io) and one bundle per command (dist/commands/NAME.js)
 * that the entry `require`s when that command runs. `check` never compiles the code of explain,
 * fetch or serve, nor loads the built-in modules only they use (node:http, node:crypto). CommonJS,
 * not ES modules: Node's ES module loader (its start, resolution, linking of a graph of chunks)
 * cost a one-shot command about 10 ms more (docs/performance.md). A command's bundle holds the
 * code it uses, shared or not (no chunks to resolve). dist/package.json makes `.js` there
 * CommonJS, as bin/package.json does for the bin; files of earlier builds that this build does
 * not write are removed.
 */
export async function cliBundle() {
  const outdir = `${root}packages/cli/dist`;
  const commandsDir = `${root}packages/cli/src/commands`;
  // One folder per command (src/commands/NAME/: index.ts and what only that command uses): one bundle each.
  const names = readdirSync(commandsDir, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name);
  const commandEntries = (list) => Object.fromEntries(list.map((n) => [`commands/${n}`, `${commandsDir}/${n}/index.ts`]));
  const cjs = {
    ...common,
    format: 'cjs',
    platform: 'node',
    alias: workspaceSources,
    sourcemap: false,
    metafile: true,
    // `import.meta.url` of the bundle file, as the sources (ES modules) mean it.
    define: { 'import.meta.url': '__bundleUrl' },
    banner: { js: "const __bundleUrl = require('node:url').pathToFileURL(__filename).href;" },
  };
  // The entry: `import('./commands/NAME')` becomes `loadCommandBundle('NAME')` (packages/cli/src/
  // code-cache.ts): that bundle, loaded with its V8 code cache (scripts/code-cache.cjs) when it has one.
  const commandsOutside = {
    name: 'commands-outside',
    setup(b) {
      b.onResolve({ filter: /^\.\/commands\/[a-z-]+$/ }, (args) => ({ path: args.path.slice('./commands/'.length), namespace: 'command-bundle' }));
      b.onLoad({ filter: /.*/, namespace: 'command-bundle' }, (args) => ({
        contents: `module.exports = require(${JSON.stringify(`${root}packages/cli/src/code-cache.ts`)}).loadCommandBundle(${JSON.stringify(args.path)});`,
        loader: 'js',
        resolveDir: `${root}packages/cli/src`,
      }));
    },
  };
  const results = await Promise.all([
    build({ ...cjs, entryPoints: { netpolicy: `${root}packages/cli/src/main.ts` }, outdir, supported: { 'dynamic-import': false }, plugins: [workspaceWithoutSideEffects, commandsOutside] }),
    build({ ...cjs, entryPoints: commandEntries(names.filter((n) => !WITHOUT_SBOM_VALIDATOR.has(n))), outdir, plugins: [workspaceWithoutSideEffects, lazyPackageUrl] }),
    build({ ...cjs, entryPoints: commandEntries(names.filter((n) => WITHOUT_SBOM_VALIDATOR.has(n))), outdir, plugins: [withoutSbomValidator, workspaceWithoutSideEffects, lazyPackageUrl] }),
  ]);
  writeGenerated(`${outdir}/package.json`, '{ "type": "commonjs" }\n');
  const written = new Set(results.flatMap((r) => Object.keys(r.metafile.outputs)).map((o) => resolvePath(o)));
  written.add(resolvePath(`${outdir}/package.json`));
  const keep = new Set(['types', 'tsconfig.tsbuildinfo']);
  const sweep = (dir) => {
    let entries = [];
    try { entries = readdirSync(dir, { withFileTypes: true }); } catch {}
    for (const e of entries) {
      const path = `${dir}/${e.name}`;
      if (dir === outdir && keep.has(e.name)) continue;
      if (e.isDirectory()) { sweep(path); if (readdirSync(path).length === 0) rmSync(path, { recursive: true, force: true }); }
      else if (!written.has(resolvePath(path))) rmSync(path, { force: true });
    }
  };
  sweep(outdir);
  codeCaches();
}

/**
 * The V8 code cache of the commands a CI job runs (check, explain, suggest, test, diff: the
 * warm-up runs of scripts/code-cache.cjs; packages/cli/src/code-cache.ts loads them), made in a
 * process of its own (the V8 flags of a command's run). `sweep` has removed the caches of the
 * previous build. Without a cache a command still runs, only its start is slower: a failure here
 * is a warning (code-cache.test.ts fails on it).
 */
function codeCaches() {
  const r = spawnSync(process.execPath, [`${root}scripts/code-cache.cjs`], { encoding: 'utf8' });
  if (r.status !== 0) console.warn(`warning: no V8 code cache for the CLI commands: ${(r.stderr || r.error?.message || `exit ${r.status}`).trim()}`);
}
