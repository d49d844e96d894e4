/** The process edge of the CLI: streams, environment, exit codes, file reading and writing with clear errors. */
import { randomBytes } from 'node:crypto';
import { chmodSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';

export const EXIT = {
  ok: 0,
  findings: 1,
  usage: 2,
  auth: 3,
  notFound: 4,
  notTerminal: 5,
  unavailable: 6,
  apiOther: 7,
  internal: 70,
  /** stdout (or stderr) was a pipe whose reader went away: the code a shell reports for a tool killed by SIGPIPE (128 + 13). */
  brokenPipe: 141,
} as const;

export interface Io {
  stdout: { write(text: string): unknown; isTTY?: boolean };
  stderr: { write(text: string): unknown; isTTY?: boolean };
  env: Record<string, string | undefined>;
  cwd: string;
}

/** A problem with how the command was called or with its input files: exit 2, message on stderr. */
export class UsageError extends Error {
  /**
   * `details` are printed one per line under the message (each escaped on its own: a message
   * and its details never carry line breaks of their own, whatever the input held).
   */
  constructor(message: string, readonly exitCode: number = EXIT.usage, readonly details: readonly string[] = []) {
    super(message);
    this.name = 'UsageError';
  }
}

/** Reads a text file or throws a UsageError that names the file and the reason. */
export function readTextFile(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason =
      code === 'ENOENT' ? 'no such file' :
      code === 'EISDIR' ? 'is a directory, not a file' :
      code === 'EACCES' || code === 'EPERM' ? 'permission denied' :
      (error as Error).message;
    throw new UsageError(`cannot read ${path}: ${reason}`);
  }
}

/** Whether to colour output: on a TTY, unless NO_COLOR is set (non-empty); a FORCE_COLOR other than empty or `0` forces it. */
export function useColor(io: Io, stream: 'stdout' | 'stderr' = 'stdout'): boolean {
  if (io.env.NO_COLOR !== undefined && io.env.NO_COLOR !== '') return false;
  if (io.env.FORCE_COLOR !== undefined && io.env.FORCE_COLOR !== '' && io.env.FORCE_COLOR !== '0') return true;
  return io[stream].isTTY === true;
}

export function paint(enabled: boolean) {
  const wrap = (open: number, close: number) => (s: string) => (enabled ? `\u001b[${open}m${s}\u001b[${close}m` : s);
  return {
    red: wrap(31, 39), yellow: wrap(33, 39), green: wrap(32, 39), blue: wrap(34, 39), cyan: wrap(36, 39),
    gray: wrap(90, 39), bold: wrap(1, 22), dim: wrap(2, 22),
  };
}

/**
 * Writes a command's output: to stdout when `target` is undefined or `-`, otherwise to the file
 * `target` (relative to `io.cwd`) atomically: a temporary file beside it, then a rename, so a
 * failure leaves no file and an existing file untouched. A replaced file keeps its mode (a
 * `0600` file stays `0600`); a new file gets 0666 minus the umask, like any other tool's. A
 * device or FIFO (`/dev/stdout`, `/dev/null`) is written in place.
 * Returns where the text went (`undefined` for stdout). A failed write is a UsageError (exit 2).
 */
export function writeOutput(io: Io, target: string | undefined, text: string): string | undefined {
  if (target === undefined || target === '-') {
    io.stdout.write(text);
    return undefined;
  }
  const path = resolve(io.cwd, target);
  writeAtomically(path, text, target);
  return path;
}

function writeAtomically(path: string, text: string, shown: string): void {
  let existingMode: number | undefined;
  try {
    const st = statSync(path);
    if (st.isDirectory()) throw new UsageError(`cannot write ${shown}: is a directory`);
    if (!st.isFile()) {
      // A device or a FIFO (`-o /dev/stdout`, `/dev/null`, a named pipe): written in place; renaming
      // a file over it would replace the device itself.
      try {
        writeFileSync(path, text);
      } catch (error) {
        throw new UsageError(`cannot write ${shown}: ${writeFailure(error)}`);
      }
      return;
    }
    existingMode = st.mode & 0o7777;
  } catch (error) {
    if (error instanceof UsageError) throw error;
    // Absent (or unreadable: then the rename below reports it).
  }
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    // Replacing a file: the temporary file is private until it has the old file's mode, so the new
    // content is never readable by more people than the old was. A new file: umask decides.
    writeFileSync(temp, text, { flag: 'wx', mode: existingMode === undefined ? 0o666 : 0o600 });
    if (existingMode !== undefined) chmodSync(temp, existingMode);
    renameSync(temp, path);
  } catch (error) {
    rmSync(temp, { force: true });
    throw new UsageError(`cannot write ${shown}: ${writeFailure(error)}`);
  }
}

const WRITE_FAILURES: Record<string, string> = {
  ENOSPC: 'no space left on device',
  EDQUOT: 'disk quota exceeded',
  EFBIG: 'file too large',
  EIO: 'input/output error',
  EROFS: 'read-only file system',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  ENOENT: 'no such directory',
  ENOTDIR: 'not a directory',
  EISDIR: 'is a directory',
  EBADF: 'not open for writing',
};

/** `no space left on device (ENOSPC)` for a Node error, its message otherwise. */
export function writeFailure(error: unknown): string {
  const code = (error as NodeJS.ErrnoException)?.code;
  if (code && WRITE_FAILURES[code]) return `${WRITE_FAILURES[code]} (${code})`;
  return code ?? String((error as Error)?.message ?? error);
}

/**
 * Makes write failures on the process's stdout and stderr end the process the way Unix tools
 * end, for every command (Node would otherwise crash with an unhandled `error` event):
 * - the reader of a pipe went away (EPIPE, e.g. `netpolicy check … | head -1`): exit
 *   quietly, nothing on stderr, with EXIT.brokenPipe (141, what a shell reports for a tool
 *   killed by SIGPIPE), so a pipeline under `set -o pipefail` sees the same as for `cat`;
 * - any other failure of stdout (ENOSPC on `> /dev/full`, EIO, ...): one line on stderr
 *   naming the reason, exit 2;
 * - stderr itself failing: exit at once (141 for EPIPE, 2 otherwise), as nothing can be said.
 */
export function guardStandardStreams(
  proc: Pick<NodeJS.Process, 'stdout' | 'stderr' | 'exit'>,
  label: () => string,
): void {
  let ending = false;
  proc.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (ending) return;
    ending = true;
    if (error.code === 'EPIPE') return proc.exit(EXIT.brokenPipe);
    try {
      proc.stderr.write(`${label()}: cannot write to standard output: ${writeFailure(error)}\n`);
    } catch { /* stderr is gone too */ }
    proc.exit(EXIT.usage);
  });
  proc.stderr.on('error', (error: NodeJS.ErrnoException) => {
    if (ending) return;
    ending = true;
    proc.exit(error.code === 'EPIPE' ? EXIT.brokenPipe : EXIT.usage);
  });
}
