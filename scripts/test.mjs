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
const report = join(dir, 'vitest.json');
const status = run(bin('vitest'), ['run', '--reporter=default', '--reporter=json', `--outputFile.json=${report}`, ...process.argv.slice(2)]);
try {
  const r = JSON.parse(readFileSync(report, 'utf8'));
  const skipped = (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
  const errors = status !== 0 && r.numFailedTests === 0 && r.numFailedTestSuites === 0 ? ' (vitest reported errors outside tests: unhandled rejections or exceptions; see above)' : '';
  console.log(`\n${r.numPassedTests} passed, ${r.numFailedTests} failed${skipped ? `, ${skipped} skipped` : ''}${errors}`);
} catch {
  console.log('\n0 passed, 1 failed (no test report was written)');
} finally {
  rmSync(dir, { recursive: true, force: true });
}
process.exit(status);
