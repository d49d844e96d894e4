/**
 * Workspace diagnostics: every policy file of each workspace folder (D6 and `filePatterns`) is
 * checked from disk in the background, open or not, as `netpolicy check DIR` would, and its
 * diagnostics published without a version. Open documents are the editor's: their diagnostics
 * come from the buffer (server.ts), and this module never publishes for one.
 *
 * Bounded: at most `maxFiles` files (the setting; 0 = off), folders at most MAX_FOLDER_DEPTH
 * deep, MAX_ENTRIES folder entries looked at per run, each file read through the host's
 * non-blocking regular-file read up to MAX_WORKSPACE_FILE_BYTES. node_modules and .git are not
 * searched; symbolic links to folders are not followed (what they lead to inside the folder is
 * found by its own path). Every file, found by the walk or announced by the watcher
 * (`filesChanged`: `git pull` can create a link), is read confined to its workspace folder
 * (`readFile`'s `within`, trusted or not): a link, or a folder on the path, that leads out of it
 * is not read. The work yields to the event loop every SLICE_MS, so requests and edits are
 * answered in between.
 */
import { PROJECT_CONFIG_FILE, parsePolicyDocument, type PolicyDocument } from '@netpolicy/core';
import { policyDiagnostics, toLspDiagnostic, type ServiceSettings } from '@netpolicy/language-service';
import type { Diagnostic as LspDiagnostic } from 'vscode-languageserver';
import { FileProblem, relativePath, type ServerHost } from './host';

/** The number of files checked when the setting says nothing. */
export const DEFAULT_MAX_FILES = 500;
/** The most the setting can ask for. */
const MAX_MAX_FILES = 100_000;
/** How deep the search goes below a workspace folder (as `netpolicy check DIR`). */
export const MAX_FOLDER_DEPTH = 40;
/** Folder entries looked at per run, all folders together (a huge tree is not walked to the end). */
export const MAX_ENTRIES = 200_000;
/** The largest policy file checked from disk (a larger one is checked when opened). */
export const MAX_WORKSPACE_FILE_BYTES = 4 * 1024 * 1024;
/** Folders never searched. */
const SKIPPED_FOLDERS = new Set(['node_modules', '.git']);

/** What the checker needs from the server. */
export interface WorkspaceCheckDeps {
  host: ServerHost;
  /** The workspace folders (paths). */
  roots(): readonly string[];
  /** Whether a path is a policy file (D6, `filePatterns`). */
  isPolicyPath(path: string): boolean;
  /** Whether the editor has the file open (its diagnostics are the buffer's). */
  isOpen(path: string): boolean;
  /** The settings in force for a document. */
  service(uri: string): ServiceSettings;
  /** The `workspaceDiagnostics.maxFiles` setting, as given (see `maxFilesOf`). */
  maxFilesSetting(): unknown;
  publish(uri: string, diagnostics: LspDiagnostic[]): void;
  log(message: string): void;
  /** A walk through the folders begins (progress, and when a workspace pull may answer): it reports the files checked and found so far, then ends (cancelled too). */
  walking?(): { report(checked: number, found: number): void; end(): void };
  /** A file was read and parsed (the workspace symbol index keeps its rules); `dropped`: it is no longer followed, or could not be read. */
  parsed?(uri: string, doc: PolicyDocument): void;
  dropped?(uri: string): void;
}

/** The setting's value: a number of files (floored, at most 100,000), 0 = off; anything else is the default. */
export function maxFilesOf(value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) return DEFAULT_MAX_FILES;
  return Math.min(Math.floor(value), MAX_MAX_FILES);
}

/**
 * The longest the walk runs before it lets requests and edits in (formatting and symbols use the
 * same slices). A file of 100 rules takes about half a millisecond.
 */
const SLICE_MS = 10;

/** Lets pending I/O, requests and edit timers run before the next file. */
const yieldToEvents: () => Promise<void> = typeof setImmediate === 'function'
  ? () => new Promise((resolve) => setImmediate(resolve))
  : () => new Promise((resolve) => setTimeout(resolve, 0));

function childPath(dir: string, name: string): string {
  return dir.endsWith('/') ? `${dir}${name}` : `${dir}/${name}`;
}

function baseName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

type ReadResult = { text: string } | { error: unknown };

export class WorkspaceCheck {
  /** The policy files being followed (path -> URI published under), in the order found. */
  private files = new Map<string, string>();
  /** Files followed by an earlier run that the current one has not found again yet. */
  private stale = new Map<string, string>();
  /** Bumped to cancel the running walk. */
  private run = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** Bumped per path for each check, so that an older read does not publish over a newer one. */
  private readonly checks = new Map<string, number>();
  /** Files whose last publish had diagnostics (a file that can no longer be read has them cleared). */
  private readonly shown = new Set<string>();
  /** Log lines already written (a problem is said once, not per run). */
  private readonly logged = new Set<string>();
  private stopped = false;

  constructor(private readonly deps: WorkspaceCheckDeps) {}

  private get enabled(): boolean {
    const { host } = this.deps;
    return !this.stopped && !!host.readFile && !!host.listFolder && !!host.realPath && this.maxFiles > 0;
  }

  private get maxFiles(): number {
    return maxFilesOf(this.deps.maxFilesSetting());
  }

  /** The files whose diagnostics this checker publishes (for tests and logs). */
  followed(): string[] {
    return [...this.files.keys()];
  }

  /** Settings, folders or trust changed: every file is found and checked again (in the background, after the open documents). */
  restart(): void {
    if (this.stopped || !this.deps.host.listFolder) return;
    this.run++;
    if (this.timer) clearTimeout(this.timer);
    // A timer, not an immediate: the open documents' publishes, scheduled just before, go first.
    this.timer = setTimeout(() => {
      this.timer = undefined;
      const walking = this.enabled ? this.deps.walking?.() : undefined;
      void this.walk(this.run, walking).catch((err) => this.deps.log(`workspace diagnostics failed: ${err instanceof Error ? err.stack ?? err.message : String(err)}`)).finally(() => walking?.end());
    }, 0);
  }

  stop(): void {
    this.stopped = true;
    this.run++;
    if (this.timer) clearTimeout(this.timer);
  }

  /** `workspace/didChangeWatchedFiles`: a policy file created or changed is checked; one deleted is cleared. */
  filesChanged(changes: unknown): void {
    if (!this.enabled || !Array.isArray(changes)) return;
    for (const change of changes as Array<{ uri?: unknown; type?: unknown } | null>) {
      if (typeof change?.uri !== 'string') continue;
      const path = this.deps.host.uriToPath(change.uri);
      if (path === undefined || !this.inRoots(path)) continue;
      if (change.type === 3) this.deleted(path);
      else this.consider(path);
    }
  }

  /** An open document was closed: the file on disk is what counts again. */
  closed(uri: string): void {
    if (!this.enabled) return;
    const path = this.deps.host.uriToPath(uri);
    if (path !== undefined && this.inRoots(path)) this.consider(path);
  }

  private inRoots(path: string): boolean {
    return this.deps.roots().some((r) => relativePath(r, path) !== undefined);
  }

  /** A file that may be a policy file: checked when it is one and within the bound. */
  private consider(path: string): void {
    if (baseName(path) === PROJECT_CONFIG_FILE || !this.deps.isPolicyPath(path)) return;
    if (!this.files.has(path)) {
      if (this.files.size >= this.maxFiles) return;
      this.files.set(path, this.stale.get(path) ?? this.deps.host.pathToUri(path));
      this.stale.delete(path);
    }
    void this.check(path, this.read(path));
  }

  private deleted(path: string): void {
    // A folder deleted takes its files with it.
    for (const map of [this.files, this.stale]) {
      for (const [p, uri] of map) {
        if (p !== path && !p.startsWith(`${path}/`)) continue;
        map.delete(p);
        this.deps.dropped?.(uri);
        this.checks.set(p, (this.checks.get(p) ?? 0) + 1);
        if (!this.deps.isOpen(p)) this.send(p, uri, [], true);
      }
    }
  }

  /** The innermost workspace folder holding `path` (the one it must stay inside). */
  private rootOf(path: string): string | undefined {
    let best: string | undefined;
    for (const r of this.deps.roots()) if (relativePath(r, path) !== undefined && (best === undefined || r.length > best.length)) best = r;
    return best;
  }

  /** Reads a file through the host's resolver, confined to its workspace folder. */
  private read(path: string): Promise<ReadResult> {
    const within = this.rootOf(path);
    if (within === undefined) return Promise.resolve({ error: new FileProblem(path, 'it is outside the workspace folders') });
    return this.deps.host.readFile!(path, MAX_WORKSPACE_FILE_BYTES, within).then((text) => ({ text }), (error: unknown) => ({ error }));
  }

  /** Publishes the diagnostics of the file as read (unless it is open, no longer followed, or a newer check came). */
  private async check(path: string, reading: Promise<ReadResult>): Promise<void> {
    const n = (this.checks.get(path) ?? 0) + 1;
    this.checks.set(path, n);
    const result = await reading;
    const uri = this.files.get(path);
    if (this.checks.get(path) !== n || uri === undefined || this.stopped || this.deps.isOpen(path)) return;
    if ('error' in result) {
      const err = result.error;
      this.deps.dropped?.(uri);
      if (err instanceof FileProblem && err.code === 'ENOENT') {
        this.files.delete(path);
        this.send(path, uri, [], true);
        return;
      }
      this.logOnce(path, err instanceof FileProblem ? err.problem : err instanceof Error ? err.message : String(err));
      this.send(path, uri, []);
      return;
    }
    for (const key of this.logged) if (key.startsWith(`${path}\n`)) this.logged.delete(key);
    const doc = parsePolicyDocument(result.text, { fileName: path });
    this.deps.parsed?.(uri, doc);
    const diagnostics = policyDiagnostics(doc, this.deps.service(uri)).map((d) => toLspDiagnostic(doc, uri, d));
    // Empty too: the file was checked (a client sees that it is clean).
    this.send(path, uri, diagnostics, true);
  }

  /** Publishes; an empty list only where it clears something, unless `always`. */
  private send(path: string, uri: string, diagnostics: LspDiagnostic[], always = false): void {
    if (diagnostics.length > 0) this.shown.add(path);
    else if (!this.shown.delete(path) && !always) return;
    this.deps.publish(uri, diagnostics);
  }

  private logOnce(path: string, problem: string): void {
    const key = `${path}\n${problem}`;
    if (this.logged.has(key)) return;
    if (this.logged.size > 1000) this.logged.clear();
    this.logged.add(key);
    this.deps.log(`workspace diagnostics: ${path} not checked: ${problem}`);
  }

  /** Finds the policy files of every workspace folder, breadth first, checking each as it is found. */
  private async walk(run: number, walking?: { report(checked: number, found: number): void }): Promise<void> {
    for (const [p, uri] of this.files) this.stale.set(p, uri);
    this.files = new Map();
    const cancelled = () => run !== this.run;
    const started = Date.now();
    let sliceStart = started;
    let overflow = false;
    if (this.enabled) {
      const { host } = this.deps;
      const max = this.maxFiles;
      let entries = 0;
      for (const root of this.deps.roots()) {
        if (overflow) break;
        // A folder that cannot be resolved is not searched (its files could not be confined to it).
        try {
          await host.realPath!(root);
        } catch (err) {
          if (cancelled()) return;
          this.deps.log(`workspace diagnostics: folder ${root} not searched: ${err instanceof FileProblem ? err.problem : String(err)}`);
          continue;
        }
        const queue: Array<{ dir: string; depth: number }> = [{ dir: root, depth: 0 }];
        while (queue.length > 0 && !overflow) {
          const { dir, depth } = queue.shift()!;
          let list;
          try {
            list = await host.listFolder!(dir);
          } catch (err) {
            if (cancelled()) return;
            this.logOnce(dir, err instanceof FileProblem ? err.problem : String(err));
            continue;
          }
          if (cancelled()) return;
          entries += list.length;
          if (entries > MAX_ENTRIES) {
            this.deps.log(`workspace diagnostics: more than ${MAX_ENTRIES} files and folders in the workspace; the search stopped at ${dir}`);
            overflow = true;
            break;
          }
          list.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
          const found: string[] = [];
          for (const entry of list) {
            const path = childPath(dir, entry.name);
            if (entry.kind === 'folder') {
              if (SKIPPED_FOLDERS.has(entry.name)) continue;
              if (depth + 1 > MAX_FOLDER_DEPTH) this.logOnce(path, `more than ${MAX_FOLDER_DEPTH} folders deep`);
              else queue.push({ dir: path, depth: depth + 1 });
              continue;
            }
            if (entry.name === PROJECT_CONFIG_FILE || this.files.has(path) || !this.deps.isPolicyPath(path)) continue;
            if (entry.kind === 'other') {
              this.logOnce(path, 'it is not a regular file');
              continue;
            }
            // A link is read like any file (`read`): one that leads out of the folder is refused there.
            if (this.files.size + found.length >= max) {
              overflow = true;
              this.deps.log(`workspace diagnostics: more than ${max} policy files in the workspace; the first ${max} are checked (setting netpolicy.workspaceDiagnostics.maxFiles)`);
              break;
            }
            found.push(path);
          }
          // Each file is read while the one before it is checked.
          let next = found.length > 0 ? this.read(found[0]) : undefined;
          for (let i = 0; i < found.length; i++) {
            const path = found[i];
            const reading = next!;
            next = i + 1 < found.length ? this.read(found[i + 1]) : undefined;
            // A file created, changed or closed meanwhile was checked by that event.
            if (this.files.has(path)) continue;
            this.files.set(path, this.stale.get(path) ?? host.pathToUri(path));
            this.stale.delete(path);
            await this.check(path, reading);
            if (cancelled()) return;
            walking?.report(this.files.size, this.files.size + found.length - i - 1);
            // Files are checked in slices of SLICE_MS: a yield per file cost more than the checks.
            if (Date.now() - sliceStart >= SLICE_MS) {
              await yieldToEvents();
              if (cancelled()) return;
              sliceStart = Date.now();
            }
          }
        }
      }
    }
    if (cancelled()) return;
    // What the last run published and this one did not find (deleted, no longer a policy file, past the bound, turned off) is cleared.
    for (const [p, uri] of this.stale) {
      if (this.files.has(p)) continue;
      this.deps.dropped?.(uri);
      if (!this.deps.isOpen(p)) this.send(p, uri, [], true);
    }
    this.stale.clear();
    if (this.files.size > 0 || overflow) this.deps.log(`workspace diagnostics: ${this.files.size} policy files checked in ${Date.now() - started} ms`);
  }
}
