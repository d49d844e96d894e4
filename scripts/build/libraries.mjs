// The library packages' bundles, dependencies external: an ES module and a CommonJS build of each
// entry (language-service, the language server's index and protocol), and for core and the client,
// which promise tree-shaking, ES modules one file per source module beside their CommonJS bundle.
import { build } from 'esbuild';
import { readdirSync, rmSync } from 'node:fs';
import { dirname, relative as relativePath, resolve as resolvePath } from 'node:path';
import { common, root } from './shared.mjs';

/**
 * A library package's entries twice, dependencies external: an ES module (`dist/NAME.js`) and
 * CommonJS (`dist/NAME.cjs`) for `require()` on every Node 20 (an ES module can be required only
 * from Node 20.19 on). The package.json `exports` pick one by condition; the declarations of both
 * are written by scripts/package-types.mjs (npm pack).
 */
export function libraryBundles(pkg, entries) {
  const entryPoints = Object.fromEntries(entries.map((name) => [name, `${root}packages/${pkg}/src/${name}.ts`]));
  // `@netpolicy/*` named too: tsconfig.base.json maps those to their sources (for tsc), which
  // esbuild would follow and bundle (`packages: 'external'` applies after tsconfig `paths`).
  const lib = { ...common, entryPoints, outdir: `${root}packages/${pkg}/dist`, platform: 'neutral', packages: 'external', external: ['@netpolicy/*'] };
  return [build({ ...lib, format: 'esm' }), build({ ...lib, format: 'cjs', outExtension: { '.js': '.cjs' } })];
}

/**
 * A library package that promises tree-shaking (core, client: `sideEffects: false`): its ES
 * modules one file per source module (`dist/NAME.js` and `dist/FOLDER/NAME.js`, relative imports
 * kept, as `./NAME.js`), so that a bundler drops every module a program does not use and, with
 * it, that module's imports of dependencies. One bundled file could not give that: a bundler
 * keeps each dependency a bundled file imports (ipaddr.js, packageurl-js, jsonc-parser, Ajv's
 * runtime), since importing a package not marked free of side effects may have effects: a
 * program using only `escapeControl` carried about 200 KB. CommonJS stays one bundle
 * (`dist/index.cjs`: `require()` is not tree-shaken); another entry's CommonJS build
 * (`dist/NAME.cjs`) takes its exports from it, so that a CommonJS program has one copy of each
 * module (one `ConfigError` class, one cache), as an ES module program does. The modules are those the entries reach;
 * files of earlier builds that this build does not write are removed (dist/types and dist/dts are
 * tsc's and package-types.mjs').
 */
export async function libraryModules(pkg, entries) {
  const src = `${root}packages/${pkg}/src/`;
  const outdir = `${root}packages/${pkg}/dist`;
  const lib = { ...common, absWorkingDir: root, platform: 'neutral', packages: 'external', external: ['@netpolicy/*'] };
  const entryFiles = entries.map((name) => `${src}${name}.ts`);
  // The modules the entries reach, from a bundle that is not written.
  const reach = await build({ ...lib, entryPoints: entryFiles, outdir, format: 'esm', write: false, metafile: true, sourcemap: false });
  const modules = Object.keys(reach.metafile.inputs).map((i) => resolvePath(root, i)).filter((i) => i.startsWith(src));
  const relativeImports = {
    name: 'relative-imports-kept',
    setup(b) {
      b.onResolve({ filter: /^\.\.?\// }, async (args) => {
        if (args.kind === 'entry-point' || args.pluginData === relativeImports) return undefined;
        const r = await b.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, importer: args.importer, pluginData: relativeImports });
        if (r.errors.length > 0 || !r.path.startsWith(src)) return r;
        let path = relativePath(dirname(args.importer), r.path).replace(/\.(ts|js)$/, '.js');
        if (!path.startsWith('.')) path = `./${path}`;
        return { path, external: true };
      });
    },
  };
  const esm = await build({ ...lib, entryPoints: modules, outbase: src, outdir, format: 'esm', bundle: true, metafile: true, plugins: [relativeImports] });
  // An entry's names from the bundle that is not written: the modules' `dist/NAME.js` re-exports
  // the others' names with `export *` of external files, which its metafile does not list.
  const exportsOf = (name) => Object.entries(reach.metafile.outputs).find(([o]) => resolvePath(root, o) === `${outdir}/${name}.js`)?.[1].exports ?? [];
  const results = [esm];
  const others = entries.filter((e) => e !== 'index');
  for (const name of others) if (exportsOf(name).length === 0) throw new Error(`packages/${pkg}: entry ${name} exports nothing`);
  /** `dist/NAME.cjs` re-exporting the entry's names from another CommonJS file of the build. */
  const reexport = (name, from) => build({
    ...lib, sourcemap: false, metafile: true, format: 'cjs', outfile: `${outdir}/${name}.cjs`, external: [from],
    stdin: { contents: `export { ${exportsOf(name).join(', ')} } from '${from}';`, resolveDir: outdir, loader: 'js', sourcefile: `${name} (CommonJS entry)` },
  });
  // An entry whose names the main entry does not export (core's `internal`): one CommonJS bundle
  // of every entry (dist/modules.cjs), each entry's .cjs its names from there, so that
  // `require('@netpolicy/core')` gives no more than its declarations say.
  if (others.some((name) => exportsOf(name).some((n) => !exportsOf('index').includes(n)))) {
    results.push(await build({
      ...lib, format: 'cjs', outfile: `${outdir}/modules.cjs`, metafile: true,
      stdin: { contents: entries.map((e) => `export * from './${e}';`).join('\n'), resolveDir: src, loader: 'ts', sourcefile: `${pkg} (CommonJS modules)` },
    }));
    for (const name of entries) results.push(await reexport(name, './modules.cjs'));
  } else {
    results.push(await build({ ...lib, entryPoints: { index: `${src}index.ts` }, outdir, format: 'cjs', outExtension: { '.js': '.cjs' }, metafile: true }));
    for (const name of others) results.push(await reexport(name, './index.cjs'));
  }
  const written = new Set(results.flatMap((r) => Object.keys(r.metafile.outputs)).map((o) => resolvePath(root, o)));
  const sweep = (dir) => {
    let list = [];
    try { list = readdirSync(dir, { withFileTypes: true }); } catch {}
    for (const e of list) {
      const path = `${dir}/${e.name}`;
      if (dir === outdir && (e.name === 'types' || e.name === 'dts')) continue;
      if (e.isDirectory()) { sweep(path); if (readdirSync(path).length === 0) rmSync(path, { recursive: true, force: true }); }
      else if (/\.(c?js|map)$/.test(e.name) && !written.has(resolvePath(path))) rmSync(path, { force: true });
    }
  };
  sweep(outdir);
}
