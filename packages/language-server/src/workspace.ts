/**
 * The workspace folders and what each one brings: its root, its project file
 * (`netpolicy.config.json`), the preset catalog, file patterns and traces in force there (the
 * project file under the editor settings), and the SBOMs beside its traces. Files named by
 * settings that could not be used are `problems` (file-problems.ts). Every file is read through
 * the host, confined to its folder in Restricted Mode (`session.confined`).
 *
 * Settings are applied as a whole (`applySettings`): each folder's settings are computed, then
 * swapped in at once, and `onApplied` fires (the open documents and the workspace check start
 * over). After `stop` (shutdown), reads in flight are dropped: nothing they found is applied.
 */
import { PROJECT_CONFIG_FILE, PresetCatalogError, SEVERITY_SETTINGS, defaultPresetCatalog, indexSbom, isPolicyFile, loadPresetCatalog, parsePolicyDocument, parseProjectConfig, type Policy, type PresetCatalog, type ProjectConfig, type SbomIndex, type SeverityOptions } from '@netpolicy/core';
import { usableGlobPatterns } from '@netpolicy/core/internal';
import type { ServiceSettings } from '@netpolicy/language-service';
import { Emitter } from 'vscode-languageserver';
import { FileProblems, MAX_LOGGED_PATHS, type FileRole } from './file-problems';
import { FileProblem, MAX_SETTINGS_FILE_BYTES, joinPath, relativePath, type ServerHost } from './host';
import type { Session } from './session';

/** A workspace folder's settings: its project file under the editor settings. */
export interface Folder {
  root: string;
  service: ServiceSettings;
  traces: string[];
  catalogPath?: string;
}

/** What a set of watched file changes touches (`filesChanged`). */
export type Touched = 'project file' | 'catalog' | 'traces' | undefined;

/** SBOMs beside traces are read whole, up to this size. */
const MAX_SBOM_BYTES = 64 * 1024 * 1024;

/**
 * Indexes kept of one SBOM, each for the sources of the policies evaluated against it (a folder's
 * policies rarely differ in their sources; an edit of a source URL makes a new one).
 */
const MAX_SBOM_INDEXES = 3;

const sourcesKeys = new WeakMap<object, string>();

/**
 * What attribution reads of a policy (its sources: their URLs are registries and Maven repository
 * bases), as one string: equal strings, equal indexes. `''` for a policy without sources.
 */
function sourcesKey(policy: Pick<Policy, 'sources'> | undefined): string {
  if (policy === undefined || policy === null || typeof policy !== 'object') return '';
  // Once per policy value, not once per trace of the folder.
  let key = sourcesKeys.get(policy);
  if (key === undefined) {
    const sources = policy.sources;
    sourcesKeys.set(policy, (key = Array.isArray(sources) && sources.length > 0 ? JSON.stringify(sources) : ''));
  }
  return key;
}

/** A path and each folder above it (`/a/b/c` → `/a/b/c`, `/a/b`, `/a`). */
function ancestry(path: string): string[] {
  const out = [path];
  for (let at = path.length; (at = path.lastIndexOf('/', at - 1)) > 0;) out.push(path.slice(0, at));
  return out;
}

export class Workspace {
  /** The workspace folders (paths). */
  roots: string[] = [];
  /** The settings in force in each workspace folder (a document takes its folder's; one outside them all, the first's). */
  folders: Folder[] = [];
  /** Bumped by each application of settings (a document's diagnostics under older settings are computed again). */
  generation = 0;
  /** Files named by settings or a project file that could not be used. */
  readonly problems: FileProblems;
  /** The project file of each workspace folder that has one (by folder path). */
  private readonly projects = new Map<string, { config: ProjectConfig; path: string }>();
  private filePatterns: { root: string; globs: string[] }[] = [];
  /** SBOMs beside traces, by path, then by the policy's sources (`sourcesKey`), as read and indexed (see sbomBeside). */
  private readonly sboms = new Map<string, Map<string, Promise<SbomIndex | undefined>>>();
  private stopped = false;
  private readonly applied = new Emitter<void>();
  private readonly problemsChanged = new Emitter<void>();

  constructor(private readonly host: ServerHost, private readonly session: Session) {
    this.problems = new FileProblems(
      { notify: (message) => session.warn(message), log: (message) => session.log(message) },
      () => this.problemsChanged.fire(),
    );
  }

  /** Settings were applied: every folder's settings are new. */
  get onApplied() {
    return this.applied.event;
  }

  /** The set of file problems changed (the project files on screen show them). */
  get onProblemsChanged() {
    return this.problemsChanged.event;
  }

  /** Shutdown: reads in flight are dropped, nothing more is applied. */
  stop(): void {
    this.stopped = true;
  }

  isConfigUri(uri: string): boolean {
    const path = this.host.uriToPath(uri);
    return path !== undefined && (path === PROJECT_CONFIG_FILE || path.endsWith(`/${PROJECT_CONFIG_FILE}`));
  }

  isPolicyUri(uri: string): boolean {
    const path = this.host.uriToPath(uri);
    if (path === undefined) return false;
    if (isPolicyFile(path)) return true;
    for (const { root, globs } of this.filePatterns) {
      const rel = relativePath(root, path);
      if (rel !== undefined && isPolicyFile(rel, globs)) return true;
      if (isPolicyFile(path.slice(path.lastIndexOf('/') + 1), globs.filter((g) => !g.includes('/')))) return true;
    }
    return false;
  }

  /** The folder a document belongs to: the innermost workspace folder holding it, else the first. */
  folderOf(uri: string): Folder {
    const path = this.host.uriToPath(uri);
    let best: Folder | undefined;
    if (path !== undefined) for (const f of this.folders) if (relativePath(f.root, path) !== undefined && (!best || f.root.length > best.root.length)) best = f;
    return best ?? this.folders[0] ?? { root: '/', service: { catalog: defaultPresetCatalog, severity: {}, client: this.session.client.features }, traces: [] };
  }

  /** Records a file that could not be used (a `FileProblem`, or what else reading it threw, in words). */
  fileProblem(role: FileRole, path: string, err: unknown): void {
    this.problems.report(role, path, err instanceof FileProblem ? err.problem : err instanceof Error ? err.message : String(err));
  }

  /** Workspace folders added or removed (URIs): their project files are read, and settings applied again. */
  async changeFolders(added: readonly string[], removed: readonly string[]): Promise<void> {
    const gone = new Set(removed.map((u) => this.host.uriToPath(u)));
    const next = this.roots.filter((r) => !gone.has(r));
    for (const u of added) {
      const path = this.host.uriToPath(u);
      if (path !== undefined && !next.includes(path)) next.push(path);
    }
    this.roots = next;
    await this.loadProjectConfig();
    await this.applySettings();
  }

  /**
   * Watched files changed (paths): SBOMs among them are forgotten; says what else they touch (a
   * project file: read them again; a catalog: apply settings again; traces: evaluate them again).
   */
  filesChanged(paths: readonly string[]): Touched {
    if (paths.some((p) => p.endsWith(`/${PROJECT_CONFIG_FILE}`))) return 'project file';
    const sbomChanged = paths.filter((p) => /\.cdx\.json$/i.test(p));
    for (const p of sbomChanged) this.sboms.delete(p);
    // A trace entry (a file, or a folder holding the file), looked up by the path and its folders: linear in entries and changes.
    const traced = sbomChanged.length > 0 ? undefined : new Set(this.folders.flatMap((f) => f.traces.map((t) => t.replace(/\/$/, ''))));
    const touchesTraces = !traced || paths.some((p) => ancestry(p).some((a) => traced.has(a)));
    if (paths.some((p) => this.folders.some((f) => f.catalogPath === p))) return 'catalog';
    return touchesTraces ? 'traces' : undefined;
  }

  /** Reads the project file of every workspace folder. */
  async loadProjectConfig(): Promise<void> {
    this.projects.clear();
    if (!this.host.readFile) return;
    const release = this.problems.hold();
    try {
      for (const root of this.roots) {
        if (this.stopped) return;
        await this.loadProjectConfigOf(root);
      }
    } finally {
      release();
    }
  }

  /** Reads the project file of the folder `root`; in Restricted Mode only when it stays inside the folder (no link out of it). */
  private async loadProjectConfigOf(root: string): Promise<void> {
    const path = joinPath(root, PROJECT_CONFIG_FILE);
    let text: string;
    try {
      text = await this.host.readFile!(path, MAX_SETTINGS_FILE_BYTES, this.session.confined(root));
      this.problems.clear(path);
    } catch (err) {
      // No project file is the common case; anything else there (a FIFO, a folder, 40 MB, a link out of the folder) is said.
      if (!(err instanceof FileProblem && err.code === 'ENOENT')) this.fileProblem('project file', path, err);
      return;
    }
    if (this.stopped) return;
    const { config, diagnostics } = parseProjectConfig(text, path);
    this.projects.set(root, { config, path });
    const errors = diagnostics.filter((d) => d.severity === 'error');
    if (errors.length > 0) {
      const doc = parsePolicyDocument(text, { fileName: path, jsonc: true });
      const first = errors[0];
      const at = doc.lineIndex.positionAt(first.offset);
      this.session.showError(`netpolicy: ${path}:${at.line + 1}:${at.character + 1}: ${first.message}${errors.length > 1 ? ` (and ${errors.length - 1} more)` : ''}; those members are ignored.`);
    }
  }

  /** Editor settings override each folder's project file, member by member (severity code by code). */
  async applySettings(): Promise<void> {
    // The file problems of one application are said together.
    const release = this.problems.hold();
    try {
      await this.applySettingsHeld();
    } finally {
      release();
    }
  }

  private async applySettingsHeld(): Promise<void> {
    const { editorSettings } = this.session;
    const list = (v: unknown): string[] | undefined => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string' && x.length > 0) : undefined);
    const editorPatterns = list(editorSettings.filePatterns);
    const editorTraces = list(editorSettings.traces);
    const editorSeverity = editorSettings.severity;
    const catalogs = new Map<string | undefined, Promise<PresetCatalog>>();
    const nextFolders: Folder[] = [];
    const nextPatterns: { root: string; globs: string[] }[] = [];
    // Without a workspace folder, the project file of the first folder (none) and paths from `/`.
    for (const root of this.roots.length > 0 ? this.roots : ['/']) {
      if (this.stopped) return;
      const cfg = this.projects.get(root)?.config;
      const catalogPath = typeof editorSettings.presetCatalog === 'string' && editorSettings.presetCatalog ? joinPath(root, editorSettings.presetCatalog) : cfg?.presetCatalog;
      if (!catalogs.has(catalogPath)) catalogs.set(catalogPath, this.readCatalog(catalogPath, root));
      const catalog = await catalogs.get(catalogPath)!;
      const severity: SeverityOptions = { ...(cfg?.severity ?? {}) };
      if (editorSeverity && typeof editorSeverity === 'object') {
        for (const [code, level] of Object.entries(editorSeverity)) {
          if ((SEVERITY_SETTINGS as readonly unknown[]).includes(level)) Object.defineProperty(severity, code, { value: level, enumerable: true, configurable: true, writable: true });
        }
      }
      if (editorPatterns?.length) {
        // A pattern that cannot be matched (too many {} alternatives, past the bound in all) is left out, said once; the others still apply.
        const { usable, problems: left } = usableGlobPatterns(editorPatterns);
        if (left.length > 0) this.patternProblems(left.map((p) => `netpolicy.filePatterns${p.pattern === undefined ? '' : `.${p.pattern}`}: ${p.message}`));
        if (usable.length) nextPatterns.push({ root, globs: usable });
      } else if (cfg?.filePatterns?.length) nextPatterns.push({ root: cfg.root, globs: cfg.filePatterns });
      const traces = editorTraces ? editorTraces.map((t) => joinPath(root, t)) : cfg?.traces ?? [];
      nextFolders.push({ root, service: { catalog, severity, client: this.session.client.features }, traces, catalogPath });
    }
    if (this.stopped) return;
    this.folders = nextFolders;
    this.filePatterns = nextPatterns;
    this.sboms.clear();
    this.generation++;
    this.applied.fire();
  }

  /**
   * Patterns of `netpolicy.filePatterns` left out: the ones not said before, in one notification
   * (the first, and how many more) and at most MAX_LOGGED_PATHS log lines.
   */
  private patternProblems(messages: string[]): void {
    const { session } = this;
    const fresh = messages.filter((m) => !session.saidBefore(m));
    if (fresh.length === 0) return;
    for (const m of fresh) session.firstTime(m);
    session.warn(fresh.length === 1 ? fresh[0] : `${fresh[0]} (and ${fresh.length - 1} more patterns left out: see the output)`);
    for (const m of fresh.slice(0, MAX_LOGGED_PATHS)) session.log(m);
    if (fresh.length > MAX_LOGGED_PATHS) session.log(`netpolicy.filePatterns: ... and ${fresh.length - MAX_LOGGED_PATHS} more patterns left out`);
  }

  private async readCatalog(path: string | undefined, root: string): Promise<PresetCatalog> {
    if (!path || !this.host.readFile || this.stopped) return defaultPresetCatalog;
    if (!this.session.trusted) {
      this.session.logOnce(`the workspace is not trusted: preset catalog ${path} not read (the built-in presets apply)`);
      return defaultPresetCatalog;
    }
    let text: string;
    try {
      text = await this.host.readFile(path, MAX_SETTINGS_FILE_BYTES, this.session.confined(root));
    } catch (err) {
      this.fileProblem('preset catalog', path, err);
      return defaultPresetCatalog;
    }
    if (this.stopped) return defaultPresetCatalog;
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch {
      // JSON.parse's message quotes the text: the problem is named, the content never shown.
      this.problems.report('preset catalog', path, 'it is not valid JSON');
      return defaultPresetCatalog;
    }
    try {
      const catalog = loadPresetCatalog(data, path);
      this.problems.clear(path);
      return catalog;
    } catch (err) {
      const message = err instanceof PresetCatalogError ? err.message.replace(`${path}: `, '') : 'it is not a preset catalog';
      this.problems.report('preset catalog', path, message);
      return defaultPresetCatalog;
    }
  }

  /**
   * The SBOM saved beside a trace (`NAME.cdx.json` beside `NAME.json`, as Fetch Job Trace saves it), indexed: the
   * denials then name the components they fetched. Absent, unreadable or not JSON: none (a log line once).
   * `policy`: the policy evaluated, whose sources' URLs attribution reads as registries and Maven
   * repository bases (core's `indexSbom(sbom, { policy })`).
   */
  sbomBeside(trace: string, within: string | undefined, policy?: Pick<Policy, 'sources'>): Promise<SbomIndex | undefined> {
    if (!this.host.readFile || !this.session.trusted || !/\.json$/i.test(trace) || /\.cdx\.json$/i.test(trace)) return Promise.resolve(undefined);
    const path = trace.replace(/\.json$/i, '.cdx.json');
    // Read and indexed once per set of sources, not on every re-evaluation after an edit (an
    // edit of a rule leaves the sources as they were); a watched change to the file forgets it.
    let indexes = this.sboms.get(path);
    if (!indexes) this.sboms.set(path, (indexes = new Map()));
    const key = sourcesKey(policy);
    let found = indexes.get(key);
    if (found) {
      // The most recently used last: the first is the one to forget.
      indexes.delete(key);
      indexes.set(key, found);
      return found;
    }
    if (indexes.size >= MAX_SBOM_INDEXES) indexes.delete(indexes.keys().next().value!);
    indexes.set(key, (found = this.readSbom(path, within, key === '' ? undefined : policy)));
    return found;
  }

  private async readSbom(path: string, within: string | undefined, policy: Pick<Policy, 'sources'> | undefined): Promise<SbomIndex | undefined> {
    if (!this.host.readFile) return undefined;
    let text: string;
    try {
      text = await this.host.readFile(path, MAX_SBOM_BYTES, within);
    } catch (err) {
      // Most traces have no SBOM beside them: only a file that is there but cannot be used is said.
      if (err instanceof FileProblem && !/no such file|not found|does not exist|ENOENT/i.test(err.problem)) this.session.logOnce(`SBOM ${path} not used: ${err.problem}`);
      return undefined;
    }
    try {
      return indexSbom(JSON.parse(text), { policy });
    } catch {
      this.session.logOnce(`SBOM ${path} not used: not JSON`);
      return undefined;
    }
  }
}
