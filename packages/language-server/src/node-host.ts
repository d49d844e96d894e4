/** The Node host: file access for the project config, a preset catalog and traces. */
import { createReadStream } from 'node:fs';
import { readFile, readdir, stat } from 'node:fs/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { normalizeDrive, type ServerHost } from './host';

const MAX_TRACE_FILES = 200;

export const nodeHost: ServerHost = {
  uriToPath(uri) {
    if (!uri.startsWith('file:')) {
      try { return normalizeDrive(decodeURIComponent(new URL(uri).pathname)); } catch { return undefined; }
    }
    try { return normalizeDrive(fileURLToPath(uri).split('\\').join('/')); } catch { return undefined; }
  },
  pathToUri: (path) => pathToFileURL(path).href,
  readFile: (path) => readFile(path, 'utf8'),
  async listTraceFiles(path) {
    const s = await stat(path);
    if (!s.isDirectory()) return [path];
    const names = (await readdir(path)).filter((n) => n.endsWith('.json') && !/\.netpolicy\.json$|^network-policy\.json$|^netpolicy\.config\.json$|\.tests\.json$/.test(n)).sort();
    return names.slice(0, MAX_TRACE_FILES).map((n) => `${path.replace(/\/$/, '')}/${n}`);
  },
  readChunks: (path) => createReadStream(path, { highWaterMark: 64 * 1024 }),
  async stamp(path) {
    try { const s = await stat(path); return `${s.size}:${s.mtimeMs}`; } catch { return undefined; }
  },
};
