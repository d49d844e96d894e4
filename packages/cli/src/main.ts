/**
 * `netpolicy`: dispatches to one command module; each command is loaded only when used. The build
 * (esbuild.mjs) bundles each command on its own along these dynamic imports, and loads a bundle
 * with the V8 code cache made when it was built (code-cache.ts), so this entry statically imports
 * only what every run needs (io, escape, version, the loader): `--version` and `--help` load no core.
 * Each command lives in `commands/NAME/` with its renderers and CI formats; what several share sits
 * beside main.ts (README.md beside this file is the map).
 */
import { EXIT, UsageError, exitWhenSettled, guardStandardStreams, internalError, type Io } from './io';
import { realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { escapeControl } from './escape';
import { didYouMean } from './names';
import type { Command } from './command';

const commands: Record<string, { summary: string; load: () => Promise<{ command: Command }> }> = {
  init: { summary: 'Start a policy: a commented starter with presets for the package managers found here, and a sample test file', load: () => import('./commands/init') },
  check: { summary: 'Validate and lint policy files (text, JSON or SARIF output)', load: () => import('./commands/check') },
  explain: { summary: 'Explain a job trace against a policy: what was denied, why, and the smallest fix', load: () => import('./commands/explain') },
  suggest: { summary: 'Write a least-privilege policy from one or more traces', load: () => import('./commands/suggest') },
  test: { summary: 'Run policy test files (accesses with expected verdicts)', load: () => import('./commands/test') },
  diff: { summary: 'List accesses whose verdict changes between two policies', load: () => import('./commands/diff') },
  fetch: { summary: 'Download a job SBOM or trace, or an artifact record, from the service', load: () => import('./commands/fetch') },
  serve: { summary: 'Run a local implementation of the service over a directory of records', load: () => import('./commands/serve') },
};

export { VERSION } from './version';
/** For scripts/code-cache.cjs (the build) and the tests: how a command's bundle is loaded with its code cache. */
export { codeCacheFile, commandBundle, compileBundle, encodeCodeCache, loadBundle, readBundle, runBundle } from './code-cache';
import { VERSION } from './version';

function help(): string {
  const width = Math.max(...Object.keys(commands).map((c) => c.length));
  return [
    'netpolicy: network egress policies of CI jobs',
    '',
    'Usage: netpolicy <command> [options]',
    '',
    'Commands:',
    ...Object.entries(commands).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`),
    '',
    'Run `netpolicy <command> --help` for the options of a command.',
    '',
    'Exit codes: 0 ok; 1 problems found; 2 usage error or unreadable/invalid input; 3 authentication',
    'failed; 4 not found; 5 job not terminal; 6 service unavailable; 7 other API failure;',
    '70 internal error (one line; NETPOLICY_DEBUG=1 adds the stack trace); 141 stdout was a closed pipe',
    '(ended quietly). A failed write (disk full) is exit 2.',
    '',
  ].join('\n');
}

export async function main(argv: string[], io: Io): Promise<number> {
  const [name, ...rest] = argv;
  if (name === 'help' && rest.length > 0) return main([rest[0], '--help'], io);
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.stdout.write(help());
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  if (name === '--version' || name === '-v') {
    io.stdout.write(`${VERSION}\n`);
    return EXIT.ok;
  }
  const entry = Object.hasOwn(commands, name) ? commands[name] : undefined;
  if (!entry) {
    const names = Object.keys(commands);
    const option = name.startsWith('-');
    const near = didYouMean(name, option ? ['--help', '--version'] : [...names, 'help']);
    io.stderr.write(`netpolicy: unknown ${option ? 'option' : 'command'} \`${escapeControl(name)}\`${near || '.'} Commands: ${names.join(', ')}.\n`);
    return EXIT.usage;
  }
  const { command } = await entry.load();
  // `-h` anywhere before `--` (after it, `-h` is a file name).
  const options = rest.includes('--') ? rest.slice(0, rest.indexOf('--')) : rest;
  if (options.includes('--help') || options.includes('-h')) {
    io.stdout.write(command.usage.endsWith('\n') ? command.usage : `${command.usage}\n`);
    return EXIT.ok;
  }
  try {
    return await command.run(rest, io);
  } catch (error) {
    if (error instanceof UsageError) {
      // Messages echo file names, option values, policy and trace strings: escaped, one line each.
      io.stderr.write(`netpolicy ${name}: ${escapeControl(error.message)}\n`);
      for (const detail of error.details) io.stderr.write(`  ${escapeControl(detail)}\n`);
      if (error.exitCode === EXIT.usage && /option|argument/i.test(error.message)) {
        io.stderr.write(`Run \`netpolicy ${name} --help\` for usage.\n`);
      }
      return error.exitCode;
    }
    io.stderr.write(internalError(`netpolicy ${name}`, error, io.env));
    return EXIT.internal;
  }
}

/**
 * Runs the command line of this process (`process.argv`) and exits with its code. The bin
 * (`bin/netpolicy.js`) calls it: whatever name the CLI is started by (a symlink, an alias, a
 * wrapper), it runs, never a silent exit 0.
 */
export function runFromCommandLine(): void {
  const io: Io = { stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd() };
  const argv = process.argv.slice(2);
  if (argv[0] !== undefined && argv[0] !== 'serve' && Object.hasOwn(commands, argv[0])) tierUpLater(process.versions.v8);
  const label = argv[0] !== undefined && Object.hasOwn(commands, argv[0]) ? `netpolicy ${argv[0]}` : 'netpolicy';
  guardStandardStreams(process, () => label);
  exitWhenSettled(process, main(argv, io), label, io.env);
}

/**
 * V8 compiles a function with its optimising compiler (TurboFan) once the function has run an
 * "interrupt budget" of bytecode. A command runs once and briefly: of the ~55 functions V8
 * optimised while `check` read a 10,000-rule policy, most had finished their work before their
 * optimised code arrived, and the compilations ran on threads that took the second core of a
 * 2-core CI runner from the main thread. Four times V8's budget (~25 functions optimised) leaves
 * optimisation to the functions that stay hot (the evaluator over a large trace). Measured on
 * Node 20 (V8 11.3), 2 cores, whole processes: `check` of that policy 200 -> 170 ms; `explain` of
 * 200,000 observations within 1% (docs/performance.md). Only the V8 it was measured on: another may lack the flag (V8 prints an
 * error for an unknown one) or tier differently. Not for `serve`, which runs for long, nor for
 * `--version` or `--help` (node:v8 costs a few modules to load).
 */
export function tierUpLater(v8Version: string): boolean {
  if (!v8Version.startsWith('11.')) return false;
  const v8 = createRequire(import.meta.url)('node:v8') as typeof import('node:v8');
  v8.setFlagsFromString('--interrupt-budget=270336');
  return true;
}

/** True when this module is the program itself (`node dist/netpolicy.js ...`), not imported by the bin or a test. */
function startedDirectly(): boolean {
  const script = typeof process !== 'undefined' ? process.argv[1] : undefined;
  if (script === undefined) return false;
  try {
    return realpathSync(script) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (startedDirectly()) runFromCommandLine();
