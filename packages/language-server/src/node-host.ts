/**
 * The Node host: file access for the project config, a preset catalog and traces.
 *
 * Each file is opened with O_NONBLOCK and judged by `fstat` of the very descriptor it was opened
 * as: opening a FIFO without it parks a libuv pool thread in `open` until a writer comes (four
 * of them and the pool is gone: no file operation of the server ever completes again). Only a
 * regular file is read; a catalog or config file only up to its limit, a trace streamed from the
 * same descriptor (no limit: a trace can be larger than memory).
 */
import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';
import { open, readdir, realpath, stat, type FileHandle } from 'node:fs/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { FileProblem, normalizeDrive, type FolderEntry, type ServerHost } from './host';

const MAX_TRACE_FILES = 200;
/** Windows has no O_NONBLOCK (nor FIFOs that block an open). */
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

/** What a file that is not regular is, in words. */
function kindOf(s: Stats): string {
  if (s.isDirectory()) return 'a folder';
  if (s.isFIFO()) return 'a FIFO (named pipe)';
  if (s.isCharacterDevice()) return 'a character device';
  if (s.isBlockDevice()) return 'a block device';
  if (s.isSocket()) return 'a socket';
  return 'not a regular file';
}

function codeOf(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** Why a path could not be opened or listed, in words (the error's code, never anything read). */
function openProblem(err: unknown): string {
  const code = codeOf(err);
  switch (code) {
    case 'ENOENT': return 'it does not exist (ENOENT)';
    case 'EACCES': case 'EPERM': return `permission denied (${code})`;
    case 'ENOTDIR': return 'a part of the path is not a folder (ENOTDIR)';
    case 'ENXIO': return 'it is a socket or a device with nothing behind it (ENXIO)';
    case 'ELOOP': return 'too many symbolic links (ELOOP)';
    default: return `it cannot be opened (${code ?? 'unknown error'})`;
  }
}

function megabytes(bytes: number): string {
  const mb = bytes / (1024 * 1024);
  return `${mb >= 10 ? Math.round(mb) : Math.round(mb * 10) / 10} MB`;
}

/** Opens without blocking; resolves only for a regular file (the descriptor stays open for the caller). */
async function openRegular(path: string): Promise<{ handle: FileHandle; size: number }> {
  let handle: FileHandle;
  try {
    handle = await open(path, OPEN_FLAGS);
  } catch (err) {
    throw new FileProblem(path, openProblem(err), codeOf(err));
  }
  try {
    const s = await handle.stat();
    if (!s.isFile()) throw new FileProblem(path, `it is ${kindOf(s)}, not a regular file`);
    return { handle, size: s.size };
  } catch (err) {
    await handle.close().catch(() => undefined);
    throw err instanceof FileProblem ? err : new FileProblem(path, openProblem(err));
  }
}

/**
 * Reads a regular file of at most `maxBytes` as UTF-8, from the descriptor that was checked.
 * Synchronous calls: the open cannot block (O_NONBLOCK; a FIFO or device is refused by `fstat`
 * before any read), and a regular file of at most a few MB is read in well under a millisecond
 * from the page cache. The promise API's four pool round trips per file (open, fstat, read,
 * close) cost the workspace check about half its time (docs/performance.md, issue 20 round 4).
 */
async function readLimited(path: string, maxBytes: number): Promise<string> {
  return readLimitedSync(path, maxBytes);
}

function readLimitedSync(path: string, maxBytes: number): string {
  let fd: number;
  try {
    fd = openSync(path, OPEN_FLAGS);
  } catch (err) {
    throw new FileProblem(path, openProblem(err), codeOf(err));
  }
  const tooLarge = (n: number) => new FileProblem(path, `it is ${megabytes(n)}, more than the ${megabytes(maxBytes)} the server reads from such a file`);
  try {
    let s: Stats;
    try {
      s = fstatSync(fd);
    } catch (err) {
      throw new FileProblem(path, openProblem(err));
    }
    if (!s.isFile()) throw new FileProblem(path, `it is ${kindOf(s)}, not a regular file`);
    if (s.size > maxBytes) throw tooLarge(s.size);
    // One byte more than the limit: a file that grew since fstat is caught, not read on.
    const buf = Buffer.allocUnsafe(Math.min(s.size, maxBytes) + 1);
    let filled = 0;
    for (;;) {
      const bytesRead = readSync(fd, buf, filled, buf.length - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
      if (filled === buf.length) {
        if (filled > maxBytes) throw tooLarge(filled);
        break;
      }
    }
    return buf.toString('utf8', 0, filled);
  } catch (err) {
    throw err instanceof FileProblem ? err : new FileProblem(path, `it cannot be read (${codeOf(err) ?? 'unknown error'})`);
  } finally {
    try { closeSync(fd); } catch { /* closed or never usable: nothing to do */ }
  }
}

async function* readChunks(path: string): AsyncGenerator<Uint8Array> {
  const { handle } = await openRegular(path);
  // The stream closes the handle when it ends, fails or is destroyed (a cancelled evaluation returns early).
  const stream = handle.createReadStream({ highWaterMark: 64 * 1024 });
  try {
    for await (const chunk of stream) yield chunk as Uint8Array;
  } finally {
    stream.destroy();
  }
}

export const nodeHost: ServerHost = {
  uriToPath(uri) {
    if (!uri.startsWith('file:')) {
      try { return normalizeDrive(decodeURIComponent(new URL(uri).pathname)); } catch { return undefined; }
    }
    try { return normalizeDrive(fileURLToPath(uri).split('\\').join('/')); } catch { return undefined; }
  },
  pathToUri: (path) => pathToFileURL(path).href,
  readFile: readLimited,
  async listTraceFiles(path) {
    // stat opens nothing: a FIFO named here is judged by readChunks, which opens without blocking.
    let s: Stats;
    try {
      s = await stat(path);
    } catch (err) {
      throw new FileProblem(path, openProblem(err), codeOf(err));
    }
    if (!s.isDirectory()) return [path];
    let names: string[];
    try {
      names = await readdir(path);
    } catch (err) {
      throw new FileProblem(path, openProblem(err));
    }
    names = names.filter((n) => n.endsWith('.json') && !/\.netpolicy\.json$|^network-policy\.json$|^netpolicy\.config\.json$|\.tests\.json$|\.cdx\.json$/.test(n)).sort();
    return names.slice(0, MAX_TRACE_FILES).map((n) => `${path.replace(/\/$/, '')}/${n}`);
  },
  readChunks,
  async listFolder(path) {
    let entries;
    try {
      entries = await readdir(path, { withFileTypes: true });
    } catch (err) {
      throw new FileProblem(path, openProblem(err), codeOf(err));
    }
    return entries.map((e): FolderEntry => ({ name: e.name, kind: e.isFile() ? 'file' : e.isDirectory() ? 'folder' : e.isSymbolicLink() ? 'link' : 'other' }));
  },
  async realPath(path) {
    try {
      return normalizeDrive((await realpath(path)).split('\\').join('/'));
    } catch (err) {
      throw new FileProblem(path, openProblem(err), codeOf(err));
    }
  },
};
