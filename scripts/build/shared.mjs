// What every step of the build shares: the repository's root, core's folder of generated modules
// and how files are written there (only on a change, atomically), and the esbuild options, the
// aliases of the workspace packages and the packageurl-js plugin of the self-contained bundles.
import { readFileSync, renameSync, writeFileSync } from 'node:fs';

/** The repository's root (the folder of esbuild.mjs), with a trailing slash. */
export const root = new URL('../../', import.meta.url).pathname;
export const generated = `${root}packages/core/src/generated/`;

/** Writes only when the content changes, atomically (several builds may run at once). */
export function writeGenerated(path, content) {
  try {
    if (readFileSync(path, 'utf8') === content) return;
  } catch {}
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, content);
  renameSync(tmp, path);
}

/** Bundles that carry every workspace package they use are built from the sources. */
export const workspaceSources = {
  ...Object.fromEntries(['core', 'client', 'language-service'].map((p) => [`@netpolicy/${p}`, `${root}packages/${p}/src/index.ts`])),
  '@netpolicy/core/internal': `${root}packages/core/src/internal.ts`,
};

export const common = { bundle: true, sourcemap: true, logLevel: 'warning', target: 'es2022', mainFields: ['module', 'main'] };

/**
 * packageurl-js, loaded on its first use in the self-contained bundles (the CLI's commands, the
 * language server's, the extension's). Its module builds an `Intl.Collator` as it loads, about
 * 5 ms of every start (the collator's ICU data), though only an SBOM's purls need it: explain
 * without `--sbom`, a server that never reads an SBOM, paid it on every run. The bundle gets, in
 * its place for core's attribution, a module whose `PackageURL.fromString` requires the real one
 * when first called (esbuild bundles that `require` as a lazily run CommonJS wrapper). core uses
 * nothing else of it at run time; if it ever does, the build fails on the missing export. The
 * library bundles (dist/core.js, dist/core.cjs) keep packageurl-js an ordinary import.
 */
export const lazyPackageUrl = {
  name: 'lazy-packageurl-js',
  setup(b) {
    b.onResolve({ filter: /^packageurl-js$/ }, (args) => (/\/packages\/core\/src\/attribution\//.test(args.importer) ? { path: 'packageurl-js', namespace: 'lazy-packageurl' } : undefined));
    b.onLoad({ filter: /.*/, namespace: 'lazy-packageurl' }, () => ({
      contents: `let lib;
export const PackageURL = { fromString(text) { lib ??= require('packageurl-js'); return lib.PackageURL.fromString(text); } };
`,
      loader: 'js',
      resolveDir: root,
    }));
  },
};
