// The declarations a library package publishes (npm pack: scripts/pack.mjs, prepack), from what
// `tsc -b` wrote to packages/NAME/dist/types (and the generated .d.ts beside core's sources):
// dist/dts/**.d.ts for `import` and dist/dts/**.d.cts for `require`, holding only the files an
// entry's declarations reach. tsc writes relative imports as the sources have them, without an
// extension (moduleResolution "bundler"), which a consumer on "module": "node16"/"nodenext"
// cannot resolve: here each becomes the file it names, `./x.js` (or `./x/index.js`) in a .d.ts
// and `./x.cjs` in a .d.cts, which TypeScript resolves to ./x.d.ts and ./x.d.cts.
//
// node scripts/package-types.mjs [core client language-service language-server]
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';
import ts from 'typescript';

const root = new URL('..', import.meta.url).pathname;

/**
 * The published entries of each library package (their exports map names them too). `internal`
 * (INTERNAL_ENTRIES) is for the other netpolicy packages: published, not documented.
 */
export const LIBRARY_ENTRIES = {
  core: ['index', 'internal'],
  client: ['index', 'sbom-validator'],
  'language-service': ['index'],
  'language-server': ['index', 'protocol', 'node'],
};

/** Entries for the other netpolicy packages only: no reference pages, no TSDoc requirement (scripts/api-surface.mjs). */
export const INTERNAL_ENTRIES = new Set(['@netpolicy/core/internal']);

/** A declaration tsc writes as a bare `export {}`: what the module is for. */
const HEADERS = {
  'language-server/node':
    '/**\n' +
    ' * The language server as a program: loading this module starts the server on the transport\n' +
    ' * its process arguments name (`--stdio`, `--node-ipc`, `--socket=PORT`); it exports nothing.\n' +
    ' * Start it as a process, e.g. `fork(require.resolve(\'@netpolicy/language-server/node\'), [\'--node-ipc\'])`,\n' +
    ' * or run the `netpolicy-language-server` binary. To embed the server, use `startServer` from\n' +
    ' * `@netpolicy/language-server`.\n' +
    ' */\n',
};

/**
 * Writes packages/PKG/dist/dts for one package; returns the files written (relative to dist/dts).
 * Throws when a relative import names no declaration (a file tsc did not write).
 */
export function writePackageTypes(pkg) {
  const entries = LIBRARY_ENTRIES[pkg];
  if (!entries) throw new Error(`not a library package: ${pkg}`);
  const types = join(root, 'packages', pkg, 'dist/types');
  const src = join(root, 'packages', pkg, 'src');
  const out = join(root, 'packages', pkg, 'dist/dts');
  /** A module's declaration: tsc's output, else a hand-written or generated .d.ts in src. */
  const declarationOf = (rel) => [join(types, `${rel}.d.ts`), join(src, `${rel}.d.ts`)].find((p) => existsSync(p));
  const resolveRelative = (from, spec) => {
    const base = posix.normalize(posix.join(posix.dirname(from), spec.replace(/\.js$/, '')));
    for (const rel of [base, `${base}/index`]) if (declarationOf(rel)) return rel;
    throw new Error(`packages/${pkg}: ${from}.d.ts imports '${spec}', which has no declaration (run tsc -b first)`);
  };
  rmSync(out, { recursive: true, force: true });
  const queue = [...entries];
  const seen = new Set(queue);
  const written = [];
  while (queue.length > 0) {
    const rel = queue.shift();
    const file = declarationOf(rel);
    if (!file) throw new Error(`packages/${pkg}: no declaration for ${rel} (run tsc -b first)`);
    const text = readFileSync(file, 'utf8');
    const edits = [];
    for (const ref of ts.preProcessFile(text, true, true).importedFiles) {
      const spec = ref.fileName;
      if (!spec.startsWith('./') && !spec.startsWith('../')) continue;
      // preProcessFile's `pos` is the opening quote of the module name.
      if (text.slice(ref.pos + 1, ref.pos + 1 + spec.length) !== spec) throw new Error(`${file}: cannot place '${spec}'`);
      const target = resolveRelative(rel, spec);
      if (!seen.has(target)) { seen.add(target); queue.push(target); }
      let path = posix.relative(posix.dirname(rel), target);
      if (!path.startsWith('.')) path = `./${path}`;
      edits.push({ start: ref.pos + 1, end: ref.pos + 1 + spec.length, path });
    }
    const header = HEADERS[`${pkg}/${rel}`] ?? '';
    for (const [ext, js] of [['.d.ts', '.js'], ['.d.cts', '.cjs']]) {
      let result = text;
      for (const e of [...edits].reverse()) result = result.slice(0, e.start) + e.path + js + result.slice(e.end);
      const dest = join(out, `${rel}${ext}`);
      mkdirSync(dirname(dest), { recursive: true });
      writeFileSync(dest, header + result);
      written.push(`${rel}${ext}`);
    }
  }
  return written;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const names = process.argv.length > 2 ? process.argv.slice(2) : Object.keys(LIBRARY_ENTRIES);
  for (const pkg of names) {
    const files = writePackageTypes(pkg);
    console.log(`packages/${pkg}/dist/dts: ${files.length / 2} declarations (.d.ts and .d.cts)`);
  }
}
