/**
 * `wildcard-push`: an `oci` source allowing `push` or `delete` on every repository: `repositoryPatterns`
 * absent (pointer: the `operations` array) or holding a pattern made only of `**` segments
 * (pointer: that pattern).
 */
import type { LintRule, RuleFinding } from './types';
import { pointerOf, quote, stringItems, viewOf } from './walk';

/** A pattern that matches every repository path: only `**` segments (`**`, `**\/**`). */
export function matchesEveryRepository(pattern: string): boolean {
  return pattern.split('/').every((s) => s === '**');
}

function isPushOrDelete(operation: unknown): operation is 'push' | 'delete' {
  return operation === 'push' || operation === 'delete';
}

export const wildcardPush: LintRule = {
  code: 'wildcard-push',
  description: 'An oci source allows push or delete on every repository of the registry.',
  check(context) {
    const findings: RuleFinding[] = [];
    for (const source of viewOf(context).sources) {
      if (source.kind !== 'oci') continue;
      // Most oci sources only pull: those are passed over without building anything (this rule ran
      // on every edit of an open policy, and its lists were a tenth of what the server allocated).
      const operations = source.body.operations;
      if (!Array.isArray(operations) || !operations.some(isPushOrDelete)) continue;
      const ops = stringItems(operations).map((o) => o.value).filter(isPushOrDelete);
      const opsText = [...new Set(ops)].map((o) => `\`${o}\``).join(' and ');
      const patterns = source.body.repositoryPatterns;
      if (patterns === undefined) {
        findings.push({
          pointer: pointerOf('sources', source.index, 'oci', 'operations'),
          message: `This oci source allows ${opsText} without \`repositoryPatterns\`, so the job may overwrite or delete any repository of the registry. Add \`repositoryPatterns\` naming the repositories it publishes to.`,
        });
        continue;
      }
      for (const { index, value: pattern } of stringItems(patterns)) {
        if (!matchesEveryRepository(pattern)) continue;
        findings.push({
          pointer: pointerOf('sources', source.index, 'oci', 'repositoryPatterns', index),
          message: `Repository pattern ${quote(pattern)} matches every repository, and this oci source allows ${opsText}: the job may overwrite or delete any image in the registry. Name the repositories it publishes to (for example \`my-org/my-image\`).`,
        });
      }
    }
    return findings;
  },
};
