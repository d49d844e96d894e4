/** `textDocument/documentHighlight`: the other occurrences of the host, CIDR or preset name under the cursor. */
import { documentHighlights } from '@netpolicy/language-service';
import type { Connection } from 'vscode-languageserver';
import type { Requests } from '../requests';

export function register(connection: Connection, { requests }: { requests: Requests }): void {
  connection.onDocumentHighlight((p, token) => requests.withDoc('highlight', 'textDocument/documentHighlight', p, token, [], (doc) => documentHighlights(doc, p.position)));
}
