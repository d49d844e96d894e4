// Workspace symbols (issue 30 item 4, row of item 9): `workspace/symbol` round trips through the
// whole server (`netpolicy-language-server --stdio`, spawned) on a workspace of 200 policies of 100
// rules each, realistic (sources of every kind, git over HTTPS and SSH, OCI with repository
// patterns, tls and tcp connections by name and by IPv4 and IPv6 CIDRs, udp and icmp, three preset
// choices, one of them none: every preset enabled), after the workspace check has read every file
// (the first query indexes them). Queries of every kind in turn: hosts, URLs, repositories, IPv4
// and IPv6 addresses, text typed half way, and the empty query (256 symbols, the most an answer
// holds). Against `netpolicy check DIR` on the same folder as a whole process (cold start), timed in
// the same run, interleaved with the batches of queries. Target: query p99 <= 0.05x check's median.
// Also printed: the first query right after the check (it indexes the files the check read), p50
// and max, the slowest kinds of query, the server's CPU per query (/proc: utime + stime over the
// batch), and the load average, so that a figure taken on a busy machine can be read as such.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir, availableParallelism } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';
import { createMessageConnection, StreamMessageReader, StreamMessageWriter } from 'vscode-jsonrpc/node.js';
import { serverNodeOptions } from '../packages/language-server/dist/protocol.js';

const root = new URL('..', import.meta.url).pathname;
const FILES = 200;
const RULES = 100;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const QUERIES_PER_ROUND = Number(process.env.BENCH_QUERIES ?? 100);

const hex = (n) => n.toString(16);

/** Policy `i` of the workspace: RULES rules of twenty shapes, every one distinct across the workspace. */
function policy(i) {
  const sources = [];
  const connections = [];
  for (let k = 0; k < RULES; k++) {
    switch (k % 20) {
      case 0: sources.push({ pypi: { urls: [`https://pypi-${i}-${k}.corp.example/simple`] } }); break;
      case 1: sources.push({ npm: { urls: [`https://npm.corp.example/team-${i}-${k}`] } }); break;
      case 2: sources.push({ rubygems: { urls: [`https://gems-${i}-${k}.corp.example`] } }); break;
      case 3: sources.push({ golang: { urls: [`https://goproxy.corp.example/${i}/${k}`] } }); break;
      case 4: sources.push({ apt: { urls: [`https://apt-${i}-${k}.corp.example/debian`], purlNamespace: 'debian' } }); break;
      case 5: sources.push({ cargo: { indexUrl: `https://index-${i}-${k}.crates.corp.example`, downloadUrl: `https://dl-${i}-${k}.crates.corp.example` } }); break;
      case 6: sources.push({ oci: { urls: [`https://registry-${k % 7}.corp.example`], repositoryPatterns: [`team-${i}/app-${k}`, `team-${i}/lib-${k}/*`], operations: ['pull'] } }); break;
      case 7: sources.push({ git: { repositoryPatterns: [`org-${i}/repo-${k}`, `org-${i}/tools-${k}/*`], https: [{ baseUrl: 'https://github.com' }], ssh: [{ host: 'github.com', port: 22, user: 'git' }] } }); break;
      case 8: sources.push({ git: { repositoryPatterns: [`proj-${i}-${k}/**`], https: [{ baseUrl: `https://git-${k % 5}.corp.example/scm` }], ssh: [{ host: `git-${k % 5}.corp.example`, port: 7999 }] } }); break;
      case 9: sources.push({ apk: { urls: [`https://alpine-${i}-${k}.corp.example/v3.19/main`] } }); break;
      case 10: sources.push({ nix: { urls: [`https://nix-${i}-${k}.cache.corp.example`] } }); break;
      case 11: connections.push({ tls: { serverNamePatterns: [`api.svc-${i}-${k}.example`, `*.svc-${i}-${k}.example`], ports: [443, 8443] } }); break;
      case 12: connections.push({ tls: { cidrs: [`10.${i}.${k}.0/24`], ports: [443], alpn: ['h2'] } }); break;
      case 13: connections.push({ tcp: { cidrs: [`10.${200 + (i % 50)}.${k}.${(i >> 6) * 64}/26`, `fd00:${hex(i)}:${hex(k)}::/64`], ports: [5432] } }); break;
      case 14: connections.push({ tcp: { hostPatterns: [`db-${i}-${k}.corp.example`], ports: [5432, 6432] } }); break;
      case 15: connections.push({ tcp: { cidrs: [`2001:db8:${hex(i)}:${hex(k)}::/64`], ports: [6379] } }); break;
      case 16: connections.push({ udp: { cidrs: [`172.20.${i}.${k}/32`], ports: [53] } }); break;
      case 17: connections.push({ icmp: { cidrs: [`192.168.${i}.${k}/32`] } }); break;
      case 18: connections.push({ tcp: { cidrs: [`172.16.${i}.${k}/32`], ports: [22] } }); break;
      default: connections.push({ tls: { serverNamePatterns: [`c${k}.cdn-${i}.example`], ports: [443] } });
    }
  }
  const presets = i % 3 === 0 ? undefined : i % 3 === 1 ? ['pypi', 'npm'] : ['debian', 'golang', 'cargo'];
  return JSON.stringify({ default: 'deny', ...(presets ? { presets } : {}), sources, connections }, null, 2);
}

const QUERIES = [
  'pypi.org', 'files.pythonhosted.org', 'https://pypi.org/simple/requests/', 'registry-3.corp.example', 'registry-3.corp.example/team-42/app-6',
  'github.com/org-17/repo-7', 'git@github.com:org-120/tools-47/cli.git', 'https://npm.corp.example/team-5-21/left-pad', 'api.svc-33-11.example', 'x.svc-150-91.example',
  '10.12.72.5', '10.220.53.70', 'fd00:2a:d::1', '2001:db8:c7:37::9', '192.168.3.17', 'pypi.o', 'team-77', '', 'https://registry.npmjs.org/lodash', 'db-9-14.corp.example',
];

const dir = mkdtempSync(join(tmpdir(), 'np-bench-symbols-'));
for (let i = 0; i < FILES; i++) {
  const sub = join(dir, `team-${i % 10}`);
  mkdirSync(sub, { recursive: true });
  writeFileSync(join(sub, `job-${i}.netpolicy.json`), policy(i));
}

function checkDirOnce() {
  const start = performance.now();
  const r = spawnSync(process.execPath, [`${root}packages/cli/bin/netpolicy.js`, 'check', dir], { encoding: 'utf8' });
  const ms = performance.now() - start;
  if (r.status !== 0) throw new Error(`workspace symbols bench: check exited ${r.status}: ${(r.stdout + r.stderr).slice(0, 500)}`);
  return ms;
}

/** The server's CPU time so far (ms), from /proc (NaN where there is none). */
function cpuOf(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return NaN;
  }
}

const server = spawn(process.execPath, [...serverNodeOptions(availableParallelism()), `${root}packages/language-server/dist/node.cjs`, '--stdio'], { stdio: ['pipe', 'pipe', 'inherit'] });
const conn = createMessageConnection(new StreamMessageReader(server.stdout), new StreamMessageWriter(server.stdin));
const published = new Set();
const allPublished = new Promise((resolve) => conn.onNotification('textDocument/publishDiagnostics', (p) => {
  published.add(p.uri);
  if (published.size === FILES) resolve();
}));
conn.onRequest('workspace/configuration', (p) => p.items.map(() => ({})));
conn.onRequest('client/registerCapability', () => null);
conn.listen();
await conn.sendRequest('initialize', { processId: process.pid, rootUri: pathToFileURL(dir).href, capabilities: { workspace: { configuration: true, symbol: {} } } });
await conn.sendNotification('initialized', {});
await allPublished;
// The first query right after the check: it indexes the files the check read (indexing waits for the check to be quiet).
const t0 = performance.now();
await conn.sendRequest('workspace/symbol', { query: 'pypi.org' });
const firstQuery = performance.now() - t0;

// The answers, once: what each query finds (and a sanity check that the index holds the whole workspace).
const counts = [];
for (const query of QUERIES) counts.push((await conn.sendRequest('workspace/symbol', { query })).length);
if (counts[QUERIES.indexOf('')] !== 256 || counts.some((n) => n === 0)) throw new Error(`workspace symbols bench: unexpected answers ${counts.join(', ')}`);

const times = [];
const byKind = new Map(QUERIES.map((q) => [q, []]));
const checks = [];
let cpu = 0;
for (let round = 0; round < ROUNDS; round++) {
  checks.push(checkDirOnce());
  const before = cpuOf(server.pid);
  for (let q = 0; q < QUERIES_PER_ROUND; q++) {
    const query = QUERIES[(round * QUERIES_PER_ROUND + q) % QUERIES.length];
    const start = performance.now();
    await conn.sendRequest('workspace/symbol', { query });
    times.push(performance.now() - start);
    byKind.get(query).push(performance.now() - start);
  }
  cpu += cpuOf(server.pid) - before;
}
await conn.sendRequest('shutdown');
const exited = new Promise((r) => server.on('exit', r));
await conn.sendNotification('exit');
await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
server.kill();
rmSync(dir, { recursive: true, force: true });

const quantile = (xs, q) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(q * s.length))]; };
const row = (name, ms, note = '') => console.log(`${name.padEnd(56)} ${ms.toFixed(2).padStart(9)} ms  ${note}`);
console.log(`workspace: ${FILES} policies of ${RULES} rules in 10 folders; ${times.length} queries (${QUERIES.length} kinds in turn) in ${ROUNDS} rounds, each after a cold netpolicy check DIR; load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
console.log('symbols per query:', QUERIES.map((q, i) => `${JSON.stringify(q)} ${counts[i]}`).join(', '));
row('server: first query after the check (indexes the 200 files)', firstQuery);
row('server: workspace/symbol round trip, median', quantile(times, 0.5));
row('server: workspace/symbol round trip, p99', quantile(times, 0.99));
row('server: workspace/symbol round trip, max', Math.max(...times));
row('server: CPU per query (utime + stime)', cpu / times.length);
console.log('slowest kinds (median ms):', [...byKind].map(([q, xs]) => [q, quantile(xs, 0.5)]).sort((a, b) => b[1] - a[1]).slice(0, 5).map(([q, ms]) => `${JSON.stringify(q)} ${ms.toFixed(1)}`).join(', '));
row('netpolicy check DIR (process), median', quantile(checks, 0.5), `runs: ${checks.map((x) => x.toFixed(0)).join(', ')}`);
const out = (measure, ratio, target) => console.log(`ROW ${JSON.stringify({ measure, ratio: Number(ratio.toFixed(4)), target })}`);
out('server: workspace symbol query p99 vs netpolicy check DIR (200 policies x 100 rules)', quantile(times, 0.99) / quantile(checks, 0.5), 0.05);
process.exit(0);
