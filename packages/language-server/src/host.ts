/**
 * What the server needs from its environment: turning URIs into paths and, where there is a file
 * system (the Node entry), reading the project config, a preset catalog and traces. The browser
 * entry has no file access: settings come from the client only.
 *
 * Every path the server reads comes from settings, a project file or the repository's tree, so it
 * may name anything: a FIFO, a folder, a device, a huge file, a symbolic link out of the
 * workspace. A host resolves the path first (inside `within`, a workspace folder, where given),
 * opens without blocking and reads only regular files (within `maxBytes` where given); anything
 * else rejects with a `FileProblem` (the Node host: confined-read.ts).
 * @public
 */
export interface ServerHost {
  /** The path of a document URI (for D6's patterns and `filePatterns`); undefined when it has none. */
  uriToPath(uri: string): string | undefined;
  pathToUri(path: string): string;
  /**
   * Reads a regular UTF-8 file of at most `maxBytes` (rejects with a `FileProblem` otherwise).
   * `within`: a workspace folder the file must be inside once every symbolic link is resolved
   * (Restricted Mode, and the workspace check); undefined: anywhere. Absent: no file access.
   */
  readFile?(path: string, maxBytes: number, within?: string): Promise<string>;
  /** The trace files a `traces` entry names: the file itself, or the `.json` files in a folder (rejects with a `FileProblem`). */
  listTraceFiles?(path: string): Promise<string[]>;
  /** A regular file's bytes in chunks, any size (traces can be larger than memory); a `FileProblem` for anything else. `within`: as for `readFile`. */
  readChunks?(path: string, within?: string): AsyncIterable<Uint8Array>;
  /**
   * The entries of a folder, for workspace diagnostics; nothing is opened or followed (a symbolic
   * link is `link`, whatever it leads to). Rejects with a `FileProblem`. Absent: no file access.
   */
  listFolder?(path: string): Promise<FolderEntry[]>;
  /** The path with every symbolic link resolved (rejects with a `FileProblem`). */
  realPath?(path: string): Promise<string>;
}

/** An entry of a folder as `listFolder` gives it. */
export interface FolderEntry {
  name: string;
  kind: 'file' | 'folder' | 'link' | 'other';
}

/** The largest preset catalog or `netpolicy.config.json` the server reads (a bigger one is reported, not read). */
export const MAX_SETTINGS_FILE_BYTES = 4 * 1024 * 1024;

/** A file named by settings or a project file that was not read: the path and the problem in words, never the file's content. */
export class FileProblem extends Error {
  /** `code`: the system error's code when opening failed (`ENOENT`: there is no such file). */
  constructor(readonly path: string, readonly problem: string, readonly code?: string) {
    super(`${path}: ${problem}`);
    this.name = 'FileProblem';
  }
}

/**
 * Path joining and relativity for `/`-separated paths (Windows paths are given with `/` by `uriToPath`).
 * @public
 */
export function joinPath(base: string, path: string): string {
  if (path.startsWith('/') || /^[A-Za-z]:[\\/]/.test(path)) return path;
  const parts = base.split('/').filter((p, i) => p !== '' || i === 0);
  for (const seg of path.split(/[\\/]/)) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') { if (parts.length > 1) parts.pop(); } else parts.push(seg);
  }
  return parts.join('/') || '/';
}

/**
 * A Windows drive letter in lower case (`C:/x` and `/C:/x` as `c:/x`, `/c:/x`): clients disagree
 * (VS Code sends `file:///c%3A/...`, Neovim `file:///C:/...`) and the file system does not care.
 */
export function normalizeDrive(path: string): string {
  return /^\/?[A-Z]:/.test(path) ? path.replace(/^(\/?)([A-Z]):/, (_m, slash: string, drive: string) => `${slash}${drive.toLowerCase()}:`) : path;
}

/**
 * `path` relative to the folder `root` (both `/`-separated), or undefined when it is not inside it.
 * @public
 */
export function relativePath(root: string, path: string): string | undefined {
  const r = root.endsWith('/') ? root : `${root}/`;
  return path.startsWith(r) ? path.slice(r.length) : undefined;
}

/**
 * A host for URIs alone (browser): `file:` and other hierarchical URIs give their decoded path.
 * @public
 */
export const uriOnlyHost: ServerHost = {
  uriToPath(uri: string): string | undefined {
    try {
      const u = new URL(uri);
      return normalizeDrive(decodeURIComponent(u.pathname));
    } catch {
      return undefined;
    }
  },
  pathToUri(path: string): string {
    return `file://${path.split('/').map(encodeURIComponent).join('/')}`;
  },
};
