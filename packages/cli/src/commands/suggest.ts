import type { Command } from '../command';
import { UsageError } from '../io';

// Placeholder until the command is implemented (see the open issues).
export const command: Command = {
  name: 'suggest',
  summary: '',
  usage: 'netpolicy suggest: not implemented yet',
  async run() {
    throw new UsageError('`netpolicy suggest` is not implemented yet');
  },
};
