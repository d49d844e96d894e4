/**
 * What changed in each open document since its last parse, merged into one change (the span of
 * the old text that was replaced, and where the replacement ends in the new text), so that the
 * next parse can reparse one rule instead of the whole text (core's `reparsePolicyDocument`).
 * It wraps the TextDocument's own update: the offsets of each change are read before it applies.
 */
import type { TextChange } from '@netpolicy/core';
import type { TextDocumentContentChangeEvent, TextDocumentsConfiguration } from 'vscode-languageserver';
import { TextDocument } from 'vscode-languageserver-textdocument';

export class TextChanges {
  /** Per document: the merged change since its last parse, or null when a change replaced the whole text. */
  private readonly pending = new Map<string, TextChange | null>();

  /** For `new TextDocuments(...)`: the documents as usual, their changes recorded. */
  readonly configuration: TextDocumentsConfiguration<TextDocument> = {
    create: (uri, languageId, version, content) => {
      this.pending.delete(uri);
      return TextDocument.create(uri, languageId, version, content);
    },
    update: (document, changes, version) => {
      for (const change of changes) {
        this.record(document, change);
        TextDocument.update(document, [change], version);
      }
      return TextDocument.update(document, [], version);
    },
  };

  /** The change since the last call for this document (then forgotten): undefined when none was recorded, null when unknown. */
  take(uri: string): TextChange | null | undefined {
    const change = this.pending.get(uri);
    this.pending.delete(uri);
    return change;
  }

  forget(uri: string): void {
    this.pending.delete(uri);
  }

  private record(document: TextDocument, change: TextDocumentContentChangeEvent): void {
    if (!('range' in change)) {
      this.pending.set(document.uri, null);
      return;
    }
    const a = document.offsetAt(change.range.start);
    const b = document.offsetAt(change.range.end);
    // As TextDocument.update: a range given end first is taken start first.
    const s = Math.min(a, b);
    const e = Math.max(a, b);
    const before = this.pending.get(document.uri);
    if (before === null) return;
    this.pending.set(document.uri, merge(before, s, e, change.text.length));
  }
}

/**
 * One change after another, as one: `merged` turned the old text's [start, end) into the current
 * text's [start, newEnd); now the current text's [s, e) becomes `length` characters.
 */
export function merge(merged: TextChange | undefined, s: number, e: number, length: number): TextChange {
  if (!merged) return { start: s, end: e, newEnd: s + length };
  const start = Math.min(s, merged.start);
  const currentEnd = Math.max(e, merged.newEnd);
  return { start, end: merged.end + (currentEnd - merged.newEnd), newEnd: currentEnd + length - (e - s) };
}
