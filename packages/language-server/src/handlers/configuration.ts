/**
 * What changes the settings in force: the editor's settings (pushed, or pulled on a
 * `didChangeConfiguration`), the workspace's trust (`netpolicy/workspaceTrust`), files changed on
 * disk (project files, catalogs, traces, SBOMs, policy files for the workspace check), and
 * workspace folders added or removed.
 */
import type { Connection } from 'vscode-languageserver';
import { WorkspaceTrustNotificationMethod, type NetpolicySettings, type WorkspaceTrustParams } from '../protocol';
import type { Parts } from './parts';


export function register(connection: Connection, { host, session, workspace, documents, requests, check }: Parts): void {
  connection.onDidChangeConfiguration(async (change) => {
    if (!requests.acceptNotification('workspace/didChangeConfiguration', change)) return;
    const pushed = (change?.settings as { netpolicy?: NetpolicySettings } | undefined)?.netpolicy;
    if (pushed && typeof pushed === 'object') session.editorSettings = pushed;
    else await session.pullEditorSettings();
    // Without file watching (no dynamic registration), a settings change is when the project file is read again.
    if (!session.client.canWatchFiles) await workspace.loadProjectConfig();
    await workspace.applySettings();
  });

  connection.onNotification(WorkspaceTrustNotificationMethod, async (p: WorkspaceTrustParams) => {
    if (!requests.acceptNotification(WorkspaceTrustNotificationMethod, p)) return;
    if (typeof p?.trusted !== 'boolean' || p.trusted === session.trusted || session.shutDown) return;
    session.trusted = p.trusted;
    session.log(session.trusted ? 'the workspace is trusted: traces and preset catalogs are read' : 'the workspace is not trusted: traces and preset catalogs are not read');
    // The project files are read again (confined to their folders or not), catalogs read (or
    // dropped), and every document re-published (traces scheduled, or lenses dropped).
    await workspace.loadProjectConfig();
    await workspace.applySettings();
  });

  connection.onDidChangeWatchedFiles(async (params) => {
    if (!requests.acceptNotification('workspace/didChangeWatchedFiles', params)) return;
    check.filesChanged(params.changes);
    const paths = params.changes.map((c) => host.uriToPath(c.uri)).filter((p): p is string => p !== undefined);
    // Policy files changed on disk: the open test files that test them run again.
    documents.policyFilesChanged(paths);
    switch (workspace.filesChanged(paths)) {
      case 'project file':
        await workspace.loadProjectConfig();
        await workspace.applySettings();
        break;
      case 'catalog':
        await workspace.applySettings();
        break;
      case 'traces':
        documents.tracesChanged();
        break;
    }
  });
}

/** Workspace folders added or removed later (a client that said it tells): each has its own project file. */
export function followFolders(connection: Connection, { session, workspace, requests }: Pick<Parts, 'session' | 'workspace' | 'requests'>): void {
  connection.workspace.onDidChangeWorkspaceFolders((event) => {
    if (!requests.acceptNotification('workspace/didChangeWorkspaceFolders', { event })) return;
    const uris = (list: ReadonlyArray<{ uri?: unknown } | null> | undefined) => (list ?? []).map((f) => f?.uri).filter((u): u is string => typeof u === 'string');
    void workspace.changeFolders(uris(event?.added), uris(event?.removed))
      .catch((err) => session.log(`workspace folders: ${err instanceof Error ? err.message : String(err)}`, true));
  });
}
