/** The process edge of the CLI: streams, environment, exit codes, file reading and writing with clear errors. */
import {
  accessSync, type BigIntStats, closeSync, constants, fchmodSync, fchownSync, fstatSync, ftruncateSync, openSync, readFileSync, readlinkSync, readSync,
  realpathSync, renameSync, rmSync, type Stats, statSync, writeSync,
} from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';

/** 8 random hex digits; Web Crypto (loaded on first use), so that a run which writes no file never loads node:crypto. */
function randomHex(): string {
  return globalThis.crypto.getRandomValues(new Uint32Array(1))[0].toString(16).padStart(8, '0');
}

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

const USAGE_ERROR = Symbol.for('netpolicy.UsageError');

/**
 * A problem with how the command was called or with its input files: exit 2, message on stderr.
 * The entry and each command's bundle hold their own copy of this class (esbuild.mjs), so
 * `instanceof` goes by a brand that every copy gives its instances, not by the class itself.
 */
export class UsageError extends Error {
  readonly [USAGE_ERROR] = true;

  static override [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === 'object' && value !== null && (value as { [USAGE_ERROR]?: unknown })[USAGE_ERROR] === true;
  }

  /**
   * `details` are printed one per line under the message (each escaped on its own: a message
   * and its details never carry line breaks of their own, whatever the input held).
   */
  constructor(message: string, readonly exitCode: number = EXIT.usage, readonly details: readonly string[] = []) {
    super(message);
    this.name = 'UsageError';
  }
}

/**
 * The most a text input (policy, config, preset catalog, policy tests, token file) may hold:
 * 512 MiB, seven times the largest policy anyone has measured here (1M rules, 72 MB). Reading
 * stops there, so `check /dev/zero` is a message, not an abort after 3 GB of memory.
 */
export const MAX_TEXT_INPUT_BYTES = 512 * 1024 * 1024;

/** The most a file found by name or named by a setting may hold (netpolicy.config.json, a preset catalog): 8 MiB. */
export const MAX_SETTINGS_FILE_BYTES = 8 * 1024 * 1024;

export interface ReadOptions {
  /** The most bytes the file may hold (default MAX_TEXT_INPUT_BYTES). */
  limit?: number;
  /**
   * Only a regular file (or a link to one) is read: a FIFO, device or socket is refused unread
   * (a config found upward, a catalog named by a config, a Dockerfile, a file written back).
   * Otherwise an explicit argument may be a FIFO or `<(…)` (read once, as a stream) or a device
   * (read up to `limit`).
   */
  regularOnly?: boolean;
  /** What to do instead, said after the problem when the file is refused (`name a regular file`). */
  hint?: string;
  /** The name in messages (default: `path`). */
  shown?: string;
}

/**
 * Reads a text file (UTF-8) or throws a UsageError that names the file and the reason. The one
 * read of a path named by an argument, a setting or a config: opened without blocking
 * (`openInput`), bounded by `limit`, and every problem one line,
 * `cannot read <path>: <problem> (<what to do>)`.
 */
export function readTextFile(path: string, options: number | ReadOptions = {}): string {
  const o = typeof options === 'number' ? { limit: options } : options;
  const limit = o.limit ?? MAX_TEXT_INPUT_BYTES;
  const shown = o.shown ?? path;
  const fd = openInput(path, o);
  try {
    return readRegularText(fd, shown, limit) ?? decodeText(readBounded(fd, shown, limit), shown);
  } finally {
    closeSync(fd);
  }
}

/** What a file that is not a regular file is, in words. */
export function fileKind(st: Stats | BigIntStats): string {
  return st.isFIFO() ? 'a FIFO (named pipe)' :
    st.isCharacterDevice() ? 'a character device' :
    st.isBlockDevice() ? 'a block device' :
    st.isSocket() ? 'a socket' :
    st.isDirectory() ? 'a directory' : 'not a regular file';
}

/**
 * Opens `path` for reading without ever blocking in `open` (O_NONBLOCK: a FIFO with no writer
 * would otherwise wait for one for ever) and looks at what it is before anything is read: a
 * directory is refused; with `regularOnly`, anything but a regular file is refused unread. An
 * explicit argument that is a FIFO, a pipe (`<(…)`) or a device is opened again for blocking
 * reads (the command reads it as `cat` would; a FIFO waits for its writer, as before), while the
 * first descriptor is still open, so a writer never sees its reader go away in between.
 */
export function openInput(path: string, options: ReadOptions = {}): number {
  const shown = options.shown ?? path;
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    throw new UsageError(`cannot read ${shown}: ${readFailure(error)}`);
  }
  try {
    const st = fstatSync(fd);
    if (st.isFile()) return fd; // O_NONBLOCK means nothing to a regular file's reads
    if (st.isDirectory()) throw new UsageError(`cannot read ${shown}: ${readFailure({ code: 'EISDIR' })}`);
    if (options.regularOnly) throw new UsageError(`cannot read ${shown}: ${fileKind(st)}, not a regular file (${options.hint ?? 'name a regular file'})`);
    const blocking = openSync(path, 'r');
    closeSync(fd);
    return blocking;
  } catch (error) {
    try { closeSync(fd); } catch { /* already closed */ }
    if (error instanceof UsageError) throw error;
    throw new UsageError(`cannot read ${shown}: ${readFailure(error)}`);
  }
}

/**
 * A regular file's text, decoded by Node as it is read (`readFileSync(fd, 'utf8')`): no JS buffer
 * of the whole file is left for the garbage collector, whose backing store would otherwise stay
 * allocated beside the text until the next full collection (a 70 MB policy: 70 MB more peak memory
 * while it is checked). Undefined for anything but a regular file (read as before). Text with U+FFFD
 * (maybe a replaced invalid sequence) is read again as bytes, for `decodeText` to report exactly.
 */
function readRegularText(fd: number, shown: string, limit: number): string | undefined {
  let st;
  try {
    st = fstatSync(fd);
  } catch {
    return undefined;
  }
  if (!st.isFile() || st.size > limit || st.size < 4) return undefined;
  const head = Buffer.alloc(4);
  if (readSync(fd, head, 0, 4, 0) < 4 || head[0] === 0xfe || head[0] === 0xff || head[0] === 0x00) return undefined; // UTF-16 or UTF-32 byte order marks: decodeText refuses them
  let text: string;
  try {
    text = readFileSync(fd, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read ${shown}: ${readFailure(error)}`);
  }
  if (text.includes('\ufffd')) {
    // Replaced invalid bytes, or a U+FFFD in the file: the bytes again, decoded strictly (reported exactly).
    const bytes = Buffer.allocUnsafe(st.size);
    let got = 0;
    for (let n; got < bytes.length && (n = readSync(fd, bytes, got, bytes.length - got, got)) > 0;) got += n;
    return decodeText(bytes.subarray(0, got), shown);
  }
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text; // as TextDecoder: a UTF-8 byte order mark is dropped
}

/**
 * Everything an open file holds, up to `limit` bytes: a regular file larger than that is refused
 * before it is read, anything else (a device, a pipe, standard input) once it passes the limit.
 */
export function readBounded(fd: number, shown: string, limit = MAX_TEXT_INPUT_BYTES): Buffer {
  const over = () => new UsageError(`cannot read ${shown}: larger than ${formatBytes(limit)}, the most it may hold${shown.startsWith('/dev/') ? ' (an endless device?)' : ''}`);
  try {
    const st = fstatSync(fd);
    if (st.isDirectory()) throw new UsageError(`cannot read ${shown}: ${readFailure({ code: 'EISDIR' })}`);
    if (st.isFile() && st.size > limit) throw over();
    const chunks: Buffer[] = [];
    let total = 0;
    const chunk = Buffer.allocUnsafe(1 << 20);
    for (;;) {
      const n = readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) break;
      total += n;
      if (total > limit) throw over();
      chunks.push(Buffer.from(chunk.subarray(0, n)));
    }
    return Buffer.concat(chunks, total);
  } catch (error) {
    if (error instanceof UsageError) throw error;
    // EAGAIN: a non-blocking standard input with nothing (yet) to read is what a closed terminal gives.
    throw new UsageError(`cannot read ${shown}: ${readFailure(error)}`);
  }
}

function formatBytes(n: number): string {
  return n >= 1 << 20 ? `${n / (1 << 20)} MiB` : n >= 1024 ? `${n / 1024} KiB` : `${n} bytes`;
}

/** Why a read failed, in words (`no such file`, `is a directory, not a file`, ...). */
export function readFailure(error: unknown): string {
  const code = (error as NodeJS.ErrnoException)?.code;
  return code === 'ENOENT' ? 'no such file' :
    code === 'EISDIR' ? 'is a directory, not a file' :
    code === 'EACCES' || code === 'EPERM' ? 'permission denied' :
    code === 'ENOTDIR' ? 'a part of the path is not a directory' :
    code === 'ENAMETOOLONG' ? 'file name too long' :
    code === 'ELOOP' ? 'too many symbolic links' :
    code ?? String((error as Error)?.message ?? error);
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The text of a file that must be UTF-8 (policies, configs, tests: RFC 8259 JSON). A UTF-8 byte
 * order mark is dropped; UTF-16 and UTF-32 (what some editors and PowerShell's `>` write) and
 * bytes that are not UTF-8 are refused with a message saying so, instead of being read as
 * replacement characters that then fail (or pass) far from the cause.
 */
export function decodeText(bytes: Uint8Array, shown: string): string {
  const b = bytes;
  const encoding =
    b[0] === 0x00 && b[1] === 0x00 && b[2] === 0xfe && b[3] === 0xff ? 'UTF-32' :
    b[0] === 0xff && b[1] === 0xfe && b[2] === 0x00 && b[3] === 0x00 ? 'UTF-32' :
    (b[0] === 0xff && b[1] === 0xfe) || (b[0] === 0xfe && b[1] === 0xff) ? 'UTF-16' : undefined;
  if (encoding) throw new UsageError(`cannot read ${shown}: it is ${encoding} text; save it as UTF-8`);
  try {
    return UTF8.decode(bytes); // drops a UTF-8 byte order mark
  } catch {
    const at = firstInvalidUtf8(bytes);
    throw new UsageError(`cannot read ${shown}: not UTF-8 text (byte 0x${bytes[at].toString(16).padStart(2, '0')} at offset ${at}); save it as UTF-8`);
  }
}

/** Offset of the first byte that does not start or continue a valid UTF-8 sequence. */
function firstInvalidUtf8(bytes: Uint8Array): number {
  // Bisect on the fatal decoder: the longest valid prefix ends where the sequence breaks.
  let lo = 0;
  let hi = bytes.length;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (validPrefix(bytes, mid)) lo = mid;
    else hi = mid - 1;
  }
  // The sequence broke at `lo`; when it began with a lead byte before it (`é` in Latin-1 followed
  // by a newline), that lead byte is the one to name.
  let start = lo - 1;
  while (start >= 0 && start >= lo - 3 && (bytes[start] & 0xc0) === 0x80) start--;
  const lead = bytes[start];
  const length = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  return Math.min(start >= 0 && length > lo - start ? start : lo, bytes.length - 1);
}

function validPrefix(bytes: Uint8Array, end: number): boolean {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(0, end), { stream: true });
    return true;
  } catch {
    return false;
  }
}

/** Standard output as the commands write to it: a stream that may push back (Node's), or a plain sink (tests). */
export type PushbackOut = Io['stdout'] & { once?: (event: string, listener: () => void) => unknown; removeListener?: (event: string, listener: () => void) => unknown; writableNeedDrain?: boolean };

const DRAIN_EVENTS = ['drain', 'close', 'error'];

/**
 * Resolves once stdout can take more (undefined at once when it is not a stream that pushes back).
 * The listeners of the events that did not happen are removed: left behind, a long report to a
 * slow pipe piled them up (Node's MaxListenersExceededWarning on stderr).
 */
export function drained(stdout: PushbackOut): Promise<void> | undefined {
  if (!stdout.writableNeedDrain || typeof stdout.once !== 'function') return undefined;
  return new Promise((resolve) => {
    const done = () => {
      for (const event of DRAIN_EVENTS) stdout.removeListener?.(event, done);
      resolve();
    };
    for (const event of DRAIN_EVENTS) stdout.once!(event, done);
  });
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

/**
 * Reads a policy that a command will write back (`check --fix`, `explain --apply`), after
 * `checkWriteBack`: a regular file only, and a snapshot of it for `writeBack`.
 */
export function readForWriteBack(cwd: string, shown: string, option: string): FileSnapshot {
  const path = resolve(cwd, shown);
  checkWriteBack(cwd, shown, option);
  const fd = openInput(path, { regularOnly: true, shown, hint: `${option} writes the file back: name the policy file itself` });
  try {
    const stamp = fstatSync(fd, { bigint: true });
    const text = readRegularText(fd, shown, MAX_TEXT_INPUT_BYTES) ?? decodeText(readBounded(fd, shown), shown);
    return { text, stamp };
  } finally {
    closeSync(fd);
  }
}

/** Writes `text` over a file read by `readForWriteBack`, unless it changed since (then nothing is written: UsageError). */
export function writeBack(cwd: string, shown: string, before: FileSnapshot, text: string): void {
  const out = new OutputFile(cwd, shown, { unchanged: before });
  try {
    out.write(text);
    out.commit();
  } finally {
    out.abort();
  }
}

/**
 * Refuses, before anything is read, a file `option` (`--fix`, `--apply`) cannot write back:
 * standard input and anything reached through /proc (`/dev/stdin`, `/proc/self/fd/0`: it would
 * replace whatever file the shell opened), what is not a regular file (a FIFO, a device), a
 * read-only file. A symbolic link to a regular file is fine (written through, the link kept).
 * A file that cannot be looked at passes: the read then says why.
 */
export function checkWriteBack(cwd: string, shown: string, option: string): void {
  const what = `${option} writes the file back: name the policy file itself`;
  if (shown === '-') throw new UsageError(`${option} writes the file back: give the file, not standard input (\`-\`)`);
  const path = resolve(cwd, shown);
  if (throughProc(path)) throw new UsageError(`cannot write ${shown}: it is standard input or another open file (reached through /proc), not a file of its own (${what})`);
  let st: Stats;
  try {
    st = statSync(path);
  } catch {
    return; // missing or unreadable: the read says so
  }
  if (!st.isFile()) throw new UsageError(`cannot write ${shown}: ${fileKind(st)}, not a regular file (${what})`);
  refuseReadOnly(shown, path, st, `${option} does not change a read-only file: make it writable first (chmod u+w)`);
}

/**
 * A regular file the process may not write is refused, rename or not (a rename needs only the
 * folder's permission). Root passes every permission check, so for root the owner's write bit
 * decides, as editors do.
 */
function refuseReadOnly(shown: string, path: string, st: Stats, hint = 'make it writable first (chmod u+w), or write elsewhere'): void {
  let readOnly: boolean;
  if (process.getuid?.() === 0) readOnly = (st.mode & 0o200) === 0;
  else {
    try {
      accessSync(path, constants.W_OK);
      readOnly = false;
    } catch (error) {
      readOnly = (error as NodeJS.ErrnoException).code === 'EACCES' || (error as NodeJS.ErrnoException).code === 'EPERM';
    }
  }
  if (readOnly) throw new UsageError(`cannot write ${shown}: a read-only file (mode ${(st.mode & 0o7777).toString(8).padStart(4, '0')}) (${hint})`);
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

/**
 * Whether a path goes through /proc on its way to a file (`/dev/stdin` -> `/proc/self/fd/0` ->
 * whatever the shell opened): such a name stands for an open file of a process, not a file of
 * its own. Each component is followed as the kernel would, up to 40 links.
 */
export function throughProc(path: string): boolean {
  let rest = resolve(path).split('/').filter(Boolean);
  let current = '/';
  for (let links = 0; rest.length > 0;) {
    const next = join(current, rest.shift()!);
    if (next === '/proc' || next.startsWith('/proc/')) return true;
    let link: string;
    try {
      link = readlinkSync(next);
    } catch {
      current = next;
      continue;
    }
    if (++links > 40) return false;
    rest = [...resolve(current, link).split('/').filter(Boolean), ...rest];
    current = '/';
  }
  return false;
}

/**
 * Before long work whose result goes to `-o FILE` (a download): the same one-line refusal that
 * `OutputFile` would give at the end, for what can be known now (a directory, a missing folder),
 * so nothing is downloaded for nothing. Creates nothing.
 */
export function checkOutputTarget(cwd: string, target: string | undefined): void {
  if (target === undefined || target === '-') return;
  if (target === '') throw new UsageError('cannot write to an empty file name');
  const path = resolve(cwd, target);
  let st;
  try {
    st = statSync(path);
  } catch {
    try {
      if (!statSync(dirname(path)).isDirectory()) throw new UsageError(`cannot write ${target}: ${WRITE_FAILURES.ENOTDIR} (ENOTDIR)`);
    } catch (error) {
      if (error instanceof UsageError) throw error;
      throw new UsageError(`cannot write ${target}: ${WRITE_FAILURES.ENOENT} (ENOENT)`);
    }
    return;
  }
  if (st.isDirectory()) throw new UsageError(`cannot write ${target}: ${WRITE_FAILURES.EISDIR}`);
  if (st.isFile()) refuseReadOnly(target, path, st);
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
  EISDIR: 'is a directory, not a file',
  ELOOP: 'too many symbolic links',
  ENAMETOOLONG: 'file name too long',
  ENXIO: 'no reader on the other end (a FIFO or socket)',
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

/**
 * An error the CLI did not expect, as one line (`label: internal error: message`): no stack trace
 * reaches the user, unless NETPOLICY_DEBUG=1 asks for it (for a bug report).
 */
export function internalError(label: string, error: unknown, env: Record<string, string | undefined>): string {
  const message = String((error as Error)?.message ?? error).split('\n')[0];
  const stack = env.NETPOLICY_DEBUG === '1' ? `\n${String((error as Error)?.stack ?? '')}` : '';
  return `${label}: internal error: ${message} (please report it; NETPOLICY_DEBUG=1 shows where)${stack}\n`;
}

/**
 * Sets the process's exit code from the command's result. A command whose work never completes
 * (a stream or socket that neither ends nor fails, as a body read in the platform's fetch can)
 * would otherwise let Node exit with 0 once nothing is left to do: a silent success that wrote
 * nothing. Then this says so in one line and exits 70.
 */
export function exitWhenSettled(
  proc: { exitCode?: number | string | null; stderr: { write(text: string): unknown }; once(event: 'beforeExit', listener: () => void): unknown },
  pending: Promise<number>,
  label: string,
  env: Record<string, string | undefined>,
): void {
  let settled = false;
  pending.then(
    (code) => { settled = true; proc.exitCode = code; },
    (error) => { settled = true; proc.stderr.write(internalError(label, error, env)); proc.exitCode = EXIT.internal; },
  );
  proc.once('beforeExit', () => {
    if (settled) return;
    settled = true;
    proc.stderr.write(`${label}: internal error: the command stopped before finishing (an operation never completed); its output is incomplete\n`);
    proc.exitCode = EXIT.internal;
  });
}
