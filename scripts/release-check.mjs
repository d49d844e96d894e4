// `npm run release:check` (run by .ci/run): the five npm packages as a user gets them.
//
// Packs every package (scripts/pack.mjs: the same build as a package's `prepack`), checks each
// tarball's files and size against a budget, regenerates the API reference (docs/reference) to
// compare it with the committed one, runs publint and arethetypeswrong on each tarball, then
// installs the tarballs into an empty folder outside the workspace (no npm_* variables, no
// NODE_PATH: nothing of the workspace is reachable) and uses them there: the CLI on a policy and a
// trace, the language server over stdio, each library imported from an ES module and required
// from CommonJS (also with Node's require(esm) turned off), and a consumer program type-checked
// under "nodenext" and under "bundler", both with strict, noUncheckedIndexedAccess and
// exactOptionalPropertyTypes and skipLibCheck off; then the examples of the library docs are
// compiled and run there, their output compared with the docs (scripts/doc-examples.mjs).
//
// What it installs from the registry (typescript, @types/node and the packages' dependencies) is
// cached in $XDG_CACHE_HOME/netpolicy-release-check (default ~/.cache), so a second run needs no
// network. Options: --keep (leave the temporary folder), --no-pack DIR (use the tarballs in DIR).
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { PACKAGES, buildForPack, packAll } from './pack.mjs';
import { checkDocExamples } from './doc-examples.mjs';
import { bundleBudgets } from './bundle-budgets.mjs';
import { apiReports } from './api-extractor.mjs';

const root = new URL('..', import.meta.url).pathname;
const args = process.argv.slice(2);
const started = Date.now();

/**
 * Budgets per tarball (KiB): the npm download (gzip) and what it unpacks to, about half again
 * today's figures (November 2026: core 290/1455, client 36/124, language-service 43/155,
 * language-server 410/2399, cli 551/3036), so that features fit but a second copy of a bundle,
 * source maps or a bundled dependency do not. The file checks (step "files and sizes") name the usual culprits.
 */
const BUDGET_KIB = {
  core: { packed: 440, unpacked: 2200 },
  client: { packed: 55, unpacked: 190 },
  // Issue 30 added references, workspace symbols, rename and inlay hints to the service (98 KiB packed, 358 unpacked) and their handlers to the server (628 KiB).
  'language-service': { packed: 115, unpacked: 420 },
  'language-server': { packed: 700, unpacked: 3800 },
  cli: { packed: 830, unpacked: 4600 },
};

/** The versions the consumer type-checks with: the workspace's own. */
const rootManifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const TOOLS = ['typescript', '@types/node'].map((n) => `${n}@${rootManifest.devDependencies[n]}`);

const failures = [];
let stepStart = Date.now();
let failuresBefore = 0;
function step(name) {
  stepStart = Date.now();
  failuresBefore = failures.length;
  process.stdout.write(`release:check ${name} ... `);
}
function done(note = '') {
  const verdict = failures.length > failuresBefore ? `${failures.length - failuresBefore} failed` : 'ok';
  console.log(`${verdict} (${((Date.now() - stepStart) / 1000).toFixed(1)} s)${note ? `: ${note}` : ''}`);
}
function fail(message) {
  failures.push(message);
  console.log(`\n  FAIL ${message.replace(/\n/g, '\n       ')}`);
}
function check(ok, message) {
  if (!ok) fail(message);
  return ok;
}

const work = mkdtempSync(join(tmpdir(), 'netpolicy-release-'));
// Whatever ends the run (a failed step, an exception), the temporary folder goes unless --keep.
process.on('exit', () => { if (!args.includes('--keep')) rmSync(work, { recursive: true, force: true }); });
const cache = join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'netpolicy-release-check');
mkdirSync(cache, { recursive: true });

/** The environment of the consumer's processes: nothing that points back at the workspace. */
const cleanEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(npm_|NODE_PATH$|NODE_OPTIONS$|INIT_CWD$)/i.test(k)));
Object.assign(cleanEnv, { NO_COLOR: '1', FORCE_COLOR: '', npm_config_cache: join(cache, 'npm'), npm_config_update_notifier: 'false' });

function runIn(cwd, cmd, cmdArgs, options = {}) {
  return spawnSync(cmd, cmdArgs, { cwd, env: cleanEnv, encoding: 'utf8', timeout: 600_000, ...options });
}
const output = (r) => `${r.stdout ?? ''}${r.stderr ?? ''}${r.error ? `\n${r.error.message}` : ''}`.trim();

// ---- pack ----------------------------------------------------------------------------------
const tarballDir = join(work, 'tarballs');
const at = args.indexOf('--no-pack');
step('pack');
let tarballs;
if (at >= 0) {
  tarballs = PACKAGES.map((p) => join(args[at + 1], `netpolicy-${p}-0.1.0.tgz`));
} else {
  buildForPack();
  tarballs = packAll(tarballDir);
}
const tarballOf = Object.fromEntries(PACKAGES.map((p) => [p, tarballs.find((t) => t.includes(`netpolicy-${p}-`))]));
done(PACKAGES.map((p) => `${p} ${(statSync(tarballOf[p]).size / 1024).toFixed(0)} KiB`).join(', '));

// ---- API reference -------------------------------------------------------------------------
// docs/reference (TypeDoc, `npm run docs:api`) regenerated in a temporary folder and compared file
// by file with the committed one (the tests compare only the signature list, api-surface.txt).
step('API reference (docs/reference) in step with the sources');
{
  const r = spawnSync(process.execPath, [join(root, 'scripts/api-reference.mjs'), '--check'], { cwd: root, encoding: 'utf8', timeout: 600_000 });
  check(r.status === 0, `docs/reference is stale or could not be generated (npm run docs:api):\n${output(r)}`);
}
done();

// ---- API reports (scripts/api-extractor.mjs) -----------------------------------------------
// The public surface of each entry, read by API Extractor from the declarations just packed,
// against the committed api/*.api.md: a change to the surface must come with its report.
step('API reports (api/*.api.md) in step with the published declarations');
{
  const r = apiReports();
  for (const f of r.failures) fail(f);
  done(`${r.lines.length} entries`);
}

// ---- files and sizes -----------------------------------------------------------------------
/** The files of a .tgz: name -> size (a ustar reader; npm writes plain ustar entries). */
function tarEntries(file) {
  const data = gunzipSync(readFileSync(file));
  const entries = new Map();
  let longName;
  for (let off = 0; off + 512 <= data.length;) {
    const header = data.subarray(off, off + 512);
    if (header.every((b) => b === 0)) break;
    const field = (start, len) => header.subarray(start, start + len).toString('utf8').replace(/\0.*$/s, '');
    const size = parseInt(field(124, 12).trim() || '0', 8);
    const type = field(156, 1);
    const prefix = field(345, 155);
    let name = longName ?? (prefix ? `${prefix}/${field(0, 100)}` : field(0, 100));
    longName = undefined;
    const body = data.subarray(off + 512, off + 512 + size);
    if (type === 'L') longName = body.toString('utf8').replace(/\0.*$/s, '');
    else if (type === '0' || type === '') entries.set(name.replace(/^package\//, ''), { size, body });
    off += 512 + Math.ceil(size / 512) * 512;
  }
  return entries;
}

step('files and sizes');
const sizes = [];
for (const p of PACKAGES) {
  const entries = tarEntries(tarballOf[p]);
  const names = [...entries.keys()];
  const manifest = JSON.parse(entries.get('package.json').body.toString('utf8'));
  for (const required of ['package.json', 'README.md', 'LICENSE']) check(entries.has(required), `${p}: the tarball has no ${required}`);
  const unwanted = names.filter((n) => /(^|\/)src\/|\.tsbuildinfo$|\.test\.|\.map$|\.v8cache$|(^|\/)test\/|^dist\/types\//.test(n));
  check(unwanted.length === 0, `${p}: files that should not ship: ${unwanted.slice(0, 10).join(', ')}${unwanted.length > 10 ? ` (${unwanted.length} in all)` : ''}`);
  // Declarations: every one is reached from an entry (package-types.mjs writes only those), in pairs.
  const dts = names.filter((n) => /\.d\.c?ts$/.test(n));
  const unpaired = dts.filter((n) => !entries.has(n.endsWith('.d.cts') ? n.replace(/\.d\.cts$/, '.d.ts') : n.replace(/\.d\.ts$/, '.d.cts')));
  check(unpaired.length === 0, `${p}: declarations without their .d.ts/.d.cts twin: ${unpaired.join(', ')}`);
  if (p === 'cli') {
    check(dts.length === 0, `cli: ships declarations nothing can import: ${dts.slice(0, 5).join(', ')}`);
    // The bundles carry every workspace package and `diff`; only what `fetch sbom` loads at run time remains.
    const deps = Object.keys(manifest.dependencies ?? {});
    const allowed = ['@cyclonedx/cyclonedx-library', 'ajv', 'ajv-formats', 'ajv-formats-draft2019'];
    check(deps.every((d) => allowed.includes(d)), `cli: runtime dependencies beyond what the bundle loads: ${deps.filter((d) => !allowed.includes(d)).join(', ')}`);
  }
  for (const field of ['engines', 'repository', 'homepage', 'bugs', 'keywords', 'license']) check(manifest[field] !== undefined, `${p}: package.json has no "${field}"`);
  check(manifest.exports?.['./package.json'] === './package.json', `${p}: "./package.json" is not exported`);
  const packed = statSync(tarballOf[p]).size / 1024;
  const unpacked = [...entries.values()].reduce((s, e) => s + e.size, 0) / 1024;
  const budget = BUDGET_KIB[p];
  check(packed <= budget.packed, `${p}: tarball ${packed.toFixed(0)} KiB, budget ${budget.packed} KiB`);
  check(unpacked <= budget.unpacked, `${p}: unpacked ${unpacked.toFixed(0)} KiB, budget ${budget.unpacked} KiB`);
  sizes.push(`${p} ${packed.toFixed(0)}/${budget.packed} KiB packed, ${unpacked.toFixed(0)}/${budget.unpacked} KiB unpacked, ${names.length} files`);
}
done(`\n  ${sizes.join('\n  ')}`);

// ---- publint -------------------------------------------------------------------------------
step('publint');
{
  const { publint } = await import('publint');
  const { formatMessage } = await import('publint/utils');
  for (const p of PACKAGES) {
    const buf = readFileSync(tarballOf[p]);
    const { messages, pkg } = await publint({ pack: { tarball: buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength) }, strict: true, level: 'suggestion' });
    // `./browser` is a classic worker script (an IIFE, started by `new Worker(url)`), neither an
    // ES module nor CommonJS: publint sees the `require`s of the CommonJS code bundled inside it.
    const real = messages.filter((m) => !(p === 'language-server' && m.code === 'FILE_INVALID_FORMAT' && m.path.join('.') === 'exports../browser'));
    for (const m of real) fail(`publint ${p}: ${m.type} ${m.code}: ${formatMessage(m, pkg)}`);
  }
}
done();

// ---- arethetypeswrong ----------------------------------------------------------------------
step('arethetypeswrong (node16 from ESM and CJS, bundler)');
for (const p of PACKAGES.filter((p) => p !== 'cli')) {
  // --profile node16: node10 (TypeScript's `moduleResolution: node`, which knows no exports map)
  // resolves the main entry only, not subpaths. ./browser is a worker script, not a module.
  const r = runIn(root, join(root, 'node_modules/.bin/attw'), [tarballOf[p], '--profile', 'node16', '--format', 'table-flipped', '--exclude-entrypoints', './browser']);
  check(r.status === 0, `attw ${p}:\n${output(r)}`);
}
done();

// ---- install -------------------------------------------------------------------------------
const consumer = join(work, 'consumer');
mkdirSync(consumer, { recursive: true });
writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'netpolicy-consumer', private: true, version: '0.0.0' }, null, 2));
step('install the tarballs into an empty folder');
{
  const r = runIn(consumer, 'npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error', ...tarballs, ...TOOLS]);
  if (!check(r.status === 0, `npm install in ${consumer}:\n${output(r)}`)) finish();
  const installed = JSON.parse(runIn(consumer, 'npm', ['ls', '--json', '--all']).stdout || '{}');
  const workspaceRefs = JSON.stringify(installed).includes(root.replace(/\/$/, ''));
  check(!workspaceRefs, 'the installed tree refers to the workspace');
}
done(`${readdirSync(join(consumer, 'node_modules')).length} top-level entries in node_modules`);

// ---- the CLI -------------------------------------------------------------------------------
step('CLI: check, explain, npx');
{
  const fixtures = join(consumer, 'fixtures');
  cpSync(join(root, 'fixtures/traces/denials'), fixtures, { recursive: true });
  cpSync(join(root, 'fixtures/policies/problems.netpolicy.json'), join(fixtures, 'problems.netpolicy.json'));
  const cli = (...a) => runIn(consumer, join(consumer, 'node_modules/.bin/netpolicy'), a);
  const version = cli('--version');
  check(version.status === 0 && version.stdout.trim() === '0.1.0', `netpolicy --version: ${output(version)}`);
  const clean = cli('check', 'fixtures/policy.netpolicy.json');
  check(clean.status === 0, `netpolicy check of a valid policy: exit ${clean.status}\n${output(clean)}`);
  const problems = cli('check', '--format', 'json', 'fixtures/problems.netpolicy.json');
  let codes = [];
  try { codes = JSON.parse(problems.stdout).files[0].diagnostics.map((d) => d.code); } catch {}
  check(problems.status === 1 && codes.includes('unknown-preset'), `netpolicy check of a policy with problems: exit ${problems.status}, codes ${codes.join(', ')}\n${output(problems)}`);
  const explain = cli('explain', '--policy', 'fixtures/policy.netpolicy.json', '--trace', 'fixtures/trace.json', '--format', 'json');
  let summary;
  try { summary = JSON.parse(explain.stdout).summary; } catch {}
  check(summary !== undefined && summary.observations > 0 && summary.denied > 0, `netpolicy explain: exit ${explain.status}, summary ${JSON.stringify(summary)}\n${output(explain).slice(0, 2000)}`);
  // `npx @netpolicy/cli ...` with nothing installed: npx runs the package's one bin (`netpolicy`).
  const elsewhere = join(work, 'npx');
  mkdirSync(elsewhere);
  const npx = runIn(elsewhere, 'npx', ['--yes', '--prefer-offline', `file:${tarballOf.cli}`, 'check', join(fixtures, 'policy.netpolicy.json')]);
  check(npx.status === 0 && /0 errors/.test(npx.stdout), `npx <cli tarball> check: exit ${npx.status}\n${output(npx)}`);
  done(`explain: ${JSON.stringify(summary)}`);
}

// ---- the language server -------------------------------------------------------------------
step('language server over stdio: diagnostics');
{
  const diagnostics = await languageServerDiagnostics(join(consumer, 'node_modules/.bin/netpolicy-language-server'), readFileSync(join(root, 'fixtures/policies/problems.netpolicy.json'), 'utf8'));
  if (check(Array.isArray(diagnostics), `netpolicy-language-server: ${diagnostics}`)) {
    const codes = diagnostics.map((d) => d.code);
    check(codes.includes('unknown-preset'), `netpolicy-language-server: diagnostics without unknown-preset: ${codes.join(', ')}`);
  }
  done(Array.isArray(diagnostics) ? `${diagnostics.length} diagnostics` : '');
}

// ---- the libraries from ES modules and CommonJS --------------------------------------------
const POLICY = '{ "default": "deny", "presets": ["pypy"] }';
const esm = `
import * as core from '@netpolicy/core';
import * as client from '@netpolicy/client';
import * as service from '@netpolicy/language-service';
import * as server from '@netpolicy/language-server';
import * as protocol from '@netpolicy/language-server/protocol';
import { createRequire } from 'node:module';
const out = {};
const r = core.validate(${JSON.stringify(POLICY)});
out.codes = r.diagnostics.map((d) => d.code);
out.position = new core.LineIndex('a\\nb').positionAt(2);
out.client = typeof client.NetpolicyClient;
const doc = service.parsePolicyDocument(${JSON.stringify(POLICY)});
out.service = service.doValidation(doc, 'file:///p.netpolicy.json', service.DEFAULT_SETTINGS).map((d) => d.code);
out.server = typeof server.startServer;
out.protocol = protocol.DenialsRequestMethod;
out.resolved = ['@netpolicy/core', '@netpolicy/client', '@netpolicy/language-service', '@netpolicy/language-server', '@netpolicy/language-server/protocol'].map((s) => import.meta.resolve(s).split('/').pop());
const require = createRequire(import.meta.url);
out.paths = ['@netpolicy/language-server/node', '@netpolicy/language-server/browser', '@netpolicy/core/package.json'].map((s) => require.resolve(s).split('/node_modules/').pop());
console.log(JSON.stringify(out));
`;
const cjs = esm
  .replace(/^import \* as (\w+) from ('[^']+');$/gm, 'const $1 = require($2);')
  .replace(/^import \{ createRequire \}.*$/m, '')
  .replace(/^const require = createRequire.*$/m, '')
  .replace('import.meta.resolve(s)', 'require.resolve(s)');
step('libraries from ESM and CommonJS');
{
  writeFileSync(join(consumer, 'use.mjs'), esm);
  writeFileSync(join(consumer, 'use.cjs'), cjs);
  const expected = (resolvedExt) => ({
    codes: ['unknown-preset'],
    position: { line: 1, character: 0 },
    client: 'function',
    service: ['unknown-preset'],
    server: 'function',
    protocol: 'netpolicy/denials',
    resolved: ['index', 'index', 'index', 'index', 'protocol'].map((n) => `${n}.${resolvedExt}`),
    paths: ['@netpolicy/language-server/dist/node.cjs', '@netpolicy/language-server/dist/browser.js', '@netpolicy/core/package.json'],
  });
  // Node 20.19+ can require() an ES module; the CommonJS builds must not need that (Node 20.0-20.18).
  const noRequireEsm = process.allowedNodeEnvironmentFlags.has('--no-experimental-require-module') ? ['--no-experimental-require-module'] : [];
  for (const [file, ext, flags] of [['use.mjs', 'js', []], ['use.cjs', 'cjs', noRequireEsm]]) {
    const r = runIn(consumer, process.execPath, [...flags, file]);
    let got;
    try { got = JSON.parse(r.stdout); } catch {}
    check(JSON.stringify(got) === JSON.stringify(expected(ext)), `${file}: exit ${r.status}\n got ${JSON.stringify(got)}\n want ${JSON.stringify(expected(ext))}\n${output(r).slice(0, 2000)}`);
  }
}
done();

// ---- bundle budgets (scripts/bundle-budgets.mjs) ------------------------------------------
step('bundle budgets: single imports bundled for the browser; the client without SBOM validation');
{
  const r = await bundleBudgets({ consumer, work, tarballOf, env: cleanEnv });
  for (const f of r.failures) fail(f);
  done(`\n  ${r.lines.join('\n  ')}`);
}

// ---- types ---------------------------------------------------------------------------------
const consumerTs = (importLines) => `${importLines}
import type { Diagnostic, ExplainReport, Policy, PolicyDocument } from '@netpolicy/core';

const result = validate('{ "default": "deny" }', { fileName: 'p.netpolicy.json' });
const diagnostics: Diagnostic[] = result.diagnostics;
const first: Diagnostic | undefined = diagnostics[0];
const at = new LineIndex('{}').positionAt(first?.offset ?? 0);
const line: number = at.line;
if (result.valid) {
  const policy: Policy = result.value;   // narrowed by \`valid\`: no cast
  const report: ExplainReport = explainTrace(policy, '{"observations":[]}');
  const denied: number = report.summary.denied;
  console.log(denied, line);
}
const doc: PolicyDocument = parsePolicyDocument('{}');
const lsp = doValidation(doc, 'file:///p.netpolicy.json', DEFAULT_SETTINGS);
const code: string | number | undefined = lsp[0]?.code;
const client = new NetpolicyClient({ baseUrl: 'https://service.example' });
void client.getNetworkTrace({ repo: 'acme/app', jobId: '1' });
const method: string = DenialsRequestMethod;
console.log(code, method, typeof startServer);
`;
const esmImports = `import { validate, explainTrace, LineIndex, parsePolicyDocument } from '@netpolicy/core';
import { NetpolicyClient } from '@netpolicy/client';
import { doValidation, DEFAULT_SETTINGS } from '@netpolicy/language-service';
import { startServer } from '@netpolicy/language-server';
import { DenialsRequestMethod } from '@netpolicy/language-server/protocol';
import '@netpolicy/language-server/node';`;
const strict = { strict: true, noUncheckedIndexedAccess: true, exactOptionalPropertyTypes: true, skipLibCheck: false, noEmit: true, target: 'ES2022', forceConsistentCasingInFileNames: true };
step('types: a consumer under nodenext (ESM and CJS) and bundler');
{
  const types = join(consumer, 'types');
  mkdirSync(join(types, 'nodenext'), { recursive: true });
  mkdirSync(join(types, 'bundler'), { recursive: true });
  writeFileSync(join(types, 'nodenext/esm.mts'), consumerTs(esmImports));
  writeFileSync(join(types, 'nodenext/cjs.cts'), consumerTs(esmImports.replace(/import '@netpolicy\/language-server\/node';/, "import node = require('@netpolicy/language-server/node');\nvoid node;")));
  writeFileSync(join(types, 'nodenext/tsconfig.json'), JSON.stringify({ compilerOptions: { ...strict, module: 'nodenext', moduleResolution: 'nodenext', lib: ['ES2022'], types: ['node'] }, include: ['*.mts', '*.cts'] }, null, 2));
  // A browser app: no Node types at all (core, client and the language service run in browsers).
  writeFileSync(join(types, 'bundler/app.ts'), consumerTs(esmImports.replace(/^import .*language-server.*$/gm, '').replace(/^/, "import { startServer } from '@netpolicy/language-server';\nimport { DenialsRequestMethod } from '@netpolicy/language-server/protocol';\n")));
  writeFileSync(join(types, 'bundler/tsconfig.json'), JSON.stringify({ compilerOptions: { ...strict, module: 'esnext', moduleResolution: 'bundler', lib: ['ES2022', 'DOM'], types: [] }, include: ['*.ts'] }, null, 2));
  const tsc = join(consumer, 'node_modules/typescript/bin/tsc');
  for (const mode of ['nodenext', 'bundler']) {
    const r = runIn(join(types, mode), process.execPath, [tsc, '-p', '.']);
    check(r.status === 0, `tsc (${mode}):\n${output(r).slice(0, 4000)}`);
  }
  done();
}

// ---- the docs' examples (scripts/doc-examples.mjs) -----------------------------------------
step('examples of docs/api.md, docs/client.md and the READMEs: compiled, run, output compared');
{
  const r = await checkDocExamples({ root, consumer, env: cleanEnv });
  for (const f of r.failures) fail(f);
  done(`${r.examples} examples${r.notRun.length ? `; not run: ${r.notRun.join(', ')}` : ''}`);
}

finish();

function finish() {
  if (args.includes('--keep')) console.log(`release:check left ${work}`);
  const seconds = ((Date.now() - started) / 1000).toFixed(0);
  if (failures.length > 0) {
    console.log(`release:check: ${failures.length} problem${failures.length === 1 ? '' : 's'} (${seconds} s)`);
    process.exit(1);
  }
  console.log(`release:check: the five packages install and work as published (${seconds} s)`);
  process.exit(0);
}

/**
 * Starts the server (`--stdio`), opens `text` as a policy and resolves to the diagnostics it
 * publishes (or to an error message). Answers the server's requests as a minimal client does.
 */
function languageServerDiagnostics(bin, text) {
  return new Promise((resolve) => {
    const child = spawn(bin, ['--stdio'], { cwd: consumer, env: cleanEnv, stdio: ['pipe', 'pipe', 'pipe'] });
    const uri = 'file:///tmp/problems.netpolicy.json';
    let stderr = '';
    let buffer = Buffer.alloc(0);
    let settled = false;
    const end = (value) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      send({ jsonrpc: '2.0', id: 2, method: 'shutdown' });
      send({ jsonrpc: '2.0', method: 'exit' });
      setTimeout(() => child.kill(), 2000).unref();
      resolve(value);
    };
    // A hang bound only: the server answers in well under a second.
    const timer = setTimeout(() => end(`no diagnostics within 60 s; stderr: ${stderr}`), 60_000);
    const send = (message) => {
      if (!child.stdin.writable) return;
      const body = Buffer.from(JSON.stringify(message), 'utf8');
      child.stdin.write(`Content-Length: ${body.length}\r\n\r\n`);
      child.stdin.write(body);
    };
    child.stderr.on('data', (d) => { stderr += d; });
    child.on('error', (e) => end(`cannot start: ${e.message}`));
    child.on('exit', (code) => end(`exited (${code}) before publishing diagnostics; stderr: ${stderr}`));
    child.stdin.on('error', () => {});
    child.stdout.on('data', (chunk) => {
      buffer = Buffer.concat([buffer, chunk]);
      for (;;) {
        const headerEnd = buffer.indexOf('\r\n\r\n');
        if (headerEnd < 0) return;
        const length = Number(/Content-Length: (\d+)/i.exec(buffer.subarray(0, headerEnd).toString())?.[1]);
        if (buffer.length < headerEnd + 4 + length) return;
        const message = JSON.parse(buffer.subarray(headerEnd + 4, headerEnd + 4 + length).toString('utf8'));
        buffer = buffer.subarray(headerEnd + 4 + length);
        if (message.id !== undefined && message.method !== undefined) {
          // A request of the server: settings (none), capability registration, progress.
          const result = message.method === 'workspace/configuration' ? message.params.items.map(() => null) : null;
          send({ jsonrpc: '2.0', id: message.id, result });
        } else if (message.id === 1) {
          send({ jsonrpc: '2.0', method: 'initialized', params: {} });
          send({ jsonrpc: '2.0', method: 'textDocument/didOpen', params: { textDocument: { uri, languageId: 'netpolicy', version: 1, text } } });
        } else if (message.method === 'textDocument/publishDiagnostics' && message.params.uri === uri && message.params.diagnostics.length > 0) {
          end(message.params.diagnostics);
        }
      }
    });
    send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { processId: process.pid, rootUri: null, capabilities: {}, workspaceFolders: null } });
  });
}
