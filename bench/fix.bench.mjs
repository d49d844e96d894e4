// Benchmark of `check --fix` (issue 21 item 7): on a 10,000-rule policy with a fixable finding in
// every rule (bench/fix-data.mjs: replace, remove an item or a rule, rename a key), `check --fix`
// against `check` of the same file, both whole processes, interleaved in one run (target <= 3x).
// `check --fix` had been superlinear (1k/2k/4k/8k rules: 1.2/2.9/11/74 s): the growth is printed.
import { copyFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { policyWithFixableFindings } from './fix-data.mjs';

const root = new URL('..', import.meta.url).pathname;
const bin = `${root}packages/cli/bin/netpolicy.js`;
const dir = `${root}.bench-data`;
mkdirSync(dir, { recursive: true });
const row = (name, ms, note = '') => console.log(`${name.padEnd(48)} ${ms.toFixed(2).padStart(9)} ms  ${note}`);

/** One run: `check` of the file as given (exit 1: it has errors), or `check --fix` of a fresh copy (exit 0). */
function run(source, fix) {
  const file = `${dir}/fix-target.netpolicy.json`;
  copyFileSync(source, file);
  const t = performance.now();
  const r = spawnSync(process.execPath, [bin, 'check', ...(fix ? ['--fix'] : []), file], { stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
  const ms = performance.now() - t;
  if (r.status !== (fix ? 0 : 1)) throw new Error(`check${fix ? ' --fix' : ''} exited ${r.status}: ${r.stderr.slice(-500)}`);
  return ms;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

// The growth: one run each (the old code took 74 s at 8,000 rules).
for (const n of [1000, 2000, 4000, 8000]) {
  const source = `${dir}/fix-${n}.netpolicy.json`;
  writeFileSync(source, policyWithFixableFindings(n));
  row(`process: netpolicy check --fix, ${n.toLocaleString('en')} rules`, run(source, true));
  rmSync(source);
}

const source = `${dir}/fix-10000.netpolicy.json`;
writeFileSync(source, policyWithFixableFindings(10000));
const checks = [];
const fixes = [];
for (let i = 0; i < 8; i++) {
  const c = run(source, false);
  const f = run(source, true);
  if (i > 0) { checks.push(c); fixes.push(f); }
}
const check = median(checks);
const fix = median(fixes);
row('process: netpolicy check, 10k rules, a finding each', check);
row('process: netpolicy check --fix, same file', fix, `${(fix / check).toFixed(2)}x check (target <= 3x)`);
console.log(`ROW ${JSON.stringify({ measure: 'check --fix vs check, 10,000 rules with a fixable finding each (processes)', ratio: fix / check, target: 3 })}`);
rmSync(source);
rmSync(`${dir}/fix-target.netpolicy.json`, { force: true });
