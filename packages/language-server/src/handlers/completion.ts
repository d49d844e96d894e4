/** `textDocument/completion`: the language service's completions, under the document's folder settings. */
import { doComplete } from '@netpolicy/language-service';
import type { Connection } from 'vscode-languageserver';
import type { Requests } from '../requests';
import type { Workspace } from '../workspace';

export function register(connection: Connection, { requests, workspace }: { requests: Requests; workspace: Workspace }): void {
  connection.onCompletion((p, token) => requests.withDoc('completion', 'textDocument/completion', p, token, null, (doc) => doComplete(doc, p.position, workspace.folderOf(p.textDocument.uri).service)));
}
