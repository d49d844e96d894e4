/**
 * `diff git:REV OLD`: a policy as it was at a git revision, read with the git program (no git
 * library): `git rev-parse` for the repository prefix and the revision, `git cat-file
 * --batch-check` for the file's object (fed on stdin: no argument of ours starts with `-`), and
 * `git cat-file blob` for its text, each through `spawn` with an argument array (never a shell).
 */
import { spawn } from 'node:child_process';
import { basename, dirname, resolve } from 'node:path';
import { escapeControl } from '@netpolicy/core';
import { decodeText, EXIT, MAX_TEXT_INPUT_BYTES, UsageError } from '../../io';

/** `git:REV` (NEW's path at REV) or `git:REV:PATH` (PATH as `git show REV:PATH` reads it: from the repository root, or `./` for the working directory). */
export interface GitSpec {
  rev: string;
  path?: string;
}

export const GIT_PREFIX = 'git:';

/**
 * The revision and path of a `git:` argument; undefined for any other argument (a file). A
 * revision that is empty, starts with `-` (it would be read as an option) or holds a control
 * character, and an empty PATH, are usage errors.
 */
export function parseGitSpec(arg: string): GitSpec | undefined {
  if (!arg.startsWith(GIT_PREFIX)) return undefined;
  const rest = arg.slice(GIT_PREFIX.length);
  const colon = rest.indexOf(':');
  const rev = colon < 0 ? rest : rest.slice(0, colon);
  const path = colon < 0 ? undefined : rest.slice(colon + 1);
  const shown = escapeControl(arg.length > 200 ? `${arg.slice(0, 200)}…` : arg);
  if (rev === '') throw new UsageError(`\`${shown}\` names no revision: write git:REV (NEW's path at REV) or git:REV:PATH, e.g. git:origin/main`);
  if (rev.startsWith('-')) throw new UsageError(`\`${shown}\`: a revision cannot start with \`-\` (git would read it as an option)`);
  // A line break would end the line cat-file --batch-check reads; other control characters are never in a ref name.
  if (/[\u0000-\u001f\u007f]/.test(rest)) throw new UsageError(`\`${shown}\`: a revision or path with a control character`);
  if (path === '') throw new UsageError(`\`${shown}\` names no path after the revision: write git:REV:PATH, or git:REV for NEW's path`);
  return path === undefined ? { rev } : { rev, path };
}

/** A policy read from git: its text, or `absent` when the file did not exist at the revision. */
export interface GitPolicy {
  /** `git:REV:PATH` with PATH from the repository root (or as given). */
  name: string;
  /** The path inside the revision (for the file name: JSON or JSONC). */
  path: string;
  text?: string;
  absent: boolean;
}

interface GitRun { code: number; stdout: Buffer; stderr: string }

/** Runs git with an argument array; stdout is capped at `limit` bytes (more is an error), stderr kept for messages. */
function git(args: string[], cwd: string, what: string, options: { input?: string; limit?: number } = {}): Promise<GitRun> {
  const limit = options.limit ?? 1 << 20;
  return new Promise((resolvePromise, reject) => {
    let child;
    try {
      child = spawn('git', args, {
        cwd, stdio: ['pipe', 'pipe', 'pipe'], shell: false, windowsHide: true,
        // Never a prompt (a credential helper), never a pager; only local objects are read.
        env: { ...process.env, GIT_TERMINAL_PROMPT: '0', GIT_PAGER: 'cat', GIT_OPTIONAL_LOCKS: '0' },
      });
    } catch (error) {
      reject(gitFailure(error as NodeJS.ErrnoException, what));
      return;
    }
    const out: Buffer[] = [];
    let size = 0, over = false;
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      if (over) return;
      size += chunk.length;
      if (size > limit) {
        over = true;
        child.kill();
        return;
      }
      out.push(chunk);
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => { if (stderr.length < 4000) stderr += chunk; });
    child.stdin.on('error', () => { /* git exited before reading its input: its exit code says why */ });
    child.on('error', (error) => reject(gitFailure(error as NodeJS.ErrnoException, what)));
    child.on('close', (code) => {
      if (over) reject(new UsageError(`cannot read ${what}: larger than ${limit} bytes`));
      else resolvePromise({ code: code ?? 128, stdout: Buffer.concat(out), stderr: stderr.trim() });
    });
    child.stdin.end(options.input ?? '');
  });
}

function gitFailure(error: NodeJS.ErrnoException, what: string): UsageError {
  if (error.code === 'ENOENT') return new UsageError(`cannot read ${what}: git is not installed (no \`git\` on PATH)`);
  return new UsageError(`cannot read ${what}: git could not be started: ${error.message}`);
}

/** git's own words, one line (its first `fatal:` line, control characters made visible). */
function gitSays(run: GitRun): string {
  const line = run.stderr.split('\n').find((l) => l.trim() !== '') ?? `exit ${run.code}`;
  return escapeControl(line.length > 300 ? `${line.slice(0, 300)}…` : line);
}

/**
 * Reads the policy a `git:` argument names. `newPath` is NEW's path (for `git:REV`: NEW's path
 * relative to the repository root, from `git rev-parse --show-prefix` in NEW's folder). Exit 2
 * when git is missing, the folder is in no repository, the revision is unknown, the path is a
 * folder at that revision, or the file is larger than `limit` bytes; a path that did not exist
 * at the revision is `absent` (a new policy).
 */
export async function readGitPolicy(spec: GitSpec, newPath: string, cwd: string, limit = MAX_TEXT_INPUT_BYTES): Promise<GitPolicy> {
  let gitCwd = cwd;
  let path = spec.path;
  const label = escapeControl(`${GIT_PREFIX}${spec.rev}${path === undefined ? '' : `:${path}`}`);
  if (path === undefined) {
    if (newPath === '-') throw new UsageError(`${label} reads NEW's path at ${escapeControl(spec.rev)}, but NEW is standard input: write git:REV:PATH`);
    const full = resolve(cwd, newPath);
    gitCwd = dirname(full);
    const prefix = await git(['rev-parse', '--show-prefix'], gitCwd, label);
    if (prefix.code !== 0) throw new UsageError(`cannot read ${label}: ${escapeControl(gitCwd)} is not in a git repository (${gitSays(prefix)})`);
    path = `${prefix.stdout.toString('utf8').replace(/\n$/, '')}${basename(full)}`;
  }
  const name = `${GIT_PREFIX}${spec.rev}:${path}`;
  const shown = escapeControl(name);
  const commit = await git(['rev-parse', '--verify', '--quiet', '--end-of-options', `${spec.rev}^{commit}`], gitCwd, shown);
  if (commit.code !== 0) {
    const inRepo = await git(['rev-parse', '--git-dir'], gitCwd, shown);
    if (inRepo.code !== 0) throw new UsageError(`cannot read ${shown}: ${escapeControl(gitCwd)} is not in a git repository (${gitSays(inRepo)})`);
    throw new UsageError(`cannot read ${shown}: unknown revision ${escapeControl(spec.rev)} (no commit by that name in this repository; a shallow clone or a branch not fetched? e.g. git fetch origin main)`, EXIT.usage);
  }
  const oid = commit.stdout.toString('utf8').trim();
  // The object at REV:PATH, asked on stdin: `<oid> <type> <size>`, or `<name> missing`.
  const check = await git(['cat-file', '--batch-check'], gitCwd, shown, { input: `${oid}:${path}\n` });
  if (check.code !== 0) throw new UsageError(`cannot read ${shown}: ${gitSays(check)}`);
  const answer = check.stdout.toString('utf8').trim();
  if (answer.endsWith(' missing')) return { name, path, absent: true };
  const m = /^([0-9a-f]{40,64}) (\S+) (\d+)$/.exec(answer);
  if (!m) throw new UsageError(`cannot read ${shown}: git answered \`${escapeControl(answer.slice(0, 200))}\``);
  if (m[2] !== 'blob') throw new UsageError(`cannot read ${shown}: it is a ${m[2] === 'tree' ? 'folder' : m[2]} at ${escapeControl(spec.rev)}, not a file`);
  if (Number(m[3]) > limit) throw new UsageError(`cannot read ${shown}: ${m[3]} bytes, more than the limit of ${limit}`);
  const blob = await git(['cat-file', 'blob', m[1]], gitCwd, shown, { limit });
  if (blob.code !== 0) throw new UsageError(`cannot read ${shown}: ${gitSays(blob)}`);
  return { name, path, text: decodeText(blob.stdout, name), absent: false };
}
