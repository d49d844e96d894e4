// Bundle budgets (a step of `npm run release:check`): what a browser program that imports one
// thing from the installed @netpolicy/core or @netpolicy/client carries, bundled by esbuild as an
// application would (platform browser, bundle, minify), against a budget; and the client without
// its optional SBOM validation packages (issue 31: "Tree-shaking that holds").
//
// The budgets (bytes, minified, not gzipped), from measurements of November 2026 (docs/build.md):
//
//   escapeControl alone           268 B   budget 10 KiB (the bound; was 204 KB before
//   LineIndex alone               1.3 KB  budget 10 KiB  core shipped one module per source file)
//   validate alone                190 KB  budget 240 KB (Ajv's policy validator: 79 KB, the schema
//                                                        for messages, ipaddr.js, jsonc-parser, lint)
//   explainTrace alone            189 KB  budget 240 KB (the evaluator, the trace reader, and since
//                                                        it checks its policy, the policy validator)
//   the client, no SBOM checks    36 KB   budget 45 KB  (NetpolicyClient with sbomValidator: false;
//                                                        was 229 KB)
//
// About a quarter above the measurements: room for features, not for a second copy of the
// validator or a dependency pulled in by a top-level statement. A bundle over budget names its
// largest inputs.
import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;

const KIB = 1024;
/** Each program: its source (an ES module in the consumer folder) and its budget in bytes. */
export const BUNDLES = {
  escapeControl: { budget: 10 * KIB, source: "import { escapeControl } from '@netpolicy/core';\nconsole.log(escapeControl('a\\u0007b'));\n" },
  LineIndex: { budget: 10 * KIB, source: "import { LineIndex } from '@netpolicy/core';\nconsole.log(new LineIndex('a\\nb').positionAt(2));\n" },
  validate: { budget: 240_000, source: "import { validate } from '@netpolicy/core';\nconsole.log(validate('{ \"default\": \"deny\" }').valid);\n" },
  explainTrace: { budget: 240_000, source: "import { explainTrace } from '@netpolicy/core';\nconsole.log(explainTrace({ default: 'deny' }, '{\"observations\":[]}').summary);\n" },
  'client without SBOM validation': {
    budget: 45_000,
    source: [
      "import { NetpolicyClient } from '@netpolicy/client';",
      "const client = new NetpolicyClient({ baseUrl: 'https://service.example', sbomValidator: false });",
      "const trace = await client.getNetworkTrace({ repo: 'acme/app', jobId: '1' });",
      "const sbom = await client.getSbom({ repo: 'acme/app', jobId: '1' });",
      'console.log(trace.data, sbom.validated);',
      '',
    ].join('\n'),
    // What a program that does not validate SBOMs must not carry.
    forbidden: /\/node_modules\/(@cyclonedx|ajv|ajv-formats|ajv-formats-draft2019)\//,
  },
};

const SBOM_PACKAGES = ['@cyclonedx/cyclonedx-library', 'ajv-formats', 'ajv-formats-draft2019'];

/**
 * Bundles each program of BUNDLES in `consumer` (the tarballs installed there) and checks its
 * size; then installs only core and client into a folder of `work` and checks that the SBOM
 * validation packages are not installed, that the client works there with `sbomValidator: false`,
 * and that its default validator says which packages to install; and, in `consumer` (where the
 * CLI's dependencies bring the CycloneDX library), that the default validator validates.
 * Returns the failures and a line per measurement.
 */
export async function bundleBudgets({ consumer, work, tarballOf, env }) {
  const failures = [];
  const lines = [];
  const dir = join(consumer, 'bundles');
  mkdirSync(dir, { recursive: true });
  for (const [name, { budget, source, forbidden }] of Object.entries(BUNDLES)) {
    const file = join(dir, `${name.replace(/\W+/g, '-')}.mjs`);
    writeFileSync(file, source);
    let result;
    try {
      result = await build({ entryPoints: [file], absWorkingDir: consumer, bundle: true, minify: true, platform: 'browser', format: 'esm', target: 'es2022', write: false, metafile: true, logLevel: 'silent' });
    } catch (error) {
      failures.push(`bundle of ${name}: ${error.message}`);
      continue;
    }
    const bytes = result.outputFiles[0].contents.length;
    const inputs = Object.entries(Object.values(result.metafile.outputs)[0].inputs);
    const paths = inputs.map(([path]) => join(consumer, path));
    const outside = paths.filter((p) => !p.startsWith(join(consumer, 'node_modules')) && !p.startsWith(dir));
    if (outside.length > 0) failures.push(`bundle of ${name}: inputs from outside the installed packages: ${outside.slice(0, 3).join(', ')}`);
    const bad = forbidden ? paths.filter((p) => forbidden.test(p)) : [];
    if (bad.length > 0) failures.push(`bundle of ${name}: carries ${bad.slice(0, 3).join(', ')}`);
    const largest = inputs.sort((a, b) => b[1].bytesInOutput - a[1].bytesInOutput).slice(0, 5).map(([p, i]) => `${p.replace(/^.*node_modules\//, '')} ${kb(i.bytesInOutput)}`);
    if (bytes > budget) failures.push(`bundle of ${name}: ${kb(bytes)}, budget ${kb(budget)}; largest inputs: ${largest.join(', ')}`);
    lines.push(`${name} ${kb(bytes)}/${kb(budget)}`);
  }

  // The client without the SBOM validation packages: core and client alone.
  const lean = join(work, 'client-alone');
  mkdirSync(lean, { recursive: true });
  writeFileSync(join(lean, 'package.json'), JSON.stringify({ name: 'client-alone', private: true, version: '0.0.0', type: 'module' }, null, 2));
  const install = spawnSync('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error', tarballOf.core, tarballOf.client], { cwd: lean, env, encoding: 'utf8', timeout: 600_000 });
  if (install.status !== 0) {
    failures.push(`npm install of core and client alone: ${install.stdout}${install.stderr}`);
    return { failures, lines };
  }
  const installed = SBOM_PACKAGES.filter((p) => existsIn(join(lean, 'node_modules'), p));
  if (installed.length > 0) failures.push(`installing @netpolicy/client installs ${installed.join(', ')} (optional peer dependencies)`);
  const sbom = join(root, 'fixtures/sboms/webapp-1001.cdx.json');
  writeFileSync(join(lean, 'sbom.mjs'), sbomProgram(sbom));
  writeFileSync(join(consumer, 'sbom.mjs'), sbomProgram(sbom));
  const alone = runJson(lean, env);
  const wantAlone = { skipped: false, entry: 'function', default: 'ConfigError' };
  if (alone?.skipped !== wantAlone.skipped || alone?.entry !== wantAlone.entry || alone?.default !== wantAlone.default || !/npm install @cyclonedx\/cyclonedx-library/.test(alone?.message ?? '')) {
    failures.push(`the client without the CycloneDX library: got ${JSON.stringify(alone)}, want ${JSON.stringify(wantAlone)} and a message naming the package to install`);
  }
  const full = runJson(consumer, env);
  if (full?.default !== true) failures.push(`the client with the CycloneDX library: the default validator gave ${JSON.stringify(full)}, want the SBOM validated`);
  lines.push(`client alone: ${readdirSync(join(lean, 'node_modules')).length} top-level entries in node_modules, none of ${SBOM_PACKAGES.join(', ')}`);
  return { failures, lines };
}

function kb(bytes) {
  return bytes < 10_000 ? `${(bytes / 1000).toFixed(1)} KB` : `${Math.round(bytes / 1000)} KB`;
}

function existsIn(nodeModules, name) {
  const [scope, rest] = name.startsWith('@') ? name.split('/') : [undefined, name];
  try {
    return readdirSync(scope ? join(nodeModules, scope) : nodeModules).includes(rest);
  } catch {
    return false;
  }
}

/**
 * A program that fetches an SBOM from a local server with the default validator and with
 * `sbomValidator: false`, and imports `@netpolicy/client/sbom-validator`; prints what happened.
 */
function sbomProgram(sbomFile) {
  return `import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';
import { NetpolicyClient } from '@netpolicy/client';
import { cyclonedxStrictValidator } from '@netpolicy/client/sbom-validator';
const body = readFileSync(${JSON.stringify(sbomFile)});
const server = createServer((_req, res) => { res.writeHead(200, { 'content-type': 'application/vnd.cyclonedx+json; version=1.7' }); res.end(body); });
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const baseUrl = \`http://127.0.0.1:\${server.address().port}\`;
const out = { entry: typeof cyclonedxStrictValidator };
try {
  out.default = (await new NetpolicyClient({ baseUrl, maxAttempts: 1 }).getSbom({ repo: 'acme/app', jobId: '1' })).validated;
} catch (error) {
  out.default = error.name;
  out.message = error.message;
}
out.skipped = (await new NetpolicyClient({ baseUrl, sbomValidator: false }).getSbom({ repo: 'acme/app', jobId: '1' })).validated;
server.close();
console.log(JSON.stringify(out));
`;
}

function runJson(cwd, env) {
  const r = spawnSync(process.execPath, ['sbom.mjs'], { cwd, env, encoding: 'utf8', timeout: 120_000 });
  try {
    return JSON.parse(r.stdout);
  } catch {
    return { exit: r.status, output: `${r.stdout}${r.stderr}`.slice(0, 2000) };
  }
}
