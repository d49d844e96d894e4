/**
 * `shadowed-rule`: a source or connection entirely covered by earlier rules (sources in document
 * order, then connections: the order of decisions.md D4), or a connection covered by an enabled
 * known preset. Points at the covered rule. An exact duplicate gets `duplicate-rule` instead, and
 * a source covered by presets alone gets `redundant-with-preset`: one finding per rule.
 */
import type { LintRule } from './types';
import { analyseCoverage, presetRelated } from './coverage';

function list(items: string[]): string {
  return items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

export const shadowedRule: LintRule = {
  code: 'shadowed-rule',
  description: 'A rule is entirely covered by earlier rules or enabled presets: it never decides an access.',
  check(context) {
    const analysis = analyseCoverage(context);
    return analysis.shadowed.map((s) => {
      const by = [...s.rules, ...s.presets.map((p) => `preset \`${p}\``)];
      const what = s.rules.length > 0 ? (s.rules.length === 1 ? 'the earlier rule ' : 'the earlier rules ') : '';
      return {
        pointer: s.pointer,
        message: `Everything this ${s.kind} ${s.pointer.startsWith('/sources/') ? 'source' : 'connection'} allows is already allowed by ${what}${list(by)}, so it never decides an access. Remove it, or narrow ${by.length === 1 ? 'that rule' : 'those rules'} if this one was meant to be the only way in.`,
        data: { kind: 'remove-element' as const, title: 'Remove shadowed rule' },
        related: [
          ...s.rules.map((pointer) => ({ pointer, message: 'An earlier rule that allows what the shadowed rule allows.' })),
          ...s.presets.map((name) => presetRelated(analysis, name)),
        ],
        tags: ['unnecessary' as const],
      };
    });
  },
};
