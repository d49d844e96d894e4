/**
 * `textDocument/diagnostic` and `workspace/diagnostic` (LSP 3.17 pull diagnostics), for a client
 * that pulls (session.ts, `pullDiagnostics`; the capability is declared in lifecycle.ts). The
 * reports, their ids and the waiting are diagnostics-out.ts's; a client that is pushed to is
 * refused here (it would see every diagnostic twice).
 */
import { ErrorCodes, ResponseError, type Connection } from 'vscode-languageserver';
import type { Parts } from './parts';

export function register(connection: Connection, { host, documents, requests, out }: Parts): void {
  const pulling = (method: string, params: unknown) => {
    requests.checked(method, params);
    if (!out.pull) throw new ResponseError(ErrorCodes.MethodNotFound, `${method}: diagnostics are published to this client (it did not say it pulls them and takes workspace/diagnostic/refresh)`);
  };

  connection.languages.diagnostics.on((params, token) => {
    pulling('textDocument/diagnostic', params);
    const { uri } = params.textDocument;
    return out.documentReport(uri, params.previousResultId ?? undefined, () => documents.get(uri)?.version, token);
  });

  connection.languages.diagnostics.onWorkspace((params, token, _workDone, partial) => {
    pulling('workspace/diagnostic', params);
    // Open documents are reported by textDocument/diagnostic.
    const openPaths = () => new Set(documents.all().map((td) => host.uriToPath(td.uri) ?? td.uri));
    return out.workspaceReport(params.previousResultIds, openPaths, token, partial);
  });
}
