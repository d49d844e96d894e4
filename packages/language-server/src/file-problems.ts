/**
 * Files named by settings or `netpolicy.config.json` that could not be used (a FIFO, a folder, a
 * device, too large, missing, not JSON). Each problem is shown once per path and problem (not per
 * edit or settings change), and, while the project file that named the file is open, it is a
 * diagnostic on that member. A path read fine again forgets its problem, so a new one shows.
 */
import type { PolicyDocument, ProjectConfig } from '@netpolicy/core';
import { pointerRange, SOURCE } from '@netpolicy/language-service';
import { DiagnosticSeverity, type Diagnostic } from 'vscode-languageserver';

/** The code of a diagnostic on a project file member naming a file that was not used. */
export const FILE_NOT_USED_CODE = 'file-not-used';

export type FileRole = 'preset catalog' | 'trace' | 'project file';

export class FileProblems {
  /** The current problem of each path, with what the file was for. */
  private readonly current = new Map<string, { role: FileRole; problem: string }>();
  /** `path\nproblem` of every problem shown since the path was last read fine. */
  private readonly shown = new Set<string>();

  /** `show`: tell the user (once per path and problem); `changed`: the set of problems changed. */
  constructor(private readonly show: (message: string) => void, private readonly changed: () => void) {}

  report(role: FileRole, path: string, problem: string): void {
    const before = this.current.get(path);
    this.current.set(path, { role, problem });
    const key = `${path}\n${problem}`;
    if (!this.shown.has(key)) {
      this.shown.add(key);
      this.show(`netpolicy: ${role} ${path} not used: ${problem}`);
    }
    if (before?.problem !== problem || before.role !== role) this.changed();
  }

  /** The path was read fine. */
  clear(path: string): void {
    for (const key of this.shown) if (key.startsWith(`${path}\n`)) this.shown.delete(key);
    if (this.current.delete(path)) this.changed();
  }

  /** Diagnostics on the members of a project file (`doc`, parsed as `config`) naming files with a problem. */
  configDiagnostics(doc: PolicyDocument, config: ProjectConfig): Diagnostic[] {
    const out: Diagnostic[] = [];
    const add = (pointer: string, path: string, p: { role: FileRole; problem: string }) => {
      const range = pointerRange(doc, pointer);
      if (range) out.push({ range, severity: DiagnosticSeverity.Warning, code: FILE_NOT_USED_CODE, source: SOURCE, message: `${p.role} ${path} not used: ${p.problem}` });
    };
    if (config.presetCatalog !== undefined) {
      const p = this.current.get(config.presetCatalog);
      if (p) add('/presetCatalog', config.presetCatalog, p);
    }
    (config.traces ?? []).forEach((t, i) => {
      // A trace entry may be a folder: the problems of the files read from it are its own.
      for (const [path, p] of this.current) if (p.role === 'trace' && (path === t || path.startsWith(`${t.replace(/\/$/, '')}/`))) add(`/traces/${i}`, path, p);
    });
    return out;
  }
}
