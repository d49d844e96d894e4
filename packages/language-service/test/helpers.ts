/** Test helpers: the cursor is marked with `|` in the text; edits are applied to give the resulting text. */
import { parsePolicyDocument, type PolicyDocument } from '@netpolicy/core';
import type { Position, TextEdit } from 'vscode-languageserver-types';

export function withCursor(marked: string, fileName = 'p.netpolicy.json'): { doc: PolicyDocument; position: Position; offset: number } {
  const offset = marked.indexOf('|');
  if (offset < 0) throw new Error('no | cursor in the text');
  const text = marked.slice(0, offset) + marked.slice(offset + 1);
  const doc = parsePolicyDocument(text, { fileName });
  return { doc, position: doc.lineIndex.positionAt(offset), offset };
}

/** Applies LSP edits (non-overlapping) to the document's text. */
export function applyLspEdits(doc: PolicyDocument, edits: readonly TextEdit[]): string {
  const sorted = edits
    .map((e) => ({ start: doc.lineIndex.offsetAt(e.range.start), end: doc.lineIndex.offsetAt(e.range.end), text: e.newText }))
    .sort((a, b) => b.start - a.start);
  let text = doc.text;
  for (const e of sorted) text = text.slice(0, e.start) + e.text + text.slice(e.end);
  return text;
}

/** A snippet as a user who accepts every placeholder gets it (what a client without snippet support is sent). */
export { snippetToText as expandSnippet } from '../src/skeletons';
