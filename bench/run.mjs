// `npm run bench`: runs every bench/*.bench.mjs in its own process, one after the other, then
// prints the table: each measure, its ratio and its target. A bench reports a row by
// printing one line `ROW {"measure": "...", "ratio": 0.42, "target": 0.5}` (lower is better),
// which is gathered here; every other line is shown as it comes.
import { readdirSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

const dir = new URL('.', import.meta.url).pathname;
const only = process.argv.slice(2);
const files = readdirSync(dir).filter((f) => f.endsWith('.bench.mjs') && (only.length === 0 || only.some((o) => f.includes(o)))).sort();
let failed = 0;
const rows = [];

function runBench(file) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--expose-gc', dir + file], { stdio: ['ignore', 'pipe', 'inherit'] });
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (line.startsWith('ROW ')) {
        try {
          rows.push({ file, ...JSON.parse(line.slice(4)) });
          return;
        } catch {}
      }
      console.log(line);
    });
    child.on('close', (code) => resolve(code));
  });
}

for (const f of files) {
  console.log(`\n=== ${f} ===`);
  if ((await runBench(f)) !== 0) failed++;
}

if (rows.length > 0) {
  console.log('\n=== targets ===');
  const width = Math.max(...rows.map((r) => r.measure.length));
  for (const r of rows) {
    const met = r.ratio <= r.target ? 'met' : 'NOT met';
    console.log(`${r.measure.padEnd(width)}  ${r.ratio.toFixed(2).padStart(6)}x  (target <= ${r.target}x)  ${met}`);
  }
}
process.exit(failed ? 1 : 0);
