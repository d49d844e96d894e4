import type { Command } from '../command';
import { UsageError } from '../io';

// Placeholder until the command is implemented (see the open issues).
export const command: Command = {
  name: 'serve',
  summary: '',
  usage: 'netpolicy serve: not implemented yet',
  async run() {
    throw new UsageError('`netpolicy serve` is not implemented yet');
  },
};
