// `npm test`: build, type-check, run every vitest suite, and end with one plain closing line
// ("N passed, N failed, N skipped") that any CI log reader understands.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const bin = (name) => join(root, 'node_modules/.bin', name);
const run = (cmd, args) => spawnSync(cmd, args, { cwd: root, stdio: 'inherit' }).status ?? 1;

if (run(process.execPath, [join(root, 'esbuild.mjs')]) !== 0) process.exit(1);
if (run(bin('tsc'), ['-b']) !== 0) {
  console.error('type check failed (tsc -b)');
  process.exit(1);
}
const dir = mkdtempSync(join(tmpdir(), 'netpolicy-test-'));
const countsFile = join(dir, 'counts.json');
process.env.NETPOLICY_TEST_COUNTS = countsFile;
const status = run(bin('vitest'), ['run', '--reporter=default', `--reporter=${join(root, 'scripts/count-reporter.mjs')}`, ...process.argv.slice(2)]);
try {
  const r = JSON.parse(readFileSync(countsFile, 'utf8'));
  const errors = status !== 0 && r.failed === 0
    ? r.unhandledErrors > 0 ? ' (vitest reported errors outside tests: unhandled rejections or exceptions; see above)' : r.failedModules > 0 ? ` (${r.failedModules} test file${r.failedModules === 1 ? '' : 's'} failed to load; see above)` : ' (vitest failed; see above)'
    : '';
  console.log(`\n${r.passed} passed, ${r.failed} failed${r.skipped ? `, ${r.skipped} skipped` : ''}${errors}`);
} catch {
  console.log('\n0 passed, 1 failed (vitest did not finish a run; see above)');
} finally {
  rmSync(dir, { recursive: true, force: true });
}
process.exit(status);
