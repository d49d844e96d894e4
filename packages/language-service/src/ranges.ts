/**
 * Offsets to LSP ranges. The service keeps offsets and pointers; these helpers are the one place
 * that turns them into positions (core's LineIndex counts UTF-16 code units, as LSP does).
 */
import { type PolicyDocument } from '@netpolicy/core';
import { Locator } from '@netpolicy/core/internal';
import type { Position, Range } from 'vscode-languageserver-types';

/**
 * The LSP range of `length` characters at `offset` in the document.
 * @public
 */
export function rangeOf(doc: PolicyDocument, offset: number, length: number): Range {
  return doc.lineIndex.range(offset, length);
}

/**
 * Offset of an LSP position, clamped to the document: a line past the end is the end, and a
 * character past the line's end is the end of that line, before its line break (LSP: "defaults
 * back to the line length"), never the next line nor between a CR and its LF.
 * @public
 */
export function offsetOf(doc: PolicyDocument, position: Position): number {
  if (!position || !Number.isFinite(position.line) || !Number.isFinite(position.character)) return 0;
  const line = Math.floor(position.line);
  const character = Math.max(0, Math.floor(position.character));
  if (line < 0) return 0;
  return doc.lineIndex.offsetAt({ line, character });
}

/**
 * The range a pointer names in the document (value, or key when `key`), or undefined when it is not there.
 * @public
 */
export function pointerRange(doc: PolicyDocument, pointer: string, key = false): Range | undefined {
  const found = new Locator(doc).find(pointer);
  if (!found) return undefined;
  const k = found.property?.children?.[0];
  const node = key && k ? k : found.node;
  return rangeOf(doc, node.offset, node.length);
}

export function sameRange(a: Range, b: Range): boolean {
  return a.start.line === b.start.line && a.start.character === b.start.character && a.end.line === b.end.line && a.end.character === b.end.character;
}

export function intersects(a: Range, b: Range): boolean {
  return !before(a.end, b.start) && !before(b.end, a.start);
}

function before(a: Position, b: Position): boolean {
  return a.line < b.line || (a.line === b.line && a.character < b.character);
}
