/**
 * `--format gitlab`: a GitLab Code Quality report (docs.gitlab.com, "Code Quality", section
 * "Code Quality report format": a JSON array of objects with `description`, `check_name`,
 * `fingerprint`, `severity` and `location.path` + `location.lines.begin`). Pure.
 *
 * `fingerprint` is what GitLab compares between the base and the head of a merge request to say
 * which findings are new: it must be the same for the same finding in every run, and unique in a
 * report. It is a hash of the path, the code and the finding's key (a JSON Pointer: not the line,
 * so a finding does not become "new" when lines are added above it), with the occurrence number
 * appended for a key repeated in one file.
 */
import { isAbsolute, relative, resolve } from 'node:path';
import { escapeControl } from '@netpolicy/core';
import type { CiFinding, CiLevel } from './finding';

export type CodeQualitySeverity = 'info' | 'minor' | 'major' | 'critical' | 'blocker';

/**
 * Errors (the policy is not valid: the job's network layer cannot use it) are `major`; lint
 * warnings `minor`; notices `info`. `critical` and `blocker` are left for what a command knows to
 * be worse (a traced access newly denied by a policy change: the job would break).
 */
export const SEVERITY: Record<CiLevel, CodeQualitySeverity> = { error: 'major', warning: 'minor', notice: 'info' };

export interface CodeQualityIssue {
  description: string;
  check_name: string;
  fingerprint: string;
  severity: CodeQualitySeverity;
  location: { path: string; lines: { begin: number } };
}

export interface GitlabOptions {
  cwd: string;
  /** `CI_PROJECT_DIR`: paths are written relative to it (GitLab resolves them against the repository). */
  root?: string;
  /** A severity for a finding other than its level's (`SEVERITY`). */
  severity?: (f: CiFinding) => CodeQualitySeverity | undefined;
}

/** The path GitLab shows: relative to the project directory with `/`; a file outside it keeps its absolute path. */
export function projectPath(file: string, cwd: string, root: string | undefined): string {
  const absolute = resolve(cwd, file);
  const path = relative(resolve(root ?? cwd), absolute);
  if (path === '' || isAbsolute(path) || path === '..' || path.startsWith('../') || path.startsWith('..\\')) return absolute.split('\\').join('/');
  return path.split('\\').join('/');
}

/**
 * cyrb128 (a public-domain 128-bit non-cryptographic hash, four 32-bit lanes mixed with
 * Math.imul), as 32 hex digits: stable across runs, machines and Node versions.
 */
export function hash128(text: string): string {
  let h1 = 1779033703, h2 = 3144134277, h3 = 1013904242, h4 = 2773480762;
  for (let i = 0; i < text.length; i++) {
    const k = text.charCodeAt(i);
    h1 = h2 ^ Math.imul(h1 ^ k, 597399067);
    h2 = h3 ^ Math.imul(h2 ^ k, 2869860233);
    h3 = h4 ^ Math.imul(h3 ^ k, 951274213);
    h4 = h1 ^ Math.imul(h4 ^ k, 2716044179);
  }
  h1 = Math.imul(h3 ^ (h1 >>> 18), 597399067);
  h2 = Math.imul(h4 ^ (h2 >>> 22), 2869860233);
  h3 = Math.imul(h1 ^ (h3 >>> 17), 951274213);
  h4 = Math.imul(h2 ^ (h4 >>> 19), 2716044179);
  h1 ^= h2 ^ h3 ^ h4; h2 ^= h1; h3 ^= h1; h4 ^= h1;
  return [h1, h2, h3, h4].map((h) => (h >>> 0).toString(16).padStart(8, '0')).join('');
}

/** Description length kept (GitLab shows one line per finding). */
const DESCRIPTION_MAX = 2000;

/** The report, piece by piece (`JSON.stringify(issues, null, 2)`'s text, one issue at a time). */
export function* gitlabReport(findings: Iterable<CiFinding>, options: GitlabOptions): Generator<string> {
  const seen = new Map<string, number>();
  const used = new Set<string>();
  let first = true;
  for (const f of findings) {
    // GitLab needs a path: a finding about no file (a command-line input) is placed on the project.
    const path = f.file === undefined ? '.' : projectPath(f.file, options.cwd, options.root);
    const identity = `${path}\n${f.code}\n${f.key ?? f.message}`;
    const n = (seen.get(identity) ?? 0) + 1;
    seen.set(identity, n);
    let fingerprint = hash128(n === 1 ? identity : `${identity}\n#${n}`);
    // Two different findings with one hash (never seen, but a report must not repeat one): the next free value.
    for (let salt = 1; used.has(fingerprint); salt++) fingerprint = hash128(`${identity}\n#${n}\n${salt}`);
    used.add(fingerprint);
    const message = [f.message, ...(f.details ?? [])].join(' — ');
    const issue: CodeQualityIssue = {
      description: escapeControl(message.length > DESCRIPTION_MAX ? `${message.slice(0, DESCRIPTION_MAX)}…` : message),
      check_name: f.code,
      fingerprint,
      severity: options.severity?.(f) ?? SEVERITY[f.level],
      location: { path, lines: { begin: f.range?.startLine ?? 1 } },
    };
    yield `${first ? '[' : ','}\n  ${JSON.stringify(issue, null, 2).replace(/\n/g, '\n  ')}`;
    first = false;
  }
  yield first ? '[]\n' : '\n]\n';
}

export function toGitlab(findings: Iterable<CiFinding>, options: GitlabOptions): string {
  return [...gitlabReport(findings, options)].join('');
}
