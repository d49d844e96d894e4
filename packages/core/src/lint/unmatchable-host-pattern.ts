/**
 * `unmatchable-host-pattern`: a host pattern, or the host of a source URL, that passes the schema but
 * can never match a host name (decisions.md D3): an empty label, a label starting or ending with `-`,
 * a label over 63 characters, a name over 253 characters.
 */
import { unmatchableHostProblem } from '../formats/host-pattern';
import { isPolicyUrl } from '../eval/url';
import type { LintRule, RuleFinding } from './types';
import { hostPatterns, quote, sourceUrls, viewOf, refPointer } from './walk';

export const unmatchableHostPattern: LintRule = {
  code: 'unmatchable-host-pattern',
  description: 'A host pattern or URL host can never match a real host name (empty label, label starting or ending with `-`, label over 63 characters, name over 253).',
  check(context) {
    const findings: RuleFinding[] = [];
    const view = viewOf(context);
    for (const ref of hostPatterns(view)) {
      const problem = unmatchableHostProblem(ref.pattern);
      if (!problem) continue;
      findings.push({
        pointer: refPointer(ref),
        message: `Host pattern ${quote(ref.pattern)} can never match a host name: ${problem}. Fix the typo; as written this entry allows nothing.`,
      });
    }
    for (const ref of sourceUrls(view)) {
      // The host as the evaluator compares it (lower case, one trailing dot removed); IPv6 literals have no labels.
      const host = ref.read.url?.host;
      if (host === undefined || host.includes(':')) continue;
      const problem = unmatchableHostProblem(host);
      if (!problem || !isPolicyUrl(ref.url)) continue;
      findings.push({
        pointer: refPointer(ref),
        message: `The host of URL ${quote(ref.url)} can never be a host name: ${problem}. Fix the typo; as written this URL allows nothing.`,
      });
    }
    return findings;
  },
};
