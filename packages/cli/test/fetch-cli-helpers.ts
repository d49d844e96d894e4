/** Runs the built CLI as a process (asynchronously, so in-process test servers keep answering). */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

export const root = new URL('../../../', import.meta.url).pathname;
export const bin = join(root, 'packages/cli/bin/netpolicy.js');
const bundle = join(root, 'packages/cli/dist/netpolicy.js');

function newest(dir: string): number {
  let t = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    t = Math.max(t, entry.isDirectory() ? newest(p) : statSync(p).mtimeMs);
  }
  return t;
}

/** Builds the bundle when it is missing or older than the client or CLI sources. */
export function ensureBuilt(): void {
  const sources = Math.max(newest(join(root, 'packages/client/src')), newest(join(root, 'packages/cli/src')));
  if (!existsSync(bundle) || statSync(bundle).mtimeMs < sources) {
    execFileSync(process.execPath, [join(root, 'esbuild.mjs')], { cwd: root, stdio: 'ignore' });
  }
}

export interface Run { code: number | null; stdout: string; stderr: string }

export function run(args: string[], env: Record<string, string | undefined> = {}, cwd = root): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], {
      cwd,
      env: { PATH: process.env.PATH, NETPOLICY_RETRY_BASE_MS: '1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    const timer = setTimeout(() => child.kill('SIGKILL'), 15000);
    child.on('error', reject);
    child.on('close', (code) => { clearTimeout(timer); resolve({ code, stdout, stderr }); });
  });
}

/** Starts `netpolicy serve` as a child process; resolves with its URL once it prints it. */
export function spawnServe(args: string[]): Promise<{ child: ChildProcess; url: string; stderr: () => string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, 'serve', ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`serve did not start: ${err}`)); }, 10000);
    child.stderr!.on('data', (c) => (err += c));
    child.stdout!.on('data', (c) => {
      out += c;
      const m = /^(http:\/\/\S+)\n/.exec(out);
      if (m) { clearTimeout(timer); resolve({ child, url: m[1], stderr: () => err }); }
    });
    child.on('exit', (code) => { clearTimeout(timer); reject(new Error(`serve exited ${code}: ${err}`)); });
  });
}

export function exited(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve({ code: child.exitCode, signal: child.signalCode });
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
}
