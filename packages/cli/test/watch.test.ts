/** `check --watch` and `explain --watch` as processes: run, modify the file, see the re-run, kill (issue 9 item 11). */
import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bin, repoRoot } from './run-cli';

/** Starts the CLI; `waitFor(re)` resolves with all output once `re` matches it (or rejects after 15 s). */
function start(args: string[]) {
  const child = spawn(process.execPath, [bin, ...args], { cwd: repoRoot, env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const waiters: { re: RegExp; done: (s: string) => void }[] = [];
  const onData = (chunk: Buffer) => {
    out += chunk.toString();
    for (const w of [...waiters]) if (w.re.test(out)) { waiters.splice(waiters.indexOf(w), 1); w.done(out); }
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    waitFor(re: RegExp): Promise<string> {
      return new Promise((resolve, reject) => {
        if (re.test(out)) return resolve(out);
        const timer = setTimeout(() => reject(new Error(`timed out waiting for ${re} in:\n${out}`)), 15000);
        waiters.push({ re, done: (s) => { clearTimeout(timer); resolve(s); } });
      });
    },
    async stop(): Promise<number | null> {
      child.kill('SIGINT');
      return exited;
    },
  };
}

describe('--watch', () => {
  it('check --watch re-checks when the policy changes (also when saved by rename)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'netpolicy-watch-'));
    const file = join(dir, 'p.netpolicy.json');
    writeFileSync(file, '{"default": "deny", "presets": []}');
    const p = start(['check', '--watch', file]);
    try {
      await p.waitFor(/watching .* for changes/);
      writeFileSync(file, '{"default": "deny", "presets": ["pypy"]}');
      const second = await p.waitFor(/unknown-preset[\s\S]*exit 1; watching/);
      expect(second).toContain('changed, running again');
      expect(second).toMatch(/exit 1; watching/);
      // An editor that writes a new file and renames it over the old one.
      writeFileSync(join(dir, 'tmp'), '{"default": "deny", "presets": ["pypi"]}');
      renameSync(join(dir, 'tmp'), file);
      await p.waitFor(/exit 1; watching for changes[\s\S]*changed, running again[\s\S]*exit 0; watching for changes/);
    } finally {
      expect(await p.stop()).not.toBeNull();
    }
  });

  it('explain --watch explains again when the policy changes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'netpolicy-watch-'));
    const policy = join(dir, 'p.netpolicy.json');
    copyFileSync(join(repoRoot, 'fixtures/traces/npm-build/policy.netpolicy.json'), policy);
    const p = start(['explain', '--watch', '--format', 'json', '--policy', policy, '--trace', join(repoRoot, 'fixtures/traces/npm-build/trace.json')]);
    try {
      const first = await p.waitFor(/watching .* for changes/);
      const denied = (s: string) => [...s.matchAll(/"denied":(\d+)/g)].map((m) => Number(m[1]));
      expect(denied(first)).toHaveLength(1);
      writeFileSync(policy, '{"default": "deny", "presets": []}');
      const second = await p.waitFor(/changed, running again[\s\S]*exit 0; watching for changes/);
      const counts = denied(second);
      expect(counts).toHaveLength(2);
      expect(counts[1]).toBeGreaterThan(counts[0]);
    } finally {
      await p.stop();
    }
  });
});
