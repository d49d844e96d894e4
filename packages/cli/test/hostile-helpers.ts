/** Running the built CLI as a process with hostile surroundings: stdout on /dev/full or a pipe closed early, a umask. */
import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { bin, root } from './fetch-cli-helpers';

export interface Proc { code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }

export interface ProcOptions {
  env?: Record<string, string | undefined>;
  cwd?: string;
  /** A file to open for the child's stdout (e.g. /dev/full) instead of a pipe. */
  stdoutFile?: string;
  /** A file to open for the child's stdin (bytes as they are) instead of none. */
  stdinFile?: string;
  /** Run under this umask (through /bin/sh). */
  umask?: string;
  input?: string;
  timeoutMs?: number;
}

export function runProc(args: string[], options: ProcOptions = {}): Promise<Proc> {
  return new Promise((resolve, reject) => {
    const fd = options.stdoutFile ? openSync(options.stdoutFile, 'w') : undefined;
    const inFd = options.stdinFile ? openSync(options.stdinFile, 'r') : undefined;
    const argv = options.umask
      ? ['/bin/sh', ['-c', `umask ${options.umask} && exec "$0" "$@"`, process.execPath, bin, ...args]] as const
      : [process.execPath, [bin, ...args]] as const;
    const child = spawn(argv[0], [...argv[1]], {
      cwd: options.cwd ?? root,
      env: { PATH: process.env.PATH, NO_COLOR: '1', NETPOLICY_RETRY_BASE_MS: '1', ...options.env },
      stdio: [inFd ?? (options.input === undefined ? 'ignore' : 'pipe'), fd ?? 'pipe', 'pipe'],
    });
    if (fd !== undefined) closeSync(fd);
    if (inFd !== undefined) closeSync(inFd);
    if (options.input !== undefined) child.stdin!.end(options.input);
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (c) => (stdout += c));
    child.stderr!.on('data', (c) => (stderr += c));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000); // a hang bound
    child.on('error', reject);
    child.on('close', (code, signal) => { clearTimeout(timer); resolve({ code, signal, stdout, stderr }); });
  });
}

/**
 * Runs the CLI with its stdout piped into `head -c 1`, as a shell would (`netpolicy … | head -c 1`),
 * and returns the CLI's exit status as the shell saw it, with its stderr.
 */
export function runIntoHead(args: string[], env: Record<string, string> = {}): Promise<{ status: number; stderr: string; head: string }> {
  return new Promise((resolve, reject) => {
    const quoted = [process.execPath, bin, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
    const child = spawn('/bin/bash', ['-c', `${quoted} 2>"$ERRFILE" | head -c 1; echo " status=\${PIPESTATUS[0]}"; cat "$ERRFILE"; rm -f "$ERRFILE"`], {
      cwd: root,
      env: { PATH: process.env.PATH, NO_COLOR: '1', ERRFILE: `/tmp/netpolicy-hostile-${process.pid}-${Math.random().toString(16).slice(2)}.err`, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', () => {
      clearTimeout(timer);
      const m = /^([\s\S]?) status=(\d+)\n([\s\S]*)$/.exec(out);
      if (!m) return reject(new Error(`unexpected shell output: ${out.slice(0, 500)}`));
      resolve({ head: m[1], status: Number(m[2]), stderr: m[3] });
    });
  });
}

/** Raw control characters other than the line feeds that end lines (what a terminal would act on). */
export const RAW_CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
