import type { Command } from '../command';
import { UsageError } from '../io';

// Placeholder until the command is implemented (see the open issues).
export const command: Command = {
  name: 'fetch',
  summary: '',
  usage: 'netpolicy fetch: not implemented yet',
  async run() {
    throw new UsageError('`netpolicy fetch` is not implemented yet');
  },
};
