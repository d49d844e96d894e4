/**
 * The CLI runs whatever the name it is started by: a symlink or a copy of the bin under another
 * name (an alias, a wrapper, a vendored tool folder) must run the command, never exit 0 having done
 * nothing (a silent green in CI). The bundle's entry also runs when started directly.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bin, repoRoot } from './run-cli';
import { tierUpLater } from '../src/main';

let dir: string;
let bad: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'netpolicy-entry-'));
  bad = join(dir, 'bad.netpolicy.json');
  writeFileSync(bad, '{"default": "block"}');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function run(file: string, args: string[]) {
  const r = spawnSync(process.execPath, [file, ...args], { cwd: dir, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' }, timeout: 30000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('the CLI entry', () => {
  it('runs through a symlink with another name', () => {
    const alias = join(dir, 'np');
    symlinkSync(bin, alias);
    expect(run(alias, ['--version']).stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
    const r = run(alias, ['check', bad]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('bad.netpolicy.json');
  });

  it('runs when the bundle is started directly', () => {
    const r = run(join(repoRoot, 'packages/cli/dist/netpolicy.js'), ['check', bad]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('bad.netpolicy.json');
  });

  it('does not run a command twice when started through the bin', () => {
    const r = run(bin, ['--version']);
    expect(r.code).toBe(0);
    expect(r.stdout.trim().split('\n')).toHaveLength(1);
  });
});

describe('V8 tiering of a one-shot run', () => {
  it('raises the interrupt budget only on the V8 it was measured on', () => {
    expect(tierUpLater('11.3.244.8-node.38')).toBe(true);
    expect(tierUpLater('12.4.254.21-node.33')).toBe(false);
    expect(tierUpLater('13.6.233.10-node.20')).toBe(false);
    expect(tierUpLater('1.3')).toBe(false);
  });

  it('leaves standard error clean (V8 reports a flag it does not know there)', () => {
    const good = join(dir, 'good.netpolicy.json');
    writeFileSync(good, '{"default": "deny"}');
    const r = run(bin, ['check', good]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
  });
});
