/**
 * Where a command's report goes (`-o/--output FILE`, `-` or absent = stdout), files read from an
 * argument that may be `-` (stdin, read once), atomic file writes and the unified diffs that
 * `check --fix` and `explain --apply` print.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, openSync, readFileSync, renameSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { createTwoFilesPatch } from 'diff';
import { readTextFile, UsageError, writeOutput, type Io } from './io';

/** The name a file argument is shown by (`-` is standard input). */
export function shownName(path: string): string {
  return path === '-' ? '<stdin>' : path;
}

let stdinRead = false;

/** Reads a file argument; `-` reads standard input (once per process). */
export function readInput(path: string): string {
  if (path !== '-') return readTextFile(path);
  if (stdinRead) throw new UsageError('standard input (`-`) can be read only once per command');
  stdinRead = true;
  try {
    return readFileSync(0, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read standard input: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}

/** At most one file argument may be `-`. */
export function checkOneStdin(args: (string | undefined)[]): void {
  if (args.filter((a) => a === '-').length > 1) throw new UsageError('standard input (`-`) can be read only once per command: give `-` to one argument only');
}

/** Writes `text` to `path` through a temporary file in the same folder and a rename: a failure leaves no file. */
export function writeFileAtomically(path: string, text: string, shown = path): void {
  const full = resolve(path);
  const temp = join(dirname(full), `.${basename(full)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  let mode = 0o644;
  try {
    mode = statSync(full).mode & 0o7777;
  } catch {}
  try {
    writeFileSync(temp, text, { flag: 'wx', mode });
    renameSync(temp, full);
  } catch (error) {
    rmSync(temp, { force: true });
    throw writeError(error, shown);
  }
}

/** The destination of a report: stdout, or a file written atomically once the report is complete. */
export interface ReportSink {
  /** True when the report goes to stdout (colour and excerpts may follow the terminal). */
  toStdout: boolean;
  write(text: string): void;
}

export function reportSink(io: Io, output: string | undefined): ReportSink {
  if (output === undefined || output === '-') return { toStdout: true, write: (text) => { io.stdout.write(text); } };
  return { toStdout: false, write: (text) => { writeOutput(io, output, text); } };
}

/** A unified diff of one file's change (empty when nothing changed). */
export function unifiedDiff(file: string, before: string, after: string): string {
  if (before === after) return '';
  return createTwoFilesPatch(`a/${file}`, `b/${file}`, before, after, undefined, undefined, { context: 3 })
    .replace(/^=+\n/m, '')
    .replace(/^Index:.*\n/m, '');
}

/**
 * A report written to FILE as it is produced (bounded memory), through a temporary file beside it
 * that is renamed over FILE by `commit`; `abort` (after a failure) removes the temporary file.
 */
export class AtomicFileOutput {
  private readonly full: string;
  private readonly temp: string;
  private fd: number | undefined;
  readonly isTTY = false;

  constructor(cwd: string, private readonly shown: string) {
    this.full = resolve(cwd, shown);
    this.temp = join(dirname(this.full), `.${basename(this.full)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
    try {
      this.fd = openSync(this.temp, 'wx', 0o644);
    } catch (error) {
      throw writeError(error, shown);
    }
  }

  write(text: string): boolean {
    if (this.fd === undefined) throw new UsageError(`cannot write ${this.shown}: already closed`);
    try {
      writeSync(this.fd, text);
    } catch (error) {
      throw writeError(error, this.shown);
    }
    return true;
  }

  commit(): void {
    if (this.fd === undefined) return;
    try {
      closeSync(this.fd);
      this.fd = undefined;
      renameSync(this.temp, this.full);
    } catch (error) {
      throw writeError(error, this.shown);
    }
  }

  abort(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
    rmSync(this.temp, { force: true });
  }
}

function writeError(error: unknown, shown: string): UsageError {
  const code = (error as NodeJS.ErrnoException).code;
  const reason = code === 'ENOENT' ? 'no such folder' : code === 'EISDIR' ? 'is a directory, not a file' : code === 'EACCES' || code === 'EPERM' ? 'permission denied' : code ?? (error as Error).message;
  return new UsageError(`cannot write ${shown}: ${reason}`);
}
