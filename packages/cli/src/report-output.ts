/**
 * Where a command's report goes (`-o/--output FILE`, `-` or absent = stdout), files read from an
 * argument that may be `-` (stdin, read once), and the unified diffs that
 * `check --fix` and `explain --apply` print.
 */
import { statSync } from 'node:fs';
import { decodeText, OutputFile, readBounded, readTextFile, UsageError, writeOutput, type Io } from './io';
import { unifiedLineDiff } from './line-diff';

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
  return decodeText(readBounded(0, 'standard input'), 'standard input');
}

/**
 * Whether a file argument can be read twice (a first pass for DNS names, then the real one): a
 * regular file can; standard input, a FIFO or a process substitution (`<(…)`, `/dev/fd/63`) is
 * read once, like `-`.
 */
export function canReadTwice(path: string): boolean {
  if (path === '-') return false;
  try {
    return statSync(path).isFile();
  } catch {
    return true; // missing or unreadable: the read reports it
  }
}

/** At most one file argument may be `-`. */
export function checkOneStdin(args: (string | undefined)[]): void {
  if (args.filter((a) => a === '-').length > 1) throw new UsageError('standard input (`-`) can be read only once per command: give `-` to one argument only');
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

/** A unified diff of one file's change (empty when nothing changed), in time about linear in the file (line-diff.ts). */
export function unifiedDiff(file: string, before: string, after: string): string {
  return unifiedLineDiff(`a/${file}`, `b/${file}`, before, after, 3);
}

/**
 * A report written to FILE as it is produced (bounded memory), through a temporary file beside it
 * that is renamed over FILE by `commit`; `abort` (after a failure) removes the temporary file.
 * Devices and FIFOs are written in place (`OutputFile`).
 */
export class AtomicFileOutput extends OutputFile {}
