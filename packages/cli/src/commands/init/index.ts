import { existsSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { compilePolicy, defaultPresetCatalog, describeRule, sbomAccesses, suggestFromAccesses, type Access, type Connection, type Policy, type Source } from '@netpolicy/core';
import { parseCommand, usageText, type CommandSpec } from '../../args';
import type { Command } from '../../command';
import { EXIT, readTextFile, UsageError, writeFailure, type Io } from '../../io';
import { escapeControl } from '../../escape';
import { readSbomFile } from '../../inputs';

export const POLICY_NAME = 'policy.netpolicy.jsonc';
export const TESTS_NAME = 'policy.tests.json';

export const spec: CommandSpec = {
  name: 'init',
  summary: 'Start a policy: a commented starter with presets for the package managers found here, and a sample test file',
  synopsis: ['init [--sbom FILE] [DIR]'],
  description: `Writes ${POLICY_NAME} (a commented starter policy, deny by default, named so that
\`netpolicy check .\` finds it) and ${TESTS_NAME} (sample policy tests) into DIR (default: the
working directory). The presets are those of the package managers found there: package-lock.json,
yarn.lock or package.json (npm), requirements.txt, pyproject.toml, Pipfile or poetry.lock (pypi),
go.mod (golang), Cargo.lock or Cargo.toml (cargo), Gemfile (rubygems), and the base image and
package commands of a Dockerfile (alpine, debian, ubuntu). The starter passes \`check --strict\`.
With --sbom, the presets, sources and connections that the SBOM's components are downloaded from
are added (chosen as suggest chooses them, from each component's purl registry and references).
An existing file is never overwritten: the command then changes nothing (exit 2).`,
  options: {
    sbom: { type: 'string', value: 'FILE', help: 'A CycloneDX 1.7 SBOM (JSON, as netpolicy fetch sbom writes it) of a job of this repository: the policy also allows the registries its components come from (presets first, then sources and connections), with a sample test for each.' },
  },
  operands: { min: 0, max: 1, name: 'DIR' },
  examples: ['netpolicy init', 'netpolicy init --sbom sbom.cdx.json ci/', 'netpolicy init ci/ && netpolicy check --strict ci/ && netpolicy test --policy ci/policy.netpolicy.jsonc ci/policy.tests.json'],
  exitCodes: [[0, 'both files written'], [2, 'usage error, DIR missing, or a file already exists (nothing written)']],
};

/** A preset, why it was chosen, and a request it must allow (for the sample test). */
interface Found { preset: string; because: string; sample: string }

/** What an SBOM adds: rules beyond the presets, each with a request it must allow. */
export interface FromSbom {
  /** Components with a known source, and the presets chosen for them. */
  components: number;
  sources: Source[];
  connections: Connection[];
  /** A request per rule (`/sources/N`, `/connections/N`, `preset:NAME`) for the sample tests. */
  samples: Map<string, Access>;
}

/**
 * The presets, sources and connections an SBOM's components are downloaded from: each
 * component's canonical requests (core's sbomAccesses) and the detected presets' samples, through
 * core's suggestion (presets first, then ecosystem sources, then narrow connections).
 */
export function fromSbom(sbom: unknown, found: Found[]): { found: Found[]; extra: FromSbom } {
  const entries = sbomAccesses(sbom);
  const accesses: Access[] = found.map((f) => ({ kind: 'http', method: 'GET', url: f.sample }));
  for (const e of entries) accesses.push(...e.accesses);
  const policy = suggestFromAccesses(accesses, { catalog: defaultPresetCatalog });
  const out = [...found];
  for (const preset of (policy.presets ?? []) as string[]) {
    if (!out.some((f) => f.preset === preset)) out.push({ preset, because: 'SBOM', sample: SAMPLES[preset] ?? '' });
  }
  const order = defaultPresetCatalog.presets.map((p) => p.name);
  out.sort((a, b) => order.indexOf(a.preset) - order.indexOf(b.preset));
  const final: Policy = { default: 'deny', presets: out.map((f) => f.preset) as never, sources: policy.sources ?? [], connections: policy.connections ?? [] };
  const compiled = compilePolicy(final, { catalog: defaultPresetCatalog });
  const samples = new Map<string, Access>();
  for (const a of accesses) {
    const d = compiled.evaluate(a);
    if (d.verdict === 'allow' && !samples.has(d.rule)) samples.set(d.rule, a);
  }
  for (const f of out) if (!f.sample) f.sample = (samples.get(`preset:${f.preset}`) as { url?: string } | undefined)?.url ?? '';
  return { found: out.filter((f) => f.sample), extra: { components: entries.length, sources: final.sources ?? [], connections: final.connections ?? [], samples } };
}

/** A JSON value written into the starter at two spaces of indentation. */
const member = (value: unknown) => JSON.stringify(value, null, 2).replace(/\n/g, '\n  ');

const SAMPLES: Record<string, string> = {
  npm: 'https://registry.npmjs.org/left-pad/-/left-pad-1.3.0.tgz',
  pypi: 'https://pypi.org/simple/requests/',
  golang: 'https://proxy.golang.org/golang.org/x/text/@v/list',
  cargo: 'https://index.crates.io/config.json',
  rubygems: 'https://rubygems.org/gems/rake-13.2.1.gem',
  alpine: 'https://dl-cdn.alpinelinux.org/alpine/v3.20/main/x86_64/APKINDEX.tar.gz',
  debian: 'https://deb.debian.org/debian/dists/bookworm/InRelease',
  ubuntu: 'https://archive.ubuntu.com/ubuntu/dists/noble/InRelease',
};

const MARKERS: [string, string][] = [
  ['package-lock.json', 'npm'], ['npm-shrinkwrap.json', 'npm'], ['yarn.lock', 'npm'], ['package.json', 'npm'],
  ['requirements.txt', 'pypi'], ['pyproject.toml', 'pypi'], ['Pipfile', 'pypi'], ['Pipfile.lock', 'pypi'], ['poetry.lock', 'pypi'], ['setup.py', 'pypi'],
  ['go.mod', 'golang'], ['Cargo.lock', 'cargo'], ['Cargo.toml', 'cargo'], ['Gemfile', 'rubygems'], ['Gemfile.lock', 'rubygems'],
];

/** Presets for what a Dockerfile does: its base images and the package managers it runs. */
function fromDockerfile(text: string): string[] {
  const out = new Set<string>();
  for (const line of text.split(/\r?\n/)) {
    const from = /^\s*FROM\s+(?:--\S+\s+)*([^\s:@]+)(?::(\S+))?/i.exec(line);
    if (from) {
      const image = from[1].toLowerCase().split('/').pop()!;
      const tag = (from[2] ?? '').toLowerCase();
      if (image === 'alpine' || tag.includes('alpine')) out.add('alpine');
      else if (image === 'ubuntu') out.add('ubuntu');
      else if (image === 'debian' || ['python', 'node', 'golang', 'rust', 'ruby', 'openjdk', 'buildpack-deps'].includes(image)) out.add('debian');
      if (image === 'python') out.add('pypi');
      if (image === 'node') out.add('npm');
    }
    if (/\bapk\s+add\b/.test(line)) out.add('alpine');
    if (/\bapt(-get)?\s+(-\S+\s+)*install\b/.test(line) && !out.has('ubuntu')) out.add('debian');
    if (/\bpip3?\s+install\b/.test(line)) out.add('pypi');
    if (/\bnpm\s+(ci|install)\b/.test(line)) out.add('npm');
  }
  return [...out];
}

/** The most of a Dockerfile that is read (a regular file only: a FIFO or `-> /dev/zero` is skipped, with a note). */
const MAX_DOCKERFILE_BYTES = 1 << 20;

export function detectPresets(dir: string, warn: (line: string) => void = () => {}): Found[] {
  const found = new Map<string, Found>();
  const add = (preset: string, because: string) => {
    if (!found.has(preset)) found.set(preset, { preset, because, sample: SAMPLES[preset] });
  };
  for (const [file, preset] of MARKERS) if (existsSync(join(dir, file))) add(preset, file);
  let names: string[] = [];
  try {
    names = readdirSync(dir);
  } catch {}
  for (const name of names.filter((n) => /^(Dockerfile|Containerfile)(\..+)?$|\.Dockerfile$/i.test(n)).sort()) {
    let text = '';
    try {
      text = readTextFile(join(dir, name), { shown: name, regularOnly: true, limit: MAX_DOCKERFILE_BYTES, hint: 'skipped; presets come from the other files here' });
    } catch (error) {
      if (!(error instanceof UsageError)) throw error;
      warn(error.message.replace(/^cannot read /, 'did not read '));
    }
    for (const preset of fromDockerfile(text)) add(preset, name);
  }
  // Catalog order, as the explainer reports presets.
  const order = defaultPresetCatalog.presets.map((p) => p.name);
  return [...found.values()].filter((f) => order.includes(f.preset)).sort((a, b) => order.indexOf(a.preset) - order.indexOf(b.preset));
}

export function starterPolicy(found: Found[], extra?: FromSbom): string {
  const why = found.length
    ? found.map((f) => `${f.preset} (${f.because})`).join(', ')
    : 'none: no package manager files were found here';
  return `// Network egress policy for this repository's CI jobs (netpolicy).
// Check it:   npx netpolicy check --strict .
// Test it:    npx netpolicy test --policy ${POLICY_NAME} ${TESTS_NAME}
// After a job was denied something:  npx netpolicy explain --policy ${POLICY_NAME} --trace trace.json
// A .jsonc policy may hold comments; the service takes JSON (strip them before uploading).
{
  // Whatever no rule below permits is denied.
  "default": "deny",

  // Built-in software sources. Found here: ${why}.
  // Keep the list explicit: without "presets" every built-in preset would be enabled.
  "presets": [${found.map((f) => JSON.stringify(f.preset)).join(', ')}]${extra?.sources.length ? `,

  // Where the SBOM's components come from, beyond the presets (netpolicy init --sbom).
  "sources": ${member(extra.sources)}` : ''}${extra?.connections.length ? `,

  // Other hosts the SBOM's components are downloaded from (their distribution references).
  "connections": ${member(extra.connections)}` : ''}

  // Your own software sources (registries, mirrors, git hosts), for example:
  // "sources": [
  //   { "npm": { "urls": ["https://npm.internal.example"] } },
  //   { "oci": { "urls": ["https://registry.example"], "repositoryPatterns": ["team/app"], "operations": ["pull"] } },
  //   { "git": { "https": [{ "baseUrl": "https://git.example" }], "repositoryPatterns": ["acme/*"] } }
  // ],

  // Other connections the job makes, as narrow as you can, for example:
  // "connections": [
  //   { "tls": { "serverNamePatterns": ["api.example.com"], "ports": [443] } },
  //   { "tcp": { "hostPatterns": ["db.internal.example"], "ports": [5432] } }
  // ]
}
`;
}

export function sampleTests(found: Found[], extra?: FromSbom): string {
  const tests: unknown[] = found.map((f) => ({
    name: `${f.preset} packages (${f.because})`,
    http: { method: 'GET', url: f.sample },
    expect: 'allow',
    rule: `preset:${f.preset}`,
  }));
  const policy: Policy = { sources: extra?.sources ?? [], connections: extra?.connections ?? [] };
  for (const [rule, a] of [...(extra?.samples ?? [])].sort((x, y) => x[0].localeCompare(y[0], 'en', { numeric: true }))) {
    if (rule.startsWith('preset:')) continue;
    const access = a.kind === 'http' ? { http: { method: a.method, url: a.url } } : a.kind === 'ssh' ? { ssh: { host: a.host, port: a.port, ...(a.repositoryPath ? { repositoryPath: a.repositoryPath } : {}) } } : undefined;
    if (access) tests.push({ name: `SBOM components from ${describeRule(policy, rule)}`, ...access, expect: 'allow', rule });
  }
  tests.push({ name: 'an endpoint the policy does not name stays denied', tls: { serverName: 'telemetry.example.com', port: 443 }, expect: 'deny', rule: 'default' });
  return JSON.stringify({ description: 'Accesses the policy must keep allowing or denying: netpolicy test --policy policy.netpolicy.jsonc policy.tests.json', tests }, null, 2) + '\n';
}

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;

async function run(args: string[], io: Io): Promise<number> {
  const { positionals, values } = parseCommand(spec, args);
  const shownDir = positionals[0] ?? '.';
  const dir = resolve(io.cwd, shownDir);
  let stat;
  try { stat = statSync(dir); } catch {}
  if (!stat) throw new UsageError(`cannot write into ${shownDir}: no such folder`);
  if (!stat.isDirectory()) throw new UsageError(`cannot write into ${shownDir}: not a folder`);
  const policyPath = join(dir, POLICY_NAME);
  const testsPath = join(dir, TESTS_NAME);
  // Paths echo what the user typed (and the folder's name): escaped like every other outside text.
  const shown = (p: string) => escapeControl(relative(io.cwd, p) || p);
  const existing = [policyPath, testsPath].filter((p) => existsSync(p));
  if (existing.length > 0) {
    throw new UsageError(`${existing.map(shown).join(' and ')} already exist${existing.length === 1 ? 's' : ''}: nothing written (init never overwrites; move or delete ${existing.length === 1 ? 'it' : 'them'} first)`);
  }
  // The SBOM is read before anything is written: a bad one changes nothing (exit 2).
  const sbom = values.sbom !== undefined ? readSbomFile(values.sbom as string) : undefined;
  const detected = detectPresets(dir, (line) => io.stderr.write(`netpolicy init: ${escapeControl(line)}\n`));
  const { found, extra } = sbom !== undefined ? fromSbom(sbom, detected) : { found: detected, extra: undefined };
  try {
    // `wx`: fail rather than overwrite a file created meanwhile.
    writeFileSync(policyPath, starterPolicy(found, extra), { flag: 'wx' });
    try {
      writeFileSync(testsPath, sampleTests(found, extra), { flag: 'wx' });
    } catch (error) {
      // Leave nothing half done.
      rmSync(policyPath, { force: true });
      throw error;
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(`cannot write into ${shownDir}: ${code === 'EEXIST' ? 'a file of that name appeared meanwhile (or is a dangling link); nothing written' : writeFailure(error)}`);
  }
  io.stdout.write([
    `wrote ${shown(policyPath)}: deny by default, presets ${found.length ? found.map((f) => `${f.preset} (${f.because})`).join(', ') : 'none (no package manager files found)'}`,
    ...(extra ? [`  from the SBOM: ${extra.components} component${extra.components === 1 ? '' : 's'} with a known source; ${extra.sources.length} source${extra.sources.length === 1 ? '' : 's'}, ${extra.connections.length} connection${extra.connections.length === 1 ? '' : 's'}`] : []),
    `wrote ${shown(testsPath)}: ${plural(JSON.parse(sampleTests(found, extra)).tests.length, 'sample test')}`,
    '',
    'Next:',
    `  npx netpolicy check --strict ${escapeControl(shownDir)}`,
    `  npx netpolicy test --policy ${shown(policyPath)} ${shown(testsPath)}`,
    '',
  ].join('\n'));
  return EXIT.ok;
}

export const command: Command = { name: 'init', summary: spec.summary, usage: usageText(spec), spec, run };
