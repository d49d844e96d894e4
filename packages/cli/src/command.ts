import type { CommandSpec } from './args';
import type { Io } from './io';

/** One CLI command: `run` returns the exit code (docs/cli.md lists them). */
export interface Command {
  name: string;
  summary: string;
  usage: string;
  /** The declaration the parser, `--help` and docs/cli.md's option table are made from. */
  spec?: CommandSpec;
  run(args: string[], io: Io): Promise<number>;
}
