/** Formatting, whole document or a range, in slices; a document nested deeper than core's MAX_DEPTH is refused (RequestFailed, saying why). */
import type { PolicyDocument } from '@netpolicy/core';
import { FORMAT_REFUSED, formatSteps } from '@netpolicy/language-service';
import { LSPErrorCodes, ResponseError, type Connection, type FormattingOptions, type Range, type TextEdit } from 'vscode-languageserver';
import type { Requests } from '../requests';

function* formatOrRefuse(doc: PolicyDocument, range: Range | undefined, options: FormattingOptions): Generator<void, TextEdit[]> {
  const edits = yield* formatSteps(doc, range, options);
  if (!edits) throw new ResponseError(LSPErrorCodes.RequestFailed, FORMAT_REFUSED);
  return edits;
}

export function register(connection: Connection, { requests }: { requests: Requests }): void {
  connection.onDocumentFormatting((p, token) => requests.withDocSteps('formatting', 'textDocument/formatting', p, token, [], (doc) => formatOrRefuse(doc, undefined, p.options)));
  connection.onDocumentRangeFormatting((p, token) => requests.withDocSteps('range formatting', 'textDocument/rangeFormatting', p, token, [], (doc) => formatOrRefuse(doc, p.range, p.options)));
}
