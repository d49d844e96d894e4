/**
 * jsonc-parser's `format` (3.3.1, `keepLines: false`) as a generator that yields every few
 * thousand tokens, with its edits in typed arrays instead of an object each: a server can
 * answer other requests between slices, and a policy of millions of tokens formats without
 * millions of small objects. Held to jsonc-parser's own `format` by formatting.property.test.ts
 * (same edits on generated texts, ranges, comments and errors included).
 */
import { createScanner } from 'jsonc-parser';
import { SyntaxKind } from './location';

/** Tokens scanned between two yields. */
export const TOKENS_PER_SLICE = 4096;

const LineBreakTrivia = 14, Trivia = 15, Unknown = 16;

export interface FormatSettings {
  tabSize: number;
  insertSpaces: boolean;
  eol: string;
  insertFinalNewline: boolean;
}

/**
 * Edits in ascending offset order (they never overlap), in chunks of a typed array, each edit's text an
 * index into a table of the texts met (a formatting edit's text is blanks: a line break and the
 * indentation of a level, a space, nothing; a few distinct ones). A 10 MB policy makes millions
 * of edits: pushed into plain arrays of numbers and strings they took about 540 ms to gather and
 * left the collector a few hundred more (docs/performance.md).
 */
export class FlatEdits {
  /** How many edits there are. */
  count = 0;
  /** Three numbers an edit (offset, length, text), in chunks of CHUNK edits: filled in place, never copied to grow. */
  private readonly chunks: Int32Array[] = [];
  private readonly table: string[] = [];
  private readonly idOf = new Map<string, number>();

  private intern(text: string): number {
    let id = this.idOf.get(text);
    if (id === undefined) {
      id = this.table.length;
      this.table.push(text);
      this.idOf.set(text, id);
    }
    return id;
  }

  push(offset: number, length: number, text: string): void {
    const at = (this.count & CHUNK_MASK) * 3;
    if (at === 0 && this.count >> CHUNK_BITS === this.chunks.length) this.chunks.push(new Int32Array(3 << CHUNK_BITS));
    const chunk = this.chunks[this.count >> CHUNK_BITS]!;
    chunk[at] = offset;
    chunk[at + 1] = length;
    chunk[at + 2] = this.intern(text);
    this.count++;
  }

  offset(i: number): number {
    return this.chunks[i >> CHUNK_BITS]![(i & CHUNK_MASK) * 3]!;
  }

  length(i: number): number {
    return this.chunks[i >> CHUNK_BITS]![(i & CHUNK_MASK) * 3 + 1]!;
  }

  text(i: number): string {
    return this.table[this.chunks[i >> CHUNK_BITS]![(i & CHUNK_MASK) * 3 + 2]!]!;
  }

  setText(i: number, text: string): void {
    this.chunks[i >> CHUNK_BITS]![(i & CHUNK_MASK) * 3 + 2] = this.intern(text);
  }

  /** Drops the last edit. */
  pop(): void {
    if (this.count > 0) this.count--;
  }
}

/** Edits a chunk of FlatEdits holds: 2^14 (192 KB). */
const CHUNK_BITS = 14;
const CHUNK_MASK = (1 << CHUNK_BITS) - 1;

/**
 * `format(text, range, settings)` of jsonc-parser, sliced; the result is jsonc-parser's edits, or
 * undefined when brackets in the formatted text nest deeper than `maxDepth` (the text that each
 * level's line break and indentation would add grows with the square of the depth).
 */
export function* formatEdits(documentText: string, range: { offset: number; length: number } | undefined, options: FormatSettings, maxDepth = Infinity): Generator<void, FlatEdits | undefined> {
  let initialIndentLevel: number;
  let formatText: string;
  let formatTextStart: number;
  let rangeStart: number;
  let rangeEnd: number;
  const indentValue = options.insertSpaces ? ' '.repeat(options.tabSize || 4) : '\t';
  if (range) {
    rangeStart = range.offset;
    rangeEnd = rangeStart + range.length;
    formatTextStart = rangeStart;
    while (formatTextStart > 0 && !isEol(documentText, formatTextStart - 1)) formatTextStart--;
    let endOffset = rangeEnd;
    while (endOffset < documentText.length && !isEol(documentText, endOffset)) endOffset++;
    formatText = documentText.substring(formatTextStart, endOffset);
    initialIndentLevel = indentLevelOf(formatText, options.tabSize || 4);
  } else {
    formatText = documentText;
    initialIndentLevel = 0;
    formatTextStart = 0;
    rangeStart = 0;
    rangeEnd = documentText.length;
  }
  const eol = eolOf(documentText, options.eol);
  // A line break and the indentation of each level, made once per level.
  const breaks: string[] = [];
  const newLineAndIndent = (level: number): string => {
    const n = initialIndentLevel + level;
    if (n < 0) return eol;
    return (breaks[n] ??= eol + indentValue.repeat(n));
  };
  const out = new FlatEdits();
  const scanner = createScanner(formatText, false);
  let hasError = false;
  let lineBreak = false;
  let indentLevel = 0;
  let tokens = 0;
  let depth = 0;
  const scanNext = (): number => {
    let token = scanner.scan();
    lineBreak = false;
    while (token === Trivia || token === LineBreakTrivia) {
      if (token === LineBreakTrivia) lineBreak = true;
      token = scanner.scan();
    }
    hasError = token === Unknown || scanner.getTokenError() !== 0;
    return token;
  };
  const addEdit = (text: string, start: number, end: number) => {
    if (hasError || (range && !(start < rangeEnd && end > rangeStart))) return;
    // documentText.substring(start, end) !== text, without the substring (jsonc-parser's scanner can
    // end an unterminated block comment one past the end of the text: then end < start).
    const a = Math.min(Math.max(0, Math.min(start, end)), documentText.length);
    const b = Math.min(Math.max(0, Math.max(start, end)), documentText.length);
    if (text.length === b - a && documentText.startsWith(text, a)) return;
    out.push(start, end - start, text);
  };
  let firstToken = scanNext();
  if (firstToken !== SyntaxKind.EOF) {
    const firstTokenStart = scanner.getTokenOffset() + formatTextStart;
    addEdit(indentValue.repeat(initialIndentLevel), formatTextStart, firstTokenStart);
  }
  while (firstToken !== SyntaxKind.EOF) {
    if (++tokens % TOKENS_PER_SLICE === 0) yield;
    if (firstToken === SyntaxKind.OpenBraceToken || firstToken === SyntaxKind.OpenBracketToken) {
      if (++depth > maxDepth) return undefined;
    } else if ((firstToken === SyntaxKind.CloseBraceToken || firstToken === SyntaxKind.CloseBracketToken) && depth > 0) depth--;
    let firstTokenEnd = scanner.getTokenOffset() + scanner.getTokenLength() + formatTextStart;
    let secondToken = scanNext();
    let replaceContent = '';
    let needsLineBreak = false;
    while (!lineBreak && (secondToken === SyntaxKind.LineCommentTrivia || secondToken === SyntaxKind.BlockCommentTrivia)) {
      const commentTokenStart = scanner.getTokenOffset() + formatTextStart;
      addEdit(' ', firstTokenEnd, commentTokenStart);
      firstTokenEnd = scanner.getTokenOffset() + scanner.getTokenLength() + formatTextStart;
      needsLineBreak = secondToken === SyntaxKind.LineCommentTrivia;
      replaceContent = needsLineBreak ? newLineAndIndent(indentLevel) : '';
      secondToken = scanNext();
    }
    if (secondToken === SyntaxKind.CloseBraceToken || secondToken === SyntaxKind.CloseBracketToken) {
      const open = secondToken === SyntaxKind.CloseBraceToken ? SyntaxKind.OpenBraceToken : SyntaxKind.OpenBracketToken;
      if (firstToken !== open) {
        indentLevel--;
        replaceContent = newLineAndIndent(indentLevel);
      }
    } else {
      switch (firstToken) {
        case SyntaxKind.OpenBracketToken:
        case SyntaxKind.OpenBraceToken:
          indentLevel++;
          replaceContent = newLineAndIndent(indentLevel);
          break;
        case SyntaxKind.CommaToken:
        case SyntaxKind.LineCommentTrivia:
          replaceContent = newLineAndIndent(indentLevel);
          break;
        case SyntaxKind.BlockCommentTrivia:
          if (lineBreak) replaceContent = newLineAndIndent(indentLevel);
          else if (!needsLineBreak) replaceContent = ' ';
          break;
        case SyntaxKind.ColonToken:
          if (!needsLineBreak) replaceContent = ' ';
          break;
        case SyntaxKind.StringLiteral:
          if (secondToken === SyntaxKind.ColonToken && !needsLineBreak) replaceContent = '';
          break;
        case SyntaxKind.NullKeyword:
        case SyntaxKind.TrueKeyword:
        case SyntaxKind.FalseKeyword:
        case SyntaxKind.NumericLiteral:
        case SyntaxKind.CloseBraceToken:
        case SyntaxKind.CloseBracketToken:
          if ((secondToken === SyntaxKind.LineCommentTrivia || secondToken === SyntaxKind.BlockCommentTrivia) && !needsLineBreak) replaceContent = ' ';
          else if (secondToken !== SyntaxKind.CommaToken && secondToken !== SyntaxKind.EOF) hasError = true;
          break;
        case Unknown:
          hasError = true;
          break;
      }
      if (lineBreak && (secondToken === SyntaxKind.LineCommentTrivia || secondToken === SyntaxKind.BlockCommentTrivia)) replaceContent = newLineAndIndent(indentLevel);
    }
    if (secondToken === SyntaxKind.EOF) replaceContent = options.insertFinalNewline ? eol : '';
    addEdit(replaceContent, firstTokenEnd, scanner.getTokenOffset() + formatTextStart);
    firstToken = secondToken;
  }
  return out;
}

function isEol(text: string, offset: number): boolean {
  const c = text.charCodeAt(offset);
  return c === 13 || c === 10;
}

function indentLevelOf(content: string, tabSize: number): number {
  let chars = 0;
  for (let i = 0; i < content.length; i++) {
    const c = content.charCodeAt(i);
    if (c === 32) chars++;
    else if (c === 9) chars += tabSize;
    else break;
  }
  return Math.floor(chars / tabSize);
}

/** The first line break of the text (what jsonc-parser's formatter uses), else `fallback`. */
export function eolOf(text: string, fallback: string): string {
  const n = text.search(/[\r\n]/);
  if (n < 0) return fallback;
  return text.charCodeAt(n) === 13 ? (text.charCodeAt(n + 1) === 10 ? '\r\n' : '\r') : '\n';
}
