/**
 * `textDocument/codeAction`: quick fixes for the current diagnostics. A client without CodeAction
 * literals gets commands instead (APPLY_EDIT_COMMAND), which `workspace/executeCommand` applies
 * if the document has not changed since.
 */
import { getCodeActions, policyTestCodeActions, policyTestFileProblems } from '@netpolicy/language-service';
import { ErrorCodes, LSPErrorCodes, ResponseError, type CodeAction, type Command, type Connection, type WorkspaceEdit } from 'vscode-languageserver';
import type { Documents } from '../documents';
import { RUN_POLICY_TESTS_COMMAND } from '../policy-tests';
import type { Requests } from '../requests';
import type { Session } from '../session';

/**
 * The command a code action becomes for a client without `codeActionLiteralSupport`: its
 * arguments are the document's URI, the version the edit was computed for, and the WorkspaceEdit.
 */
export const APPLY_EDIT_COMMAND = 'netpolicy.server.applyEdit';

export function register(connection: Connection, { session, documents, requests }: { session: Session; documents: Documents; requests: Requests }): void {
  /** A client without CodeAction literals gets commands; executing one applies the edit (if the document has not changed since). */
  const asCommands = (uri: string, actions: CodeAction[]): Array<CodeAction | Command> => {
    if (session.client.codeActionLiterals) return actions;
    const version = documents.get(uri)?.version;
    return actions.filter((a) => a.edit).map((a) => ({ title: a.title, command: APPLY_EDIT_COMMAND, arguments: [uri, version, a.edit] }));
  };

  connection.onCodeAction((p, token) => {
    const testUri = (p as { textDocument?: { uri?: unknown } } | null)?.textDocument?.uri;
    if (typeof testUri === 'string' && documents.tests.isTestUri(testUri)) {
      // A policy test file: the schema's fixes, and "expect what the policy decides" from its current run.
      requests.checked('textDocument/codeAction', p);
      const run = documents.tests.current(testUri, documents.get(testUri)?.version);
      if (!run || token.isCancellationRequested) return [];
      return session.guard('code actions', [], () => asCommands(testUri, [
        ...getCodeActions(run.doc, testUri, p.range, p.context ?? { diagnostics: [] }, policyTestFileProblems(run.doc)),
        ...(run.results ? policyTestCodeActions(run.doc, testUri, p.range, run.results) : []),
      ]));
    }
    return requests.withDoc<Array<CodeAction | Command>>('code actions', 'textDocument/codeAction', p, token, [], (doc) => {
      const uri = p.textDocument.uri;
      const current = documents.coreDiagnostics(uri);
      if (token.isCancellationRequested) return [];
      return asCommands(uri, getCodeActions(doc, uri, p.range, p.context ?? { diagnostics: [] }, current));
    });
  });

  connection.onExecuteCommand(async (p) => {
    requests.checked('workspace/executeCommand', p);
    if (p?.command === RUN_POLICY_TESTS_COMMAND) return documents.runTests(p.arguments?.[0]);
    if (p?.command !== APPLY_EDIT_COMMAND) throw new ResponseError(ErrorCodes.InvalidParams, `unknown command ${String(p?.command)}`);
    const [uri, version, edit] = Array.isArray(p.arguments) ? p.arguments : [];
    const td = typeof uri === 'string' ? documents.get(uri) : undefined;
    if (!td || !edit || typeof edit !== 'object') throw new ResponseError(ErrorCodes.InvalidParams, 'expected the arguments of a netpolicy code action');
    if (td.version !== version) throw new ResponseError(LSPErrorCodes.ContentModified, 'the document changed since this fix was offered');
    const applied = await connection.workspace.applyEdit({ label: 'netpolicy fix', edit: edit as WorkspaceEdit });
    if (!applied.applied) session.log(`the client did not apply the fix${applied.failureReason ? `: ${applied.failureReason}` : ''}`);
    return null;
  });
}
