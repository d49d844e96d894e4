/** The process edge of the CLI: streams, environment, exit codes, file reading with clear errors. */
import { readFileSync } from 'node:fs';

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
} as const;

export interface Io {
  stdout: { write(text: string): unknown; isTTY?: boolean };
  stderr: { write(text: string): unknown; isTTY?: boolean };
  env: Record<string, string | undefined>;
  cwd: string;
}

/** A problem with how the command was called or with its input files: exit 2, message on stderr. */
export class UsageError extends Error {
  constructor(message: string, readonly exitCode: number = EXIT.usage) {
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
