// References from a rule into a trace (issue 30 item 9): the whole server over stdio
// (`packages/language-server/dist/node.cjs --stdio`, spawned), a workspace with a 100-rule policy
// and a 200,000-observation trace (bench/explain-data.mjs's mixed trace: HTTP to several
// registries, TLS, plain TCP, git over ssh and DNS; IPv4 and IPv6; every destination distinct).
// Once the trace is evaluated (the lenses are there), each count lens is clicked as the VS Code
// extension clicks it: textDocument/references at the lens's position. The first request into the
// trace finds where its observations are (the trace read again) and is reported apart; then
// ROUNDS requests cycle over the lenses (each rule's first 1,000 observations, or fewer).
// Target: p99 round trip under 50 ms. The server's CPU time per request (/proc/PID/stat) is printed
// beside it: on a shared machine, waiting for a core stretches the wall time.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir, availableParallelism } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';
import { createMessageConnection, StreamMessageReader, StreamMessageWriter } from 'vscode-jsonrpc/node.js';
import { ensure, makePolicy, MIXED_VERSION, writeMixedTrace } from './explain-data.mjs';
import { serverNodeOptions } from '../packages/language-server/dist/protocol.js';

const root = new URL('..', import.meta.url).pathname;
const ROUNDS = Number(process.env.BENCH_REFERENCES_ROUNDS ?? 300);
const TARGET_MS = 50;
const dataDir = process.env.NETPOLICY_BENCH_DIR ?? join(tmpdir(), 'netpolicy-bench-explain');
mkdirSync(dataDir, { recursive: true });
const trace = ensure(join(dataDir, 'mixed-200000.json'), writeMixedTrace, 200000, MIXED_VERSION);

const ws = mkdtempSync(join(tmpdir(), 'netpolicy-bench-refs-'));
const policyPath = join(ws, 'ci.netpolicy.json');
writeFileSync(policyPath, `${JSON.stringify(makePolicy(100), null, 2)}\n`);
writeFileSync(join(ws, 'netpolicy.config.json'), JSON.stringify({ traces: [trace] }));
const uri = pathToFileURL(policyPath).href;
const traceUri = pathToFileURL(trace).href;

const quantile = (xs, q) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)]; };
/** The child's user + system CPU time so far (ms), from /proc. */
function cpuMsOf(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime, stime in clock ticks (USER_HZ 100)
}

const child = spawn(process.execPath, [...serverNodeOptions(availableParallelism()), `${root}packages/language-server/dist/node.cjs`, '--stdio'], { stdio: ['pipe', 'pipe', 'inherit'] });
const conn = createMessageConnection(new StreamMessageReader(child.stdout), new StreamMessageWriter(child.stdin));
let refreshed;
conn.onRequest('workspace/configuration', (p) => p.items.map(() => ({})));
conn.onRequest('client/registerCapability', () => null);
conn.onRequest('workspace/codeLens/refresh', () => { refreshed?.(); return null; });
conn.onNotification('window/logMessage', () => {});
conn.listen();
await conn.sendRequest('initialize', {
  processId: process.pid, rootUri: pathToFileURL(ws).href, workspaceFolders: [{ uri: pathToFileURL(ws).href, name: 'bench' }],
  capabilities: { workspace: { configuration: true, codeLens: { refreshSupport: true } }, experimental: { commands: { commands: ['netpolicy.showReferences'] } } },
});
await conn.sendNotification('initialized', {});

let t = performance.now();
const lensesReady = new Promise((resolve) => { refreshed = resolve; });
await conn.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'json', version: 1, text: readFileSync(policyPath, 'utf8') } });
let lenses = [];
while (lenses.length === 0) {
  await Promise.race([lensesReady, new Promise((r) => setTimeout(r, 500))]);
  lenses = (await conn.sendRequest('textDocument/codeLens', { textDocument: { uri } })).filter((l) => l.command.command === 'netpolicy.showReferences');
}
const evaluatedMs = performance.now() - t;

const ask = (lens) => conn.sendRequest('textDocument/references', { textDocument: { uri }, position: lens.command.arguments[1], context: { includeDeclaration: false } });
t = performance.now();
const first = await ask(lenses[0]);
const firstMs = performance.now() - t;
if (!first.some((l) => l.uri === traceUri)) throw new Error('bench: the first lens lists no observation of the trace');

const times = [];
const counts = [];
const cpuStart = cpuMsOf(child.pid);
for (let i = 0; i < ROUNDS; i++) {
  const lens = lenses[i % lenses.length];
  t = performance.now();
  const found = await ask(lens);
  times.push(performance.now() - t);
  counts.push(found.length);
}
const cpuPerRequest = (cpuMsOf(child.pid) - cpuStart) / ROUNDS;
await conn.sendRequest('shutdown');
await conn.sendNotification('exit');
child.kill();
rmSync(ws, { recursive: true, force: true });

const p50 = quantile(times, 0.5);
const p99 = quantile(times, 0.99);
const mib = (statSync(trace).size / 1048576).toFixed(0);
console.log(`trace: 200,000 observations (${mib} MiB); evaluated (open to lenses) in ${(evaluatedMs / 1000).toFixed(1)} s; ${lenses.length} clickable lenses, ${Math.min(...counts)} to ${Math.max(...counts)} locations an answer`);
console.log(`first references request (finds where the observations are): ${firstMs.toFixed(0)} ms`);
console.log(`references, ${ROUNDS} requests: p50 ${p50.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, max ${Math.max(...times).toFixed(1)} ms; server CPU ${cpuPerRequest.toFixed(1)} ms a request`);
console.log(`ROW ${JSON.stringify({ measure: 'server: references from a rule into a 200,000-observation trace, p99 ms / 50 ms', ratio: Number((p99 / TARGET_MS).toFixed(3)), target: 1 })}`);
