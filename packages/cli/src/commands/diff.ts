import type { Command } from '../command';
import { UsageError } from '../io';

// Placeholder until the command is implemented (see the open issues).
export const command: Command = {
  name: 'diff',
  summary: '',
  usage: 'netpolicy diff: not implemented yet',
  async run() {
    throw new UsageError('`netpolicy diff` is not implemented yet');
  },
};
