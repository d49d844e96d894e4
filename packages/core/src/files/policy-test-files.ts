/**
 * Policy test files (docs/policy-tests.md) and the policy each one tests. One rule, used alike by
 * `netpolicy test` (without `--policy`) and the language server:
 * 1. the file's `"policy"` member, a path relative to the test file's folder;
 * 2. without it, the only policy file (D6, `isPolicyFile`) in the test file's folder.
 * Several policy files there and no member is ambiguous; none is an error. Pure: the caller
 * lists the folder and reads the files.
 */
import { isPolicyFile } from './policy-files';

/**
 * The policy test file pattern: `policy.tests.json`, `<name>.tests.json`.
 * @public
 */
export const POLICY_TEST_FILE_GLOBS: readonly string[] = ['**/*.tests.json'];

/**
 * True when `path` (a path or a file name) is a policy test file: it ends in `.tests.json` (case-insensitive).
 * @public
 */
export function isPolicyTestFile(path: string): boolean {
  const name = path.slice(Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\')) + 1);
  return name.length > '.tests.json'.length && name.toLowerCase().endsWith('.tests.json');
}

/**
 * The policy a test file binds to:
 * - `member`: its `policy` member, as written (relative to the test file's folder);
 * - `folder`: the only policy file of its folder (a name in that folder);
 * - `ambiguous`: no member, several policy files in the folder (their names, sorted);
 * - `none`: no member, no policy file in the folder.
 * @public
 */
export type PolicyTestBinding =
  | { kind: 'member'; path: string }
  | { kind: 'folder'; name: string }
  | { kind: 'ambiguous'; candidates: string[] }
  | { kind: 'none' };

/**
 * Binds a test file (its parsed JSON, valid or not) to its policy. `folderFiles`: the names of the
 * regular files in the test file's folder; `extraGlobs`: a project's `filePatterns`, matched
 * against each name as `isPolicyFile` does.
 * @public
 */
export function bindPolicyTests(file: unknown, folderFiles: readonly string[], extraGlobs: readonly string[] = []): PolicyTestBinding {
  const member = file !== null && typeof file === 'object' && !Array.isArray(file) ? (file as { policy?: unknown }).policy : undefined;
  if (typeof member === 'string' && member.length > 0) return { kind: 'member', path: member };
  const candidates = folderFiles.filter((name) => !isPolicyTestFile(name) && isPolicyFile(name, extraGlobs)).sort();
  if (candidates.length === 1) return { kind: 'folder', name: candidates[0] };
  return candidates.length === 0 ? { kind: 'none' } : { kind: 'ambiguous', candidates };
}

/**
 * What is wrong with a binding that names no policy, in words (`where`: the test file's folder as shown).
 * @public
 */
export function unboundProblem(binding: PolicyTestBinding, where: string): string | undefined {
  if (binding.kind === 'ambiguous') return `several policies in ${where} and no "policy" member to choose one: ${binding.candidates.join(', ')}`;
  if (binding.kind === 'none') return `no policy file in ${where} (*.netpolicy.json, *.netpolicy.jsonc, network-policy.json) and no "policy" member naming one`;
  return undefined;
}
