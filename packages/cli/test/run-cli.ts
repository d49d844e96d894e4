/** Runs the built CLI as a process (tests the real binary: argument parsing, streams, exit codes). */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
export const bin = fileURLToPath(new URL('../bin/netpolicy.js', import.meta.url));

export interface CliResult { code: number; stdout: string; stderr: string }

export function runCli(args: string[], options: { cwd?: string; env?: Record<string, string>; input?: string } = {}): CliResult {
  const r = spawnSync(process.execPath, [bin, ...args], {
    cwd: options.cwd ?? repoRoot,
    env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '', ...options.env },
    input: options.input,
    encoding: 'utf8',
    timeout: 60_000, // a hang bound: a run takes well under a second on a quiet machine
  });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}
