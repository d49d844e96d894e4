/**
 * "Did you mean" for a mistyped command, option or choice. Its own module (with core's
 * `closeMatches`, which has no imports) so that the entry can name a command without loading
 * the argument parser.
 */
import { closeMatches } from '@netpolicy/core/internal';

/**
 * The nearest name a typo could have meant (`--stirct` -> `--strict`), by edit distance with
 * transpositions, within a third of the typed length: core's `closeMatches`, which names the
 * nearest policy keys and presets too.
 */
export function nearestName(typed: string, names: readonly string[]): string | undefined {
  return closeMatches(typed, names)[0];
}

export function didYouMean(typed: string, names: readonly string[]): string {
  const near = nearestName(typed, names);
  return near ? `. Did you mean \`${near}\`?` : '';
}
