import type { Command } from '../command';
import { UsageError } from '../io';

// Placeholder until the command is implemented (see the open issues).
export const command: Command = {
  name: 'test',
  summary: '',
  usage: 'netpolicy test: not implemented yet',
  async run() {
    throw new UsageError('`netpolicy test` is not implemented yet');
  },
};
