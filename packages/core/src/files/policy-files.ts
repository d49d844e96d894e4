/**
 * D6 as data: which files are policy files. Used by `netpolicy check` (directory search), the
 * language server (which documents it acts on) and the extension's document selector.
 */
import { globMatcher } from './glob';

/**
 * The default policy file patterns (decisions.md D6).
 * @public
 */
export const POLICY_FILE_GLOBS: readonly string[] = ['**/*.netpolicy.json', '**/*.netpolicy.jsonc', '**/network-policy.json'];

/** D6's patterns compiled on the first question, not at import. */
let defaultMatcher: ((path: string) => boolean) | undefined;
const extraMatchers = new Map<string, (path: string) => boolean>();
/** The same list given again (a caller keeps its settings' array) is not joined into a key again. */
const byList = new WeakMap<readonly string[], (path: string) => boolean>();

/**
 * True when `path` is a policy file: it matches D6's patterns or one of `extraGlobs` (a
 * project's or editor's `filePatterns`). Relative patterns are matched against `path` as given:
 * pass a path relative to the directory the patterns belong to (the workspace, the config file's
 * folder). A pattern without `/` matches a file name in any folder. Case-insensitive.
 * @public
 */
export function isPolicyFile(path: string, extraGlobs: readonly string[] = []): boolean {
  if ((defaultMatcher ??= globMatcher(POLICY_FILE_GLOBS))(path)) return true;
  if (extraGlobs.length === 0) return false;
  let matcher = byList.get(extraGlobs);
  if (!matcher) {
    const key = extraGlobs.join('\u0000');
    matcher = extraMatchers.get(key);
    if (!matcher) {
      matcher = globMatcher(extraGlobs);
      if (extraMatchers.size > 64) extraMatchers.clear();
      extraMatchers.set(key, matcher);
    }
    byList.set(extraGlobs, matcher);
  }
  return matcher(path);
}
