/** `rules-unused-with-default-allow`: `default: "allow"` with sources or connections, which then never change a verdict. */
import type { LintRule } from './types';
import { viewOf } from './walk';

export const rulesUnusedWithDefaultAllow: LintRule = {
  code: 'rules-unused-with-default-allow',
  description: 'With `default: "allow"` every access is allowed, so the sources and connections change nothing.',
  check(context) {
    const view = viewOf(context);
    if (view.root?.default !== 'allow') return [];
    const counts: string[] = [];
    if (view.sourceItems.length > 0) counts.push(`${view.sourceItems.length} source${view.sourceItems.length === 1 ? '' : 's'}`);
    if (view.connectionItems.length > 0) counts.push(`${view.connectionItems.length} connection${view.connectionItems.length === 1 ? '' : 's'}`);
    if (counts.length === 0) return [];
    return [{
      pointer: '/default',
      message: `\`default\` is "allow", so every access is allowed and the ${counts.join(' and ')} never change a verdict. Set \`default\` to "deny" to enforce them, or remove them.`,
      data: { kind: 'replace', value: 'deny', title: 'Change default to "deny"' },
    }];
  },
};
