/**
 * Which language a document gets. Policy files open in the `netpolicy` languages and policy test
 * files (`*.tests.json`) in `netpolicy-tests` (grammars that include VS Code's JSON grammar), so
 * VS Code's JSON support leaves them alone and the netpolicy server alone reports on them: no
 * error appears twice. Pure: no VS Code here.
 */
import { PROJECT_CONFIG_FILE, isPolicyFile, isPolicyTestFile } from '@netpolicy/core';

export const POLICY_LANGUAGE = 'netpolicy';
export const POLICY_JSONC_LANGUAGE = 'netpolicy-jsonc';
/** Policy test files (docs/policy-tests.md): the server checks them and runs their tests. */
export const POLICY_TESTS_LANGUAGE = 'netpolicy-tests';
/** The languages of policies (the explain and suggest commands act on these). */
export const POLICY_LANGUAGES: readonly string[] = [POLICY_LANGUAGE, POLICY_JSONC_LANGUAGE];
/** Every language the language server is given (the client's document selector). */
export const SERVER_LANGUAGES: readonly string[] = [...POLICY_LANGUAGES, POLICY_TESTS_LANGUAGE];

/** The patterns without `/` of a list (they match a file name in any folder), kept per list: not filtered again for each document. */
const nameOnly = new WeakMap<readonly string[], string[]>();

/**
 * The language a document at `path` should have: a netpolicy language for policy files (D6 names,
 * `filePatterns` relative to `root`), the project file and policy test files (`*.tests.json`,
 * even where `filePatterns` would take them: the server treats them as test files); undefined for
 * every other file. `serverEnabled: false` gives VS Code's `json`/`jsonc`, where the contributed
 * schemas apply.
 */
export function languageFor(path: string, options: { root?: string; filePatterns?: readonly string[]; serverEnabled?: boolean } = {}): string | undefined {
  const name = path.slice(path.lastIndexOf('/') + 1);
  if (isPolicyTestFile(name)) return options.serverEnabled === false ? 'json' : POLICY_TESTS_LANGUAGE;
  const jsonc = name.endsWith('.jsonc') || name === PROJECT_CONFIG_FILE;
  let policy = name === PROJECT_CONFIG_FILE || isPolicyFile(path);
  const globs = options.filePatterns ?? [];
  if (!policy && globs.length > 0) {
    const root = options.root ? (options.root.endsWith('/') ? options.root : `${options.root}/`) : undefined;
    const rel = root && path.startsWith(root) ? path.slice(root.length) : undefined;
    let names = nameOnly.get(globs);
    if (!names) nameOnly.set(globs, (names = globs.filter((g) => !g.includes('/'))));
    policy = (rel !== undefined && isPolicyFile(rel, globs)) || isPolicyFile(name, names);
  }
  if (!policy) return undefined;
  if (options.serverEnabled === false) return jsonc ? 'jsonc' : 'json';
  return jsonc ? POLICY_JSONC_LANGUAGE : POLICY_LANGUAGE;
}
