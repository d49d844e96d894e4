// `npm start`: the main job on the bundled fixtures, as a user would run it.
//  1. netpolicy check on a clean policy and on one with several kinds of problems;
//  2. when the local service and the explainer are built: serve the sample records, fetch a
//     job's trace with the client, and explain it against its policy; then explain the job from
//     the service with its SBOM (attribution) and the provenance of the images it pulled.
import { spawnSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const bin = join(root, 'packages/cli/bin/netpolicy.js');
// The CLI colours by itself when its output (ours, inherited) is a terminal; NO_COLOR and
// FORCE_COLOR pass through unchanged. Our own headings follow the same rules.
const env = process.env;
const color = process.env.NO_COLOR ? false : process.env.FORCE_COLOR && process.env.FORCE_COLOR !== '0' ? true : process.stdout.isTTY === true;
const bold = (s) => (color ? `\x1b[1m${s}\x1b[0m` : s);

function step(title, args, expected, extraEnv = {}) {
  console.log(`\n${bold(`$ netpolicy ${args.join(' ')}`)}   # ${title}`);
  const r = spawnSync(process.execPath, [bin, ...args], { cwd: root, stdio: 'inherit', env: { ...env, ...extraEnv } });
  const ok = r.status === expected;
  console.log(`${ok ? '✓' : '✗'} exit ${r.status}${ok ? '' : ` (expected ${expected})`}`);
  return ok;
}

let ok = true;
ok = step('a clean policy using every source and connection kind', ['check', 'fixtures/policies/every-kind.netpolicy.json'], 0) && ok;
ok = step('a policy with several kinds of problems', ['check', 'fixtures/policies/problems.netpolicy.json'], 1) && ok;

// End to end: local service -> fetch -> explain (needs fixtures/service and the explainer).
const demo = JSON.parse(process.env.NETPOLICY_DEMO ?? 'null') ?? { repo: 'acme/webapp', jobId: '1001', policy: 'fixtures/service/policies/acme-webapp.netpolicy.json' };
if (existsSync(join(root, 'fixtures/service')) && existsSync(join(root, demo.policy))) {
  const server = spawn(process.execPath, [bin, 'serve', '--data', 'fixtures/service', '--port', '0'], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise((resolve, reject) => {
    let out = '';
    server.stdout.on('data', (chunk) => {
      out += chunk;
      const m = /(http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) resolve(m[1]);
    });
    server.on('exit', (code) => reject(new Error(`serve exited ${code}`)));
    setTimeout(() => reject(new Error('serve did not start in 10 s')), 10000);
  });
  const dir = mkdtempSync(join(tmpdir(), 'netpolicy-start-'));
  const trace = join(dir, 'trace.json');
  try {
    const tokenEnv = { NETPOLICY_BASE_URL: url, NETPOLICY_TOKEN: process.env.NETPOLICY_DEMO_TOKEN ?? 'demo-token' };
    ok = step(`fetch a job trace from the local service at ${url}`, ['fetch', 'trace', '--repo', demo.repo, '--job-id', demo.jobId, '--output', trace], 0, tokenEnv) && ok;
    ok = step('explain it: what was denied, why, and the smallest fix', ['explain', '--policy', demo.policy, '--trace', trace], 0) && ok;
    ok = step('explain the job straight from the service, with the SBOM components behind each access and the provenance of what it pulled', ['explain', '--policy', demo.policy, '--repo', demo.repo, '--job-id', demo.jobId, '--sbom', 'service', '--provenance'], 0, tokenEnv) && ok;
  } finally {
    server.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  }
}

console.log(ok ? '\nAll steps behaved as expected.' : '\nSome steps did not behave as expected.');
process.exit(ok ? 0 : 1);
