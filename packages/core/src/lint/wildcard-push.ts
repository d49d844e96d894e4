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

export const wildcardPush: LintRule = {
  code: 'wildcard-push',
  description: 'An oci source allows push or delete on every repository of the registry.',
  check(context) {
    const findings: RuleFinding[] = [];
    for (const source of viewOf(context).sources) {
      if (source.kind !== 'oci') continue;
      const ops = stringItems(source.body.operations).map((o) => o.value).filter((o) => o === 'push' || o === 'delete');
      if (ops.length === 0) continue;
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
