/**
 * The Node host: file access for the project config, a preset catalog, traces and the workspace
 * check. Every file is opened by `openResolved` (confined-read.ts): real path first (inside the
 * workspace folder where asked), then a non-blocking open and `fstat` of that very descriptor;
 * only a regular file is read, a catalog or config file only up to its limit, a trace streamed
 * from the same descriptor (no limit: a trace can be larger than memory).
 */
import { createReadStream, statSync, type Stats } from 'node:fs';
import { readdir, realpath } from 'node:fs/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { codeOf, openProblem, openResolved, readResolved } from './confined-read';
import { FileProblem, normalizeDrive, type FolderEntry, type ServerHost } from './host';

const MAX_TRACE_FILES = 200;

async function readLimited(path: string, maxBytes: number, within?: string): Promise<string> {
  return readResolved(path, maxBytes, within);
}

async function* readChunks(path: string, within?: string): AsyncGenerator<Uint8Array> {
  const { fd } = openResolved(path, within);
  // The stream closes the descriptor when it ends, fails or is destroyed (a cancelled evaluation returns early).
  const stream = createReadStream('', { fd, highWaterMark: 64 * 1024 });
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
    // Synchronous, and no error for a missing file: an async stat's rejection costs ~150 µs (an
    // Error with its stack), and 100,000 missing `traces` entries took 15 s per evaluation.
    let s: Stats | undefined;
    try {
      s = statSync(path, { throwIfNoEntry: false });
    } catch (err) {
      throw new FileProblem(path, openProblem(err), codeOf(err));
    }
    if (!s) throw new FileProblem(path, openProblem({ code: 'ENOENT' }), 'ENOENT');
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
