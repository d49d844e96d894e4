/** `textDocument/codeLens`: per rule, the traced accesses it decided (trusted workspace, traces evaluated). */
import { traceCodeLenses } from '@netpolicy/language-service';
import type { Connection } from 'vscode-languageserver';
import type { Documents } from '../documents';
import type { Requests } from '../requests';
import type { Session } from '../session';

export function register(connection: Connection, { session, documents, requests }: { session: Session; documents: Documents; requests: Requests }): void {
  connection.onCodeLens((p, token) => requests.withDoc('code lenses', 'textDocument/codeLens', p, token, [], (doc) => {
    const usage = documents.usage(p.textDocument.uri);
    return usage && session.trusted ? traceCodeLenses(doc, usage) : [];
  }));
}
