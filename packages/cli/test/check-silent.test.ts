/**
 * Issue 21, items 10, 11 and 13, as processes: what changes `check`'s verdict is named (the config
 * in force, in every format) and found only within the project (the upward search stops at the
 * repository root or the home folder); a limit reached is an error, never a silent pass; a file
 * that is not what it should be is named with its problem, never shown.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from './fetch-cli-helpers';
import { runProc } from './hostile-helpers';

/** One warning (insecure-url): exit 0, unless a config makes it an error. */
const WARNED = '{"default": "deny", "sources": [{"pypi": {"urls": ["http://pypi.example.com/simple"]}}]}\n';
const STRICTER = '{"severity": {"insecure-url": "error"}}\n';

let dir: string;
let n = 0;
const folder = () => {
  const d = join(dir, `t${n++}`);
  mkdirSync(d);
  return d;
};

beforeAll(() => {
  ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'netpolicy-check-silent-'));
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('item 10: the config in force is found within the project and named', () => {
  it('a config above the repository root (the first folder with .git) does not apply', async () => {
    const d = folder();
    writeFileSync(join(d, 'netpolicy.config.json'), STRICTER);
    mkdirSync(join(d, 'repo/.git'), { recursive: true });
    mkdirSync(join(d, 'repo/ci'));
    writeFileSync(join(d, 'repo/ci/p.netpolicy.json'), WARNED);
    const r = await runProc(['check', 'ci/p.netpolicy.json'], { cwd: join(d, 'repo'), env: { HOME: '/nonexistent' } });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    // The repository's own config (at its root) does.
    writeFileSync(join(d, 'repo/netpolicy.config.json'), STRICTER);
    const own = await runProc(['check', 'ci/p.netpolicy.json'], { cwd: join(d, 'repo'), env: { HOME: '/nonexistent' } });
    expect(own.code).toBe(1);
    expect(own.stderr).toBe('netpolicy check: config in force: netpolicy.config.json\n');
  });

  it('a config above the home folder does not apply; one in it does', async () => {
    const d = folder();
    writeFileSync(join(d, 'netpolicy.config.json'), STRICTER);
    mkdirSync(join(d, 'home/work'), { recursive: true });
    writeFileSync(join(d, 'home/work/p.netpolicy.json'), WARNED);
    const env = { HOME: join(d, 'home') };
    const r = await runProc(['check', 'p.netpolicy.json'], { cwd: join(d, 'home/work'), env });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    writeFileSync(join(d, 'home/netpolicy.config.json'), STRICTER);
    const inHome = await runProc(['check', 'p.netpolicy.json'], { cwd: join(d, 'home/work'), env });
    expect(inHome.code).toBe(1);
    expect(inHome.stderr).toBe(`netpolicy check: config in force: ${join(d, 'home/netpolicy.config.json')}\n`);
  });

  it('without a repository or home folder between them, a config upward applies, and is named in every format', async () => {
    const d = folder();
    writeFileSync(join(d, 'netpolicy.config.json'), STRICTER);
    mkdirSync(join(d, 'a'));
    writeFileSync(join(d, 'a/p.netpolicy.json'), WARNED);
    const env = { HOME: '/nonexistent' };
    const text = await runProc(['check', 'a'], { cwd: d, env });
    expect(text.code).toBe(1);
    expect(text.stderr).toBe('netpolicy check: config in force: netpolicy.config.json\n');
    const json = await runProc(['check', '--format', 'json', 'a'], { cwd: d, env });
    expect(json.code).toBe(1);
    const report = JSON.parse(json.stdout);
    expect(report.configs).toEqual(['netpolicy.config.json']);
    expect(report.files[0].diagnostics[0]).toMatchObject({ code: 'insecure-url', severity: 'error' });
    const sarif = await runProc(['check', '--format', 'sarif', 'a'], { cwd: d, env });
    expect(JSON.parse(sarif.stdout).runs[0].properties).toEqual({ netpolicyConfigs: ['netpolicy.config.json'] });
    // --config names one: that one is named.
    writeFileSync(join(d, 'other.json'), '{}');
    const named = await runProc(['check', '--format', 'json', '--config', 'other.json', 'a'], { cwd: d, env });
    expect(named.code).toBe(0);
    expect(JSON.parse(named.stdout).configs).toEqual(['other.json']);
  });

  it('without any config the reports are as before (no member, no line)', async () => {
    const d = folder();
    mkdirSync(join(d, '.git'));
    writeFileSync(join(d, 'p.netpolicy.json'), WARNED);
    const json = await runProc(['check', '--format', 'json', 'p.netpolicy.json'], { cwd: d, env: { HOME: '/nonexistent' } });
    expect(json.stderr).toBe('');
    expect(Object.keys(JSON.parse(json.stdout))).toEqual(['files']);
  });
});

describe('item 11: check DIR past the depth limit is an error, not a silent pass', () => {
  it('a policy 42 folders deep: exit 2 naming the limit, no success line', async () => {
    const d = folder();
    const deep = join(d, ...Array.from({ length: 42 }, (_, i) => `l${i}`));
    mkdirSync(deep, { recursive: true });
    writeFileSync(join(deep, 'p.netpolicy.json'), '{"default": "deny", "presets": ["no-such-preset"]}');
    writeFileSync(join(d, 'top.netpolicy.json'), '{"default": "deny"}');
    const r = await runProc(['check', d], { env: { HOME: '/nonexistent' } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^netpolicy check: .*\/l39\/l40: more than 40 folders deep, not searched \(pass that folder itself, or move the policies up\)\n$/);
    expect(r.stdout).not.toContain('✓');
    // Passing the deep folder itself checks the policy there.
    const itself = await runProc(['check', deep], { env: { HOME: '/nonexistent' } });
    expect(itself.code).toBe(1);
    expect(itself.stdout).toContain('unknown-preset');
  });

  it('a folder that cannot be read is named (exit 2)', async (ctx) => {
    if (process.getuid?.() === 0) return ctx.skip(); // root reads every folder
    const d = folder();
    writeFileSync(join(d, 'top.netpolicy.json'), '{"default": "deny"}');
    mkdirSync(join(d, 'closed'), { mode: 0o000 });
    const r = await runProc(['check', d]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`cannot read folder ${join(d, 'closed')}: permission denied`);
  });
});

describe('item 13: a file that is not what it should be is named, never shown', () => {
  it('presetCatalog "/etc/passwd" (or any text that is not JSON): the problem, not the first bytes', async () => {
    const d = folder();
    writeFileSync(join(d, 'secret.txt'), 'root:x:0:0:hunter2\n');
    writeFileSync(join(d, 'p.netpolicy.json'), '{"default": "deny"}');
    writeFileSync(join(d, 'netpolicy.config.json'), JSON.stringify({ presetCatalog: 'secret.txt' }));
    const r = await runProc(['check', 'p.netpolicy.json'], { cwd: d, env: { HOME: '/nonexistent' } });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`netpolicy check: ${join(d, 'secret.txt')}: the preset catalog is not valid JSON (give a JSON preset catalog, see docs/presets.md)\n`);
    const presets = await runProc(['check', '--presets', 'secret.txt', 'p.netpolicy.json'], { cwd: d, env: { HOME: '/nonexistent' } });
    expect(presets.code).toBe(2);
    expect(presets.stderr).not.toContain('root:');
    expect(presets.stderr).not.toContain('hunter2');
  });

  it('presetCatalog "/dev/zero": refused at once, named', async () => {
    const d = folder();
    writeFileSync(join(d, 'p.netpolicy.json'), '{"default": "deny"}');
    writeFileSync(join(d, 'netpolicy.config.json'), JSON.stringify({ presetCatalog: '/dev/zero' }));
    const r = await runProc(['check', 'p.netpolicy.json'], { cwd: d, env: { HOME: '/nonexistent' }, timeoutMs: 20_000 });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('netpolicy check: cannot read /dev/zero: a character device, not a regular file ("presetCatalog" in netpolicy.config.json must name a regular file)\n');
    // Named by --presets (where a pipe is allowed), it is read only up to the settings limit.
    const presets = await runProc(['check', '--presets', '/dev/zero', 'p.netpolicy.json'], { cwd: d, timeoutMs: 20_000 });
    expect(presets.code).toBe(2);
    expect(presets.stderr).toBe('netpolicy check: cannot read /dev/zero: larger than 8 MiB, the most it may hold (an endless device?)\n');
  });

  it('check --config - names standard input <stdin>', async () => {
    const r = await runProc(['check', '--config', '-', 'p.json'], { input: '{\n  "severty": {}\n}\n' });
    expect(r.code).toBe(2);
    expect(r.stderr.split('\n').slice(0, 2)).toEqual([
      'netpolicy check: <stdin> is not a valid netpolicy config:',
      expect.stringMatching(/^ {2}<stdin>:2:3: unknown-property: /),
    ]);
  });
});
