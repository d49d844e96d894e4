/** `duplicate-rule`: a source or connection deeply equal (key order ignored) to an earlier one. */
import type { LintRule } from './types';
import { analyseCoverage } from './coverage';

export const duplicateRule: LintRule = {
  code: 'duplicate-rule',
  description: 'A source or connection repeats an earlier one exactly.',
  check(context) {
    return analyseCoverage(context).duplicates.map((d) => ({
      pointer: d.pointer,
      message: `This ${d.kind} ${d.pointer.startsWith('/sources/') ? 'source' : 'connection'} is identical to ${d.earlier}, so it never changes a verdict. Remove it.`,
      data: { kind: 'remove-element' as const, title: `Remove duplicate of ${d.earlier}` },
      related: [{ pointer: d.earlier, message: 'The earlier identical rule.' }],
      tags: ['unnecessary' as const],
    }));
  },
};
