/**
 * The process's streams as the commands see them: the `Io` they write to, back-pressure on stdout,
 * colour, and how the process ends (a failed stdout or stderr, an unexpected error, a command whose
 * work never completes), with the exit codes a shell expects.
 */
import { EXIT } from './exit-codes';
import { writeFailure } from './write-target';

export interface Io {
  stdout: { write(text: string): unknown; isTTY?: boolean };
  stderr: { write(text: string): unknown; isTTY?: boolean };
  env: Record<string, string | undefined>;
  cwd: string;
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
