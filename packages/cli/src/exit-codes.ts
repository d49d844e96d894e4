/**
 * The exit codes of every command and UsageError, the error that ends a command with one of them
 * and a message on stderr. Every other module of the CLI's process edge builds on these two.
 */

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
