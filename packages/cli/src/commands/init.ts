import { existsSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { defaultPresetCatalog } from '@netpolicy/core';
import { parseCommand, usageText, type CommandSpec } from '../args';
import type { Command } from '../command';
import { EXIT, readTextFile, UsageError, writeFailure, type Io } from '../io';
import { escapeControl } from '../escape';

export const POLICY_NAME = 'policy.netpolicy.jsonc';
export const TESTS_NAME = 'policy.tests.json';

export const spec: CommandSpec = {
  name: 'init',
  summary: 'Start a policy: a commented starter with presets for the package managers found here, and a sample test file',
  synopsis: ['init [DIR]'],
  description: `Writes ${POLICY_NAME} (a commented starter policy, deny by default, named so that
\`netpolicy check .\` finds it) and ${TESTS_NAME} (sample policy tests) into DIR (default: the
working directory). The presets are those of the package managers found there: package-lock.json,
yarn.lock or package.json (npm), requirements.txt, pyproject.toml, Pipfile or poetry.lock (pypi),
go.mod (golang), Cargo.lock or Cargo.toml (cargo), Gemfile (rubygems), and the base image and
package commands of a Dockerfile (alpine, debian, ubuntu). The starter passes \`check --strict\`.
An existing file is never overwritten: the command then changes nothing (exit 2).`,
  options: {},
  operands: { min: 0, max: 1, name: 'DIR' },
  examples: ['netpolicy init', 'netpolicy init ci/ && netpolicy check --strict ci/ && netpolicy test --policy ci/policy.netpolicy.jsonc ci/policy.tests.json'],
  exitCodes: [[0, 'both files written'], [2, 'usage error, DIR missing, or a file already exists (nothing written)']],
};

/** A preset, why it was chosen, and a request it must allow (for the sample test). */
interface Found { preset: string; because: string; sample: string }

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

export function starterPolicy(found: Found[]): string {
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
  "presets": [${found.map((f) => JSON.stringify(f.preset)).join(', ')}]

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

export function sampleTests(found: Found[]): string {
  const tests: unknown[] = found.map((f) => ({
    name: `${f.preset} packages (${f.because})`,
    http: { method: 'GET', url: f.sample },
    expect: 'allow',
    rule: `preset:${f.preset}`,
  }));
  tests.push({ name: 'an endpoint the policy does not name stays denied', tls: { serverName: 'telemetry.example.com', port: 443 }, expect: 'deny', rule: 'default' });
  return JSON.stringify({ description: 'Accesses the policy must keep allowing or denying: netpolicy test --policy policy.netpolicy.jsonc policy.tests.json', tests }, null, 2) + '\n';
}

async function run(args: string[], io: Io): Promise<number> {
  const { positionals } = parseCommand(spec, args);
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
  const found = detectPresets(dir, (line) => io.stderr.write(`netpolicy init: ${escapeControl(line)}\n`));
  try {
    // `wx`: fail rather than overwrite a file created meanwhile.
    writeFileSync(policyPath, starterPolicy(found), { flag: 'wx' });
    try {
      writeFileSync(testsPath, sampleTests(found), { flag: 'wx' });
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
    `wrote ${shown(testsPath)}: ${found.length + 1} sample test${found.length ? 's' : ''}`,
    '',
    'Next:',
    `  npx netpolicy check --strict ${escapeControl(shownDir)}`,
    `  npx netpolicy test --policy ${shown(policyPath)} ${shown(testsPath)}`,
    '',
  ].join('\n'));
  return EXIT.ok;
}

export const command: Command = { name: 'init', summary: spec.summary, usage: usageText(spec), spec, run };
