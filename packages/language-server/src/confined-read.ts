/**
 * The one way the Node host opens a file: the project file, a preset catalog, a trace, an SBOM, a
 * policy file of the workspace check. Every path it is given came from settings, a project file
 * or a repository's tree, so it may be anything: a FIFO, a device, a huge file, a symbolic link
 * to `~/.ssh/id_rsa`.
 *
 * 1. The path's real path (every symbolic link resolved). With `within` (a workspace folder: in
 *    Restricted Mode, and always for the workspace check), it must be inside the folder's real
 *    path; a repository cannot make the server read, and quote, a file outside it.
 * 2. The real path opened with O_NONBLOCK (a FIFO's open would park a libuv pool thread until a
 *    writer came) and O_NOFOLLOW (its last part must not have turned into a link since step 1).
 * 3. `fstat` of that very descriptor: a regular file, within the size cap.
 * 4. With `within`: the opened file is still inside the folder (its path in `/proc/self/fd`, else
 *    the real path resolved again and compared by device and inode): a folder swapped for a link
 *    between the steps is caught (what is left is a swap and swap back between 1 and 4).
 *
 * Anything else is a `FileProblem` saying why, never the file's content. Synchronous: the open
 * cannot block, and the promise API's pool round trips cost the workspace check about half its
 * time (docs/performance.md, issue 20 round 4).
 */
import { closeSync, constants, fstatSync, lstatSync, readlinkSync, readSync, realpathSync, statSync, openSync, type Stats } from 'node:fs';
import { FileProblem, normalizeDrive, relativePath } from './host';

/** Windows has neither O_NONBLOCK (nor FIFOs that block an open) nor O_NOFOLLOW. */
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOFOLLOW ?? 0);

/** What a file that is not regular is, in words. */
export function kindOf(s: Stats): string {
  if (s.isDirectory()) return 'a folder';
  if (s.isFIFO()) return 'a FIFO (named pipe)';
  if (s.isCharacterDevice()) return 'a character device';
  if (s.isBlockDevice()) return 'a block device';
  if (s.isSocket()) return 'a socket';
  return 'not a regular file';
}

export function codeOf(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** Why a path could not be opened or listed, in words (the error's code, never anything read). */
export function openProblem(err: unknown): string {
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

/** A real path, `/`-separated, drive letter in lower case (as `uriToPath` gives paths). */
function realPathOf(path: string): string {
  return normalizeDrive(realpathSync.native(path).split('\\').join('/'));
}

function isInside(root: string, path: string): boolean {
  return relativePath(root, path) !== undefined;
}

/** Why `path` (inside `within` or not, as written) resolves to somewhere outside it, in words. */
function leavesFolder(path: string, within: string): string {
  if (!isInside(within, path)) return 'it is outside the workspace folder';
  let link = false;
  try {
    link = lstatSync(path).isSymbolicLink();
  } catch {
    // gone meanwhile: the general wording below will do
  }
  return link ? 'it is a symbolic link that leads out of the workspace folder' : 'a folder on its path is a symbolic link that leads out of the workspace folder';
}

/** Where the open descriptor `fd` of `real` is now, when the system says (Linux); undefined elsewhere. */
function descriptorPath(fd: number): string | undefined {
  if (process.platform !== 'linux') return undefined;
  try {
    return readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    return undefined;
  }
}

/**
 * Whether the descriptor `fd` (of `s`) is still inside `root`: its path as the system says, else
 * (no /proc, or a path /proc shows otherwise) `real` resolved again to itself, and the same file.
 */
function stillInside(fd: number, s: Stats, real: string, root: string): boolean {
  const at = descriptorPath(fd);
  if (at !== undefined && isInside(root, at)) return true;
  try {
    if (realPathOf(real) !== real) return false;
    const now = statSync(real);
    return now.dev === s.dev && now.ino === s.ino;
  } catch {
    return false;
  }
}

/** An opened regular file: its descriptor (the caller closes it) and size. */
export interface ResolvedFile {
  fd: number;
  size: number;
}

/**
 * Opens `path` as described above; `within`: the workspace folder the file must stay inside once
 * every link is resolved (undefined: anywhere); `maxBytes`: the size cap (undefined: none).
 */
export function openResolved(path: string, within?: string, maxBytes?: number): ResolvedFile {
  let real: string;
  try {
    real = realPathOf(path);
  } catch (err) {
    throw new FileProblem(path, openProblem(err), codeOf(err));
  }
  let root: string | undefined;
  if (within !== undefined) {
    try {
      root = realPathOf(within);
    } catch (err) {
      throw new FileProblem(path, `its workspace folder cannot be resolved (${codeOf(err) ?? 'unknown error'})`);
    }
    if (!isInside(root, real)) throw new FileProblem(path, leavesFolder(path, within));
  }
  let fd: number;
  try {
    fd = openSync(real, OPEN_FLAGS);
  } catch (err) {
    // With O_NOFOLLOW, ELOOP is a last part that became a link after it was resolved.
    if (codeOf(err) === 'ELOOP') throw new FileProblem(path, 'it turned into a symbolic link while it was opened (ELOOP)', 'ELOOP');
    throw new FileProblem(path, openProblem(err), codeOf(err));
  }
  try {
    let s: Stats;
    try {
      s = fstatSync(fd);
    } catch (err) {
      throw new FileProblem(path, openProblem(err));
    }
    if (!s.isFile()) throw new FileProblem(path, `it is ${kindOf(s)}, not a regular file`);
    if (maxBytes !== undefined && s.size > maxBytes) throw tooLarge(path, s.size, maxBytes);
    if (root !== undefined && !stillInside(fd, s, real, root)) throw new FileProblem(path, 'it moved out of the workspace folder while it was opened');
    return { fd, size: s.size };
  } catch (err) {
    close(fd);
    throw err instanceof FileProblem ? err : new FileProblem(path, openProblem(err));
  }
}

function tooLarge(path: string, size: number, maxBytes: number): FileProblem {
  return new FileProblem(path, `it is ${megabytes(size)}, more than the ${megabytes(maxBytes)} the server reads from such a file`);
}

function close(fd: number): void {
  try { closeSync(fd); } catch { /* closed or never usable: nothing to do */ }
}

/** Reads a regular file of at most `maxBytes` as UTF-8 from the descriptor `openResolved` checked. */
export function readResolved(path: string, maxBytes: number, within?: string): string {
  const { fd, size } = openResolved(path, within, maxBytes);
  try {
    // One byte more than the limit: a file that grew since fstat is caught, not read on.
    const buf = Buffer.allocUnsafe(Math.min(size, maxBytes) + 1);
    let filled = 0;
    for (;;) {
      const bytesRead = readSync(fd, buf, filled, buf.length - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
      if (filled === buf.length) {
        if (filled > maxBytes) throw tooLarge(path, filled, maxBytes);
        break;
      }
    }
    return buf.toString('utf8', 0, filled);
  } catch (err) {
    throw err instanceof FileProblem ? err : new FileProblem(path, `it cannot be read (${codeOf(err) ?? 'unknown error'})`);
  } finally {
    close(fd);
  }
}
