// Benchmark of `netpolicy explain` against its floor (issue 8), whole processes in one run:
// every measure is a ratio to a process a user could not beat on the same file, run in the same
// rounds (interleaved, best of each), so load from other processes affects both sides alike.
//
//   1. `explain --only denied` (text), 200,000 observations, 1,000-rule policy
//      vs `node -e "JSON.parse(readFileSync(trace))"`                                 target <= 1.5x
//   2. `explain --format json --only denied` of a big trace vs four processes each parsing a quarter
//      of it (JSON.parse), and its peak RSS                                           <= 1.5x, <= 512 MB
//   3. `explain --format json --only all`, 300,000 observations half denied, each to its own URL,
//      vs JSON.parse of that file                                                      <= 5x
//   4. the same at 300,000 vs 75,000 observations: peak RSS (bounded), time (linear)  <= 1.5x, <= 5x
//   5. the same trace, `--format text` vs `--format json`                             <= 2x
//   6. evaluation alone, indexed vs the naive reference at 10,000 rules (in process)  <= 0.02x
//   7. `explain --only denied`, 200,000 compact observations aimed at a 1,000-rule policy that names
//      one registry and one Git server a source per team (makeTeamPolicy), vs JSON.parse   <= 2x
//      (a guard against rule scans: trying every source of a shared host took it to 5x; the
//      issue's 1.5x is rows 1 and 2's, on a trace whose observations are larger)
//
// Inputs are generated (bench/explain-data.mjs) into a temporary directory, never committed. Rows
// 1 and 2 read a job's trace as real ones are (issue 20): every destination distinct, HTTP, TLS,
// plain TCP, ssh and DNS in proportion (DNS answers naming the connections that follow), every
// eighth observation to an IPv6 address, 4 % denied.
// Sizes: row 2 uses 1,000,000 observations (~260 MB) by default; NETPOLICY_BENCH_FULL=1 uses the
// issue's 5,000,000 (~1.3 GB). NETPOLICY_BENCH_ROUNDS sets the rounds (default 3).
// Each row is printed as `ROW {"measure","ratio","target"}` for bench/run.mjs.
import { mkdirSync, openSync, closeSync, readFileSync, statSync, writeFileSync, existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { ensure, makePolicy, makeTeamPolicy, MIXED_VERSION, writeAimedTrace, writeDistinctUrlTrace, writeMixedTrace, writePolicy } from './explain-data.mjs';

const root = new URL('..', import.meta.url).pathname;
const cli = join(root, 'packages/cli/bin/netpolicy.js');
const dir = process.env.NETPOLICY_BENCH_DIR ?? join(tmpdir(), 'netpolicy-bench-explain');
const full = process.env.NETPOLICY_BENCH_FULL === '1';
const ROUNDS = Number(process.env.NETPOLICY_BENCH_ROUNDS ?? 3);
mkdirSync(dir, { recursive: true });

// ---- Inputs ----------------------------------------------------------------------------------
let t0 = performance.now();
const policy = writePolicy(join(dir, 'policy-1000.json'), 1000);
const mixed = ensure(join(dir, 'mixed-200000.json'), writeMixedTrace, 200000, MIXED_VERSION);
const bigCount = full ? 5000000 : 1000000;
const big = ensure(join(dir, `mixed-${bigCount}.json`), (f, n) => writeMixedTrace(f, n, 11), bigCount, MIXED_VERSION);
const quarter = ensure(join(dir, `mixed-${bigCount / 4}-quarter.json`), (f, n) => writeMixedTrace(f, n, 11), bigCount / 4, MIXED_VERSION);
const distinct = ensure(join(dir, 'distinct-300000.json'), writeDistinctUrlTrace, 300000);
const distinctSmall = ensure(join(dir, 'distinct-75000.json'), writeDistinctUrlTrace, 75000);
const teamPolicy = join(dir, 'team-policy-1000.json');
writeFileSync(teamPolicy, JSON.stringify(makeTeamPolicy(1000), null, 2));
const aimed = ensure(join(dir, 'aimed-200000.json'), writeAimedTrace, 200000);
const mib = (f) => `${(statSync(f).size / 1048576).toFixed(0)} MiB`;
console.log(`inputs in ${dir} (${((performance.now() - t0) / 1000).toFixed(1)} s to prepare): mixed 200,000 = ${mib(mixed)}, big ${bigCount.toLocaleString('en')} = ${mib(big)}, distinct 300,000 = ${mib(distinct)}, 75,000 = ${mib(distinctSmall)}`);

// ---- Processes -------------------------------------------------------------------------------
// Peak RSS and CPU time of a child: a preload prints process.resourceUsage()'s maxRSS and
// user + system time on fd 3 as it exits. CPU time is shown beside wall time: on a machine
// shared with other work, waiting for a core stretches the wall time of both sides of a ratio.
const preload = join(dir, 'rss-preload.cjs');
writeFileSync(preload, "process.on('exit', () => { try { const u = process.resourceUsage(); require('fs').writeSync(3, u.maxRSS + ' ' + (u.userCPUTime + u.systemCPUTime) / 1000); } catch {} });\n");
const outFile = join(dir, 'out.txt');

/** Runs `node ...args` with stdout to a file; returns wall time (ms), peak RSS (KiB), CPU time (ms). */
function run(args) {
  const out = openSync(outFile, 'w');
  const start = performance.now();
  const r = spawnSync(process.execPath, ['--require', preload, ...args], { stdio: ['ignore', out, 'pipe', 'pipe'], encoding: 'utf8', maxBuffer: 1 << 20 });
  const ms = performance.now() - start;
  closeSync(out);
  if (r.status !== 0) throw new Error(`node ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  const [rssKiB, cpuMs] = String(r.output[3]).split(' ').map(Number);
  return { ms, rssKiB, cpuMs };
}
const parseFloor = (file) => ['-e', `JSON.parse(require('fs').readFileSync(${JSON.stringify(file)}, 'utf8'))`];
const explain = (trace, ...opts) => [cli, 'explain', '--policy', policy, '--trace', trace, ...opts];

/** Best time and highest peak RSS of each named command over interleaved rounds. */
function measure(commands, rounds = ROUNDS) {
  const best = Object.fromEntries(Object.keys(commands).map((k) => [k, { ms: Infinity, rssKiB: 0, cpuMs: Infinity }]));
  for (let round = 0; round < rounds; round++) {
    for (const [name, args] of Object.entries(commands)) {
      const r = typeof args === 'function' ? args() : run(args);
      best[name].ms = Math.min(best[name].ms, r.ms);
      best[name].rssKiB = Math.max(best[name].rssKiB, r.rssKiB);
      best[name].cpuMs = Math.min(best[name].cpuMs, r.cpuMs);
    }
  }
  return best;
}
const sec = (ms) => `${(ms / 1000).toFixed(2)} s`;
/** The CPU-time ratio of two measured commands, for the detail of a row. */
const cpu = (a, b) => `; CPU ${sec(a.cpuMs)} vs ${sec(b.cpuMs)} = ${(a.cpuMs / b.cpuMs).toFixed(2)}x`;
const mb = (kib) => `${(kib / 1024).toFixed(0)} MB`;
const rows = [];
function row(measure, ratio, target, detail) {
  rows.push({ measure, ratio, target });
  console.log(`  ${measure}: ${ratio.toFixed(2)}x (target <= ${target}x) ${ratio <= target ? 'met' : 'NOT met'}  [${detail}]`);
  console.log(`ROW ${JSON.stringify({ measure, ratio: Number(ratio.toFixed(3)), target })}`);
}

// Sanity: the JSON report of the distinct trace parses and counts what was generated.
run(explain(distinctSmall, '--format', 'json', '--only', 'all'));
const check = JSON.parse(readFileSync(outFile, 'utf8'));
if (check.results.length !== 75000 || check.summary.denied !== 37500) throw new Error(`unexpected report: ${JSON.stringify(check.summary)}`);

// 1.
console.log('\n1. explain --only denied, 200,000 observations, 1,000 rules');
const m1 = measure({ floor: parseFloor(mixed), explain: explain(mixed, '--only', 'denied') });
row('explain --only denied 200k obs / JSON.parse', m1.explain.ms / m1.floor.ms, 1.5, `${sec(m1.explain.ms)} vs ${sec(m1.floor.ms)}${cpu(m1.explain, m1.floor)}`);

// 2.
console.log(`\n2. explain --format json --only denied, ${bigCount.toLocaleString('en')} observations`);
const m2 = measure({
  floor: () => { let ms = 0, rssKiB = 0, cpuMs = 0; for (let i = 0; i < 4; i++) { const r = run(parseFloor(quarter)); ms += r.ms; cpuMs += r.cpuMs; rssKiB = Math.max(rssKiB, r.rssKiB); } return { ms, rssKiB, cpuMs }; },
  explain: explain(big, '--format', 'json', '--only', 'denied'),
}, full ? 1 : Math.min(ROUNDS, 2));
row(`explain json denied ${bigCount / 1e6}M obs / 4 x JSON.parse of a quarter`, m2.explain.ms / m2.floor.ms, 1.5, `${sec(m2.explain.ms)} vs ${sec(m2.floor.ms)}${cpu(m2.explain, m2.floor)}`);
row(`explain json denied ${bigCount / 1e6}M obs peak RSS / 512 MB`, m2.explain.rssKiB / (512 * 1024), 1, mb(m2.explain.rssKiB));

// 3. and 4. and 5.
console.log('\n3-5. explain --format json --only all, every request to its own URL, half denied');
const m3 = measure({
  floor: parseFloor(distinct),
  json: explain(distinct, '--format', 'json', '--only', 'all'),
  small: explain(distinctSmall, '--format', 'json', '--only', 'all'),
  text: explain(distinct, '--format', 'text', '--only', 'all'),
}, Math.min(ROUNDS, 2));
row('explain json all 300k distinct URLs / JSON.parse', m3.json.ms / m3.floor.ms, 5, `${sec(m3.json.ms)} vs ${sec(m3.floor.ms)}${cpu(m3.json, m3.floor)}`);
row('peak RSS 300k / 75k (bounded)', m3.json.rssKiB / m3.small.rssKiB, 1.5, `${mb(m3.json.rssKiB)} vs ${mb(m3.small.rssKiB)}`);
row('time 300k / 75k (linear)', m3.json.ms / m3.small.ms, 5, `${sec(m3.json.ms)} vs ${sec(m3.small.ms)}`);
row('--format text / --format json, 300k', m3.text.ms / m3.json.ms, 2, `${sec(m3.text.ms)} vs ${sec(m3.json.ms)}`);

// 6. In process: the evaluators alone on the same accesses (indexes vs trying every rule).
const { compilePolicy, evaluateNaive, parseTrace, accessOf } = await import('../packages/core/dist/index.js');
const policy10k = makePolicy(10000);
const sampleText = readFileSync(distinctSmall, 'utf8');
const accesses = parseTrace(sampleText).observations.slice(0, 2000).map((o) => accessOf(o)).filter(Boolean);
const compiled = compilePolicy(policy10k);
evaluateNaive(policy10k, accesses[0]);
for (const a of accesses.slice(0, 300)) if (JSON.stringify(compiled.evaluate(a)) !== JSON.stringify(evaluateNaive(policy10k, a))) throw new Error(`evaluators disagree on ${JSON.stringify(a)}`);
let t = performance.now();
for (const a of accesses) evaluateNaive(policy10k, a);
const naiveMs = performance.now() - t;
t = performance.now();
for (let k = 0; k < 20; k++) for (const a of accesses) compiled.evaluate(a);
const indexedMs = (performance.now() - t) / 20;
console.log('\n6. evaluation per access at 10,000 rules');
row('indexed / naive evaluation, 10,000 rules', indexedMs / naiveMs, 0.02, `${(indexedMs / accesses.length * 1e6).toFixed(0)} ns vs ${(naiveMs / accesses.length * 1e6).toFixed(0)} ns`);

// 7.
console.log('\n7. explain --only denied, 200,000 compact observations aimed at a policy of one registry and Git server shared by teams');
const m7 = measure({ floor: parseFloor(aimed), explain: [cli, 'explain', '--policy', teamPolicy, '--trace', aimed, '--only', 'denied'] });
row('explain --only denied 200k aimed at 1,000 team rules / JSON.parse', m7.explain.ms / m7.floor.ms, 2, `${sec(m7.explain.ms)} vs ${sec(m7.floor.ms)}${cpu(m7.explain, m7.floor)}`);
if (!existsSync(outFile)) throw new Error('no output');
