/**
 * `npm test`'s closing line comes from scripts/count-reporter.mjs, a silent vitest reporter
 * (issue 9 item 10: the JSON reporter announced a report file that scripts/test.mjs then deleted).
 */
import { describe, expect, it, onTestFinished } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from './run-cli';

function runVitest(files: Record<string, string>) {
  const dir = mkdtempSync(join(tmpdir(), 'netpolicy-reporter-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  const counts = join(dir, 'counts.json');
  const r = spawnSync(join(repoRoot, 'node_modules/.bin/vitest'), ['run', '--root', dir, '--globals', '--reporter=default', `--reporter=${join(repoRoot, 'scripts/count-reporter.mjs')}`], {
    env: { ...process.env, NETPOLICY_TEST_COUNTS: counts, NO_COLOR: '1' }, encoding: 'utf8', timeout: 60000,
  });
  return { out: r.stdout + r.stderr, status: r.status, counts: JSON.parse(readFileSync(counts, 'utf8')) };
}

describe('scripts/count-reporter.mjs', () => {
  it('counts passed, failed and skipped tests, and announces no file', () => {
    const r = runVitest({ 'a.test.js': "it('a', () => { expect(1).toBe(1) });\nit('b', () => { expect(1).toBe(2) });\nit.skip('c', () => {});\n" });
    expect(r.counts).toEqual({ passed: 1, failed: 1, skipped: 1, failedModules: 0, unhandledErrors: 0 });
    expect(r.out).not.toMatch(/report written|\.json/i);
    expect(r.status).toBe(1);
  });

  it('counts errors outside tests (an unhandled rejection) and files that fail to load', () => {
    const r = runVitest({
      'a.test.js': "it('a', () => { Promise.reject(new Error('late')); });\n",
      'b.test.js': "throw new Error('broken at load');\n",
    });
    expect(r.counts.unhandledErrors).toBe(1);
    expect(r.counts.failedModules).toBe(1);
    expect(r.status).toBe(1);
  });

  it('scripts/test.mjs uses it, not the JSON reporter', () => {
    const script = readFileSync(join(repoRoot, 'scripts/test.mjs'), 'utf8');
    expect(script).toContain('count-reporter.mjs');
    expect(script).not.toContain('--reporter=json');
  });
});
