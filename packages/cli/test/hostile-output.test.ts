/**
 * Re-probe of `-o FILE` and in-place writes for every command that writes, as processes: a FIFO
 * or device stays what it was (before, `explain -o` renamed its report over it: as root, `-o
 * /dev/full` replaced the device for everyone), a replaced file keeps its mode, a symbolic link
 * stays a link, `-o` naming an input is refused, and every failure is the same one line.
 */
import { spawnSync } from 'node:child_process';
import {
  chmodSync, createReadStream, lstatSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync, statSync, symlinkSync, writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, root } from './fetch-cli-helpers';
import { runProc } from './hostile-helpers';

const fixture = (p: string) => join(root, 'fixtures/traces/denials', p);
const POLICY = fixture('policy.netpolicy.json');
const TRACE = fixture('trace.json');
const TESTS = fixture('policy.tests.json');

let dir: string;
beforeAll(() => {
  ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'netpolicy-hostile-output-'));
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Every command that writes a report, with `-o` placed by the caller. */
const writers: [string, (out: string) => string[]][] = [
  ['check', (o) => ['check', '-o', o, POLICY]],
  ['explain', (o) => ['explain', '-o', o, '--policy', POLICY, '--trace', TRACE]],
  ['explain --format json', (o) => ['explain', '--format', 'json', '-o', o, '--policy', POLICY, '--trace', TRACE]],
  ['suggest', (o) => ['suggest', '-o', o, TRACE]],
  ['test', (o) => ['test', '-o', o, '--policy', POLICY, TESTS]],
  ['diff', (o) => ['diff', '-o', o, '--trace', TRACE, POLICY, POLICY]],
];

const okCode = (name: string) => (name === 'check' ? [0, 1] : [0]);

describe('-o FILE keeps what FILE is', () => {
  for (const [name, args] of writers) {
    it(`${name} -o FIFO: written in place, stays a FIFO`, async (ctx) => {
      const fifo = join(dir, `fifo-${name.replace(/\W+/g, '-')}`);
      if (spawnSync('mkfifo', [fifo]).status !== 0) return ctx.skip(); // no mkfifo on this machine
      const received = new Promise<string>((done, fail) => {
        let text = '';
        createReadStream(fifo, 'utf8').on('data', (c) => (text += c)).on('end', () => done(text)).on('error', fail);
      });
      const r = await runProc(args(fifo));
      expect(okCode(name)).toContain(r.code);
      expect((await received).length).toBeGreaterThan(0);
      expect(statSync(fifo).isFIFO()).toBe(true);
    });

    it(`${name} -o a replaced 0600 file keeps 0600`, async () => {
      const out = join(dir, `private-${name.replace(/\W+/g, '-')}.txt`);
      writeFileSync(out, 'old');
      chmodSync(out, 0o600);
      const r = await runProc(args(out), { umask: '022' });
      expect(okCode(name)).toContain(r.code);
      expect(readFileSync(out, 'utf8')).not.toBe('old');
      expect(statSync(out).mode & 0o777).toBe(0o600);
    });

    it(`${name} -o a symbolic link: the file it names gets the report, the link stays`, async () => {
      const target = join(dir, `target-${name.replace(/\W+/g, '-')}.txt`);
      const link = join(dir, `link-${name.replace(/\W+/g, '-')}.txt`);
      writeFileSync(target, 'old');
      symlinkSync(target, link);
      const r = await runProc(args(link));
      expect(okCode(name)).toContain(r.code);
      expect(lstatSync(link).isSymbolicLink()).toBe(true);
      expect(readlinkSync(link)).toBe(target);
      expect(readFileSync(target, 'utf8')).not.toBe('old');
    });
  }

  it('explain -o a full device: one line, exit 2, the device stays a device', async (ctx) => {
    // A character device like /dev/full (1, 7) made in the test's own folder, where this machine
    // lets the test make one (root, a mount without nodev); skipped, visibly, elsewhere.
    const full = join(dir, 'full');
    if (spawnSync('mknod', [full, 'c', '1', '7']).status !== 0) return ctx.skip();
    const r = await runProc(['explain', '-o', full, '--policy', POLICY, '--trace', TRACE]);
    expect(statSync(full).isCharacterDevice()).toBe(true);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`netpolicy explain: cannot write ${full}: no space left on device (ENOSPC)\n`);
  });

  it('check --fix on a policy behind a symbolic link fixes the file and keeps the link and its mode', async () => {
    const real = join(dir, 'real.netpolicy.json');
    const link = join(dir, 'linked.netpolicy.json');
    writeFileSync(real, '{"default": "deny", "presets": ["pypi", "pypi"]}\n');
    chmodSync(real, 0o640);
    symlinkSync(real, link);
    const r = await runProc(['check', '--fix', link], { umask: '077' });
    expect(r.code).toBe(0);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(JSON.parse(readFileSync(real, 'utf8')).presets).toEqual(['pypi']);
    expect(statSync(real).mode & 0o777).toBe(0o640);
  });
});

describe('-o FILE naming one of the inputs is refused before anything is written', () => {
  const cases: [string, (copy: Record<string, string>) => string[], string][] = [
    ['check -o POLICY', (c) => ['check', '-o', c.policy, c.policy], 'FILE|DIR|-'],
    ['explain -o --policy', (c) => ['explain', '-o', c.policy, '--policy', c.policy, '--trace', c.trace], '--policy'],
    ['explain -o --trace (another spelling)', (c) => ['explain', '--output', `${dir}/./copy-trace.json`, '--policy', c.policy, '--trace', c.trace], '--trace'],
    ['suggest -o TRACE', (c) => ['suggest', '-o', c.trace, c.trace], 'TRACE'],
    ['test -o TESTS', (c) => ['test', '-o', c.tests, '--policy', c.policy, c.tests], 'TESTS'],
    ['diff -o NEW', (c) => ['diff', '-o', c.policy, '--trace', c.trace, POLICY, c.policy], 'NEW'],
  ];
  for (const [name, args, role] of cases) {
    it(name, async () => {
      const copy = { policy: join(dir, 'copy-policy.json'), trace: join(dir, 'copy-trace.json'), tests: join(dir, 'copy-tests.json') };
      writeFileSync(copy.policy, readFileSync(POLICY));
      writeFileSync(copy.trace, readFileSync(TRACE));
      writeFileSync(copy.tests, readFileSync(TESTS));
      const r = await runProc(args(copy));
      expect(r.code).toBe(2);
      expect(r.stderr.split('\n')[0]).toMatch(new RegExp(`^netpolicy [a-z]+: option --output names .*, which is also an input \\(${role.replace(/[|]/g, '\\|')}\\); write the report to another file$`));
      expect(readFileSync(copy.policy)).toEqual(readFileSync(POLICY));
      expect(readFileSync(copy.trace)).toEqual(readFileSync(TRACE));
      expect(readFileSync(copy.tests)).toEqual(readFileSync(TESTS));
    });
  }
});

describe('a write that cannot happen is the same one line for every command', () => {
  for (const [name, args] of writers) {
    it(`${name}: -o into a missing folder, -o a folder, -o ''`, async () => {
      const cmd = name.split(' ')[0];
      mkdirSync(join(dir, 'a-folder'), { recursive: true });
      const missing = await runProc(args(join(dir, 'no-such-folder', 'out.txt')));
      expect(missing.code).toBe(2);
      expect(missing.stderr).toBe(`netpolicy ${cmd}: cannot write ${join(dir, 'no-such-folder', 'out.txt')}: no such directory (ENOENT)\n`);
      const folder = await runProc(args(join(dir, 'a-folder')));
      expect(folder.code).toBe(2);
      expect(folder.stderr).toBe(`netpolicy ${cmd}: cannot write ${join(dir, 'a-folder')}: is a directory, not a file\n`);
      const empty = await runProc(args(''));
      expect(empty.code).toBe(2);
      expect(empty.stderr.split('\n')[0]).toBe(`netpolicy ${cmd}: option --output needs a value (FILE), not an empty string`);
    });
  }
});

describe('init in hostile folders', () => {
  it('a file, not a folder: one line saying so', async () => {
    const r = await runProc(['init', POLICY]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`netpolicy init: cannot write into ${POLICY}: not a folder\n`);
  });

  it('a dangling link where the policy goes: not followed, nothing written', async () => {
    const folder = mkdtempSync(join(dir, 'init-link-'));
    symlinkSync(join(dir, 'elsewhere.jsonc'), join(folder, 'policy.netpolicy.jsonc'));
    const r = await runProc(['init'], { cwd: folder });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('netpolicy init: cannot write into .: a file of that name appeared meanwhile (or is a dangling link); nothing written\n');
    expect(lstatSync(join(folder, 'policy.netpolicy.jsonc')).isSymbolicLink()).toBe(true);
    expect(() => statSync(join(dir, 'elsewhere.jsonc'))).toThrow();
    expect(() => statSync(join(folder, 'policy.tests.json'))).toThrow();
  });

  it('a folder whose name holds control characters is echoed escaped', async () => {
    const name = 'evil\u001b]0;pwned\u0007\rdir';
    mkdirSync(join(dir, name));
    const r = await runProc(['init', name], { cwd: dir });
    expect(r.code).toBe(0);
    expect(r.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f]/);
    expect(r.stdout).toContain('evil\\u001b]0;pwned\\u0007\\rdir');
  });
});
