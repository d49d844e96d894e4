/**
 * What can be known about a file to be written before anything is written: a read-only file, a
 * name that goes through /proc, a file that `--fix` or `--apply` cannot write back, a directory or
 * missing folder behind `-o FILE`; and the words for a failed write. Shared by `OutputFile`, the
 * commands' early checks and the guard on standard output.
 */
import { accessSync, constants, readlinkSync, type Stats, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { UsageError } from './exit-codes';
import { fileKind } from './read-file';

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
export function refuseReadOnly(shown: string, path: string, st: Stats, hint = 'make it writable first (chmod u+w), or write elsewhere'): void {
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

export const WRITE_FAILURES: Record<string, string> = {
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
