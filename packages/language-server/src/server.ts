/**
 * The server's wiring. Each part owns one piece of state; handlers (handlers/, one file per
 * feature) receive the parts they need:
 * - session.ts: what the client can do, trust, editor settings, the lifecycle, log lines;
 * - workspace.ts: the workspace folders, their project files, catalogs, traces, SBOMs, file problems;
 * - documents.ts: the open documents, one parse and validation per version, what was published
 *   (trace-evaluation.ts evaluates their traces);
 * - workspace-check.ts: every policy file of the folders, checked from disk in the background;
 * - diagnostics-out.ts: where diagnostics go (published, or kept for the client's pulls);
 *   progress.ts: the background work shown as work done progress;
 * - symbol-index.ts: their rules (and the open documents'), indexed for workspace symbols;
 * - requests.ts: the lifecycle and params checks, cancellation and slices around each request.
 */
import type { Connection } from 'vscode-languageserver';
import { DiagnosticsOut } from './diagnostics-out';
import { Documents } from './documents';
import type { ServerHost } from './host';
import { Progress } from './progress';
import { Requests } from './requests';
import { Session } from './session';
import { guardMessages } from './sink';
import { TraceEvaluator } from './trace-evaluation';
import { Workspace } from './workspace';
import { WorkspaceCheck } from './workspace-check';
import * as codeActions from './handlers/code-actions';
import * as codeLens from './handlers/code-lens';
import * as completion from './handlers/completion';
import * as configuration from './handlers/configuration';
import * as definition from './handlers/definition';
import * as denials from './handlers/denials';
import * as formatting from './handlers/formatting';
import * as highlight from './handlers/highlight';
import * as hover from './handlers/hover';
import * as inlayHints from './handlers/inlay-hints';
import * as lifecycle from './handlers/lifecycle';
import * as links from './handlers/links';
import * as pullDiagnostics from './handlers/pull-diagnostics';
import * as references from './handlers/references';
import * as rename from './handlers/rename';
import * as symbols from './handlers/symbols';
import * as workspaceSymbols from './handlers/workspace-symbols';
import { SymbolIndex } from './symbol-index';

export { SLICE_MS } from './requests';
export { DEBOUNCE_MS } from './documents';
export { TRACE_DEBOUNCE_MS } from './trace-evaluation';
export { APPLY_EDIT_COMMAND } from './handlers/code-actions';

/** A server started by `createServer`: `stop` cancels its work in flight (the Node entry, before the process ends). */
export interface RunningServer {
  stop(): void;
}

/**
 * Runs the netpolicy language server on a connection you made (and have not started listening on):
 * it registers every handler, then listens. `host` is its access to the environment: files in
 * Node, URIs alone in a browser (`uriOnlyHost`). The Node and browser entries are this call on
 * their own connections.
 * @public
 */
export function startServer(connection: Connection, host: ServerHost): void {
  createServer(connection, host);
}

/** `startServer`, with a handle on the running server. */
export function createServer(connection: Connection, host: ServerHost): RunningServer {
  // Every log line and notification from here on is escaped and cut (sink.ts).
  guardMessages(connection);
  const session = new Session(connection);
  const workspace = new Workspace(host, session);
  const traces = new TraceEvaluator(host, session, workspace);
  // Diagnostics published, or kept for the client's pulls; progress of the background work, for a client that shows it.
  const out = new DiagnosticsOut(connection, host, session);
  const progress = new Progress(connection, session);
  const documents = new Documents(connection, host, session, workspace, traces, out, progress);
  const requests = new Requests(session, documents);
  // The rules of every policy file, indexed for workspace symbols as the check reads them (open documents: from the buffer).
  const symbolIndex = new SymbolIndex(host, session, workspace, documents);
  // Every policy file of the workspace folders, from disk, in the background (open documents: from the buffer).
  const check = new WorkspaceCheck({
    host, roots: () => workspace.roots, isPolicyPath: (path) => workspace.isPolicyUri(host.pathToUri(path)), isOpen: (path) => documents.all().some((td) => host.uriToPath(td.uri) === path),
    service: (uri) => workspace.folderOf(uri).service, maxFilesSetting: () => session.editorSettings.workspaceDiagnostics?.maxFiles,
    publish: (uri, diagnostics) => out.file(uri, diagnostics), log: (message) => session.log(message),
    walking: () => {
      const [task, ended] = [progress.begin('Checking policy files'), out.checkStarted()];
      return { report: (checked, found) => task.report(`${checked} of ${found} files`), end: () => { task.end(); ended(); } };
    },
    parsed: (uri, doc) => symbolIndex.checked(uri, doc), dropped: (uri) => symbolIndex.forgotten(uri),
  });
  // New settings: the open documents first, then the files on disk.
  workspace.onApplied(() => {
    documents.settingsApplied();
    check.restart();
  });
  workspace.onProblemsChanged(() => documents.republishConfigs());
  // A document closed: the file on disk is what counts again. Opened: its diagnostics are the buffer's.
  documents.texts.onDidClose((e) => check.closed(e.document.uri));
  documents.texts.onDidOpen((e) => out.opened(e.document.uri));

  const parts = { host, session, workspace, documents, requests, check, out, progress };
  for (const handlers of [lifecycle, configuration, completion, hover, codeActions, symbols, formatting, links, codeLens, denials, definition, highlight, rename, inlayHints, pullDiagnostics]) handlers.register(connection, parts);
  references.register(connection, { ...parts, traces });
  workspaceSymbols.register(connection, { ...parts, symbolIndex });
  documents.listen();
  connection.listen();
  return { stop: () => lifecycle.stopWork(parts) };
}
