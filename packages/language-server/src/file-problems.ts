/**
 * Files named by settings or `netpolicy.config.json` that could not be used (a FIFO, a folder, a
 * device, too large, missing, not JSON, a link out of the workspace). Each problem is said once per
 * path and problem (not per edit or settings change), and, while the project file that named the
 * file is open, it is a diagnostic on that member. A path read fine again forgets its problem, so
 * a new one shows.
 *
 * Said in bursts, not one by one: 100,000 missing `traces` entries are one notification and a few
 * log lines, not 100,000 of each. What is reported while a burst is held (`hold()`: a settings
 * application, a trace evaluation) or before the next turn of the event loop is said together:
 * one notification per role and kind of problem (`problemKind`), with how many files and the first
 * few paths, and in the log the first MAX_LOGGED_PATHS paths of the burst with their problem, then
 * one line per kind with how many more.
 */
import { escapeControl, type PolicyDocument, type ProjectConfig } from '@netpolicy/core';
import { pointerRange, SOURCE } from '@netpolicy/language-service';
import { DiagnosticSeverity, type Diagnostic } from 'vscode-languageserver';

/** The code of a diagnostic on a project file member naming a file that was not used. */
export const FILE_NOT_USED_CODE = 'file-not-used';

export type FileRole = 'preset catalog' | 'trace' | 'project file';

/** Paths logged one per line per burst, all kinds together; the rest are counted. */
export const MAX_LOGGED_PATHS = 20;
/** Paths named in a notification that stands for several files. */
export const EXAMPLE_PATHS = 3;
/** Notifications per burst; the kinds past them are one more notification. */
export const MAX_NOTIFICATIONS = 5;

const PLURAL: Record<FileRole, string> = { 'preset catalog': 'preset catalogs', trace: 'trace files', 'project file': 'project files' };

/**
 * The kind of a problem: its words with the numbers left out (`it is 5 MB, more than ...` and
 * `it is 7 MB, more than ...` are one kind; `ENOENT` and `EACCES` are two).
 */
export function problemKind(problem: string): string {
  return problem.replace(/\d+(?:\.\d+)?/g, '#');
}

/** Where the messages go: a notification, a log line. */
export interface ProblemOutlet {
  notify(message: string): void;
  log(message: string): void;
}

interface Report {
  role: FileRole;
  path: string;
  problem: string;
}

export class FileProblems {
  /** The current problem of each path, with what the file was for. */
  private readonly current = new Map<string, { role: FileRole; problem: string }>();
  /** The problems of each path said since it was last read fine. */
  private readonly shown = new Map<string, Set<string>>();
  /** Problems to say at the end of the burst. */
  private pending: Report[] = [];
  /** Bursts held open (`hold`). */
  private holds = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** The set of problems changed since `changed` was last called. */
  private dirty = false;

  /** `out`: where the problems are said; `changed`: the set of problems changed (once per burst). */
  constructor(private readonly out: ProblemOutlet, private readonly changed: () => void) {}

  report(role: FileRole, path: string, problem: string): void {
    const before = this.current.get(path);
    this.current.set(path, { role, problem });
    let said = this.shown.get(path);
    if (!said) this.shown.set(path, (said = new Set()));
    if (!said.has(problem)) {
      said.add(problem);
      this.pending.push({ role, path, problem });
    }
    if (before?.problem !== problem || before.role !== role) this.dirty = true;
    this.schedule();
  }

  /** The path was read fine. */
  clear(path: string): void {
    this.shown.delete(path);
    if (this.current.delete(path)) {
      this.dirty = true;
      this.schedule();
    }
  }

  /**
   * Holds what is reported until the returned function is called (every hold released: the burst
   * is said). Call it in a `finally`; a second call does nothing.
   */
  hold(): () => void {
    this.holds++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.holds--;
      this.schedule();
    };
  }

  private schedule(): void {
    if (this.holds > 0 || this.timer || (!this.dirty && this.pending.length === 0)) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.holds === 0) this.flush();
    }, 0);
  }

  /** Says the burst: one notification per role and kind, a bounded number of log lines. */
  private flush(): void {
    // A problem gone (read fine, or another problem since) before its burst ended is not said.
    const seen = new Set<string>();
    const reports = this.pending.filter((r) => {
      const key = `${r.path}\n${r.problem}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return this.current.get(r.path)?.problem === r.problem && this.shown.get(r.path)?.has(r.problem);
    });
    this.pending = [];
    const groups = new Map<string, Report[]>();
    for (const r of reports) {
      const key = `${r.role}\n${problemKind(r.problem)}`;
      let group = groups.get(key);
      if (!group) groups.set(key, (group = []));
      group.push(r);
    }
    let logged = 0;
    let notified = 0;
    let unsaid = 0;
    for (const group of groups.values()) {
      const [first] = group;
      if (notified < MAX_NOTIFICATIONS) {
        notified++;
        this.out.notify(group.length === 1 ? single(first) : several(group));
      } else unsaid += group.length;
      const shown = group.slice(0, Math.max(0, MAX_LOGGED_PATHS - logged));
      for (const r of shown) this.out.log(single(r));
      logged += shown.length;
      if (group.length > shown.length) this.out.log(`netpolicy: ... and ${group.length - shown.length} more ${PLURAL[first.role]} not used: ${first.problem}`);
    }
    if (unsaid > 0) this.out.notify(`netpolicy: ${unsaid} more files not used, for other reasons (see the output)`);
    if (this.dirty) {
      this.dirty = false;
      this.changed();
    }
  }

  /** Diagnostics on the members of a project file (`doc`, parsed as `config`) naming files with a problem. */
  configDiagnostics(doc: PolicyDocument, config: ProjectConfig): Diagnostic[] {
    const out: Diagnostic[] = [];
    const add = (pointer: string, path: string, p: { role: FileRole; problem: string }) => {
      const range = pointerRange(doc, pointer);
      if (range) out.push({ range, severity: DiagnosticSeverity.Warning, code: FILE_NOT_USED_CODE, source: SOURCE, message: escapeControl(`${p.role} ${path} not used: ${p.problem}`) });
    };
    if (config.presetCatalog !== undefined) {
      const p = this.current.get(config.presetCatalog);
      if (p) add('/presetCatalog', config.presetCatalog, p);
    }
    const traces = config.traces ?? [];
    if (traces.length === 0 || this.current.size === 0) return out;
    // A trace entry may be a folder: the problems of the files read from it are its own. Entries
    // by path and by folder, so that 100,000 entries and problems are matched in linear time.
    const exact = new Map<string, number[]>();
    const folder = new Map<string, number[]>();
    const index = (map: Map<string, number[]>, key: string, i: number) => {
      const list = map.get(key);
      if (list) list.push(i);
      else map.set(key, [i]);
    };
    traces.forEach((t, i) => {
      index(exact, t, i);
      index(folder, t.replace(/\/$/, ''), i);
    });
    const found: Array<{ entry: number; order: number; path: string; p: { role: FileRole; problem: string } }> = [];
    let order = 0;
    for (const [path, p] of this.current) {
      order++;
      if (p.role !== 'trace') continue;
      let entries = exact.get(path);
      for (let at = path.length; (at = path.lastIndexOf('/', at - 1)) >= 0;) {
        const held = folder.get(path.slice(0, at));
        if (held) entries = entries ? [...new Set([...entries, ...held])] : held;
        if (at === 0) break;
      }
      for (const entry of entries ?? []) found.push({ entry, order, path, p });
    }
    found.sort((a, b) => a.entry - b.entry || a.order - b.order);
    for (const f of found) add(`/traces/${f.entry}`, f.path, f.p);
    return out;
  }
}

function single(r: Report): string {
  return `netpolicy: ${r.role} ${r.path} not used: ${r.problem}`;
}

function several(group: Report[]): string {
  const examples = group.slice(0, EXAMPLE_PATHS).map((r) => r.path).join(', ');
  return `netpolicy: ${group.length} ${PLURAL[group[0].role]} not used: ${group[0].problem}, e.g. ${examples}${group.length > EXAMPLE_PATHS ? ', ...' : ''} (see the output)`;
}
