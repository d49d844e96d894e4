/**
 * `workspace/symbol`: the rules of every policy of the workspace, found by what they permit (a host,
 * URL, repository or IP address; the language service's workspace-symbols.ts), over the symbol index
 * (symbol-index.ts): a query reads and parses no file. The answer is worked out in slices of
 * SLICE_MS; a request cancelled meanwhile ends with RequestCancelled.
 */
import { workspaceSymbolSteps } from '@netpolicy/language-service';
import { LSPErrorCodes, ResponseError, type Connection, type SymbolInformation } from 'vscode-languageserver';
import { SLICE_MS } from '../slices';
import type { Requests } from '../requests';
import type { Session } from '../session';
import type { SymbolIndex } from '../symbol-index';

export function register(connection: Connection, { requests, session, symbolIndex }: { requests: Requests; session: Session; symbolIndex: SymbolIndex }): void {
  connection.onWorkspaceSymbol(async (p, token): Promise<SymbolInformation[]> => {
    requests.checked('workspace/symbol', p);
    const cancelled = () => new ResponseError(LSPErrorCodes.RequestCancelled, 'workspace symbols: cancelled');
    if (token.isCancellationRequested) throw cancelled();
    // The files the workspace check read meanwhile are indexed first, in the same slices.
    const steps = (function* () {
      return yield* workspaceSymbolSteps(yield* symbolIndex.steps(), p.query);
    })();
    let sliceStart = Date.now();
    for (;;) {
      const step = session.guard('workspace symbols', undefined, () => steps.next());
      if (!step) return [];
      if (step.done) return step.value;
      if (Date.now() - sliceStart < SLICE_MS) continue;
      await new Promise((resolve) => setTimeout(resolve, 0));
      if (token.isCancellationRequested) throw cancelled();
      if (session.shutDown) return [];
      sliceStart = Date.now();
    }
  });
}
