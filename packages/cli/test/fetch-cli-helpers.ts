/** Runs the built CLI as a process (asynchronously, so in-process test servers keep answering). */
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll } from 'vitest';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

export const root = new URL('../../../', import.meta.url).pathname;
export const bin = join(root, 'packages/cli/bin/netpolicy.js');
const bundle = join(root, 'packages/cli/dist/netpolicy.js');

/** The tests run the built CLI; `npm test` builds it first (building here would race other test files). */
export function ensureBuilt(): void {
  if (!existsSync(bundle)) throw new Error(`${bundle} is missing: run \`node esbuild.mjs\` (npm test does) before these tests`);
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
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000); // a hang bound, far above a loaded machine's figure
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
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`serve did not start: ${err}`)); }, 60_000);
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

export interface ServeProcess { child: ChildProcess; url: string; stderr: () => string }

/**
 * `netpolicy serve` over fixtures/service for the tests of the calling file or describe block:
 * started before them, stopped after. The returned object reads the running process.
 */
export function serveFixtures(): ServeProcess {
  let current: ServeProcess | undefined;
  beforeAll(async () => {
    ensureBuilt();
    current = await spawnServe(['--data', 'fixtures/service', '--port', '0']);
  });
  afterAll(async () => {
    current?.child.kill('SIGTERM');
    if (current) await exited(current.child);
  });
  const running = (): ServeProcess => {
    if (!current) throw new Error('netpolicy serve has not started');
    return current;
  };
  return { get child() { return running().child; }, get url() { return running().url; }, stderr: () => running().stderr() };
}
