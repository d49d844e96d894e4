#!/usr/bin/env node
// The steps of action.yml (a composite action): `install` puts @netpolicy/cli from the registry
// into RUNNER_TEMP; `run` runs it with the inputs (INPUT_* variables set by action.yml) and writes
// the outputs (check: errors, warnings; explain: denials; diff: newly-denied, newly-allowed,
// rules-added, rules-removed, findings-added, report) to GITHUB_OUTPUT. Node's own modules only: the action
// runs on the runner's Node 20 with nothing installed. Docs: docs/ci.md.
import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';

const env = process.env;
const input = (name) => (env[`INPUT_${name.toUpperCase().replace(/-/g, '_')}`] ?? '').trim();
const flag = (name) => /^(true|yes|1|on)$/i.test(input(name));

function fail(message) {
  process.stdout.write(`::error title=netpolicy action::${message.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A')}\n`);
  process.exit(2);
}

function setOutput(name, value) {
  if (!env.GITHUB_OUTPUT) return;
  appendFileSync(env.GITHUB_OUTPUT, `${name}=${String(value).replace(/[\r\n]/g, ' ')}\n`);
}

function install() {
  if (env.NETPOLICY_BIN) return setOutput('bin', env.NETPOLICY_BIN); // already installed (a self-hosted runner, the tests)
  const actionRoot = env.GITHUB_ACTION_PATH || fileURLToPath(new URL('..', import.meta.url));
  const version = input('version') || JSON.parse(readFileSync(join(actionRoot, 'packages/cli/package.json'), 'utf8')).version;
  if (!/^[0-9A-Za-z.+-]+$/.test(version)) fail(`version must be a version of @netpolicy/cli, not ${JSON.stringify(version)}`);
  const prefix = join(env.RUNNER_TEMP || tmpdir(), 'netpolicy-cli');
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const r = spawnSync(npm, ['install', '--prefix', prefix, '--no-save', '--no-audit', '--no-fund', '--ignore-scripts', `@netpolicy/cli@${version}`], { stdio: 'inherit', shell: process.platform === 'win32' });
  if (r.status !== 0) fail(`npm could not install @netpolicy/cli@${version} (exit ${r.status})`);
  setOutput('bin', join(prefix, 'node_modules', '@netpolicy', 'cli', 'bin', 'netpolicy.js'));
}

/** Runs the CLI; `capture`: stdout returned, else it goes to the log. */
function netpolicy(args, { capture = false, summary = true } = {}) {
  const childEnv = { ...env };
  if (!summary) delete childEnv.GITHUB_STEP_SUMMARY;
  const r = spawnSync(process.execPath, [env.NETPOLICY_BIN, ...args], { env: childEnv, stdio: ['ignore', capture ? 'pipe' : 'inherit', 'inherit'], encoding: 'utf8', maxBuffer: 1 << 30 });
  if (r.error) fail(`could not run netpolicy: ${r.error.message}`);
  return { code: r.status ?? 2, stdout: r.stdout ?? '' };
}

/**
 * The trace input's files (diff: spaces or lines between them; explain: one file, spaces and all),
 * or the one fetched with repo and job-id.
 */
function traceFiles(mode) {
  const traces = mode === 'diff' ? input('trace').split(/\s+/).filter(Boolean) : [input('trace')].filter(Boolean);
  const repo = input('repo'), jobId = input('job-id');
  if (traces.length === 0 && (repo || jobId)) {
    if (!repo || !jobId) fail(`${mode} needs both repo and job-id to fetch a trace`);
    const trace = join(env.RUNNER_TEMP || tmpdir(), `netpolicy-trace-${jobId.replace(/[^0-9A-Za-z_-]/g, '_')}.json`);
    const fetched = netpolicy(['fetch', 'trace', '--repo', repo, '--job-id', jobId, '--output', trace], { summary: false });
    if (fetched.code !== 0) process.exit(fetched.code);
    traces.push(trace);
  }
  return traces;
}

function run() {
  if (!env.NETPOLICY_BIN || !existsSync(env.NETPOLICY_BIN)) fail('the netpolicy CLI is not installed (the install step did not run?)');
  const mode = input('mode') || 'check';
  const policies = input('policy').split(/\s+/).filter(Boolean);
  if (policies.length === 0) policies.push('.');
  const summary = input('format-summary') === '' || flag('format-summary');
  if (mode === 'check') {
    const strict = flag('strict') ? ['--strict'] : [];
    const shown = netpolicy(['check', '--format', 'github', ...strict, '--', ...policies], { summary });
    // The counts come from the JSON report of the same files (annotations are capped at 10 per level).
    const json = netpolicy(['check', '--format', 'json', '--', ...policies], { capture: true, summary: false });
    let errors = 0, warnings = 0;
    try {
      for (const f of JSON.parse(json.stdout).files) for (const d of f.diagnostics) {
        if (d.severity === 'error') errors++;
        else if (d.severity === 'warning') warnings++;
      }
    } catch { /* the check failed before any report (exit 2): its message is in the log */ }
    setOutput('errors', errors);
    setOutput('warnings', warnings);
    process.exit(shown.code);
  }
  if (mode === 'explain') {
    if (policies.length !== 1) fail(`explain takes one policy file, not ${policies.length}`);
    const trace = traceFiles('explain')[0];
    if (!trace) fail('explain needs a trace: the trace input, or repo and job-id');
    const args = ['--policy', policies[0], '--trace', trace];
    const shown = netpolicy(['explain', '--format', 'github', ...args], { summary });
    const json = netpolicy(['explain', '--format', 'json', '--only', 'denied', ...args], { capture: true, summary: false });
    let denials = 0;
    try { denials = JSON.parse(json.stdout).summary.denied; } catch { /* reported in the log */ }
    setOutput('denials', denials);
    process.exit(shown.code !== 0 ? shown.code : 0);
  }
  if (mode === 'diff') {
    if (policies.length !== 1) fail(`diff takes one policy file, not ${policies.length}`);
    // The pull request's base branch, as actions/checkout fetches it with fetch-depth 0.
    const base = input('base') || (env.GITHUB_BASE_REF ? `origin/${env.GITHUB_BASE_REF}` : '');
    if (!base) fail('diff needs base: the git revision holding the old policy (e.g. origin/main); it defaults to the pull request\'s base branch only in a pull_request run');
    const failOn = input('fail-on').split(/[\s,]+/).filter(Boolean);
    const options = [...traceFiles('diff').flatMap((t) => ['--trace', t]), ...failOn.flatMap((f) => ['--fail-on', f])];
    const operands = ['--', `git:${base}`, policies[0]];
    const shown = netpolicy(['diff', '--format', 'github', ...options, ...operands], { summary });
    // The counts come from the JSON report (annotations are capped); the Markdown review is kept for a comment.
    const json = netpolicy(['diff', '--format', 'json', ...options, ...operands], { capture: true, summary: false });
    try {
      const j = JSON.parse(json.stdout);
      setOutput('newly-denied', j.summary.newlyDenied);
      setOutput('newly-allowed', j.summary.newlyAllowed);
      setOutput('rules-added', j.rules.added.length);
      setOutput('rules-removed', j.rules.removed.length);
      setOutput('findings-added', j.findings.added.length);
    } catch { /* the diff failed before any report (exit 2): its message is in the log */ }
    const report = join(env.RUNNER_TEMP || tmpdir(), 'netpolicy-diff.md');
    if (netpolicy(['diff', '--format', 'markdown', '-o', report, ...options, ...operands], { summary: false }).code < 2) setOutput('report', report);
    process.exit(shown.code);
  }
  fail(`mode must be check, explain or diff, not ${JSON.stringify(mode)}`);
}

const step = process.argv[2];
if (step === 'install') install();
else if (step === 'run') run();
else fail(`usage: run.mjs install|run (got ${JSON.stringify(step ?? '')})`);
