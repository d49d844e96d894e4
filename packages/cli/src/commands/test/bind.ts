/**
 * `netpolicy test TESTS` without `--policy`: each test file's policy by core's rule
 * (`bindPolicyTests`: its `"policy"` member, relative to its folder; else the only policy file of
 * its folder, D6's names). A folder with several policies and no member, or none, is exit 2.
 */
import { readdirSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { bindPolicyTests, unboundProblem } from '@netpolicy/core';
import { fileKind, readFailure, UsageError } from '../../io';

/** The path of the policy `file` (a test file argument, `-` for stdin: its folder is the current one) is bound to. */
export function boundPolicyPath(file: string, data: unknown, shown: string): string {
  const folder = file === '-' ? '.' : dirname(file);
  let names: string[] = [];
  const member = data !== null && typeof data === 'object' ? (data as { policy?: unknown }).policy : undefined;
  if (typeof member !== 'string') {
    try {
      // Regular files and links to files (a link's target is checked when it is read).
      names = readdirSync(folder, { withFileTypes: true }).filter((e) => e.isFile() || e.isSymbolicLink()).map((e) => e.name);
    } catch (error) {
      throw new UsageError(`${shown}: its folder ${folder} cannot be listed to find its policy: ${readFailure(error)}; pass --policy FILE`);
    }
  }
  const binding = bindPolicyTests(data, names);
  if (binding.kind === 'member') return regularFile(isAbsolute(binding.path) ? binding.path : join(folder, binding.path), shown);
  if (binding.kind === 'folder') return regularFile(join(folder, binding.name), shown);
  throw new UsageError(`${shown}: ${unboundProblem(binding, folder === '.' ? 'the current folder' : folder)}; add "policy": "FILE" to the test file or pass --policy FILE`);
}

/**
 * A path a test file named (or its folder gave) must be a regular file: a FIFO there would park
 * the read until a writer came (`--policy <(…)` on the command line still may be one).
 */
function regularFile(path: string, shown: string): string {
  let kind: string | undefined;
  try {
    const st = statSync(path);
    if (!st.isFile()) kind = fileKind(st);
  } catch {
    return path; // missing or unreadable: the read says so
  }
  if (kind !== undefined) throw new UsageError(`${shown}: its policy ${path} is ${kind}, not a regular file`);
  return path;
}
