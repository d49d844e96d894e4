import type { Io } from './io';

/** One CLI command: `run` returns the exit code (contracts.md). */
export interface Command {
  name: string;
  summary: string;
  usage: string;
  run(args: string[], io: Io): Promise<number>;
}
