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

/** A snippet as a user who accepts every placeholder gets it. */
export function expandSnippet(snippet: string): string {
  let out = '';
  for (let i = 0; i < snippet.length; i++) {
    const c = snippet[i];
    if (c === '\\' && i + 1 < snippet.length) { out += snippet[++i]; continue; }
    if (c === '$') {
      const rest = snippet.slice(i);
      const choice = /^\$\{\d+\|([^,|]*)[^}]*\|\}/.exec(rest);
      if (choice) { out += choice[1]; i += choice[0].length - 1; continue; }
      const placeholder = /^\$\{\d+:/.exec(rest);
      if (placeholder) {
        let depth = 1;
        let j = i + placeholder[0].length;
        let inner = '';
        for (; j < snippet.length; j++) {
          if (snippet[j] === '\\') { inner += snippet[j] + snippet[j + 1]; j++; continue; }
          if (snippet[j] === '{') depth++;
          if (snippet[j] === '}' && --depth === 0) break;
          inner += snippet[j];
        }
        out += expandSnippet(inner);
        i = j;
        continue;
      }
      const tab = /^\$\d+|^\$\{\d+\}/.exec(rest);
      if (tab) { i += tab[0].length - 1; continue; }
    }
    out += c;
  }
  return out;
}
