/** The document's structure: the outline (in slices: a large policy does not hold up other requests), folding and selection ranges. */
import { documentSymbolSteps, getFoldingRanges, getSelectionRanges } from '@netpolicy/language-service';
import type { Connection } from 'vscode-languageserver';
import type { Requests } from '../requests';

export function register(connection: Connection, { requests }: { requests: Requests }): void {
  connection.onDocumentSymbol((p, token) => requests.withDocSteps('symbols', 'textDocument/documentSymbol', p, token, [], (doc) => documentSymbolSteps(doc)));
  connection.onFoldingRanges((p, token) => requests.withDoc('folding', 'textDocument/foldingRange', p, token, [], (doc) => getFoldingRanges(doc)));
  connection.onSelectionRanges((p, token) => requests.withDoc('selection ranges', 'textDocument/selectionRange', p, token, [], (doc) => getSelectionRanges(doc, p.positions)));
}
