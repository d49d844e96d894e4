/**
 * Issue 21, items 1 to 6, as processes: nothing a user has is lost to a write (`-o` over an input
 * found in a folder, a file changed while `--fix`/`--apply` worked, another user's file, a hard
 * link, a read-only file, `/dev/stdin`), and nothing hangs on a FIFO or device where a file was
 * expected. Runs as any user; the ownership cases need root (to chown) and are skipped otherwise.
 */
import { spawn, spawnSync } from 'node:child_process';
import {
  chmodSync, chownSync, copyFileSync, existsSync, linkSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bin, ensureBuilt, exited, root, spawnServe, type ServeProcess } from './fetch-cli-helpers';
import { runProc } from './hostile-helpers';

const fixture = (p: string) => join(root, 'fixtures/traces/denials', p);
const POLICY = fixture('policy.netpolicy.json');
const TRACE = fixture('trace.json');
/** A policy with one fix to apply (a duplicate preset). */
const FIXABLE = '{"default": "deny", "presets": ["pypi", "pypi"]}\n';
const FIXED = '{"default": "deny", "presets": ["pypi"]}\n';
/** A run of these commands takes well under a second; ten times that and more catches a hang without failing a busy machine. */
const HANG = { timeoutMs: 20_000 };

const isRoot = process.getuid?.() === 0;
const nobody = 65534;

let dir: string;
let n = 0;
/** A fresh folder for one test. */
const folder = () => {
  const d = join(dir, `t${n++}`);
  mkdirSync(d);
  return d;
};
const mkfifo = (path: string) => spawnSync('mkfifo', [path]).status === 0;

beforeAll(() => {
  ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'netpolicy-write-safety-'));
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('item 1: -o naming a policy found inside a folder argument', () => {
  for (const format of ['text', 'json', 'sarif']) {
    it(`check --format ${format} -o d/a.netpolicy.json d: refused, the policy intact`, async () => {
      const d = folder();
      mkdirSync(join(d, 'd'));
      writeFileSync(join(d, 'd/a.netpolicy.json'), FIXABLE);
      const r = await runProc(['check', '--format', format, '-o', 'd/a.netpolicy.json', 'd'], { cwd: d });
      expect(r.code).toBe(2);
      expect(r.stderr.split('\n')[0]).toBe('netpolicy check: option --output names d/a.netpolicy.json, which is also an input (found in d); write the report to another file');
      expect(readFileSync(join(d, 'd/a.netpolicy.json'), 'utf8')).toBe(FIXABLE);
    });
  }

  it('another spelling, a link to it, and the config in force are caught too; --fix writes nothing either', async () => {
    const d = folder();
    mkdirSync(join(d, 'd'));
    writeFileSync(join(d, 'd/a.netpolicy.json'), FIXABLE);
    writeFileSync(join(d, 'd/netpolicy.config.json'), '{}\n');
    symlinkSync(join(d, 'd/a.netpolicy.json'), join(d, 'link.txt'));
    for (const out of ['./d/../d/a.netpolicy.json', 'link.txt']) {
      const r = await runProc(['check', '--fix', '-o', out, 'd'], { cwd: d });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('which is also an input (found in d)');
    }
    const config = await runProc(['check', '-o', 'd/netpolicy.config.json', 'd'], { cwd: d });
    expect(config.code).toBe(2);
    expect(config.stderr).toContain('which is also an input (the config in force, d/netpolicy.config.json)');
    expect(readFileSync(join(d, 'd/a.netpolicy.json'), 'utf8')).toBe(FIXABLE);
    expect(readFileSync(join(d, 'd/netpolicy.config.json'), 'utf8')).toBe('{}\n');
  });

  it('-o a new file next to the policies is fine', async () => {
    const d = folder();
    mkdirSync(join(d, 'd'));
    writeFileSync(join(d, 'd/a.netpolicy.json'), FIXED);
    const r = await runProc(['check', '--format', 'json', '-o', 'd/report.json', 'd'], { cwd: d });
    expect(r.code).toBe(0);
    expect(JSON.parse(readFileSync(join(d, 'd/report.json'), 'utf8')).files).toHaveLength(1);
  });
});

/** Starts the CLI, waits until its temporary file appears in `where` (the policy has been read and the new text written beside it), calls `meanwhile`, then waits for the end. */
async function modifyWhileWriting(args: string[], cwd: string, where: string, meanwhile: () => void): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [bin, ...args], {
    cwd,
    env: { PATH: process.env.PATH, NO_COLOR: '1', NETPOLICY_TEST_PAUSE_BEFORE_WRITE_MS: '3000' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (c) => (stderr += c));
  child.stdout.resume();
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  try {
    const start = Date.now();
    while (!readdirSync(where).some((f) => f.endsWith('.tmp'))) {
      if (child.exitCode !== null || Date.now() - start > 50_000) throw new Error(`no temporary file appeared (exit ${child.exitCode}): ${stderr}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    meanwhile();
    const { code } = await exited(child);
    return { code, stderr };
  } finally {
    clearTimeout(timer);
  }
}

/** A policy of `rules` sources, one of them repeated (a fix to apply), as a user's large file. */
function largePolicy(rules: number): string {
  const sources = Array.from({ length: rules }, (_, i) => `    {"npm": {"urls": ["https://npm${i}.example.com"]}}`);
  sources.push(sources[0]);
  return `{\n  "default": "deny",\n  "sources": [\n${sources.join(',\n')}\n  ]\n}\n`;
}

describe('item 2: a file changed while --fix or --apply worked on it is not overwritten', () => {
  it('check --fix: a file copied over it meanwhile is kept, exit 2, nothing written', async () => {
    const d = folder();
    const policy = join(d, 'big.netpolicy.json');
    writeFileSync(policy, largePolicy(6000));
    const theirs = largePolicy(10).replace('npm0', 'theirs');
    const r = await modifyWhileWriting(['check', '--fix', policy], d, d, () => {
      writeFileSync(join(dir, `theirs-${n}.json`), theirs);
      copyFileSync(join(dir, `theirs-${n}.json`), policy); // over it: the same inode, as `cp` does
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`netpolicy check: cannot write ${policy}: it changed while netpolicy worked on it; nothing written, your change is kept (run the command again)`);
    expect(r.stderr).not.toContain('applied 1 fix');
    expect(readFileSync(policy, 'utf8')).toBe(theirs);
    expect(readdirSync(d).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  }, 120_000);

  it('check --fix: five lines appended meanwhile (same inode) are kept', async () => {
    const d = folder();
    const policy = join(d, 'big.netpolicy.json');
    const original = largePolicy(6000);
    writeFileSync(policy, original);
    const r = await modifyWhileWriting(['check', '--fix', policy], d, d, () => writeFileSync(policy, '// 1\n// 2\n// 3\n// 4\n// 5\n', { flag: 'a' }));
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('it changed while netpolicy worked on it');
    expect(readFileSync(policy, 'utf8')).toBe(`${original}// 1\n// 2\n// 3\n// 4\n// 5\n`);
  }, 120_000);

  it('the same text written back meanwhile (same size, new time) is refused too', async () => {
    const d = folder();
    const policy = join(d, 'p.netpolicy.json');
    writeFileSync(policy, FIXABLE.replace('deny', 'DENY'));
    const r = await modifyWhileWriting(['check', '--fix', policy], d, d, () => writeFileSync(policy, FIXABLE.replace('deny', 'deNY')));
    expect(r.code).toBe(2);
    expect(readFileSync(policy, 'utf8')).toBe(FIXABLE.replace('deny', 'deNY'));
  });

  it('left alone, the paused write goes through (the check does not refuse for nothing)', async () => {
    const d = folder();
    const policy = join(d, 'p.netpolicy.json');
    writeFileSync(policy, FIXABLE);
    const r = await modifyWhileWriting(['check', '--fix', policy], d, d, () => {});
    expect(r.stderr).toContain('applied 1 fix in 1 file');
    expect(r.code).toBe(0);
    expect(readFileSync(policy, 'utf8')).toBe(FIXED);
  });

  it('explain --apply: a policy edited meanwhile is kept, exit 2', async () => {
    const d = folder();
    const policy = join(d, 'p.netpolicy.json');
    copyFileSync(POLICY, policy);
    const edited = `${readFileSync(POLICY, 'utf8')}\n`;
    const r = await modifyWhileWriting(['explain', '--apply', '--format', 'json', '-o', '/dev/null', '--policy', policy, '--trace', TRACE], d, d,
      () => writeFileSync(policy, edited));
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`netpolicy explain: cannot write ${policy}: it changed while netpolicy worked on it`);
    expect(readFileSync(policy, 'utf8')).toBe(edited);
  });
});

describe.skipIf(!isRoot)('item 3: owner, group, mode and links are kept (as root)', () => {
  const ownedByNobody = (path: string, text: string) => {
    writeFileSync(path, text);
    chmodSync(path, 0o600);
    chownSync(path, nobody, nobody);
  };
  const expectNobody600 = (path: string) => {
    const st = statSync(path);
    expect([st.uid, st.gid, st.mode & 0o7777]).toEqual([nobody, nobody, 0o600]);
  };

  it('check --fix on another user\'s 0600 file', async () => {
    const d = folder();
    const policy = join(d, 'p.netpolicy.json');
    ownedByNobody(policy, FIXABLE);
    const r = await runProc(['check', '--fix', policy]);
    expect(r.code).toBe(0);
    expect(readFileSync(policy, 'utf8')).toBe(FIXED);
    expectNobody600(policy);
  });

  it('explain --apply through a symbolic link: the file stays theirs, the link a link', async () => {
    const d = folder();
    const policy = join(d, 'p.netpolicy.json');
    ownedByNobody(policy, readFileSync(POLICY, 'utf8'));
    symlinkSync(policy, join(d, 'link.json'));
    const r = await runProc(['explain', '--apply', '--format', 'json', '-o', join(d, 'out.json'), '--policy', join(d, 'link.json'), '--trace', TRACE]);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/applied \d+ fix/);
    expect(readFileSync(policy, 'utf8')).not.toBe(readFileSync(POLICY, 'utf8'));
    expectNobody600(policy);
    expect(lstatSync(join(d, 'link.json')).isSymbolicLink()).toBe(true);
  });

  it('-o over another user\'s file (check, and fetch from a local service)', async () => {
    const d = folder();
    const out = join(d, 'report.txt');
    ownedByNobody(out, 'old');
    const r = await runProc(['check', '-o', out, POLICY]);
    expect(r.code).toBe(0);
    expect(readFileSync(out, 'utf8')).not.toBe('old');
    expectNobody600(out);

    const serve: ServeProcess = await spawnServe(['--data', 'fixtures/service', '--port', '0', '--quiet']);
    try {
      const trace = join(d, 'trace.json');
      ownedByNobody(trace, 'old');
      const f = await runProc(['fetch', 'trace', '--repo', 'acme/webapp', '--job-id', '1001', '--base-url', serve.url, '-o', trace], { env: { NETPOLICY_TOKEN: 'demo-token-valid' } });
      expect(f.stderr).toContain('wrote');
      expect(f.code).toBe(0);
      expect(JSON.parse(readFileSync(trace, 'utf8'))).toBeTypeOf('object');
      expectNobody600(trace);
    } finally {
      serve.child.kill();
      await exited(serve.child);
    }
  });
});

describe('item 3: a file with several hard links is written in place, not split', () => {
  it('check --fix: every name sees the fixed text, the same inode', async () => {
    const d = folder();
    const policy = join(d, 'p.netpolicy.json');
    writeFileSync(policy, FIXABLE);
    linkSync(policy, join(d, 'other-name.json'));
    const inode = statSync(policy).ino;
    const r = await runProc(['check', '--fix', policy]);
    expect(r.code).toBe(0);
    expect(readFileSync(join(d, 'other-name.json'), 'utf8')).toBe(FIXED);
    expect(statSync(policy).ino).toBe(inode);
    expect(statSync(policy).nlink).toBe(2);
  });

  it('-o over a hard-linked file shorter than before: truncated to the report', async () => {
    const d = folder();
    const out = join(d, 'report.json');
    writeFileSync(out, 'x'.repeat(100_000));
    linkSync(out, join(d, 'alias.json'));
    const r = await runProc(['check', '--format', 'json', '-o', out, POLICY]);
    expect(r.code).toBe(0);
    expect(JSON.parse(readFileSync(join(d, 'alias.json'), 'utf8')).files).toHaveLength(1);
  });
});

describe('item 4: a read-only file is refused, even for root', () => {
  it('check --fix, explain --apply and -o: exit 2 naming the file, the file unchanged', async () => {
    const d = folder();
    const policy = join(d, 'ro.netpolicy.json');
    writeFileSync(policy, FIXABLE);
    chmodSync(policy, 0o444);
    const fix = await runProc(['check', '--fix', policy]);
    expect(fix.code).toBe(2);
    expect(fix.stderr).toBe(`netpolicy check: cannot write ${policy}: a read-only file (mode 0444) (--fix does not change a read-only file: make it writable first (chmod u+w))\n`);

    const apply = join(d, 'ro-apply.netpolicy.json');
    copyFileSync(POLICY, apply);
    chmodSync(apply, 0o444);
    const a = await runProc(['explain', '--apply', '--format', 'json', '--policy', apply, '--trace', TRACE]);
    expect(a.code).toBe(2);
    expect(a.stdout).toBe(''); // refused before the trace is explained
    expect(a.stderr).toBe(`netpolicy explain: cannot write ${apply}: a read-only file (mode 0444) (--apply does not change a read-only file: make it writable first (chmod u+w))\n`);

    const out = join(d, 'ro-report.txt');
    writeFileSync(out, 'old');
    chmodSync(out, 0o444);
    const o = await runProc(['check', '-o', out, POLICY]);
    expect(o.code).toBe(2);
    expect(o.stderr).toBe(`netpolicy check: cannot write ${out}: a read-only file (mode 0444) (make it writable first (chmod u+w), or write elsewhere)\n`);

    expect(readFileSync(policy, 'utf8')).toBe(FIXABLE);
    expect(readFileSync(apply, 'utf8')).toBe(readFileSync(POLICY, 'utf8'));
    expect(readFileSync(out, 'utf8')).toBe('old');
    expect(readdirSync(d).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('check --fix on a folder with a read-only policy writes none of them', async () => {
    const d = folder();
    writeFileSync(join(d, 'a.netpolicy.json'), FIXABLE);
    writeFileSync(join(d, 'b.netpolicy.json'), FIXABLE);
    chmodSync(join(d, 'b.netpolicy.json'), 0o444);
    const r = await runProc(['check', '--fix', d]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('b.netpolicy.json: a read-only file (mode 0444)');
    expect(readFileSync(join(d, 'a.netpolicy.json'), 'utf8')).toBe(FIXABLE);
  });
});

describe('item 4: -o a read-only file for fetch, and -o /dev/stdout on a file', () => {
  it('fetch -o a read-only file: refused before any request', async () => {
    const d = folder();
    const out = join(d, 'trace.json');
    writeFileSync(out, 'old');
    chmodSync(out, 0o444);
    // Port 9 (discard) on loopback: a request would fail with exit 6, not 2.
    const r = await runProc(['fetch', 'trace', '--repo', 'acme/webapp', '--job-id', '1', '--base-url', 'http://127.0.0.1:9', '-o', out], { env: { NETPOLICY_TOKEN: 'demo-token-valid', NETPOLICY_TOTAL_TIMEOUT_MS: '2000' } });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`netpolicy fetch: cannot write ${out}: a read-only file (mode 0444) (make it writable first (chmod u+w), or write elsewhere)\n`);
    expect(readFileSync(out, 'utf8')).toBe('old');
  });

  it('-o /dev/stdout when stdout is a pipe: the report goes down the pipe (it was "no such directory")', () => {
    const r = spawnSync('/bin/sh', ['-c', `"$0" "$@" | cat`, process.execPath, bin, 'check', '--format', 'json', '-o', '/dev/stdout', POLICY], { encoding: 'utf8', env: { PATH: process.env.PATH, NO_COLOR: '1' }, timeout: 20_000 });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout).files).toHaveLength(1);
  });

  it('-o /dev/stdout when stdout is a socket (as Node gives a child): one line naming `-o -`', async () => {
    const r = await runProc(['check', '-o', '/dev/stdout', POLICY], HANG);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('netpolicy check: cannot write /dev/stdout: a socket, which cannot be opened by name (for standard output, use `-o -`)\n');
  });

  it('-o /dev/stdout when stdout is a file opened for appending: appended to, the file kept', async () => {
    const d = folder();
    const log = join(d, 'log.txt');
    writeFileSync(log, 'earlier line\n');
    const r = spawnSync('/bin/sh', ['-c', `exec "$0" "$@" >> "${log}"`, process.execPath, bin, 'check', '-o', '/dev/stdout', POLICY], { encoding: 'utf8', env: { PATH: process.env.PATH, NO_COLOR: '1' }, timeout: 20_000 });
    expect(r.status).toBe(0);
    const text = readFileSync(log, 'utf8');
    expect(text.startsWith('earlier line\n')).toBe(true);
    expect(text).toContain('0 errors');
  });
});

describe('item 5: what is not a regular file of its own is not written back', () => {
  for (const name of ['/dev/stdin', '/proc/self/fd/0']) {
    it.skipIf(!existsSync(name))(`check --fix ${name} < p.json and explain --apply --policy ${name}: refused, p.json intact`, async () => {
      const d = folder();
      const policy = join(d, 'p.netpolicy.json');
      writeFileSync(policy, FIXABLE);
      const r = await runProc(['check', '--fix', name], { stdinFile: policy });
      expect(r.code).toBe(2);
      expect(r.stderr).toBe(`netpolicy check: cannot write ${name}: it is standard input or another open file (reached through /proc), not a file of its own (--fix writes the file back: name the policy file itself)\n`);
      const a = await runProc(['explain', '--apply', '--policy', name, '--trace', TRACE], { stdinFile: policy });
      expect(a.code).toBe(2);
      expect(a.stderr).toContain(`netpolicy explain: cannot write ${name}: it is standard input or another open file`);
      expect(readFileSync(policy, 'utf8')).toBe(FIXABLE);
    });
  }

  it('a symbolic link to a regular file is written through, the link kept', async () => {
    const d = folder();
    writeFileSync(join(d, 'real.json'), FIXABLE);
    symlinkSync('real.json', join(d, 'p.netpolicy.json'));
    const r = await runProc(['check', '--fix', 'p.netpolicy.json'], { cwd: d });
    expect(r.code).toBe(0);
    expect(readFileSync(join(d, 'real.json'), 'utf8')).toBe(FIXED);
    expect(lstatSync(join(d, 'p.netpolicy.json')).isSymbolicLink()).toBe(true);
  });
});

describe('item 6: a FIFO or device where a file is expected is one line, never a hang', () => {
  it('check -o FIFO with no reader', async (ctx) => {
    const d = folder();
    if (!mkfifo(join(d, 'out'))) return ctx.skip();
    const r = await runProc(['check', '-o', join(d, 'out'), POLICY], HANG);
    expect(r.signal).toBeNull();
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`netpolicy check: cannot write ${join(d, 'out')}: a FIFO with no reader (start its reader first, or write to a file)\n`);
    expect(statSync(join(d, 'out')).isFIFO()).toBe(true);
  });

  it('fetch -o FIFO with no reader', async (ctx) => {
    const d = folder();
    if (!mkfifo(join(d, 'out'))) return ctx.skip();
    const serve = await spawnServe(['--data', 'fixtures/service', '--port', '0', '--quiet']);
    try {
      const r = await runProc(['fetch', 'trace', '--repo', 'acme/webapp', '--job-id', '1001', '--base-url', serve.url, '-o', join(d, 'out')], { ...HANG, env: { NETPOLICY_TOKEN: 'demo-token-valid' } });
      expect(r.signal).toBeNull();
      expect(r.code).toBe(2);
      expect(r.stderr).toBe(`netpolicy fetch: cannot write ${join(d, 'out')}: a FIFO with no reader (start its reader first, or write to a file)\n`);
    } finally {
      serve.child.kill();
      await exited(serve.child);
    }
  });

  it('check --fix FIFO and explain --apply --policy FIFO (no writer): refused before any read', async (ctx) => {
    const d = folder();
    const fifo = join(d, 'p.netpolicy.json');
    if (!mkfifo(fifo)) return ctx.skip();
    for (const [args, cmd, option] of [[['check', '--fix', fifo], 'check', '--fix'], [['explain', '--apply', '--policy', fifo, '--trace', TRACE], 'explain', '--apply']] as const) {
      const r = await runProc([...args], HANG);
      expect(r.signal).toBeNull();
      expect(r.code).toBe(2);
      expect(r.stderr).toBe(`netpolicy ${cmd}: cannot write ${fifo}: a FIFO (named pipe), not a regular file (${option} writes the file back: name the policy file itself)\n`);
    }
  });

  it('a FIFO netpolicy.config.json found upward', async (ctx) => {
    const d = folder();
    mkdirSync(join(d, 'sub'));
    writeFileSync(join(d, 'sub/p.netpolicy.json'), FIXED);
    if (!mkfifo(join(d, 'netpolicy.config.json'))) return ctx.skip();
    for (const arg of ['sub', 'sub/p.netpolicy.json']) {
      const r = await runProc(['check', arg], { ...HANG, cwd: d });
      expect(r.signal).toBeNull();
      expect(r.code).toBe(2);
      expect(r.stderr).toBe('netpolicy check: cannot read netpolicy.config.json: a FIFO (named pipe), not a regular file (a netpolicy.config.json must be a regular file: replace or remove it, or name a config with --config FILE)\n');
    }
  });

  it('a FIFO or a device as presetCatalog', async (ctx) => {
    const d = folder();
    writeFileSync(join(d, 'p.netpolicy.json'), FIXED);
    if (!mkfifo(join(d, 'catalog.json'))) return ctx.skip();
    for (const catalog of [join(d, 'catalog.json'), '/dev/zero']) {
      writeFileSync(join(d, 'netpolicy.config.json'), JSON.stringify({ presetCatalog: catalog }));
      const r = await runProc(['check', 'p.netpolicy.json'], { ...HANG, cwd: d });
      expect(r.signal).toBeNull();
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(new RegExp(`^netpolicy check: cannot read ${catalog}: a (FIFO \\(named pipe\\)|character device), not a regular file \\("presetCatalog" in netpolicy.config.json must name a regular file\\)\\n$`));
    }
  });

  it('init where the Dockerfile is a FIFO or a link to /dev/zero: skipped with a note, the rest done', async (ctx) => {
    const d = folder();
    writeFileSync(join(d, 'requirements.txt'), 'requests\n');
    if (!mkfifo(join(d, 'Dockerfile'))) return ctx.skip();
    symlinkSync('/dev/zero', join(d, 'Containerfile'));
    const r = await runProc(['init'], { ...HANG, cwd: d });
    expect(r.signal).toBeNull();
    expect(r.code).toBe(0);
    expect(r.stderr).toBe([
      'netpolicy init: did not read Containerfile: a character device, not a regular file (skipped; presets come from the other files here)',
      'netpolicy init: did not read Dockerfile: a FIFO (named pipe), not a regular file (skipped; presets come from the other files here)',
      '',
    ].join('\n'));
    expect(readFileSync(join(d, 'policy.netpolicy.jsonc'), 'utf8')).toContain('"presets": ["pypi"]');
  });

  it('a policy named directly that is a pipe with a writer is still read (as `<(cat p.json)`)', async (ctx) => {
    if (spawnSync('bash', ['-c', 'true']).status !== 0) return ctx.skip();
    const r = spawnSync('bash', ['-c', `"${process.execPath}" "${bin}" check --format json <(cat "${POLICY}")`], { encoding: 'utf8', env: { PATH: process.env.PATH, NO_COLOR: '1' }, timeout: 20_000 });
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout).files[0].diagnostics).toEqual([]);
  });
});
