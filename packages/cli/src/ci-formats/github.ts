/**
 * `--format github`: GitHub Actions workflow commands (annotations), escaped as the runner
 * documents, and the bounds GitHub puts on them. Pure: the command passes the workspace, the
 * working directory and the token that fences the plain log.
 *
 * Escaping (docs.github.com, "Workflow commands for GitHub Actions"; the runner's
 * ActionCommand.cs): the message escapes `%` `\r` `\n` as `%25` `%0D` `%0A`; property values
 * also escape `:` and `,` as `%3A` and `%2C`. Outside text first has its control characters
 * made visible (core's `escapeControl`), so a finding is always one line and one annotation.
 */
import { isAbsolute, relative, resolve } from 'node:path';
import { escapeControl } from '@netpolicy/core';
import { plural, type CiFinding, type CiLevel, type LevelCounts } from './finding';

/** GitHub shows at most this many annotations of each level per step. */
export const ANNOTATIONS_PER_LEVEL = 10;

/** Outside text cut to this length in an annotation (the runner truncates long messages anyway). */
const MESSAGE_MAX = 4000;

export function escapeData(text: string): string {
  return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

export function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

/** One workflow command line: `::name key=value,...::message`. Values and message are escaped here. */
export function workflowCommand(name: string, properties: [string, string | number | undefined][], message: string): string {
  const props = properties.filter(([, v]) => v !== undefined).map(([k, v]) => `${k}=${escapeProperty(String(v))}`).join(',');
  return `::${name}${props ? ` ${props}` : ''}::${escapeData(message)}\n`;
}

/** Outside text for one line of an annotation: control characters visible, clipped. */
function outside(text: string, max = MESSAGE_MAX): string {
  return escapeControl(text.length > max ? `${text.slice(0, max)}…` : text);
}

/**
 * The path GitHub resolves against the checkout: relative to `GITHUB_WORKSPACE` (or the working
 * directory when it is unset), with `/`; undefined for a file outside it (GitHub could not place
 * the annotation: the path goes into the message instead).
 */
export function workspacePath(file: string, cwd: string, workspace: string | undefined): string | undefined {
  const path = relative(resolve(workspace ?? cwd), resolve(cwd, file));
  if (path === '' || isAbsolute(path) || path === '..' || path.startsWith('../') || path.startsWith('..\\')) return undefined;
  return path.split('\\').join('/');
}

export interface AnnotationOptions {
  cwd: string;
  /** `GITHUB_WORKSPACE`: file paths are written relative to it. */
  workspace?: string;
  /** Where the findings left out can be seen, ending the notice that counts them (e.g. "the job summary"). */
  seeAll: string;
  /** Annotations per level (GitHub's limit is 10). */
  perLevel?: number;
}

export interface Annotations {
  /** The workflow command lines: errors first, then warnings, then notices, then the notice counting what was left out. */
  text: string;
  counts: LevelCounts;
  omitted: LevelCounts;
}

const LEVELS: CiLevel[] = ['error', 'warning', 'notice'];

/**
 * The annotations of a run: at most `perLevel` of each level (errors first), and when findings
 * remain, one `notice` saying how many were left out and where to see them (the notices shown
 * then leave it a place within the limit). Reads the findings once and keeps only what it shows.
 */
export function githubAnnotations(findings: Iterable<CiFinding>, options: AnnotationOptions): Annotations {
  const per = options.perLevel ?? ANNOTATIONS_PER_LEVEL;
  const kept: Record<CiLevel, CiFinding[]> = { error: [], warning: [], notice: [] };
  const counts: LevelCounts = { error: 0, warning: 0, notice: 0 };
  for (const f of findings) {
    counts[f.level]++;
    if (kept[f.level].length < per) kept[f.level].push(f);
  }
  const omitted: LevelCounts = { error: Math.max(0, counts.error - per), warning: Math.max(0, counts.warning - per), notice: Math.max(0, counts.notice - per) };
  if (omitted.error || omitted.warning || omitted.notice) omitted.notice = Math.max(0, counts.notice - (per - 1));
  const lines: string[] = [];
  for (const level of LEVELS) {
    for (const f of kept[level].slice(0, counts[level] - omitted[level])) lines.push(annotation(f, options));
  }
  const left = LEVELS.filter((l) => omitted[l]).map((l) => plural(omitted[l], l === 'notice' ? 'notice' : l));
  if (left.length) {
    lines.push(workflowCommand('notice', [['title', 'netpolicy: more findings']],
      `${left.join(', ')} not shown as annotations (GitHub shows ${per} of each level per step): see ${options.seeAll}.`));
  }
  return { text: lines.join(''), counts, omitted };
}

/** One finding as a workflow command (the file outside the workspace is named in the message). */
export function annotation(f: CiFinding, options: Pick<AnnotationOptions, 'cwd' | 'workspace'>): string {
  const path = f.file === undefined ? undefined : workspacePath(f.file, options.cwd, options.workspace);
  const where = f.file !== undefined && path === undefined ? `${outside(f.file, 500)}${f.range ? `:${f.range.startLine}:${f.range.startColumn}` : ''}: ` : '';
  const message = [`${where}${outside(f.message)}`, ...(f.details ?? []).map((d) => outside(d))].join('\n');
  const r = path !== undefined ? f.range : undefined;
  return workflowCommand(f.level, [
    // A path with control characters gets them made visible too, as all outside text (such a path
    // no longer names the file, but it cannot forge a line or a property).
    ['file', path === undefined ? undefined : outside(path, 1000)],
    ['line', r?.startLine], ['col', r?.startColumn], ['endLine', r?.endLine], ['endColumn', r?.endColumn],
    ['title', outside(f.code, 200)],
  ], message);
}

/**
 * A plain log inside `::group::`, with workflow commands stopped: a line of it that begins with
 * `::` (a file named so, a message) is printed, not run. `token` must be unguessable by whoever
 * wrote the text (the command passes a random one).
 */
export function fencedLog(title: string, log: string, token: string): string {
  return `::group::${escapeData(title)}\n::stop-commands::${token}\n${log}${log.endsWith('\n') || log === '' ? '' : '\n'}::${token}::\n::endgroup::\n`;
}
