/**
 * `redundant-with-preset`: a source whose every URL (or transport) an enabled known preset already
 * allows. Reported instead of `shadowed-rule` when presets alone cover the source; when an earlier
 * rule of the policy is needed for the cover, the source gets `shadowed-rule`.
 */
import type { LintRule } from './types';
import { analyseCoverage, presetRelated } from './coverage';

export const redundantWithPreset: LintRule = {
  code: 'redundant-with-preset',
  description: 'A source only allows what an enabled preset already allows.',
  check(context) {
    const analysis = analyseCoverage(context);
    return analysis.redundant.map((r) => {
      const names = r.presets.map((p) => `\`${p}\``).join(' and ');
      const why = analysis.presetsOmitted ? ' (every preset is enabled because `presets` is omitted)' : '';
      return {
        pointer: r.pointer,
        message: `Preset${r.presets.length > 1 ? 's' : ''} ${names} already allow${r.presets.length > 1 ? '' : 's'} everything this ${r.kind} source allows${why}. Remove the source, or list \`presets\` without ${names} if you want this source to be the only way in.`,
        data: { kind: 'remove-element' as const, title: 'Remove source provided by a preset' },
        related: r.presets.map((name) => presetRelated(analysis, name)),
        tags: ['unnecessary' as const],
      };
    });
  },
};
