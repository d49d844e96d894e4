/**
 * Loading a command's bundle (dist/commands/NAME.js) with a V8 code cache made when it was built,
 * as Node loads its own built-in modules: V8 then neither parses the bundle nor compiles the
 * functions the command runs, which costs a one-shot command more than its work on a small input
 * (docs/performance.md: `check` of a 10,000-rule policy about 20 ms less, of a small one 10 ms).
 *
 * The cache (`NAME.js.v8cache`, written by scripts/code-cache.cjs from the build, scripts/build/cli.mjs) is used only
 * when it is the bundle's: it records the bundle's size and modification time (as Python's `.pyc`
 * files do) and the Node version and architecture that made it; V8 rejects it on its own when its
 * version, flags or the source's length differ. Anything else (no cache, another Node, an edited
 * bundle, a damaged file) loads the bundle as plain source: a cache never changes what runs.
 *
 * Node only, CommonJS bundles only (the entry's `import('./commands/NAME')` becomes
 * `loadCommandBundle('NAME')` in the build: scripts/build/cli.mjs, `commandsOutside`). A bundle loaded from
 * its cache has no dynamic `import()` (scripts/code-cache.cjs makes no cache for one that has).
 */
import { closeSync, constants, fstatSync, openSync, readFileSync, type Stats } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Script } from 'node:vm';

/** What became of a bundle's cache: used, rejected by V8, absent, or not this bundle's (stale). */
export type CodeCacheUse = 'used' | 'rejected' | 'absent' | 'stale';

const MAGIC = 'netpolicy-v8cache-1';

interface CacheHeader {
  magic: string;
  node: string;
  arch: string;
  size: number;
  mtimeMs: number;
}

export function codeCacheFile(bundle: string): string {
  return `${bundle}.v8cache`;
}

/** The header this process would write for `bundle` as it is on disk now. */
function headerOf(stats: Stats): CacheHeader {
  return { magic: MAGIC, node: process.version, arch: process.arch, size: stats.size, mtimeMs: stats.mtimeMs };
}

/** A cache file: the header (of the bundle as `readBundle` read it) as one line of JSON, then V8's data. */
export function encodeCodeCache(stats: Stats, data: Buffer): Buffer {
  return Buffer.concat([Buffer.from(`${JSON.stringify(headerOf(stats))}\n`), data]);
}

/** A bundle's text with the size and time of the very file read (not of a later one put in its place). */
export function readBundle(bundle: string): { source: string; stats: Stats } {
  const fd = openSync(bundle, 'r');
  try {
    return { stats: fstatSync(fd), source: readFileSync(fd, 'utf8') };
  } finally {
    closeSync(fd);
  }
}

/** A cache file is a few hundred KB; anything far larger is not one. */
const MAX_CACHE_BYTES = 64 * 1024 * 1024;

/**
 * The cache file of `bundle`: its bytes, `absent`, or `stale` when it is no regular file of a
 * sane size. Opened without blocking: a FIFO put in its place must not hang the command.
 */
function readCodeCacheFile(bundle: string): Buffer | 'absent' | 'stale' {
  let fd: number;
  try {
    fd = openSync(codeCacheFile(bundle), constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch {
    return 'absent';
  }
  try {
    const stats = fstatSync(fd);
    return stats.isFile() && stats.size <= MAX_CACHE_BYTES ? readFileSync(fd) : 'stale';
  } catch {
    return 'stale';
  } finally {
    closeSync(fd);
  }
}

/** V8's data in a cache file when its header says it was made from this very bundle file by this Node. */
function cachedDataOf(file: Buffer, stats: Stats): Buffer | 'stale' {
  const end = file.indexOf(10);
  if (end < 0 || end > 512) return 'stale';
  let header: Partial<CacheHeader>;
  try {
    header = JSON.parse(file.subarray(0, end).toString('utf8'));
  } catch {
    return 'stale';
  }
  const expected = headerOf(stats);
  const same = header !== null && typeof header === 'object' && header.magic === expected.magic && header.node === expected.node
    && header.arch === expected.arch && header.size === expected.size && header.mtimeMs === expected.mtimeMs;
  return same ? file.subarray(end + 1) : 'stale';
}

/** The bundle's source as one function of CommonJS's five names, as Node's loader runs a module. */
function wrap(source: string): string {
  return `(function (exports, require, module, __filename, __dirname) { ${source}\n})`;
}

/** Compiles a bundle (with V8's data of a cache, if any), ready to run once with `runBundle`. */
export function compileBundle(bundle: string, source: string, cachedData?: Buffer): Script {
  return new Script(wrap(source), { filename: bundle, cachedData });
}

/** Runs a compiled bundle as a CommonJS module and returns its exports. */
export function runBundle(script: Script, bundle: string): unknown {
  const module = { exports: {} as unknown };
  const body = script.runInThisContext() as (exports: unknown, require: NodeRequire, module: unknown, filename: string, dirname: string) => void;
  body.call(module.exports, module.exports, createRequire(bundle), module, bundle, dirname(bundle));
  return module.exports;
}

/** Loads a bundle, with its code cache when that cache is the bundle's; says what became of the cache. */
export function loadBundle(bundle: string): { exports: unknown; cache: CodeCacheUse } {
  const file = readCodeCacheFile(bundle);
  if (file !== 'absent' && file !== 'stale') {
    const { source, stats } = readBundle(bundle);
    const cachedData = cachedDataOf(file, stats);
    if (cachedData !== 'stale') {
      const script = compileBundle(bundle, source, cachedData);
      return { exports: runBundle(script, bundle), cache: script.cachedDataRejected === true ? 'rejected' : 'used' };
    }
    return { exports: requireBundle(bundle), cache: 'stale' };
  }
  return { exports: requireBundle(bundle), cache: file };
}

/**
 * A bundle without a usable cache, through Node's own loader (which also gives it a working
 * dynamic `import()`: `fetch` imports the CycloneDX library so, and a script compiled here has none).
 */
function requireBundle(bundle: string): unknown {
  return createRequire(bundle)(bundle);
}

/** The bundle of command `name` beside the entry bundle (`dist/commands/NAME.js`). */
export function commandBundle(name: string): string {
  return fileURLToPath(new URL(`./commands/${name}.js`, import.meta.url));
}

/** What `import('./commands/NAME')` gives in the entry bundle: the command's module. */
export function loadCommandBundle(name: string): unknown {
  return loadBundle(commandBundle(name)).exports;
}
