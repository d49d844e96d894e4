/** `check --watch` and `explain --watch` as processes: run, modify the file, see the re-run, kill (issue 9 item 11). */
import { describe, expect, it, onTestFinished } from 'vitest';
import { spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, renameSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bin, repoRoot } from './run-cli';

/**
 * Starts the CLI. `waitFor(out, err)` resolves once stdout matches `out` and stderr matches `err`
 * (the two pipes arrive in no fixed order), or rejects after 15 s.
 */
function start(args: string[]) {
  const child = spawn(process.execPath, [bin, ...args], { cwd: repoRoot, env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
  const seen = { out: '', err: '' };
  const waiters: { test: () => boolean; done: () => void }[] = [];
  const check = () => {
    for (const w of [...waiters]) if (w.test()) { waiters.splice(waiters.indexOf(w), 1); w.done(); }
  };
  child.stdout.on('data', (chunk: Buffer) => { seen.out += chunk.toString(); check(); });
  child.stderr.on('data', (chunk: Buffer) => { seen.err += chunk.toString(); check(); });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    seen,
    waitFor(out: RegExp, err: RegExp): Promise<void> {
      return new Promise((resolve, reject) => {
        const test = () => out.test(seen.out) && err.test(seen.err);
        if (test()) return resolve();
        const timer = setTimeout(() => reject(new Error(`timed out waiting for ${out} on stdout and ${err} on stderr:\n${seen.out}\n---\n${seen.err}`)), 60_000);
        waiters.push({ test, done: () => { clearTimeout(timer); resolve(); } });
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
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'p.netpolicy.json');
    writeFileSync(file, '{"default": "deny", "presets": []}');
    const p = start(['check', '--watch', file]);
    try {
      await p.waitFor(/✓ 0 errors/, /exit 0; watching .* for changes/);
      writeFileSync(file, '{"default": "deny", "presets": ["pypy"]}');
      await p.waitFor(/unknown-preset/, /changed, running again\n.*exit 1; watching for changes/);
      // An editor that writes a new file and renames it over the old one.
      writeFileSync(join(dir, 'tmp'), '{"default": "deny", "presets": ["pypi"]}');
      renameSync(join(dir, 'tmp'), file);
      await p.waitFor(/unknown-preset[\s\S]*✓ 0 errors/, /exit 1; watching for changes[\s\S]*changed, running again\n.*exit 0; watching for changes/);
    } finally {
      expect(await p.stop()).not.toBeNull();
    }
  });

  it('explain --watch explains again when the policy changes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'netpolicy-watch-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const policy = join(dir, 'p.netpolicy.json');
    copyFileSync(join(repoRoot, 'fixtures/traces/npm-build/policy.netpolicy.json'), policy);
    const p = start(['explain', '--watch', '--format', 'json', '--policy', policy, '--trace', join(repoRoot, 'fixtures/traces/npm-build/trace.json')]);
    try {
      await p.waitFor(/"summary"[\s\S]*\n\}\n/, /watching .* for changes/);
      const denied = (s: string) => [...s.matchAll(/"denied":(\d+)/g)].map((m) => Number(m[1]));
      expect(denied(p.seen.out)).toHaveLength(1);
      writeFileSync(policy, '{"default": "deny", "presets": []}');
      await p.waitFor(/"summary"[\s\S]*"summary"[\s\S]*\n\}\n/, /changed, running again\n.*exit 0; watching for changes/);
      const counts = denied(p.seen.out);
      expect(counts).toHaveLength(2);
      expect(counts[1]).toBeGreaterThan(counts[0]);
    } finally {
      await p.stop();
    }
  });
});
