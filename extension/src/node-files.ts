/**
 * The one read guard and the one write guard of the desktop extension (Node's file system, which
 * has symbolic links). No VS Code here: unit-tested on real folders with links, FIFOs and devices.
 *
 * - `writeInside`: every file the extension writes (a fetched trace, its SBOM) goes through it.
 *   The real path of the target's folder must be inside the real path of the workspace folder
 *   (folders on the way are created one by one, each checked), the final component must not be a
 *   symbolic link (nor anything but a regular file), and the bytes go to a new file created
 *   exclusively beside it, then renamed over the target: a link put in its place meanwhile is
 *   replaced, never written through, and nothing is left half-written.
 * - `openInside`: every read of a workspace file in Restricted Mode (the project file, traces,
 *   SBOMs) goes through it: real path inside the folder, opened without blocking and without
 *   following a link, a regular file, within a size cap.
 */
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { lstat, mkdir, open, realpath, rename, unlink, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { isInside } from './fetch-logic';

/** Why a file was not read or written: said in words, with the path as the workspace names it. */
export class ConfinementError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfinementError';
  }
}

/** Windows has neither O_NOFOLLOW nor O_NONBLOCK (nor FIFOs that block an open). */
const NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const NONBLOCK = constants.O_NONBLOCK ?? 0;

function codeOf(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

async function lstatOrUndefined(path: string) {
  try {
    return await lstat(path);
  } catch (err) {
    if (codeOf(err) === 'ENOENT') return undefined;
    throw err;
  }
}

function kindOf(s: { isDirectory(): boolean; isFIFO(): boolean; isCharacterDevice(): boolean; isBlockDevice(): boolean; isSocket(): boolean }): string {
  return s.isDirectory() ? 'a folder' : s.isFIFO() ? 'a FIFO' : s.isCharacterDevice() || s.isBlockDevice() ? 'a device' : s.isSocket() ? 'a socket' : 'a special file';
}

/**
 * Writes `bytes` to `segments` below the folder `root` (see the module comment). `segments` come
 * from `confinedSegments` (no `..`, no absolute path). Rejects with a ConfinementError naming
 * the problem; an I/O error otherwise. Resolves with the real path written.
 */
export async function writeInside(root: string, segments: readonly string[], bytes: Uint8Array): Promise<string> {
  if (segments.length === 0) throw new ConfinementError('no file name to write to');
  const shown = segments.join('/');
  const realRoot = await realpath(root);
  let dir = realRoot;
  for (const [i, segment] of segments.slice(0, -1).entries()) {
    const next = join(dir, segment);
    if (!(await lstatOrUndefined(next))) {
      try {
        await mkdir(next);
      } catch (err) {
        if (codeOf(err) !== 'EEXIST') throw err;
      }
    }
    let real: string;
    try {
      real = await realpath(next);
    } catch (err) {
      throw new ConfinementError(`${segments.slice(0, i + 1).join('/')} cannot be resolved (${codeOf(err) ?? 'error'}): a symbolic link that leads nowhere is not written through`);
    }
    if (!isInside(realRoot, real)) throw new ConfinementError(`${segments.slice(0, i + 1).join('/')} leads outside the workspace folder through a symbolic link; netpolicy writes inside the workspace folder only`);
    const s = await lstat(real);
    if (!s.isDirectory()) throw new ConfinementError(`${segments.slice(0, i + 1).join('/')} is not a folder`);
    dir = real;
  }
  const name = segments[segments.length - 1];
  const target = join(dir, name);
  const existing = await lstatOrUndefined(target);
  if (existing?.isSymbolicLink()) throw new ConfinementError(`${shown} is a symbolic link; netpolicy does not write through links (one can lead outside the workspace folder)`);
  if (existing && !existing.isFile()) throw new ConfinementError(`${shown} is ${kindOf(existing)}, not a regular file`);
  const temp = join(dir, `.${name}.${randomBytes(6).toString('hex')}.tmp`);
  const handle = await open(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NOFOLLOW, 0o666);
  try {
    await handle.writeFile(bytes);
    await handle.close();
    // rename replaces the name itself: a link put there since the check is replaced, not followed.
    await rename(temp, target);
  } catch (err) {
    await handle.close().catch(() => undefined);
    await unlink(temp).catch(() => undefined);
    throw err;
  }
  return target;
}

/**
 * Opens a file to read: without blocking (a FIFO with no writer does not hang the extension host),
 * only a regular file of at most `maxBytes`, and, with `root`, only when its real path is inside
 * the real path of `root` (Restricted Mode). The caller closes the handle.
 */
export async function openInside(path: string, options: { root?: string; maxBytes?: number } = {}): Promise<{ handle: FileHandle; size: number }> {
  let target = path;
  if (options.root !== undefined) {
    let real: string;
    try {
      real = await realpath(path);
    } catch (err) {
      throw new ConfinementError(codeOf(err) === 'ENOENT' ? `${path} does not exist (or is a symbolic link that leads nowhere)` : `${path} cannot be resolved (${codeOf(err) ?? 'error'})`);
    }
    const realRoot = await realpath(options.root);
    if (!isInside(realRoot, real)) throw new ConfinementError(`${path} leads outside the workspace folder (through a symbolic link); in Restricted Mode netpolicy reads files inside the workspace folder only`);
    target = real;
  }
  // With a root, the real path is opened and a link put in its place meanwhile is refused (ELOOP).
  const handle = await open(target, constants.O_RDONLY | NONBLOCK | (options.root !== undefined ? NOFOLLOW : 0));
  try {
    const s = await handle.stat();
    if (!s.isFile()) throw new ConfinementError(`${path} is ${kindOf(s)}, not a regular file`);
    if (options.maxBytes !== undefined && s.size > options.maxBytes) throw new ConfinementError(`${path} is ${Math.round(s.size / 1048576)} MB, over the ${Math.round(options.maxBytes / 1048576)} MB read from such a file`);
    return { handle, size: s.size };
  } catch (err) {
    await handle.close().catch(() => undefined);
    throw err;
  }
}

/** A file's bytes, whole, through `openInside`. */
export async function readInside(path: string, options: { root?: string; maxBytes: number }): Promise<Uint8Array> {
  const { handle } = await openInside(path, options);
  try {
    const bytes = await handle.readFile();
    if (bytes.length > options.maxBytes) throw new ConfinementError(`${path} grew over the ${Math.round(options.maxBytes / 1048576)} MB read from such a file`);
    return bytes;
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/** A file's chunks, streamed (a trace can be larger than memory), through `openInside`. */
export async function readChunksInside(path: string, root?: string): Promise<AsyncIterable<Uint8Array>> {
  const { handle } = await openInside(path, { root });
  return handle.createReadStream({ highWaterMark: 64 * 1024 });
}
