/** `unmatchable-host-pattern`: a host pattern that passes the schema but can never match a host name. */
import { unmatchableHostProblem } from '../formats/host-pattern';
import type { LintRule, RuleFinding } from './types';
import { hostPatterns, quote, viewOf } from './walk';

export const unmatchableHostPattern: LintRule = {
  code: 'unmatchable-host-pattern',
  description: 'A host pattern can never match a real host name (empty label, label starting or ending with `-`, label over 63 characters).',
  check(context) {
    const findings: RuleFinding[] = [];
    for (const ref of hostPatterns(viewOf(context))) {
      const problem = unmatchableHostProblem(ref.pattern);
      if (!problem) continue;
      findings.push({
        pointer: ref.pointer,
        message: `Host pattern ${quote(ref.pattern)} can never match a host name: ${problem}. Fix the typo; as written this entry allows nothing.`,
      });
    }
    return findings;
  },
};
