/** `textDocument/documentLink`: lint codes link to their pages, in policy files and in the project file's `severity` map. */
import { parsePolicyDocument } from '@netpolicy/core';
import { findDocumentLinks } from '@netpolicy/language-service';
import type { Connection } from 'vscode-languageserver';
import type { Documents } from '../documents';
import type { Requests } from '../requests';
import type { Session } from '../session';
import type { Workspace } from '../workspace';

export function register(connection: Connection, { session, workspace, documents, requests }: { session: Session; workspace: Workspace; documents: Documents; requests: Requests }): void {
  connection.onDocumentLinks((p, token) => {
    requests.checked('textDocument/documentLink', p);
    const uri = p.textDocument.uri;
    if (typeof uri === 'string' && workspace.isConfigUri(uri)) {
      const td = documents.get(uri);
      return td ? session.guard('links', [], () => findDocumentLinks(parsePolicyDocument(td.getText(), { fileName: uri, jsonc: true }))) : [];
    }
    return requests.withDoc('links', 'textDocument/documentLink', p, token, [], (doc) => findDocumentLinks(doc));
  });
}
