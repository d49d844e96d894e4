/** Option parsing for every command: node's parseArgs, with its errors turned into usage errors (exit 2). */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError } from './io';

export function parseCommandArgs<T extends ParseArgsConfig>(config: T): ReturnType<typeof parseArgs<T>> {
  try {
    return parseArgs(config);
  } catch (error) {
    // Node appends a hint about `--` that does not apply to our commands.
    throw new UsageError(`${(error as Error).message.replace(/\. To specify.*$/s, '')} (option error)`);
  }
}
