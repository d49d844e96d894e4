/**
 * The V8 code cache of the command bundles (packages/cli/src/code-cache.ts, made by
 * scripts/code-cache.cjs in the build): the build makes one that V8 accepts when the CLI runs, and
 * a cache that is not the bundle's (copied, edited, from another Node, damaged) is never used: the
 * command then runs from its source, with the same output. Each case runs in a process of its own,
 * started as the CLI starts (the same V8 flags: `tierUpLater`), as V8 checks them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from './run-cli';

const dist = join(repoRoot, 'packages/cli/dist');
const problems = join(repoRoot, 'fixtures/policies/problems.netpolicy.json');

/** Loads `bundle` as the CLI does and runs its command on `args`: what became of the cache, the exit code and stdout. */
function load(bundle: string, args: string[] = ['--format', 'json', problems]): { cache: string; code: number; stdout: string } {
  const script = `
    const entry = require(${JSON.stringify(join(dist, 'netpolicy.js'))});
    entry.tierUpLater(process.versions.v8);
    const { exports, cache } = entry.loadBundle(${JSON.stringify(bundle)});
    let stdout = '';
    const io = { stdout: { write: (t) => { stdout += t; return true; } }, stderr: { write: () => true }, env: {}, cwd: ${JSON.stringify(repoRoot)} };
    exports.command.run(${JSON.stringify(args)}, io).then((code) => process.stdout.write(JSON.stringify({ cache, code, stdout })));
  `;
  const r = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 60000 });
  if (r.status !== 0) throw new Error(`loader exited ${r.status}: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'netpolicy-code-cache-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A copy of the check bundle in a folder of its own (with the original's cache when `withCache`). */
function copyOfCheck(name: string, withCache: boolean): string {
  const folder = join(dir, name);
  mkdirSync(folder);
  const bundle = join(folder, 'check.js');
  copyFileSync(join(dist, 'commands/check.js'), bundle);
  if (withCache) copyFileSync(join(dist, 'commands/check.js.v8cache'), `${bundle}.v8cache`);
  return bundle;
}

describe('the code cache of the command bundles', () => {
  it('is made by the build for each command a CI job runs, and V8 takes it', () => {
    for (const name of ['check', 'explain', 'suggest', 'test', 'diff']) {
      expect(existsSync(join(dist, `commands/${name}.js.v8cache`)), name).toBe(true);
    }
    // fetch imports the CycloneDX library with import(): Node's loader loads it, without a cache.
    expect(existsSync(join(dist, 'commands/fetch.js.v8cache'))).toBe(false);
    const r = load(join(dist, 'commands/check.js'));
    expect(r.cache).toBe('used');
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout).files[0].diagnostics.length).toBeGreaterThan(5);
  });

  it('is not used for a copy of the bundle (another modification time), which runs from source with the same output', () => {
    const used = load(join(dist, 'commands/check.js'));
    const copy = load(copyOfCheck('copied', true));
    expect(copy.cache).toBe('stale');
    expect(copy.code).toBe(used.code);
    expect(copy.stdout).toBe(used.stdout);
  });

  it('is not used once the bundle is edited, even to the same length', () => {
    const bundle = copyOfCheck('edited', false);
    const original = readFileSync(join(dist, 'commands/check.js'), 'utf8');
    // A cache that was this copy's, then an edit of the same length (a message changed).
    const make = `
      const entry = require(${JSON.stringify(join(dist, 'netpolicy.js'))});
      entry.tierUpLater(process.versions.v8);
      const { source, stats } = entry.readBundle(${JSON.stringify(bundle)});
      const script = entry.compileBundle(${JSON.stringify(bundle)}, source);
      entry.runBundle(script, ${JSON.stringify(bundle)});
      require('fs').writeFileSync(entry.codeCacheFile(${JSON.stringify(bundle)}), entry.encodeCodeCache(stats, script.createCachedData()));
    `;
    expect(spawnSync(process.execPath, ['-e', make], { encoding: 'utf8' }).status).toBe(0);
    expect(load(bundle).cache).toBe('used');
    const edited = original.replace(' Did you mean ', ' DID YOU MEAN ');
    expect(edited).not.toBe(original);
    expect(edited.length).toBe(original.length);
    const cacheTime = statSync(`${bundle}.v8cache`).mtime;
    writeFileSync(bundle, edited);
    utimesSync(bundle, cacheTime, new Date(cacheTime.getTime() + 5000));
    const r = load(bundle);
    expect(r.cache).toBe('stale');
    expect(r.stdout).toContain('DID YOU MEAN');
  });

  it('is not used when made by another Node, or damaged; the command still runs', () => {
    const used = load(join(dist, 'commands/check.js'));
    const cache = readFileSync(join(dist, 'commands/check.js.v8cache'));
    const newline = cache.indexOf(10);
    const header = JSON.parse(cache.subarray(0, newline).toString('utf8'));

    const other = copyOfCheck('other-node', false);
    const otherHeader = { ...header, node: 'v99.0.0', size: statSync(other).size, mtimeMs: statSync(other).mtimeMs };
    writeFileSync(`${other}.v8cache`, Buffer.concat([Buffer.from(`${JSON.stringify(otherHeader)}\n`), cache.subarray(newline + 1)]));
    const r1 = load(other);
    expect(r1.cache).toBe('stale');
    expect(r1.stdout).toBe(used.stdout);

    const damaged = copyOfCheck('damaged', false);
    const ownHeader = { ...header, size: statSync(damaged).size, mtimeMs: statSync(damaged).mtimeMs };
    const garbage = Buffer.alloc(cache.length - newline - 1, 0x5a);
    writeFileSync(`${damaged}.v8cache`, Buffer.concat([Buffer.from(`${JSON.stringify(ownHeader)}\n`), garbage]));
    const r2 = load(damaged);
    expect(r2.cache).toBe('rejected');
    expect(r2.stdout).toBe(used.stdout);

    // A FIFO (opened without blocking: no writer must not hang the command) or a folder in its place.
    const fifo = copyOfCheck('fifo', false);
    expect(spawnSync('mkfifo', [`${fifo}.v8cache`]).status).toBe(0);
    const r3 = load(fifo);
    expect(r3.cache).toBe('stale');
    expect(r3.stdout).toBe(used.stdout);
    const folder = copyOfCheck('folder', false);
    mkdirSync(`${folder}.v8cache`);
    expect(load(folder).cache).toBe('stale');

    for (const text of ['', 'not json\n', '{"magic":1}\n', 'x'.repeat(2000)]) {
      const bundle = copyOfCheck(`bad-header-${text.length}-${text.slice(0, 3).replace(/\W/g, '')}`, false);
      writeFileSync(`${bundle}.v8cache`, text);
      const r = load(bundle);
      expect(r.cache).toBe('stale');
      expect(r.stdout).toBe(used.stdout);
    }
  });
});
