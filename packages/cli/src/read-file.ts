/**
 * Reading the files a command is given (policies, configs, catalogs, tests, token files): opened
 * without blocking, bounded in size, strictly UTF-8, and every problem one line naming the file
 * and the reason (a UsageError, exit 2).
 */
import { type BigIntStats, closeSync, constants, fstatSync, openSync, readFileSync, readSync, type Stats } from 'node:fs';
import { UsageError } from './exit-codes';

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
export function readRegularText(fd: number, shown: string, limit: number): string | undefined {
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
