/** `textDocument/hover`: the language service's hover (inert Markdown), under the document's folder settings. */
import { doHover } from '@netpolicy/language-service';
import type { Connection } from 'vscode-languageserver';
import type { Requests } from '../requests';
import type { Workspace } from '../workspace';

export function register(connection: Connection, { requests, workspace }: { requests: Requests; workspace: Workspace }): void {
  connection.onHover((p, token) => requests.withDoc('hover', 'textDocument/hover', p, token, null, (doc) => doHover(doc, p.position, workspace.folderOf(p.textDocument.uri).service)));
}
