// The npm packages as published: builds once, then `npm pack`s the five packages.
//
//   node scripts/pack.mjs [--release] [--out DIR]   build, then write the five tarballs to DIR (default dist/npm)
//   node scripts/pack.mjs --prepack                 a package's `prepack` (cwd: packages/NAME): build what it ships
//
// A package's files come from three steps: `node esbuild.mjs` (the bundles, ES module and
// CommonJS), `tsc -b` of the library packages (declarations in dist/types) and
// scripts/package-types.mjs (the published declarations, dist/dts). `npm pack` in a fresh clone
// runs them through `prepack`; this script runs them once and tells each package's `prepack`
// (by NETPOLICY_PACK_BUILT) that they have run.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { LIBRARY_ENTRIES, writePackageTypes } from './package-types.mjs';

const root = new URL('..', import.meta.url).pathname;

/** The published packages, in dependency order. */
export const PACKAGES = ['core', 'client', 'language-service', 'language-server', 'cli'];

function run(cmd, args, options = {}) {
  const r = spawnSync(cmd, args, { cwd: root, stdio: ['ignore', 'inherit', 'inherit'], ...options });
  if (r.status !== 0) throw new Error(`${[cmd, ...args].join(' ')} failed (${r.error?.message ?? `exit ${r.status}`})`);
  return r;
}

/** esbuild.mjs, tsc -b of the given packages' projects, their published declarations. */
export function buildForPack({ release = false, packages = PACKAGES } = {}) {
  run(process.execPath, [join(root, 'esbuild.mjs'), ...(release ? ['--release'] : [])]);
  const libraries = packages.filter((p) => p in LIBRARY_ENTRIES);
  if (libraries.length > 0) {
    run(join(root, 'node_modules/.bin/tsc'), ['-b', ...libraries.map((p) => `packages/${p}`)]);
    for (const p of libraries) writePackageTypes(p);
  }
}

/** `npm pack` of the packages into `out` (already built); returns the tarballs' paths. */
export function packAll(out, packages = PACKAGES) {
  mkdirSync(out, { recursive: true });
  const r = run('npm', ['pack', '--json', '--pack-destination', out, ...packages.flatMap((p) => ['-w', `packages/${p}`])], {
    stdio: ['ignore', 'pipe', 'inherit'],
    encoding: 'utf8',
    env: { ...process.env, NETPOLICY_PACK_BUILT: '1' },
  });
  return JSON.parse(r.stdout).map((t) => join(out, t.filename));
}

/** A package's prepack: the build, unless the packing script has just done it. */
function prepack() {
  const name = basename(process.cwd());
  if (!PACKAGES.includes(name) || resolve(process.cwd()) !== resolve(root, 'packages', name)) throw new Error(`prepack: not a package folder: ${process.cwd()}`);
  if (process.env.NETPOLICY_PACK_BUILT !== '1') buildForPack({ packages: [name] });
  // Whatever built it, the package's exports and bin must name files that exist.
  const manifest = JSON.parse(readFileSync('package.json', 'utf8'));
  const leaves = (v) => (typeof v === 'string' ? [v] : v && typeof v === 'object' ? Object.values(v).flatMap(leaves) : []);
  const targets = [...leaves(manifest.bin), ...leaves(manifest.exports), ...leaves(manifest.main), ...leaves(manifest.types)];
  const missing = targets.filter((t) => !existsSync(t));
  if (missing.length > 0) throw new Error(`prepack: packages/${name} lacks ${missing.join(', ')}`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2);
  if (args.includes('--prepack')) prepack();
  else {
    const at = args.indexOf('--out');
    const out = resolve(at >= 0 ? args[at + 1] : join(root, 'dist/npm'));
    buildForPack({ release: args.includes('--release') });
    for (const t of packAll(out)) console.log(t);
  }
}
