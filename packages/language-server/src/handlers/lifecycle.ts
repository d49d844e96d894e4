/**
 * `initialize`, `initialized`, `shutdown` and `exit` (LSP 3.17 "Lifecycle Messages"; the phases
 * and their rules: lifecycle.ts). `initialize` negotiates what the client can do, once;
 * `initialized` reads the settings and starts the work; `shutdown` cancels every piece of work in
 * flight (timers, trace evaluations, the workspace check, reads of settings files), and so does
 * `exit` when no `shutdown` came before it. Ending the process is the entry's business (node.ts).
 */
import { FIX_ALL_KIND } from '@netpolicy/language-service';
import { CodeActionKind, DidChangeConfigurationNotification, DidChangeWatchedFilesNotification, TextDocumentSyncKind, type Connection, type InitializeParams, type InitializeResult } from 'vscode-languageserver';
import { PROJECT_CONFIG_FILE } from '@netpolicy/core';
import type { Parts } from './parts';
import { APPLY_EDIT_COMMAND } from './code-actions';
import { RUN_POLICY_TESTS_COMMAND } from '../policy-tests';
import { followFolders } from './configuration';


/** Cancels every piece of work in flight; nothing more is scheduled, read or published. */
export function stopWork({ session, workspace, documents, check, out, progress }: Pick<Parts, 'session' | 'workspace' | 'documents' | 'check' | 'out' | 'progress'>): void {
  check.stop();
  // Every progress shown ends now; pulls still waiting are answered.
  progress.stop();
  out.stop();
  workspace.stop();
  documents.stop();
  session.settingsReady = false;
}

export function register(connection: Connection, parts: Parts): void {
  const { host, session, workspace, requests } = parts;

  connection.onInitialize((params: InitializeParams): InitializeResult => {
    // LSP: initialize is sent once (message-gate.ts refuses a second one before the library reads it).
    requests.checked('initialize', params);
    session.initialize(params);
    const folderUris = (Array.isArray(params.workspaceFolders) ? params.workspaceFolders.map((f) => f?.uri).filter((u): u is string => typeof u === 'string') : undefined)
      ?? (typeof params.rootUri === 'string' ? [params.rootUri] : []);
    workspace.roots = folderUris.map((u) => host.uriToPath(u)).filter((p): p is string => p !== undefined);
    const { client } = session;
    return {
      capabilities: {
        textDocumentSync: { openClose: true, change: TextDocumentSyncKind.Incremental },
        completionProvider: { triggerCharacters: ['"', ':', '['] },
        hoverProvider: true,
        codeActionProvider: { codeActionKinds: [CodeActionKind.QuickFix, FIX_ALL_KIND] },
        // A test file's lenses run its tests again; code actions as commands for a client that cannot take CodeAction literals.
        executeCommandProvider: { commands: [RUN_POLICY_TESTS_COMMAND, ...(client.codeActionLiterals ? [] : [APPLY_EDIT_COMMAND])] },
        documentSymbolProvider: true,
        workspaceSymbolProvider: true,
        foldingRangeProvider: true,
        selectionRangeProvider: true,
        documentFormattingProvider: true,
        documentRangeFormattingProvider: true,
        documentLinkProvider: { resolveProvider: false },
        codeLensProvider: { resolveProvider: false },
        definitionProvider: true,
        referencesProvider: true,
        documentHighlightProvider: true,
        renameProvider: { prepareProvider: true },
        inlayHintProvider: { resolveProvider: false },
        // Pulled diagnostics for a client that pulls and can be asked to pull again (diagnostics-out.ts); published for any other.
        ...(client.pullDiagnostics ? { diagnosticProvider: { identifier: 'netpolicy', interFileDependencies: true, workspaceDiagnostics: true } } : {}),
        // Folders added or removed later are followed (each folder has its own netpolicy.config.json).
        ...(client.canFollowFolders ? { workspace: { workspaceFolders: { supported: true, changeNotifications: true } } } : {}),
        // Positions are UTF-16 code units, the encoding every client must support (LSP 3.17).
        ...(params.capabilities?.general?.positionEncodings ? { positionEncoding: 'utf-16' } : {}),
      },
      serverInfo: { name: 'netpolicy-language-server', version: '0.1.0' },
    };
  });

  connection.onInitialized(async () => {
    const { client } = session;
    if (client.canFollowFolders) followFolders(connection, parts);
    // Only a client that supports dynamic registration is asked to register (Neovim warns otherwise).
    if (client.canRegisterConfiguration) void connection.client.register(DidChangeConfigurationNotification.type, { section: 'netpolicy' }).catch(() => undefined);
    if (client.canWatchFiles) {
      void connection.client.register(DidChangeWatchedFilesNotification.type, { watchers: [{ globPattern: `**/${PROJECT_CONFIG_FILE}` }, { globPattern: '**/*.json' }, { globPattern: '**/*.jsonc' }] }).catch(() => undefined);
    }
    try {
      await workspace.loadProjectConfig();
      // A client that said it answers workspace/configuration is waited for (briefly); one that did
      // not is asked in the background, so that a client that never answers delays nothing.
      if (client.configurationAdvertised) await session.pullEditorSettings();
    } finally {
      await workspace.applySettings();
      // applySettings scheduled every open document; those timers fire after this line.
      if (!session.shutDown) session.settingsReady = true;
    }
    if (!client.configurationAdvertised && (await session.pullEditorSettings())) await workspace.applySettings();
  });

  // After shutdown nothing more is scheduled, read or sent.
  connection.onShutdown(() => {
    // LSP: shutdown before initialize is ServerNotInitialized; a second one, InvalidRequest.
    session.shutdown();
    stopWork(parts);
  });

  // `exit` without `shutdown`: the work stops all the same (the process is ending).
  connection.onExit(() => stopWork(parts));
}
