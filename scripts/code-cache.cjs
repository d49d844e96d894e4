// Writes the V8 code cache of CLI command bundles: packages/cli/dist/commands/NAME.js.v8cache.
// Run by the build (scripts/build/cli.mjs) after it bundles the CLI, in a process of its own started as `netpolicy NAME`
// starts (the same V8 flags: `tierUpLater`), so that V8 accepts the cache when the CLI runs.
//
//   node scripts/code-cache.cjs [NAME...]     (default: every command of WARM_UPS)
//
// Each bundle is compiled and run as the CLI loads it (packages/cli/src/code-cache.ts), then its
// command runs on the repository's fixtures with its output discarded, so that the cache holds the
// code of the functions a run compiles, not only the bundle's top level. The cache file is written
// whole or not at all (a temporary file renamed). Exit 0, or 1 with the reason on stderr.
'use strict';
const { renameSync, rmSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');

const root = join(__dirname, '..');
const entry = require(join(root, 'packages/cli/dist/netpolicy.js'));
const fixture = (path) => join(root, 'fixtures', path);

/** Each command's runs: the common paths of a CI run (text and JSON reports, findings and none). */
const WARM_UPS = {
  check: [
    ['--format', 'json', fixture('policies/every-kind.netpolicy.json'), fixture('policies/minimal.netpolicy.json')],
    [fixture('policies/problems.netpolicy.json'), fixture('policies/python-build.netpolicy.jsonc')],
  ],
  explain: [
    ['--policy', fixture('traces/denials/policy.netpolicy.json'), '--trace', fixture('traces/denials/trace.json')],
    ['--format', 'json', '--only', 'denied', '--policy', fixture('traces/npm-build/policy.netpolicy.json'), '--trace', fixture('traces/npm-build/trace.json')],
  ],
  suggest: [[fixture('traces/python-build/trace.json')]],
  test: [['--policy', fixture('traces/denials/policy.netpolicy.json'), fixture('traces/denials/policy.tests.json')]],
  diff: [['--trace', fixture('traces/denials/trace.json'), fixture('traces/denials/policy.netpolicy.json'), fixture('policies/every-kind.netpolicy.json')]],
};

async function main(names) {
  if (names.length === 0) names = Object.keys(WARM_UPS);
  entry.tierUpLater(process.versions.v8);
  const quiet = { write: () => true };
  const io = { stdout: quiet, stderr: quiet, env: {}, cwd: root };
  for (const name of names) {
    const runs = WARM_UPS[name];
    if (runs === undefined) throw new Error(`no warm-up runs for command ${name}`);
    const bundle = entry.commandBundle(name);
    const { source, stats } = entry.readBundle(bundle);
    // A script compiled by node:vm has no loader for `import()` (the CLI loads such a bundle with require).
    if (/\bimport\s*\(/.test(source)) throw new Error(`${name}: the bundle has a dynamic import(), which a bundle loaded from its cache cannot run`);
    const script = entry.compileBundle(bundle, source);
    const { command } = entry.runBundle(script, bundle);
    for (const args of runs) {
      const code = await command.run(args, io);
      if (code !== 0 && code !== 1) throw new Error(`netpolicy ${name} ${args.join(' ')} exited ${code}`);
    }
    const file = entry.codeCacheFile(bundle);
    const temporary = `${file}.${process.pid}.tmp`;
    try {
      writeFileSync(temporary, entry.encodeCodeCache(stats, script.createCachedData()));
      renameSync(temporary, file);
    } catch (error) {
      rmSync(temporary, { force: true });
      throw error;
    }
  }
}

main(process.argv.slice(2)).then(
  () => process.exit(0),
  (error) => {
    process.stderr.write(`code-cache: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
