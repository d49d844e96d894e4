// Preloaded into the spawned language server by language-server.bench.mjs (`--require`): one line
// per garbage collection, `<epoch ms when it began> <kind>` (perf_hooks: 1 young, 4 major, 8 incremental
// marking, 16 weak callbacks), appended to the file NETPOLICY_BENCH_GC names. Never stdout: it is
// the LSP channel. The bench counts the major collections of its edit loop (issue 29 item 6: a
// steadier figure than completion's p99, which one major more or less moves by a factor of two).
'use strict';
const file = process.env.NETPOLICY_BENCH_GC;
if (file) {
  const { appendFileSync } = require('node:fs');
  const { PerformanceObserver, performance } = require('node:perf_hooks');
  new PerformanceObserver((list) => {
    const lines = list.getEntries().map((e) => `${Math.round(performance.timeOrigin + e.startTime)} ${e.detail?.kind ?? 0}\n`).join('');
    try { appendFileSync(file, lines); } catch { /* the bench's temporary folder is gone */ }
  }).observe({ entryTypes: ['gc'] });
}
