// code-server (a real VS Code, 1.100.3) for the end-to-end tests: installed once into a cache
// folder (never a project dependency), started on a free port with its state in a fresh folder,
// stopped by its own PID. See /work/shared/notes/vscode-e2e.md for why each step is needed.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync, openSync } from 'node:fs';
import { createServer } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';

export const CODE_SERVER_VERSION = '4.100.3';

export function cacheDir() {
  return join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'netpolicy-e2e', `code-server-${CODE_SERVER_VERSION}`);
}

/** Installs code-server into the cache folder unless it is there already; returns its entry script. */
export function installCodeServer(log = console.log) {
  const dir = cacheDir();
  const entry = join(dir, 'node_modules/code-server/out/node/entry.js');
  if (existsSync(entry)) return entry;
  for (const bin of ['rg', 'chromium']) {
    if (spawnSync('sh', ['-c', `command -v ${bin}`]).status !== 0) throw new Error(`${bin} is missing: apt-get install -y chromium ripgrep libkrb5-dev`);
  }
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), '{ "private": true }\n');
  // @vscode/ripgrep's postinstall downloads ripgrep unless this tarball is in its cache: give it Debian's rg.
  const tmp = mkdtempSync(join(tmpdir(), 'netpolicy-e2e-install-'));
  const rgCache = join(tmp, 'vscode-ripgrep-cache-1.15.11');
  mkdirSync(rgCache, { recursive: true });
  const rgDir = join(tmp, 'rg');
  mkdirSync(rgDir);
  spawnSync('cp', [spawnSync('sh', ['-c', 'command -v rg']).stdout.toString().trim(), join(rgDir, 'rg')]);
  const tar = spawnSync('tar', ['-czf', join(rgCache, 'ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz'), '-C', rgDir, 'rg']);
  if (tar.status !== 0) throw new Error(`tar failed: ${tar.stderr}`);
  log(`installing code-server ${CODE_SERVER_VERSION} into ${dir} (about a minute)`);
  const started = Date.now();
  const r = spawnSync('npm', ['install', '--no-save', '--no-audit', '--no-fund', '--loglevel=error', `code-server@${CODE_SERVER_VERSION}`], {
    cwd: dir,
    stdio: ['ignore', 'inherit', 'inherit'],
    env: { ...process.env, TMPDIR: tmp, npm_config_unsafe_perm: 'true', npm_config_yes: 'true' },
  });
  rmSync(tmp, { recursive: true, force: true });
  if (r.status !== 0 || !existsSync(entry)) throw new Error(`npm install code-server@${CODE_SERVER_VERSION} failed (exit ${r.status})`);
  log(`code-server installed in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  return entry;
}

export function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** A fresh profile: user data, extensions and XDG folders under one temporary folder. */
export function freshProfile(base) {
  const dir = mkdtempSync(join(base ?? tmpdir(), 'netpolicy-e2e-profile-'));
  const p = {
    dir,
    userData: join(dir, 'user-data'),
    extensions: join(dir, 'extensions'),
    env: { XDG_CONFIG_HOME: join(dir, 'xdg-config'), XDG_DATA_HOME: join(dir, 'xdg-data'), XDG_CACHE_HOME: join(dir, 'xdg-cache'), XDG_STATE_HOME: join(dir, 'xdg-state') },
  };
  for (const d of [p.userData, p.extensions, ...Object.values(p.env)]) mkdirSync(d, { recursive: true });
  mkdirSync(join(p.userData, 'User'), { recursive: true });
  return p;
}

export function installExtension(entry, profile, vsix) {
  const r = spawnSync(process.execPath, [entry, '--user-data-dir', profile.userData, '--extensions-dir', profile.extensions, '--install-extension', vsix, '--force'], {
    env: { ...process.env, ...profile.env }, encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`--install-extension failed: ${r.stdout}${r.stderr}`);
  return r.stdout.trim();
}

/**
 * Starts code-server; resolves when /healthz answers. `stop()` ends it by its PID. With
 * `workspaceTrust`, folders are asked to be trusted (Restricted Mode can be tested).
 */
export async function startCodeServer(entry, profile, { port, logFile, workspaceTrust = false } = {}) {
  port ??= await freePort();
  const out = openSync(logFile ?? join(profile.dir, 'code-server.log'), 'a');
  const child = spawn(process.execPath, [
    entry, '--bind-addr', `127.0.0.1:${port}`, '--auth', 'none', '--disable-telemetry', '--disable-update-check',
    ...(workspaceTrust ? [] : ['--disable-workspace-trust']), '--disable-getting-started-override', '--user-data-dir', profile.userData, '--extensions-dir', profile.extensions,
  ], { env: { ...process.env, ...profile.env }, stdio: ['ignore', out, out] });
  let exited = false;
  child.once('exit', () => { exited = true; });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (exited) throw new Error(`code-server exited before it was ready (log: ${logFile ?? join(profile.dir, 'code-server.log')})`);
    try {
      const r = await fetch(`${url}/healthz`);
      if (r.ok) break;
    } catch {}
    if (Date.now() > deadline) {
      child.kill();
      throw new Error('code-server did not answer /healthz within 30 s');
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    port,
    pid: child.pid,
    async stop() {
      if (exited) return;
      const done = new Promise((r) => child.once('exit', r));
      process.kill(child.pid, 'SIGTERM');
      const timer = setTimeout(() => { if (!exited) process.kill(child.pid, 'SIGKILL'); }, 5000);
      await done;
      clearTimeout(timer);
    },
  };
}
