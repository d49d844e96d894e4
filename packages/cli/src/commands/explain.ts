import type { Command } from '../command';
import { UsageError } from '../io';

// Placeholder until the command is implemented (see the open issues).
export const command: Command = {
  name: 'explain',
  summary: '',
  usage: 'netpolicy explain: not implemented yet',
  async run() {
    throw new UsageError('`netpolicy explain` is not implemented yet');
  },
};
