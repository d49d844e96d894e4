/**
 * Writing a command's output (`-o FILE`, `check --fix`, `explain --apply`): `OutputFile`, the one
 * place that knows how to replace a file atomically, keep its mode and owner, and write devices and
 * FIFOs in place; `writeOutput` sends a report to stdout or to such a file.
 */
import {
  type BigIntStats, closeSync, constants, fchmodSync, fchownSync, ftruncateSync, openSync, readlinkSync, realpathSync, renameSync, rmSync, type Stats,
  statSync, writeSync,
} from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { UsageError } from './exit-codes';
import { readTextFile } from './read-file';
import type { Io } from './streams';
import { refuseReadOnly, throughProc, WRITE_FAILURES, writeFailure } from './write-target';

/** 8 random hex digits; Web Crypto (loaded on first use), so that a run which writes no file never loads node:crypto. */
function randomHex(): string {
  return globalThis.crypto.getRandomValues(new Uint32Array(1))[0].toString(16).padStart(8, '0');
}

/**
 * Writes a command's output: to stdout when `target` is undefined or `-`, otherwise to the file
 * `target` (relative to `io.cwd`) through an `OutputFile`: atomically, keeping a replaced file's
 * mode, devices and FIFOs written in place. Returns where the text went (`undefined` for stdout).
 * A failed write is a UsageError (exit 2).
 */
export function writeOutput(io: Io, target: string | undefined, text: string): string | undefined {
  if (target === undefined || target === '-') {
    io.stdout.write(text);
    return undefined;
  }
  const out = new OutputFile(io.cwd, target);
  try {
    out.write(text);
    out.commit();
  } finally {
    out.abort();
  }
  return out.path;
}

/**
 * A file a command writes (`-o FILE`, `check --fix`, `explain --apply`), the one place that knows how:
 *
 * - a regular file (new or replaced) is written to a temporary file beside it and renamed over it
 *   by `commit`, so a failed or interrupted run leaves no partial file and the old one untouched;
 *   `abort` (after a failure) removes the temporary file;
 * - a replaced file keeps its mode (a `0600` file stays `0600`; the temporary file is private until
 *   then), and its owner and group where the process may set them (root fixing another user's
 *   file leaves it theirs); a new file gets 0666 minus the umask, like any other tool's;
 * - a read-only file (no write permission for the process; as root, no write bit for its owner,
 *   since root passes every permission check) is refused, as an editor would;
 * - a file with several hard links is written in place (truncated to the new length at the end):
 *   a rename would split it, the other names keeping the old text;
 * - a symbolic link is followed: the file it names is replaced, the link stays a link;
 * - a device or FIFO (`/dev/stdout`, `/dev/null`, a named pipe) and anything reached through
 *   /proc (`/dev/stdout` on a file) is written in place: renaming a file over it would replace
 *   the device itself (and as root, for everyone). It is opened without blocking first: a FIFO
 *   with no reader is refused (ENXIO) instead of waiting for one for ever;
 * - with `unchanged` (a file written back), the file must still be what was read (`FileSnapshot`)
 *   just before it is replaced, else nothing is written;
 * - a directory is refused before anything is written.
 *
 * Text may be written in pieces (`write`, bounded memory); every failure is a UsageError naming
 * the file and the reason (exit 2).
 */
export class OutputFile {
  /** The file written (symbolic links resolved). */
  readonly path: string;
  readonly isTTY = false;
  private fd: number | undefined;
  private readonly temp: string | undefined;
  /** Written in place: a regular file with several links (truncated at `commit`), or a device or FIFO. */
  private readonly inPlaceFile: boolean = false;
  private written = 0;

  constructor(cwd: string, private readonly shown: string, private readonly options: { unchanged?: FileSnapshot } = {}) {
    if (shown === '') throw new UsageError('cannot write to an empty file name');
    const given = resolve(cwd, shown);
    let st: Stats | undefined;
    try {
      st = statSync(given);
    } catch {
      // Absent (a dangling link is written where it points), or unreadable: the open below says why.
    }
    if (st?.isDirectory()) throw new UsageError(`cannot write ${shown}: ${WRITE_FAILURES.EISDIR}`);
    if (st && (!st.isFile() || throughProc(given))) {
      this.path = given;
      // A regular file behind /proc (`-o /dev/stdout` with `>> log`) is appended to: the shell opened it.
      this.fd = openInPlace(given, shown, st.isFile() ? constants.O_APPEND : 0, st.isSocket());
      return;
    }
    let path = given;
    if (st) {
      try { path = realpathSync(given); } catch { /* the open below says why */ }
      refuseReadOnly(shown, path, st);
    } else {
      path = danglingTarget(given);
    }
    this.path = path;
    try {
      if (st && st.nlink > 1) {
        this.verifyUnchanged();
        this.inPlaceFile = true;
        this.fd = openSync(path, constants.O_WRONLY);
        return;
      }
      this.temp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomHex()}.tmp`);
      this.fd = openSync(this.temp, 'wx', st === undefined ? 0o666 : 0o600);
      if (st !== undefined) {
        keepOwner(this.fd, st);
        // The umask may have narrowed the mode asked for (and a change of owner clears set-id bits): set the old file's mode exactly.
        fchmodSync(this.fd, st.mode & 0o7777);
      }
    } catch (error) {
      this.abort();
      if (error instanceof UsageError) throw error;
      throw new UsageError(`cannot write ${shown}: ${writeFailure(error)}`);
    }
  }

  write(text: string): boolean {
    if (this.fd === undefined) throw new UsageError(`cannot write ${this.shown}: already closed`);
    try {
      this.written += writeSync(this.fd, text);
    } catch (error) {
      throw new UsageError(`cannot write ${this.shown}: ${writeFailure(error)}`);
    }
    return true;
  }

  /** Closes the file and, for a regular file, renames the temporary file over it. */
  commit(): void {
    if (this.fd === undefined) return;
    try {
      const fd = this.fd;
      if (this.inPlaceFile) ftruncateSync(fd, this.written);
      this.fd = undefined;
      closeSync(fd);
      if (this.temp !== undefined) {
        this.verifyUnchanged();
        renameSync(this.temp, this.path);
      }
    } catch (error) {
      this.abort();
      if (error instanceof UsageError) throw error;
      throw new UsageError(`cannot write ${this.shown}: ${writeFailure(error)}`);
    }
  }

  /** After a failure (or after `commit`, harmlessly): closes and removes the temporary file. */
  abort(): void {
    if (this.fd !== undefined) {
      try { closeSync(this.fd); } catch { /* already failing */ }
      this.fd = undefined;
    }
    if (this.temp !== undefined) rmSync(this.temp, { force: true });
  }

  /** With `unchanged`: throws, writing nothing, when the file is no longer what was read. */
  private verifyUnchanged(): void {
    const before = this.options.unchanged;
    if (!before) return;
    const pause = Number(process.env.NETPOLICY_TEST_PAUSE_BEFORE_WRITE_MS ?? 0); // test-only (docs/cli.md)
    if (pause > 0) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, pause);
    const changed = (how: string) => new UsageError(`cannot write ${this.shown}: ${how} while netpolicy worked on it; nothing written, your change is kept (run the command again)`);
    let now: BigIntStats;
    try {
      now = statSync(this.path, { bigint: true });
    } catch {
      throw changed('it was removed');
    }
    if (now.dev !== before.stamp.dev || now.ino !== before.stamp.ino) throw changed('it was replaced');
    if (now.size !== before.stamp.size || now.mtimeNs !== before.stamp.mtimeNs) throw changed('it changed');
    let text: string;
    try {
      text = readTextFile(this.path, { regularOnly: true, shown: this.shown });
    } catch {
      throw changed('it changed');
    }
    if (text !== before.text) throw changed('it changed');
  }
}

/** A file as read, to be written back only if it is still so (size, modification time, inode and text). */
export interface FileSnapshot {
  text: string;
  stamp: BigIntStats;
}

/** The replacement of a file keeps its owner and group where the process may set them (root may; others only a group of theirs). */
function keepOwner(fd: number, st: Stats): void {
  const uid = process.getuid?.();
  const gid = process.getgid?.();
  if (uid === undefined || (st.uid === uid && st.gid === gid)) return;
  try {
    fchownSync(fd, st.uid, st.gid);
  } catch {
    try { fchownSync(fd, -1, st.gid); } catch { /* not permitted: the file becomes the writer's, as with any tool */ }
  }
}

/**
 * A FIFO, device or file behind /proc opened for writing in place: first without blocking, so
 * that a FIFO with no reader is an error (ENXIO) rather than a wait for ever; then again for
 * blocking writes (a pipe's reader may be slower than the writer) while the first is still open,
 * so the reader never sees its writer go away in between.
 */
function openInPlace(path: string, shown: string, flags = 0, socket = false): number {
  let probe: number;
  try {
    probe = openSync(path, constants.O_WRONLY | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENXIO' && socket) throw new UsageError(`cannot write ${shown}: a socket, which cannot be opened by name (for standard output, use \`-o -\`)`);
    if (code === 'ENXIO') throw new UsageError(`cannot write ${shown}: a FIFO with no reader (start its reader first, or write to a file)`);
    throw new UsageError(`cannot write ${shown}: ${writeFailure(error)}`);
  }
  try {
    return openSync(path, constants.O_WRONLY | flags);
  } catch (error) {
    throw new UsageError(`cannot write ${shown}: ${writeFailure(error)}`);
  } finally {
    closeSync(probe);
  }
}

/** Where a dangling symbolic link points (so that writing through it creates its target), else the path itself. */
function danglingTarget(path: string): string {
  for (let i = 0; i < 40; i++) {
    let link: string;
    try {
      link = readlinkSync(path);
    } catch {
      return path;
    }
    path = resolve(dirname(path), link);
  }
  return path;
}
