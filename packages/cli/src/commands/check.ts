import type { Command } from '../command';
import { UsageError } from '../io';

// Placeholder until the command is implemented (see the open issues).
export const command: Command = {
  name: 'check',
  summary: '',
  usage: 'netpolicy check: not implemented yet',
  async run() {
    throw new UsageError('`netpolicy check` is not implemented yet');
  },
};
