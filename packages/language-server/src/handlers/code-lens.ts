/**
 * `textDocument/codeLens`: per rule, the traced accesses it decided (trusted workspace, traces
 * evaluated), each opening their references where the client has SHOW_REFERENCES_COMMAND; in a policy test file, each test's outcome and "Run all N tests" (policy-tests.ts).
 */
import { policyTestCodeLenses, traceCodeLenses } from '@netpolicy/language-service';
import type { Connection } from 'vscode-languageserver';
import type { Documents } from '../documents';
import { RUN_POLICY_TESTS_COMMAND } from '../policy-tests';
import { SHOW_REFERENCES_COMMAND } from '../protocol';
import type { Requests } from '../requests';
import type { Session } from '../session';

export function register(connection: Connection, { session, documents, requests }: { session: Session; documents: Documents; requests: Requests }): void {
  connection.onCodeLens((p, token) => {
    const uri = (p as { textDocument?: { uri?: unknown } } | null)?.textDocument?.uri;
    if (typeof uri === 'string' && documents.tests.isTestUri(uri)) {
      requests.checked('textDocument/codeLens', p);
      const run = documents.tests.current(uri, documents.get(uri)?.version);
      return run?.results && !token.isCancellationRequested ? policyTestCodeLenses(run.doc, uri, run.results, RUN_POLICY_TESTS_COMMAND) : [];
    }
    return requests.withDoc('code lenses', 'textDocument/codeLens', p, token, [], (doc) => {
      const usage = documents.usage(p.textDocument.uri);
      // A count opens its references through the client's command, when it has one (else the title alone).
      const show = session.client.clientCommands.includes(SHOW_REFERENCES_COMMAND) ? { command: SHOW_REFERENCES_COMMAND, uri: p.textDocument.uri } : undefined;
      return usage && session.trusted ? traceCodeLenses(doc, usage, show) : [];
    });
  });
}
