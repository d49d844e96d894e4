/**
 * Where diagnostics go (LSP 3.17 "Diagnostics": the push and the pull model), negotiated once
 * (session.ts, `pullDiagnostics`). Never both for one file:
 *
 * - push (a client that cannot pull, or cannot be asked to pull again): every report is a
 *   `textDocument/publishDiagnostics`, as before;
 * - pull: the open documents' reports are kept per version for `textDocument/diagnostic`, each
 *   with a `resultId` that changes only when what it reports changes (`unchanged` answers the
 *   client's current id). A change that comes without an edit (traces evaluated, settings, a
 *   catalog, the policy a test file is bound to) asks the client to pull again
 *   (`workspace/diagnostic/refresh`). The files of the workspace check (not open) are reported
 *   by `workspace/diagnostic` from the client's first such request on; until then they are
 *   pushed (a client that pulls documents and never asks for the workspace, Neovim, still sees
 *   them), and cleared by push when that request comes or when the file is opened.
 *
 * `workspace/diagnostic` is answered as a long poll (as Roslyn does): the files whose report
 * differs from the id the client holds (an id it holds for a file no longer followed: an empty
 * report), streamed as partial results while the check runs; with nothing to say, it waits for a
 * change. Open documents are left to `textDocument/diagnostic`.
 */
import {
  LSPErrorCodes, ResponseError, type CancellationToken, type Connection, type Diagnostic, type DocumentDiagnosticReport,
  type ResultProgressReporter, type WorkspaceDiagnosticReport, type WorkspaceDiagnosticReportPartialResult, type WorkspaceDocumentDiagnosticReport,
} from 'vscode-languageserver';
import type { ServerHost } from './host';
import { quietly, type Session } from './session';

/** Quiet time gathering changes before a workspace answer goes out (a check publishes a file every half millisecond). */
const BATCH_MS = 100;
/** The most reports in one partial result (a `$/progress` notification). */
const MAX_PARTIAL_ITEMS = 1000;
/** Quiet time before `workspace/diagnostic/refresh` (several documents change at once on a settings change). */
const REFRESH_DELAY_MS = 20;

interface DocumentReport {
  version: number;
  items: Diagnostic[];
  json: string;
  resultId: string;
  /** The client has had this report (a change to it asks for a refresh). */
  pulled: boolean;
}

interface FileReport {
  uri: string;
  items: Diagnostic[];
  resultId: string;
}

/** Answers a request that cannot be answered any more (the document closed, shutdown): the client should not ask again. */
const given = (why: string) => new ResponseError(LSPErrorCodes.ServerCancelled, `diagnostics: ${why}`, { retriggerRequest: false });
const cancelled = () => new ResponseError(LSPErrorCodes.RequestCancelled, 'diagnostics: cancelled');

export class DiagnosticsOut {
  private readonly documents = new Map<string, DocumentReport>();
  /** The workspace check's reports (pull mode), by path. */
  private readonly files = new Map<string, FileReport>();
  /** Files pushed with diagnostics before the client's first workspace/diagnostic (path -> URI). */
  private readonly pushedFiles = new Map<string, string>();
  private workspacePulled = false;
  /** Pulls waiting for a document's report, by URI. */
  private readonly waiting = new Map<string, Set<() => void>>();
  /** Workspace pulls waiting for a change (each gets the path changed; undefined: the check ended or the server stops). */
  private readonly watchers = new Set<(path: string | undefined) => void>();
  private checks = 0;
  private ids = 0;
  private readonly idPrefix = Date.now().toString(36);
  private refreshTimer: ReturnType<typeof setTimeout> | undefined;
  private stopped = false;

  constructor(private readonly connection: Connection, private readonly host: ServerHost, private readonly session: Session) {}

  /** Whether the client pulls (else everything is pushed). */
  get pull(): boolean {
    return this.session.client.pullDiagnostics;
  }

  private nextId(): string {
    return `${this.idPrefix}.${++this.ids}`;
  }

  private pathOf(uri: string): string {
    return this.host.uriToPath(uri) ?? uri;
  }

  /** An open document's diagnostics for a version. */
  document(uri: string, version: number, items: Diagnostic[]): void {
    if (!this.pull) return quietly(this.connection.sendDiagnostics({ uri, version, diagnostics: items }));
    if (this.stopped) return;
    const json = JSON.stringify(items);
    const before = this.documents.get(uri);
    if (!before || before.json !== json || before.version !== version) {
      // Same items at a new version: the same id (the client's copy is still right; it answers `unchanged`).
      const same = before?.json === json;
      this.documents.set(uri, { version, items, json, resultId: same ? before!.resultId : this.nextId(), pulled: false });
      // Changed without an edit: the client is asked to pull again (it pulls after an edit by itself).
      if (before?.pulled && before.version === version && !same) this.refreshSoon();
    }
    this.wake(uri);
  }

  /** An open document closed: pushed ones are cleared (`shown`: its last publish had diagnostics); a pull client clears its own. */
  closed(uri: string, shown: boolean): void {
    if (!this.pull) {
      if (shown) quietly(this.connection.sendDiagnostics({ uri, diagnostics: [] }));
      return;
    }
    this.documents.delete(uri);
    this.wake(uri);
    // Its file is the workspace pull's again.
    this.changed(this.pathOf(uri));
  }

  /** A document opened: in a pull client, what the workspace check pushed for its file is cleared (its diagnostics are pulled now). */
  opened(uri: string): void {
    if (!this.pull) return;
    const path = this.pathOf(uri);
    const pushed = this.pushedFiles.get(path);
    if (pushed === undefined) return;
    this.pushedFiles.delete(path);
    quietly(this.connection.sendDiagnostics({ uri: pushed, diagnostics: [] }));
  }

  /** A file's diagnostics from disk (the workspace check; never an open document's). */
  file(uri: string, items: Diagnostic[]): void {
    if (!this.pull || !this.workspacePulled) {
      quietly(this.connection.sendDiagnostics({ uri, diagnostics: items }));
      if (!this.pull) return;
      if (items.length > 0) this.pushedFiles.set(this.pathOf(uri), uri);
      else this.pushedFiles.delete(this.pathOf(uri));
    }
    const path = this.pathOf(uri);
    const before = this.files.get(path);
    if (before && before.uri === uri && JSON.stringify(before.items) === JSON.stringify(items)) return;
    this.files.set(path, { uri, items, resultId: this.nextId() });
    this.changed(path);
  }

  /** The workspace check started a walk; the function given back says it ended (a workspace pull answers once it is over). */
  checkStarted(): () => void {
    this.checks++;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.checks--;
      this.changed(undefined);
    };
  }

  /**
   * `textDocument/diagnostic`: the report of the document's current version, waiting for its
   * validation when it is under way (never validated twice); `unchanged` when the client has it.
   * A document not open gets its file's report from the workspace check, or an empty one.
   */
  async documentReport(uri: string, previousResultId: string | undefined, version: () => number | undefined, token: CancellationToken): Promise<DocumentDiagnosticReport> {
    for (;;) {
      if (token.isCancellationRequested) throw cancelled();
      if (this.stopped) throw given('the server is shutting down');
      const current = version();
      if (current === undefined) {
        const file = this.files.get(this.pathOf(uri));
        if (!file) return { kind: 'full', items: [] };
        return file.resultId === previousResultId ? { kind: 'unchanged', resultId: file.resultId } : { kind: 'full', resultId: file.resultId, items: file.items };
      }
      const report = this.documents.get(uri);
      if (report && report.version === current) {
        report.pulled = true;
        return report.resultId === previousResultId ? { kind: 'unchanged', resultId: report.resultId } : { kind: 'full', resultId: report.resultId, items: report.items };
      }
      await this.nextReport(uri, token);
    }
  }

  /**
   * `workspace/diagnostic`: the files (not open) whose report differs from the id the client
   * holds, as partial results when the client gave a token; answered once something was said and
   * the check is not running, else held until a change (or cancellation).
   */
  async workspaceReport(
    previous: ReadonlyArray<{ uri: string; value: string }>, openPaths: () => ReadonlySet<string>, token: CancellationToken,
    partial?: ResultProgressReporter<WorkspaceDiagnosticReportPartialResult>,
  ): Promise<WorkspaceDiagnosticReport> {
    this.workspacePullStarted();
    const held = new Map<string, { uri: string; value: string }>();
    for (const p of previous) held.set(this.pathOf(p.uri), p);
    // The first look goes through every file; later ones through the files changed meanwhile.
    let candidates: Iterable<string> = new Set([...this.files.keys(), ...held.keys()]);
    let changed = new Set<string>();
    const watcher = (path: string | undefined) => { if (path !== undefined) changed.add(path); };
    this.watchers.add(watcher);
    const collected: WorkspaceDocumentDiagnosticReport[] = [];
    let said = false;
    try {
      for (;;) {
        const open = openPaths();
        const items: WorkspaceDocumentDiagnosticReport[] = [];
        for (const path of candidates) {
          if (open.has(path)) continue;
          const had = held.get(path);
          let file = this.files.get(path);
          if (!file) {
            if (!had) continue;
            // An id for a file this server does not follow (one from before a restart): cleared once.
            file = { uri: had.uri, items: [], resultId: this.nextId() };
            this.files.set(path, file);
          }
          if (had?.value === file.resultId) continue;
          items.push({ kind: 'full', uri: file.uri, version: null, resultId: file.resultId, items: file.items });
          held.set(path, { uri: file.uri, value: file.resultId });
        }
        if (items.length > 0) {
          said = true;
          if (partial) for (let i = 0; i < items.length; i += MAX_PARTIAL_ITEMS) partial.report({ items: items.slice(i, i + MAX_PARTIAL_ITEMS) });
          else collected.push(...items);
        }
        if (said && this.checks === 0) return { items: partial ? [] : collected };
        await this.nextChange(token);
        candidates = changed;
        changed = new Set();
      }
    } finally {
      this.watchers.delete(watcher);
    }
  }

  /** Shutdown: waiting pulls are answered (ServerCancelled, not to be asked again), nothing more is kept or sent. */
  stop(): void {
    this.stopped = true;
    if (this.refreshTimer) clearTimeout(this.refreshTimer);
    for (const uri of [...this.waiting.keys()]) this.wake(uri);
    this.changed(undefined);
  }

  /** From the client's first workspace/diagnostic on, the check's files are its: what was pushed is cleared. */
  private workspacePullStarted(): void {
    if (this.workspacePulled) return;
    this.workspacePulled = true;
    for (const uri of this.pushedFiles.values()) quietly(this.connection.sendDiagnostics({ uri, diagnostics: [] }));
    this.pushedFiles.clear();
  }

  private refreshSoon(): void {
    if (this.refreshTimer || this.stopped) return;
    this.refreshTimer = setTimeout(() => {
      this.refreshTimer = undefined;
      if (!this.stopped && !this.session.shutDown) quietly(this.connection.sendRequest('workspace/diagnostic/refresh'));
    }, REFRESH_DELAY_MS);
  }

  private wake(uri: string): void {
    const waiters = this.waiting.get(uri);
    if (!waiters) return;
    this.waiting.delete(uri);
    for (const wake of waiters) wake();
  }

  private changed(path: string | undefined): void {
    for (const watcher of [...this.watchers]) watcher(path);
  }

  /** Resolves when a report for `uri` arrives (or the document closes, or the server stops); rejects when the request is cancelled. */
  private nextReport(uri: string, token: CancellationToken): Promise<void> {
    return new Promise((resolve, reject) => {
      let waiters = this.waiting.get(uri);
      if (!waiters) this.waiting.set(uri, (waiters = new Set()));
      const listener = token.onCancellationRequested(() => {
        waiters!.delete(wake);
        reject(cancelled());
      });
      const wake = () => {
        listener.dispose();
        resolve();
      };
      waiters.add(wake);
    });
  }

  /** Resolves BATCH_MS after the next change (a file's report, the check's end, the server stopping); rejects on cancellation. */
  private nextChange(token: CancellationToken): Promise<void> {
    return new Promise((resolve, reject) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const done = (error?: ResponseError<unknown>) => {
        this.watchers.delete(watcher);
        listener.dispose();
        if (timer) clearTimeout(timer);
        if (error) reject(error);
        else resolve();
      };
      const watcher = () => {
        if (this.stopped) return done(given('the server is shutting down'));
        timer ??= setTimeout(() => done(), BATCH_MS);
      };
      const listener = token.onCancellationRequested(() => done(cancelled()));
      if (this.stopped) return done(given('the server is shutting down'));
      this.watchers.add(watcher);
    });
  }
}
