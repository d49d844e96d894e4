/**
 * The LSP wiring: looks documents up, keeps one parse and one validation per version, and calls
 * the language service. Diagnostics are debounced and versioned (one complete publish per settled
 * version, never a stale one); work for a closed document is dropped; requests honour
 * cancellation. Settings come from `workspace/configuration` (section `netpolicy`) over the
 * project file `netpolicy.config.json`.
 */
import {
  LINT_CODES, LineIndex, PROJECT_CONFIG_FILE, PresetCatalogError, SEVERITY_SETTINGS, explain, indexSbom, isPolicyFile, loadPresetCatalog, parsePolicyDocument, parseProjectConfig, defaultPresetCatalog, usableGlobPatterns,
  type Diagnostic, type PolicyDocument, type Position, type PresetCatalog, type ProjectConfig, type SbomIndex, type SeverityOptions, type Policy,
} from '@netpolicy/core';
import {
  FIX_ALL_KIND, addResult, doComplete, doHover, documentSymbolSteps, emptyUsage, findDocumentLinks, formatSteps, FORMAT_REFUSED, getCodeActions,
  getFoldingRanges, getSelectionRanges, policyDiagnostics, toLspDiagnostic, traceCodeLenses, unusedRuleHints,
  type ClientFeatures, type ServiceSettings, type TraceUsage,
} from '@netpolicy/language-service';
import {
  CodeActionKind, DidChangeConfigurationNotification, DidChangeWatchedFilesNotification, ErrorCodes, LSPErrorCodes, ResponseError, TextDocumentSyncKind, TextDocuments,
  type CancellationToken, type CodeAction, type Command, type Connection, type Diagnostic as LspDiagnostic, type FormattingOptions, type InitializeParams, type InitializeResult,
  type Range, type TextEdit, type WorkspaceEdit,
} from 'vscode-languageserver';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { FileProblems, MAX_LOGGED_PATHS, type FileRole } from './file-problems';
import { checkParams } from './params';
import { FileProblem, MAX_SETTINGS_FILE_BYTES, joinPath, relativePath, type ServerHost } from './host';
import {
  DenialsRequestMethod, WorkspaceTrustNotificationMethod,
  type DenialsParams, type DenialsResult, type NetpolicyInitializationOptions, type NetpolicySettings, type WorkspaceTrustParams,
} from './protocol';
import { guardMessages } from './sink';
import { WorkspaceCheck } from './workspace-check';

/** Work done in slices (formatting, symbols) reads the server's other messages after this long (ms). */
export const SLICE_MS = 10;
/** Quiet time after an edit before validating (a burst of keystrokes is validated once). */
export const DEBOUNCE_MS = 30;
/** How long to wait for the client's answer to workspace/configuration. */
const CONFIGURATION_TIMEOUT_MS = 2000;
/**
 * The command a code action becomes for a client without `codeActionLiteralSupport`: its
 * arguments are the document's URI, the version the edit was computed for, and the WorkspaceEdit.
 */
export const APPLY_EDIT_COMMAND = 'netpolicy.server.applyEdit';
/** Quiet time after an edit before re-evaluating traces (heavier, less urgent). */
export const TRACE_DEBOUNCE_MS = 500;

interface Entry {
  version: number;
  doc?: PolicyDocument;
  core?: Diagnostic[];
  /** The settings generation `core` was computed under. */
  generation: number;
  timer?: ReturnType<typeof setTimeout>;
  traceTimer?: ReturnType<typeof setTimeout>;
  /** Trace usage, and the version it was computed for. */
  usage?: TraceUsage;
  usageVersion?: number;
  /** Bumped to cancel a running trace evaluation. */
  traceRun: number;
  /** When the last change arrived (ms). */
  lastChange: number;
}

class Cancelled extends Error {}

/** Lint findings do not stop trace evaluation (a severity override may make one an error); a policy that is not valid does. */
const LINT = new Set<string>(LINT_CODES);

/** A workspace folder's settings: its project file under the editor settings. */
interface Folder {
  root: string;
  service: ServiceSettings;
  traces: string[];
  catalogPath?: string;
}

/**
 * Positions from the TextDocument's own line offsets, which it updates incrementally with each
 * change: no new line index per version (~4 ms on a 2 MB policy).
 */
class DocumentLines extends LineIndex {
  constructor(private readonly td: TextDocument) {
    super(td.getText());
  }
  override positionAt(offset: number): Position {
    return this.td.positionAt(offset);
  }
  override offsetAt(position: Position): number {
    return this.td.offsetAt(position);
  }
}

/** SBOMs beside traces are read whole, up to this size. */
const MAX_SBOM_BYTES = 64 * 1024 * 1024;

/** The first few of a long list of paths, and how many more (a log line for 100,000 traces stays a line). */
function listed(paths: readonly string[], shown = 3): string {
  return paths.length <= shown ? paths.join(', ') : `${paths.slice(0, shown).join(', ')} and ${paths.length - shown} more`;
}

/** A path and each folder above it (`/a/b/c` → `/a/b/c`, `/a/b`, `/a`). */
function ancestry(path: string): string[] {
  const out = [path];
  for (let at = path.length; (at = path.lastIndexOf('/', at - 1)) > 0;) out.push(path.slice(0, at));
  return out;
}

/** Fire-and-forget a message to the client: a connection closed meanwhile is not an error worth more than silence. */
function notify(sent: PromiseLike<unknown> | void): void {
  if (sent && typeof (sent as Promise<unknown>).then === 'function') (sent as Promise<unknown>).then(undefined, () => undefined);
}

/**
 * Runs the netpolicy language server on a connection you made (and have not started listening on):
 * it registers every handler, then listens. `host` is its access to the environment: files in
 * Node, URIs alone in a browser (`uriOnlyHost`). The Node and browser entries are this call on
 * their own connections.
 */
export function startServer(connection: Connection, host: ServerHost): void {
  // Every log line and notification from here on is escaped and cut (sink.ts).
  guardMessages(connection);
  const documents = new TextDocuments(TextDocument);
  const entries = new Map<string, Entry>();
  /** Documents whose last publish had diagnostics (a document that stops being a policy file gets them cleared). */
  const publishedNonEmpty = new Set<string>();
  let roots: string[] = [];
  let editorSettings: NetpolicySettings = {};
  /** The project file of each workspace folder that has one (by folder path). */
  const projects = new Map<string, { config: ProjectConfig; path: string }>();
  /** The settings in force in each workspace folder (a document takes its folder's; one outside them all, the first's). */
  let folders: Folder[] = [];
  let filePatterns: { root: string; globs: string[] }[] = [];
  let generation = 0;
  let canPullConfiguration = false;
  /** The client said it answers workspace/configuration (else it is asked without waiting, and a null answer changes nothing). */
  let configurationAdvertised = false;
  let canRegisterConfiguration = false;
  let codeActionLiterals = true;
  let client: ClientFeatures | undefined;
  /** After `shutdown`, every request but `exit` is an InvalidRequest (LSP). */
  let shutDown = false;
  let initializeSeen = false;
  let canFollowFolders = false;
  let canRefreshLenses = false;
  let canWatchFiles = false;
  /** False until the first settings (editor and project file) are applied: no publish under defaults that are about to change. */
  let settingsReady = false;
  /**
   * Whether the editor trusts the workspace (initializationOptions.workspaceTrusted, then
   * netpolicy/workspaceTrust). Untrusted: no path from settings or a project file is read.
   */
  let trusted = true;
  /** Log lines written once (paths left unread in an untrusted workspace). */
  const loggedOnce = new Set<string>();

  /**
   * In Restricted Mode a workspace file is read only when it is inside its workspace folder once
   * every symbolic link is resolved (host.ts, `within`); in a trusted one the user chose the paths.
   */
  const confined = (root: string): string | undefined => (trusted ? undefined : root);

  /** Logs to the client (escaped and cut by sink.ts); a connection already closed swallows it (logging must never throw). */
  const log = (message: string, error = false) => {
    try {
      if (error) connection.console.error(`[netpolicy] ${message}`);
      else connection.console.log(`[netpolicy] ${message}`);
    } catch {
      // closed connection
    }
  };

  const logOnce = (message: string) => {
    if (loggedOnce.has(message)) return;
    loggedOnce.add(message);
    log(message);
  };

  const problems = new FileProblems(
    { notify: (message) => notify(connection.window.showWarningMessage(message)), log },
    // The project files on screen show the problems of the files they name.
    () => { if (settingsReady) for (const td of documents.all()) if (isConfigUri(td.uri)) schedule(td.uri, 0); },
  );

  /** Records a file that could not be used (a `FileProblem`, or what else reading it threw, in words). */
  function fileProblem(role: FileRole, path: string, err: unknown): void {
    problems.report(role, path, err instanceof FileProblem ? err.problem : err instanceof Error ? err.message : String(err));
  }

  /** Runs a handler; an exception is logged and answered with `fallback` (the server never dies of one). */
  function guard<T>(what: string, fallback: T, fn: () => T): T {
    try {
      return fn();
    } catch (e) {
      if (e instanceof Cancelled) return fallback;
      log(`${what} failed: ${e instanceof Error ? e.stack ?? e.message : String(e)}`, true);
      return fallback;
    }
  }

  function isConfigUri(uri: string): boolean {
    const path = host.uriToPath(uri);
    return path !== undefined && (path === PROJECT_CONFIG_FILE || path.endsWith(`/${PROJECT_CONFIG_FILE}`));
  }

  function isPolicyUri(uri: string): boolean {
    const path = host.uriToPath(uri);
    if (path === undefined) return false;
    if (isPolicyFile(path)) return true;
    for (const { root, globs } of filePatterns) {
      const rel = relativePath(root, path);
      if (rel !== undefined && isPolicyFile(rel, globs)) return true;
      if (isPolicyFile(path.slice(path.lastIndexOf('/') + 1), globs.filter((g) => !g.includes('/')))) return true;
    }
    return false;
  }

  /** The folder a document belongs to: the innermost workspace folder holding it, else the first. */
  function folderOf(uri: string): Folder {
    const path = host.uriToPath(uri);
    let best: Folder | undefined;
    if (path !== undefined) for (const f of folders) if (relativePath(f.root, path) !== undefined && (!best || f.root.length > best.root.length)) best = f;
    return best ?? folders[0] ?? { root: '/', service: { catalog: defaultPresetCatalog, severity: {}, client }, traces: [] };
  }

  function entryOf(uri: string): Entry {
    let e = entries.get(uri);
    if (!e) entries.set(uri, (e = { version: -1, generation: -1, traceRun: 0, lastChange: 0 }));
    return e;
  }

  /** The parsed document of the current version (parsed once per version). */
  function parsed(uri: string): PolicyDocument | undefined {
    const td = documents.get(uri);
    if (!td || !isPolicyUri(uri)) return undefined;
    const e = entryOf(uri);
    if (e.version !== td.version || !e.doc) {
      e.version = td.version;
      e.doc = parsePolicyDocument(td.getText(), { fileName: host.uriToPath(uri) ?? uri, lineIndex: new DocumentLines(td) });
      e.core = undefined;
    }
    return e.doc;
  }

  /** The core diagnostics of the current version under the current settings (computed once). */
  function coreDiagnostics(uri: string): Diagnostic[] {
    const doc = parsed(uri);
    if (!doc) return [];
    const e = entryOf(uri);
    if (!e.core || e.generation !== generation) {
      e.core = policyDiagnostics(doc, folderOf(uri).service);
      e.generation = generation;
    }
    return e.core;
  }

  function publish(uri: string): void {
    const td = documents.get(uri);
    if (!td) return;
    guard('validation', undefined, () => {
      if (isConfigUri(uri)) {
        const path = host.uriToPath(uri) ?? uri;
        const text = td.getText();
        const doc = parsePolicyDocument(text, { fileName: path, jsonc: true });
        const { config, diagnostics: found } = parseProjectConfig(text, path);
        const diagnostics = found.map((d) => toLspDiagnostic(doc, uri, d));
        diagnostics.push(...problems.configDiagnostics(doc, config));
        notify(connection.sendDiagnostics({ uri, version: td.version, diagnostics }));
        return;
      }
      const doc = parsed(uri);
      if (!doc) {
        // Not (or no longer) a policy file: nothing, or clear what an earlier publish left.
        if (publishedNonEmpty.delete(uri)) notify(connection.sendDiagnostics({ uri, version: td.version, diagnostics: [] }));
        return;
      }
      const e = entryOf(uri);
      const following = tracesFollowed(uri);
      if (!trusted && folderOf(uri).traces.length > 0) logOnce(`the workspace is not trusted: traces ${listed(folderOf(uri).traces)} not read`);
      if (!following && e.usage) {
        // No trace in force any more (settings cleared, workspace not trusted): no lens or hint from the last ones.
        e.usage = undefined;
        e.usageVersion = undefined;
        e.traceRun++;
        refreshLenses();
      }
      const diagnostics: LspDiagnostic[] = coreDiagnostics(uri).map((d) => toLspDiagnostic(doc, uri, d));
      if (e.usage && e.usageVersion === td.version && !doc.syntaxFailed) diagnostics.push(...unusedRuleHints(doc, uri, e.usage));
      notify(connection.sendDiagnostics({ uri, version: td.version, diagnostics }));
      if (diagnostics.length > 0) publishedNonEmpty.add(uri);
      else publishedNonEmpty.delete(uri);
      if (following && e.usageVersion !== td.version) scheduleTraces(uri);
    });
  }

  /** Whether traces are evaluated for a document: some are configured for its folder, and the workspace is trusted. */
  function tracesFollowed(uri: string): boolean {
    return trusted && folderOf(uri).traces.length > 0;
  }

  function refreshLenses(): void {
    if (canRefreshLenses) void connection.sendRequest('workspace/codeLens/refresh').catch(() => undefined);
  }

  function schedule(uri: string, delay = DEBOUNCE_MS): void {
    const e = entryOf(uri);
    if (e.timer) clearTimeout(e.timer);
    e.timer = setTimeout(() => {
      e.timer = undefined;
      // Before the settings are known, nothing is published (applySettings schedules every document).
      if (settingsReady) publish(uri);
    }, delay);
  }

  function scheduleTraces(uri: string): void {
    const e = entryOf(uri);
    if (e.traceTimer) clearTimeout(e.traceTimer);
    e.traceTimer = setTimeout(() => {
      e.traceTimer = undefined;
      void evaluateTraces(uri);
    }, TRACE_DEBOUNCE_MS);
  }

  /** Explains every configured trace against the current version; dropped when a newer version or a close comes first. */
  async function evaluateTraces(uri: string): Promise<void> {
    const td = documents.get(uri);
    const doc = parsed(uri);
    if (!td || !doc || !host.listTraceFiles || !host.readChunks || !tracesFollowed(uri)) return;
    const e = entryOf(uri);
    const run = ++e.traceRun;
    const version = td.version;
    const stale = () => e.traceRun !== run || documents.get(uri)?.version !== version || entries.get(uri) !== e || !trusted;
    // A policy that is not valid is not evaluated (as `netpolicy explain`); lint findings, whatever their severity, do not stop it.
    if (doc.syntaxFailed || coreDiagnostics(uri).some((d) => d.severity === 'error' && !LINT.has(d.code))) return;
    const usage = emptyUsage();
    const folder = folderOf(uri);
    const within = confined(folder.root);
    // The file problems of this evaluation are said together (100,000 missing traces: one notification).
    const release = problems.hold();
    let invalid: TraceUsage['errors'];
    try {
      invalid = await evaluateTracesOf(doc, folder, within, usage, stale);
    } finally {
      release();
    }
    if (stale()) return;
    // Files that could not be used were said by `problems` (once); traces not valid are said here, in a bounded number of lines.
    for (const err of invalid.slice(0, MAX_LOGGED_PATHS)) log(`trace ${err.trace}: ${err.message}`);
    if (invalid.length > MAX_LOGGED_PATHS) log(`... and ${invalid.length - MAX_LOGGED_PATHS} more traces not valid (netpolicy/denials lists them)`);
    e.usage = usage;
    e.usageVersion = version;
    publish(uri);
    refreshLenses();
  }

  /**
   * Explains each trace of `folder` against `doc` into `usage` (returns early once `stale`);
   * returns the errors of traces that were read but are not valid traces.
   */
  async function evaluateTracesOf(doc: PolicyDocument, folder: Folder, within: string | undefined, usage: TraceUsage, stale: () => boolean): Promise<TraceUsage['errors']> {
    const invalid: TraceUsage['errors'] = [];
    if (!host.listTraceFiles || !host.readChunks) return invalid;
    const failed = (trace: string, err: unknown) => {
      const error = { trace, message: err instanceof FileProblem ? err.problem : err instanceof Error ? err.message : String(err) };
      usage.errors.push(error);
      // A file opened fine but not a valid trace is the trace's business (the log, `errors`), not a file problem.
      if (err instanceof FileProblem) fileProblem('trace', err.path, err);
      else {
        invalid.push(error);
        problems.clear(trace);
      }
    };
    let sliceStart = Date.now();
    for (const t of folder.traces) {
      // 100,000 entries are worked through in slices: edits, requests and publishes go in between.
      if (Date.now() - sliceStart >= SLICE_MS) {
        await new Promise((resolve) => setTimeout(resolve, 0));
        if (stale()) return invalid;
        sliceStart = Date.now();
      }
      let files: string[];
      try {
        files = await host.listTraceFiles(t);
      } catch (err) {
        if (stale()) return invalid;
        failed(t, err);
        continue;
      }
      if (files.length !== 1 || files[0] !== t) problems.clear(t);
      for (const file of files) {
        if (stale()) return invalid;
        try {
          const sbom = await sbomBeside(file, within);
          if (stale()) return invalid;
          await explain(doc.value as Policy, host.readChunks(file, within), {
            catalog: folder.service.catalog, keep: false,
            onResult: (r) => {
              if (stale()) throw new Cancelled();
              addResult(usage, file, r, sbom);
            },
          });
          usage.traces.push(file);
          problems.clear(file);
        } catch (err) {
          if (err instanceof Cancelled || stale()) return invalid;
          failed(file, err);
        }
      }
    }
    return invalid;
  }

  /** SBOMs beside traces, by path, as read (see sbomBeside). */
  const sboms = new Map<string, Promise<SbomIndex | undefined>>();

  /**
   * The SBOM saved beside a trace (`NAME.cdx.json` beside `NAME.json`, as Fetch Job Trace saves it), indexed: the
   * denials then name the components they fetched. Absent, unreadable or not JSON: none (a log line once).
   */
  function sbomBeside(trace: string, within: string | undefined): Promise<SbomIndex | undefined> {
    if (!host.readFile || !trusted || !/\.json$/i.test(trace) || /\.cdx\.json$/i.test(trace)) return Promise.resolve(undefined);
    const path = trace.replace(/\.json$/i, '.cdx.json');
    // Read and indexed once, not on every re-evaluation after an edit; a watched change to it forgets it.
    let found = sboms.get(path);
    if (!found) sboms.set(path, (found = readSbom(path, within)));
    return found;
  }

  async function readSbom(path: string, within: string | undefined): Promise<SbomIndex | undefined> {
    if (!host.readFile) return undefined;
    let text: string;
    try {
      text = await host.readFile(path, MAX_SBOM_BYTES, within);
    } catch (err) {
      // Most traces have no SBOM beside them: only a file that is there but cannot be used is said.
      if (err instanceof FileProblem && !/no such file|not found|does not exist|ENOENT/i.test(err.problem)) logOnce(`SBOM ${path} not used: ${err.problem}`);
      return undefined;
    }
    try {
      return indexSbom(JSON.parse(text));
    } catch {
      logOnce(`SBOM ${path} not used: not JSON`);
      return undefined;
    }
  }

  async function readCatalog(path: string | undefined, root: string): Promise<PresetCatalog> {
    if (!path || !host.readFile) return defaultPresetCatalog;
    if (!trusted) {
      logOnce(`the workspace is not trusted: preset catalog ${path} not read (the built-in presets apply)`);
      return defaultPresetCatalog;
    }
    let text: string;
    try {
      text = await host.readFile(path, MAX_SETTINGS_FILE_BYTES, confined(root));
    } catch (err) {
      fileProblem('preset catalog', path, err);
      return defaultPresetCatalog;
    }
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch {
      // JSON.parse's message quotes the text: the problem is named, the content never shown.
      problems.report('preset catalog', path, 'it is not valid JSON');
      return defaultPresetCatalog;
    }
    try {
      const catalog = loadPresetCatalog(data, path);
      problems.clear(path);
      return catalog;
    } catch (err) {
      const message = err instanceof PresetCatalogError ? err.message.replace(`${path}: `, '') : 'it is not a preset catalog';
      problems.report('preset catalog', path, message);
      return defaultPresetCatalog;
    }
  }

  /** Reads the project file of every workspace folder. */
  async function loadProjectConfig(): Promise<void> {
    projects.clear();
    if (!host.readFile) return;
    const release = problems.hold();
    try {
      for (const root of roots) await loadProjectConfigOf(root);
    } finally {
      release();
    }
  }

  /** Reads the project file of the folder `root`; in Restricted Mode only when it stays inside the folder (no link out of it). */
  async function loadProjectConfigOf(root: string): Promise<void> {
    const path = joinPath(root, PROJECT_CONFIG_FILE);
    let text: string;
    try {
      text = await host.readFile!(path, MAX_SETTINGS_FILE_BYTES, confined(root));
      problems.clear(path);
    } catch (err) {
      // No project file is the common case; anything else there (a FIFO, a folder, 40 MB, a link out of the folder) is said.
      if (!(err instanceof FileProblem && err.code === 'ENOENT')) fileProblem('project file', path, err);
      return;
    }
    const { config, diagnostics } = parseProjectConfig(text, path);
    projects.set(root, { config, path });
    const errors = diagnostics.filter((d) => d.severity === 'error');
    if (errors.length > 0) {
      const doc = parsePolicyDocument(text, { fileName: path, jsonc: true });
      const first = errors[0];
      const at = doc.lineIndex.positionAt(first.offset);
      notify(connection.window.showErrorMessage(`netpolicy: ${path}:${at.line + 1}:${at.character + 1}: ${first.message}${errors.length > 1 ? ` (and ${errors.length - 1} more)` : ''}; those members are ignored.`));
    }
  }

  /** Asks the client for the `netpolicy` section; true when the editor settings changed. */
  async function pullEditorSettings(): Promise<boolean> {
    if (!canPullConfiguration || shutDown) return false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      const value = await Promise.race([
        connection.workspace.getConfiguration({ section: 'netpolicy' }),
        new Promise<undefined>((resolve) => { timer = setTimeout(() => resolve(undefined), CONFIGURATION_TIMEOUT_MS); }),
      ]);
      if (value === undefined) return false;
      // A client that never said it answers (Neovim 0.7 does, from its `settings`) may answer null
      // for "I have none": that keeps what initializationOptions or a push gave.
      if ((value === null || typeof value !== 'object') && !configurationAdvertised) return false;
      const next = value && typeof value === 'object' ? (value as NetpolicySettings) : {};
      const changed = JSON.stringify(next) !== JSON.stringify(editorSettings);
      editorSettings = next;
      return changed;
    } catch (err) {
      if (configurationAdvertised) log(`workspace/configuration failed: ${err instanceof Error ? err.message : String(err)}`);
      return false;
    } finally {
      if (timer) clearTimeout(timer);
    }
  }

  /** Editor settings override each folder's project file, member by member (severity code by code). */
  async function applySettings(): Promise<void> {
    // The file problems of one application are said together.
    const release = problems.hold();
    try {
      await applySettingsHeld();
    } finally {
      release();
    }
  }

  async function applySettingsHeld(): Promise<void> {
    const list = (v: unknown): string[] | undefined => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string' && x.length > 0) : undefined);
    const editorPatterns = list(editorSettings.filePatterns);
    const editorTraces = list(editorSettings.traces);
    const editorSeverity = editorSettings.severity;
    const catalogs = new Map<string | undefined, Promise<PresetCatalog>>();
    const nextFolders: Folder[] = [];
    const nextPatterns: { root: string; globs: string[] }[] = [];
    // Without a workspace folder, the project file of the first folder (none) and paths from `/`.
    for (const root of roots.length > 0 ? roots : ['/']) {
      const cfg = projects.get(root)?.config;
      const catalogPath = typeof editorSettings.presetCatalog === 'string' && editorSettings.presetCatalog ? joinPath(root, editorSettings.presetCatalog) : cfg?.presetCatalog;
      if (!catalogs.has(catalogPath)) catalogs.set(catalogPath, readCatalog(catalogPath, root));
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
        if (left.length > 0) patternProblems(left.map((p) => `netpolicy.filePatterns${p.pattern === undefined ? '' : `.${p.pattern}`}: ${p.message}`));
        if (usable.length) nextPatterns.push({ root, globs: usable });
      } else if (cfg?.filePatterns?.length) nextPatterns.push({ root: cfg.root, globs: cfg.filePatterns });
      const traces = editorTraces ? editorTraces.map((t) => joinPath(root, t)) : cfg?.traces ?? [];
      nextFolders.push({ root, service: { catalog, severity, client }, traces, catalogPath });
    }
    folders = nextFolders;
    filePatterns = nextPatterns;
    sboms.clear();
    generation++;
    for (const e of entries.values()) e.usageVersion = undefined;
    for (const td of documents.all()) schedule(td.uri, 0);
    workspaceCheck.restart();
  }

  /**
   * Patterns of `netpolicy.filePatterns` left out: the ones not said before, in one notification
   * (the first, and how many more) and at most MAX_LOGGED_PATHS log lines.
   */
  function patternProblems(messages: string[]): void {
    const fresh = messages.filter((m) => !loggedOnce.has(m));
    if (fresh.length === 0) return;
    for (const m of fresh) loggedOnce.add(m);
    notify(connection.window.showWarningMessage(fresh.length === 1 ? fresh[0] : `${fresh[0]} (and ${fresh.length - 1} more patterns left out: see the output)`));
    for (const m of fresh.slice(0, MAX_LOGGED_PATHS)) log(m);
    if (fresh.length > MAX_LOGGED_PATHS) log(`netpolicy.filePatterns: ... and ${fresh.length - MAX_LOGGED_PATHS} more patterns left out`);
  }

  /** Workspace folders added or removed: their project files are read, and every document re-checked. */
  async function changeFolders(added: readonly string[], removed: readonly string[]): Promise<void> {
    const gone = new Set(removed.map((u) => host.uriToPath(u)));
    const next = roots.filter((r) => !gone.has(r));
    for (const u of added) {
      const path = host.uriToPath(u);
      if (path !== undefined && !next.includes(path)) next.push(path);
    }
    roots = next;
    await loadProjectConfig();
    await applySettings();
  }

  connection.onInitialize((params: InitializeParams): InitializeResult => {
    // LSP: initialize is sent once (message-gate.ts refuses a second one before the library reads it).
    if (initializeSeen) throw new ResponseError(ErrorCodes.InvalidRequest, 'initialize was already received: a server is initialized once');
    checked('initialize', params);
    initializeSeen = true;
    const folderUris = (Array.isArray(params.workspaceFolders) ? params.workspaceFolders.map((f) => f?.uri).filter((u): u is string => typeof u === 'string') : undefined)
      ?? (typeof params.rootUri === 'string' ? [params.rootUri] : []);
    roots = folderUris.map((u) => host.uriToPath(u)).filter((p): p is string => p !== undefined);
    const caps = params.capabilities ?? {};
    // Clients that do not advertise workspace/configuration often answer it all the same (Neovim 0.7
    // does, from its `settings`): pull unless the client says it cannot, and never wait long.
    canPullConfiguration = caps.workspace?.configuration !== false;
    configurationAdvertised = caps.workspace?.configuration === true;
    canFollowFolders = caps.workspace?.workspaceFolders === true;
    canRegisterConfiguration = caps.workspace?.didChangeConfiguration?.dynamicRegistration === true;
    codeActionLiterals = caps.textDocument?.codeAction?.codeActionLiteralSupport !== undefined;
    const hoverFormats = caps.textDocument?.hover?.contentFormat;
    const docFormats = caps.textDocument?.completion?.completionItem?.documentationFormat;
    client = {
      snippets: caps.textDocument?.completion?.completionItem?.snippetSupport === true,
      completionMarkdown: !Array.isArray(docFormats) || docFormats.includes('markdown'),
      hoverMarkdown: !Array.isArray(hoverFormats) || hoverFormats.includes('markdown'),
    };
    canRefreshLenses = caps.workspace?.codeLens?.refreshSupport === true;
    canWatchFiles = caps.workspace?.didChangeWatchedFiles?.dynamicRegistration === true;
    const init = params.initializationOptions as NetpolicyInitializationOptions | null | undefined;
    if (init && typeof init === 'object' && init.settings && typeof init.settings === 'object' && !Array.isArray(init.settings)) editorSettings = init.settings;
    if (init && typeof init === 'object' && init.workspaceTrusted === false) trusted = false;
    return {
      capabilities: {
        textDocumentSync: { openClose: true, change: TextDocumentSyncKind.Incremental },
        completionProvider: { triggerCharacters: ['"', ':', '['] },
        hoverProvider: true,
        codeActionProvider: { codeActionKinds: [CodeActionKind.QuickFix, FIX_ALL_KIND] },
        // Code actions as commands for a client that cannot take CodeAction literals.
        ...(codeActionLiterals ? {} : { executeCommandProvider: { commands: [APPLY_EDIT_COMMAND] } }),
        documentSymbolProvider: true,
        foldingRangeProvider: true,
        selectionRangeProvider: true,
        documentFormattingProvider: true,
        documentRangeFormattingProvider: true,
        documentLinkProvider: { resolveProvider: false },
        codeLensProvider: { resolveProvider: false },
        // Folders added or removed later are followed (each folder has its own netpolicy.config.json).
        ...(canFollowFolders ? { workspace: { workspaceFolders: { supported: true, changeNotifications: true } } } : {}),
        // Positions are UTF-16 code units, the encoding every client must support (LSP 3.17).
        ...(caps.general?.positionEncodings ? { positionEncoding: 'utf-16' } : {}),
      },
      serverInfo: { name: 'netpolicy-language-server', version: '0.1.0' },
    };
  });

  connection.onInitialized(async () => {
    if (canFollowFolders) {
      connection.workspace.onDidChangeWorkspaceFolders((event) => {
        if (!acceptNotification('workspace/didChangeWorkspaceFolders', { event })) return;
        void changeFolders((event?.added ?? []).map((f) => f?.uri).filter((u): u is string => typeof u === 'string'), (event?.removed ?? []).map((f) => f?.uri).filter((u): u is string => typeof u === 'string'))
          .catch((err) => log(`workspace folders: ${err instanceof Error ? err.message : String(err)}`, true));
      });
    }
    // Only a client that supports dynamic registration is asked to register (Neovim warns otherwise).
    if (canRegisterConfiguration) void connection.client.register(DidChangeConfigurationNotification.type, { section: 'netpolicy' }).catch(() => undefined);
    if (canWatchFiles) {
      void connection.client.register(DidChangeWatchedFilesNotification.type, { watchers: [{ globPattern: `**/${PROJECT_CONFIG_FILE}` }, { globPattern: '**/*.json' }, { globPattern: '**/*.jsonc' }] }).catch(() => undefined);
    }
    try {
      await loadProjectConfig();
      // A client that said it answers workspace/configuration is waited for (briefly); one that did
      // not is asked in the background, so that a client that never answers delays nothing.
      if (configurationAdvertised) await pullEditorSettings();
    } finally {
      await applySettings();
      // applySettings scheduled every open document; those timers fire after this line.
      settingsReady = true;
    }
    if (!configurationAdvertised && (await pullEditorSettings())) await applySettings();
  });

  connection.onDidChangeConfiguration(async (change) => {
    if (!acceptNotification('workspace/didChangeConfiguration', change)) return;
    const pushed = (change?.settings as { netpolicy?: NetpolicySettings } | undefined)?.netpolicy;
    if (pushed && typeof pushed === 'object') editorSettings = pushed;
    else await pullEditorSettings();
    // Without file watching (no dynamic registration), a settings change is when the project file is read again.
    if (!canWatchFiles) await loadProjectConfig();
    await applySettings();
  });

  connection.onNotification(WorkspaceTrustNotificationMethod, async (p: WorkspaceTrustParams) => {
    if (!acceptNotification(WorkspaceTrustNotificationMethod, p)) return;
    if (typeof p?.trusted !== 'boolean' || p.trusted === trusted || shutDown) return;
    trusted = p.trusted;
    log(trusted ? 'the workspace is trusted: traces and preset catalogs are read' : 'the workspace is not trusted: traces and preset catalogs are not read');
    // The project files are read again (confined to their folders or not), catalogs read (or
    // dropped), and every document re-published (traces scheduled, or lenses dropped).
    await loadProjectConfig();
    await applySettings();
  });

  connection.onDidChangeWatchedFiles(async (params) => {
    if (!acceptNotification('workspace/didChangeWatchedFiles', params)) return;
    workspaceCheck.filesChanged(params.changes);
    const paths = params.changes.map((c) => host.uriToPath(c.uri)).filter((p): p is string => p !== undefined);
    if (paths.some((p) => p.endsWith(`/${PROJECT_CONFIG_FILE}`))) {
      await loadProjectConfig();
      await applySettings();
      return;
    }
    const sbomChanged = paths.filter((p) => /\.cdx\.json$/i.test(p));
    for (const p of sbomChanged) sboms.delete(p);
    // A trace entry (a file, or a folder holding the file), looked up by the path and its folders: linear in entries and changes.
    const traced = sbomChanged.length > 0 ? undefined : new Set(folders.flatMap((f) => f.traces.map((t) => t.replace(/\/$/, ''))));
    const touchesTraces = !traced || paths.some((p) => ancestry(p).some((a) => traced.has(a)));
    const touchesCatalog = paths.some((p) => folders.some((f) => f.catalogPath === p));
    if (touchesCatalog) await applySettings();
    else if (touchesTraces) for (const td of documents.all()) { const e = entries.get(td.uri); if (e) e.usageVersion = undefined; if (isPolicyUri(td.uri)) scheduleTraces(td.uri); }
  });

  // Every policy file of the workspace folders, from disk, in the background (open documents: from the buffer, above).
  const workspaceCheck = new WorkspaceCheck({
    host, roots: () => roots, isPolicyPath: (path) => isPolicyUri(host.pathToUri(path)), isOpen: (path) => documents.all().some((td) => host.uriToPath(td.uri) === path),
    service: (uri) => folderOf(uri).service, maxFilesSetting: () => editorSettings.workspaceDiagnostics?.maxFiles,
    publish: (uri, diagnostics) => notify(connection.sendDiagnostics({ uri, diagnostics })), log,
  });
  documents.onDidClose((e) => workspaceCheck.closed(e.document.uri));
  documents.onDidOpen((e) => schedule(e.document.uri, 0));
  documents.onDidChangeContent((e) => {
    // An isolated edit is validated at once; edits in a burst (less than DEBOUNCE_MS apart) wait for a pause.
    const entry = entryOf(e.document.uri);
    const now = Date.now();
    const burst = now - entry.lastChange < DEBOUNCE_MS;
    entry.lastChange = now;
    schedule(e.document.uri, burst ? DEBOUNCE_MS : 0);
  });
  documents.onDidClose((e) => {
    const entry = entries.get(e.document.uri);
    if (entry) {
      if (entry.timer) clearTimeout(entry.timer);
      if (entry.traceTimer) clearTimeout(entry.traceTimer);
      entry.traceRun++;
      entries.delete(e.document.uri);
    }
    if (publishedNonEmpty.delete(e.document.uri)) notify(connection.sendDiagnostics({ uri: e.document.uri, diagnostics: [] }));
    // With the last document closed, a server started with --expose-gc (the bench) collects at once,
    // so its memory can be compared with the baseline.
    if (entries.size === 0) (globalThis as { gc?: () => void }).gc?.();
  });

  /** Refuses a request before `initialize` (LSP: ServerNotInitialized) and after `shutdown` (InvalidRequest). */
  function alive(): void {
    if (!initializeSeen) throw new ResponseError(ErrorCodes.ServerNotInitialized, 'netpolicy-language-server: the server is not initialized');
    if (shutDown) throw new ResponseError(ErrorCodes.InvalidRequest, 'netpolicy-language-server: the server is shut down');
  }

  /** Throws InvalidParams (-32602) naming what is wrong with a request's params (params.ts). */
  function checked(method: string, params: unknown): void {
    const problem = checkParams(method, params);
    if (problem) throw new ResponseError(ErrorCodes.InvalidParams, `${method}: ${problem}`);
  }

  /** Whether a notification's params will do; a malformed one is logged and ignored. */
  function acceptNotification(method: string, params: unknown): boolean {
    const problem = checkParams(method, params);
    if (problem) log(`${method} ignored: ${problem}`, true);
    return problem === undefined;
  }

  /** A request handler over the current parsed policy; null/[] for other documents or a cancelled request. */
  function withDoc<T>(what: string, method: string, params: unknown, token: CancellationToken | undefined, fallback: T, fn: (doc: PolicyDocument) => T): T {
    alive();
    checked(method, params);
    const uri = (params as { textDocument: { uri: string } }).textDocument.uri;
    if (token?.isCancellationRequested) return fallback;
    return guard(what, fallback, () => {
      const doc = parsed(uri);
      return doc ? fn(doc) : fallback;
    });
  }

  /**
   * `withDoc` for work done in slices (a generator that yields every few thousand tokens): after
   * SLICE_MS of work the server reads its other messages, then goes on unless the request was
   * cancelled (RequestCancelled) or the document changed or closed meanwhile (ContentModified).
   */
  async function withDocSteps<T>(what: string, method: string, params: unknown, token: CancellationToken | undefined, fallback: T, steps: (doc: PolicyDocument) => Generator<void, T>): Promise<T> {
    alive();
    checked(method, params);
    const uri = (params as { textDocument: { uri: string } }).textDocument.uri;
    if (token?.isCancellationRequested) throw new ResponseError(LSPErrorCodes.RequestCancelled, `${what}: cancelled`);
    const version = documents.get(uri)?.version;
    const run = guard(what, undefined, () => {
      const doc = parsed(uri);
      return doc ? steps(doc) : undefined;
    });
    if (!run) return fallback;
    let sliceStart = Date.now();
    for (;;) {
      let step: IteratorResult<void, T>;
      try {
        step = run.next();
      } catch (e) {
        if (e instanceof ResponseError) throw e;
        return guard(what, fallback, () => { throw e; });
      }
      if (step.done) return step.value;
      if (Date.now() - sliceStart < SLICE_MS) continue;
      await new Promise((resolve) => setTimeout(resolve, 0));
      if (token?.isCancellationRequested) throw new ResponseError(LSPErrorCodes.RequestCancelled, `${what}: cancelled`);
      if (shutDown || documents.get(uri)?.version !== version) throw new ResponseError(LSPErrorCodes.ContentModified, `${what}: the document changed before the answer was ready`);
      sliceStart = Date.now();
    }
  }

  connection.onCompletion((p, token) => withDoc('completion', 'textDocument/completion', p, token, null, (doc) => doComplete(doc, p.position, folderOf(p.textDocument.uri).service)));
  connection.onHover((p, token) => withDoc('hover', 'textDocument/hover', p, token, null, (doc) => doHover(doc, p.position, folderOf(p.textDocument.uri).service)));
  connection.onCodeAction((p, token) => withDoc<Array<CodeAction | Command>>('code actions', 'textDocument/codeAction', p, token, [], (doc) => {
    const uri = p.textDocument.uri;
    const current = coreDiagnostics(uri);
    if (token.isCancellationRequested) return [];
    const actions = getCodeActions(doc, uri, p.range, p.context ?? { diagnostics: [] }, current);
    if (codeActionLiterals) return actions;
    // A client without CodeAction literals gets commands; executing one applies the edit (if the document has not changed since).
    const version = documents.get(uri)?.version;
    return actions.filter((a) => a.edit).map((a) => ({ title: a.title, command: APPLY_EDIT_COMMAND, arguments: [uri, version, a.edit] }));
  }));
  connection.onExecuteCommand(async (p) => {
    alive();
    checked('workspace/executeCommand', p);
    if (p?.command !== APPLY_EDIT_COMMAND) throw new ResponseError(ErrorCodes.InvalidParams, `unknown command ${String(p?.command)}`);
    const [uri, version, edit] = Array.isArray(p.arguments) ? p.arguments : [];
    const td = typeof uri === 'string' ? documents.get(uri) : undefined;
    if (!td || !edit || typeof edit !== 'object') throw new ResponseError(ErrorCodes.InvalidParams, 'expected the arguments of a netpolicy code action');
    if (td.version !== version) throw new ResponseError(LSPErrorCodes.ContentModified, 'the document changed since this fix was offered');
    const applied = await connection.workspace.applyEdit({ label: 'netpolicy fix', edit: edit as WorkspaceEdit });
    if (!applied.applied) log(`the client did not apply the fix${applied.failureReason ? `: ${applied.failureReason}` : ''}`);
    return null;
  });
  connection.onDocumentSymbol((p, token) => withDocSteps('symbols', 'textDocument/documentSymbol', p, token, [], (doc) => documentSymbolSteps(doc)));
  connection.onFoldingRanges((p, token) => withDoc('folding', 'textDocument/foldingRange', p, token, [], (doc) => getFoldingRanges(doc)));
  connection.onSelectionRanges((p, token) => withDoc('selection ranges', 'textDocument/selectionRange', p, token, [], (doc) => getSelectionRanges(doc, p.positions)));
  /** Formatting; a document nested deeper than core's MAX_DEPTH is refused (RequestFailed, saying why). */
  function* formatOrRefuse(doc: PolicyDocument, range: Range | undefined, options: FormattingOptions): Generator<void, TextEdit[]> {
    const edits = yield* formatSteps(doc, range, options);
    if (!edits) throw new ResponseError(LSPErrorCodes.RequestFailed, FORMAT_REFUSED);
    return edits;
  }
  connection.onDocumentFormatting((p, token) => withDocSteps('formatting', 'textDocument/formatting', p, token, [], (doc) => formatOrRefuse(doc, undefined, p.options)));
  connection.onDocumentRangeFormatting((p, token) => withDocSteps('range formatting', 'textDocument/rangeFormatting', p, token, [], (doc) => formatOrRefuse(doc, p.range, p.options)));
  connection.onDocumentLinks((p, token) => {
    alive();
    checked('textDocument/documentLink', p);
    const uri = p.textDocument.uri;
    // The project file links the lint codes of its `severity` map to their pages too.
    if (typeof uri === 'string' && isConfigUri(uri)) {
      const td = documents.get(uri);
      return td ? guard('links', [], () => findDocumentLinks(parsePolicyDocument(td.getText(), { fileName: uri, jsonc: true }))) : [];
    }
    return withDoc('links', 'textDocument/documentLink', p, token, [], (doc) => findDocumentLinks(doc));
  });
  connection.onCodeLens((p, token) => withDoc('code lenses', 'textDocument/codeLens', p, token, [], (doc) => {
    const usage = entries.get(p.textDocument.uri)?.usage;
    return usage && trusted ? traceCodeLenses(doc, usage) : [];
  }));
  connection.onRequest(DenialsRequestMethod, (p: DenialsParams): DenialsResult => {
    alive();
    checked(DenialsRequestMethod, p);
    const usage = (trusted ? entries.get(p.uri)?.usage : undefined) ?? emptyUsage();
    return { traces: usage.traces, observations: usage.observations, denials: usage.denials, more: usage.moreDenials, errors: usage.errors };
  });

  // After shutdown nothing more is scheduled or sent.
  connection.onShutdown(() => {
    // LSP: shutdown before initialize is ServerNotInitialized; a second one, InvalidRequest.
    alive();
    shutDown = true;
    workspaceCheck.stop();
    for (const e of entries.values()) {
      if (e.timer) clearTimeout(e.timer);
      if (e.traceTimer) clearTimeout(e.traceTimer);
      e.traceRun++;
    }
    entries.clear();
    settingsReady = false;
  });

  documents.listen(connection);
  connection.listen();
}
