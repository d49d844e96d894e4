// Benchmark of `netpolicy explain --sbom` against its floor (security issue 28, item 4): whole
// processes, interleaved rounds, best of each, as explain.bench.mjs measures.
//
//   1. `explain --sbom` (text, --only denied) with an SBOM of 300,000 identical lodash components
//      (26 MB) and a trace of 50 denied downloads of it, vs a process that JSON.parses the SBOM
//      (cold start included)                                                          target <= 4x
//   2. the same with `--format json`                                                  target <= 4x
//   3. attribution's cost (issue 32): `explain --sbom` (text, every access listed: explain's default
//      --only all) with a 10,000-component
//      SBOM of mixed ecosystems (sbom-data.mjs's mixedComponent: npm, PyPI, Maven from Central, a
//      private repository only the policy names and one the purls name, OCI, Go, crates, RubyGems,
//      Debian, Alpine, git) and a trace of 200,000 observations (attributed, near-miss and
//      unattributed requests; TLS, TCP, ssh, DNS; IPv6, every destination distinct), against the
//      same `explain` without --sbom. Medians of interleaved runs, cold start included; the figure
//      is (with - without) / without                                                  target <= 0.2x
//      The text report shows attribution for model denials only (the line under each denial shown,
//      the counts per component): since issue 32's round three it attributes only those (15,093).
//   4. the same with `--format json` (with and without --sbom), which lists every result with its
//      components: every one of the 182,492 accesses attributed and its components written
//                                                                                     target <= 0.2x
//
// Before the fix the run gave no answer in a minute (each access de-duplicated its candidates by
// scanning the list of those taken: 300,000^2 / 2 comparisons per access). Inputs are generated
// (bench/sbom-data.mjs) into a temporary directory, never committed. NETPOLICY_BENCH_ROUNDS sets
// the rounds (default 3). Each row is printed as `ROW {"measure","ratio","target"}` for bench/run.mjs.
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { ensure } from './explain-data.mjs';
import { LODASH, MIXED_SBOM_VERSION, PRIVATE_MAVEN, writeDeniedDownloads, writeDenyingPolicy, writeMixedPolicy, writeMixedSbom, writeSbom, writeSbomTrace } from './sbom-data.mjs';

const root = new URL('..', import.meta.url).pathname;
const cli = join(root, 'packages/cli/bin/netpolicy.js');
const dir = process.env.NETPOLICY_BENCH_DIR ?? join(tmpdir(), 'netpolicy-bench-sbom');
const ROUNDS = Number(process.env.NETPOLICY_BENCH_ROUNDS ?? 3);
mkdirSync(dir, { recursive: true });

// ---- Inputs ----------------------------------------------------------------------------------
const COMPONENTS = 300000;
const sbom = join(dir, `sbom-lodash-${COMPONENTS}.cdx.json`), trace = join(dir, 'lodash-denied-50.json'), policy = join(dir, 'npm-internal.json');
if (!existsSync(`${sbom}.v1`)) { writeSbom(sbom, COMPONENTS); writeFileSync(`${sbom}.v1`, ''); }
writeDeniedDownloads(trace, 50);
writeDenyingPolicy(policy);
console.log(`inputs in ${dir}: SBOM of ${COMPONENTS.toLocaleString('en')} identical components = ${(statSync(sbom).size / 1048576).toFixed(0)} MiB, 50 denied downloads`);

// ---- Processes -------------------------------------------------------------------------------
// CPU time of a child beside its wall time: a preload prints user + system time on fd 3 at exit.
const preload = join(dir, 'cpu-preload.cjs');
writeFileSync(preload, "process.on('exit', () => { try { const u = process.resourceUsage(); require('fs').writeSync(3, String((u.userCPUTime + u.systemCPUTime) / 1000)); } catch {} });\n");
const outFile = join(dir, 'out.txt');

/** Runs `node ...args` with stdout to a file; returns wall time and CPU time (ms). */
function run(args) {
  const out = openSync(outFile, 'w');
  const start = performance.now();
  const r = spawnSync(process.execPath, ['--require', preload, ...args], { stdio: ['ignore', out, 'pipe', 'pipe'], encoding: 'utf8', timeout: 600_000 });
  const ms = performance.now() - start;
  closeSync(out);
  if (r.status !== 0) throw new Error(`node ${args.join(' ')} exited ${r.status ?? r.signal}: ${r.stderr}`);
  return { ms, cpuMs: Number(String(r.output[3])) };
}
const floor = ['-e', `JSON.parse(require('fs').readFileSync(${JSON.stringify(sbom)}, 'utf8'))`];
const explain = (...opts) => [cli, 'explain', '--policy', policy, '--trace', trace, '--sbom', sbom, ...opts];

function measure(commands) {
  const best = Object.fromEntries(Object.keys(commands).map((k) => [k, { ms: Infinity, cpuMs: Infinity }]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, args] of Object.entries(commands)) {
      const r = run(args);
      best[name].ms = Math.min(best[name].ms, r.ms);
      best[name].cpuMs = Math.min(best[name].cpuMs, r.cpuMs);
    }
  }
  return best;
}
const sec = (ms) => `${(ms / 1000).toFixed(2)} s`;
function row(measure, a, b, target) {
  const ratio = a.ms / b.ms;
  console.log(`  ${measure}: ${ratio.toFixed(2)}x (target <= ${target}x) ${ratio <= target ? 'met' : 'NOT met'}  [${sec(a.ms)} vs ${sec(b.ms)}; CPU ${sec(a.cpuMs)} vs ${sec(b.cpuMs)} = ${(a.cpuMs / b.cpuMs).toFixed(2)}x]`);
  console.log(`ROW ${JSON.stringify({ measure, ratio: Number(ratio.toFixed(3)), target })}`);
}

// Sanity: every result names the one component once, and the summary counts 50 denials of it.
run(explain('--format', 'json'));
const report = JSON.parse(readFileSync(outFile, 'utf8'));
const one = JSON.stringify([{ purl: LODASH.purl, name: LODASH.name, version: LODASH.version, match: 'purl' }]);
if (report.results.length !== 50 || report.results.some((r) => JSON.stringify(r.components) !== one) || report.summary.components[0]?.denied !== 50) {
  throw new Error(`unexpected report: ${JSON.stringify(report.summary)}`);
}

console.log('\n1-2. explain --sbom, 300,000 identical components, 50 denied downloads');
const m = measure({ floor, text: explain('--only', 'denied'), json: explain('--format', 'json') });
row('explain --sbom 300k identical components, 50 denials / JSON.parse of the SBOM', m.text, m.floor, 4);
row('explain --sbom --format json, same / JSON.parse of the SBOM', m.json, m.floor, 4);

// ---- 3. Attribution's cost against explain's own (issue 32) -----------------------------------
const MIXED_COMPONENTS = 10000, MIXED_OBSERVATIONS = 200000;
const mixedSbom = ensure(join(dir, `sbom-mixed-${MIXED_COMPONENTS}.cdx.json`), writeMixedSbom, MIXED_COMPONENTS, MIXED_SBOM_VERSION);
const mixedTrace = ensure(join(dir, `sbom-trace-${MIXED_OBSERVATIONS}.json`), (f, n) => writeSbomTrace(f, n, MIXED_COMPONENTS), MIXED_OBSERVATIONS, MIXED_SBOM_VERSION);
const mixedPolicy = writeMixedPolicy(join(dir, 'sbom-mixed-policy.json'));
console.log(`\n3. attribution's cost: SBOM of ${MIXED_COMPONENTS.toLocaleString('en')} mixed components = ${(statSync(mixedSbom).size / 1048576).toFixed(1)} MiB, trace of ${MIXED_OBSERVATIONS.toLocaleString('en')} observations = ${(statSync(mixedTrace).size / 1048576).toFixed(0)} MiB`);

// Sanity: the JSON report attributes downloads of every ecosystem, the private Maven repository's
// by the policy's source, and no near miss by its version.
run([cli, 'explain', '--policy', mixedPolicy, '--trace', mixedTrace, '--sbom', mixedSbom, '--format', 'json', '--only', 'all']);
{
  const results = JSON.parse(readFileSync(outFile, 'utf8')).results;
  const kinds = {};
  for (const r of results) for (const c of r.components) kinds[c.match] = (kinds[c.match] ?? 0) + 1;
  const attributed = results.filter((r) => r.components.length > 0).length;
  const ecosystems = new Set(results.flatMap((r) => r.components.map((c) => c.purl?.slice(4, c.purl.indexOf('/')))));
  const privateMaven = results.filter((r) => r.destination.startsWith(`GET ${PRIVATE_MAVEN}/`) && r.components.some((c) => c.match === 'purl')).length;
  console.log(`  ${attributed.toLocaleString('en')} of ${results.length.toLocaleString('en')} results attributed (${JSON.stringify(kinds)}); ecosystems: ${[...ecosystems].sort().join(', ')}; private Maven repository by the policy: ${privateMaven}`);
  for (const eco of ['npm', 'pypi', 'maven', 'oci', 'golang', 'cargo', 'gem', 'deb', 'apk', 'github']) if (!ecosystems.has(eco)) throw new Error(`no ${eco} component attributed`);
  if (privateMaven === 0) throw new Error('no download from the private Maven repository attributed');
}

/** Medians of interleaved runs (wall and CPU time). */
function medians(commands, rounds) {
  const times = Object.fromEntries(Object.keys(commands).map((k) => [k, { ms: [], cpuMs: [] }]));
  for (let round = 0; round < rounds; round++) {
    for (const [name, args] of Object.entries(commands)) {
      const r = run(args);
      times[name].ms.push(r.ms);
      times[name].cpuMs.push(r.cpuMs);
    }
  }
  const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2; };
  return Object.fromEntries(Object.entries(times).map(([k, v]) => [k, { ms: median(v.ms), cpuMs: median(v.cpuMs) }]));
}
/** Row 3 (`format` text) or 4 (json): explain with and without --sbom, interleaved; (with - without) / without. */
function costRow(format, measure) {
  const plain = [cli, 'explain', '--policy', mixedPolicy, '--trace', mixedTrace, ...(format === 'json' ? ['--format', 'json'] : [])];
  const cost = medians({ without: plain, with: [...plain, '--sbom', mixedSbom] }, Math.max(5, ROUNDS * 2 + 1));
  const extra = (cost.with.ms - cost.without.ms) / cost.without.ms;
  const target = 0.2;
  console.log(`  attribution's cost (${format}): ${extra.toFixed(2)}x of explain's own (target <= ${target}x) ${extra <= target ? 'met' : 'NOT met'}  [medians: ${sec(cost.with.ms)} with --sbom vs ${sec(cost.without.ms)} without; CPU ${sec(cost.with.cpuMs)} vs ${sec(cost.without.cpuMs)} = ${((cost.with.cpuMs - cost.without.cpuMs) / cost.without.cpuMs).toFixed(2)}x]`);
  console.log(`ROW ${JSON.stringify({ measure, ratio: Number(extra.toFixed(3)), target })}`);
}
costRow('text', 'explain --sbom 10k mixed components, 200k observations: (with - without) / without');
costRow('json', 'explain --sbom --format json, same, every access attributed: (with - without) / without');
