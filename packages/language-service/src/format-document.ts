/**
 * Whole-document (or range) formatting as an editor asks for it: the client's options applied to
 * formatting.ts's resumable jsonc-parser formatter (final newline kept, blank lines at the end,
 * trailing blanks of comment lines), then the edits turned into LSP edits, one each or, past
 * MAX_FORMAT_EDITS, one of the span they cover. A text nested deeper than core's MAX_DEPTH is
 * refused (FORMAT_REFUSED). Also `runSteps`, which runs any sliced computation to its end.
 */
import { type PolicyDocument } from '@netpolicy/core';
import { MAX_DEPTH } from '@netpolicy/core/internal';
import { createScanner } from 'jsonc-parser';
import { type FormattingOptions, type Range, type TextEdit } from 'vscode-languageserver-types';
import { eolOf, FlatEdits, formatEdits, TOKENS_PER_SLICE } from './formatting';
import { SyntaxKind } from './location';
import { offsetOf, rangeOf } from './ranges';

/**
 * More edits than this become one edit of the span they cover (its text formatted): a client applies one edit at once, and the answer is about the size of the text.
 * @public
 */
export const MAX_FORMAT_EDITS = 10_000;

/**
 * Why `format` left a document as it is.
 * @public
 */
export const FORMAT_REFUSED = `not formatted: brackets nest deeper than ${MAX_DEPTH} levels (a policy is a few levels deep; the document does not parse)`;

function allBlank(text: string, from: number): boolean {
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c !== 32 && c !== 9 && c !== 10 && c !== 13) return false;
  }
  return true;
}

/**
 * Formatting with jsonc-parser's rules, honouring the client's options: `tabSize`/`insertSpaces`; the
 * file's final newline is kept (jsonc-parser drops it unless `insertFinalNewline`), blank lines at
 * the end go only with `trimFinalNewlines`, and `trimTrailingWhitespace` also trims the ends of
 * comment lines (jsonc-parser leaves comments alone). A range formats only that part. A text whose
 * brackets nest deeper than core's MAX_DEPTH gets no edit (`formatSteps` says why).
 * @public
 */
export function format(doc: PolicyDocument, range: Range | undefined, options: FormattingOptions): TextEdit[] {
  return runSteps(formatSteps(doc, range, options)) ?? [];
}

/**
 * Runs a sliced computation to its end at once.
 * @public
 */
export function runSteps<T>(steps: Generator<void, T>): T {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/**
 * `format` in slices: the generator yields every few thousand tokens or edits (a server answers other
 * requests in between) and returns the edits, or undefined when the document nests deeper than
 * MAX_DEPTH (FORMAT_REFUSED). Linear in the text: edits are kept in flat arrays, placed in one
 * pass, and more than MAX_FORMAT_EDITS of them become one edit of the span they cover.
 * @public
 */
export function* formatSteps(doc: PolicyDocument, range: Range | undefined, options: FormattingOptions): Generator<void, TextEdit[] | undefined> {
  const text = doc.text;
  const eol = eolOf(text, '\n');
  const r = range ? { offset: offsetOf(doc, range.start), length: Math.max(0, offsetOf(doc, range.end) - offsetOf(doc, range.start)) } : undefined;
  const tabSize = Number.isInteger(options?.tabSize) && options.tabSize > 0 && options.tabSize <= 16 ? options.tabSize : 2;
  const insertSpaces = options?.insertSpaces !== false;
  const edits = yield* formatEdits(text, r, { tabSize, insertSpaces, eol, insertFinalNewline: options?.insertFinalNewline === true }, MAX_DEPTH);
  if (!edits) return undefined;
  // After an unterminated block comment, jsonc-parser's last edit can start past the end (length -1): none is meant.
  if (edits.count > 0 && edits.length(edits.count - 1) < 0) edits.pop();
  // The end of the file: jsonc-parser's last edit replaces what follows the last token (blanks only).
  const last = edits.count - 1;
  if (last >= 0 && edits.offset(last) + edits.length(last) === text.length && allBlank(text, edits.offset(last))) {
    const rest = text.slice(edits.offset(last));
    const breaks = rest.match(/\r\n|\r|\n/g) ?? [];
    const wanted = breaks.length === 0 ? (options?.insertFinalNewline === true ? eol : '') : options?.trimFinalNewlines === true ? eol : breaks.join('');
    if (wanted === rest) edits.pop();
    else edits.setText(last, wanted);
  }
  const all = options?.trimTrailingWhitespace === true ? merge(edits, commentLineEnds(text, r)) : edits;
  return yield* toLspSteps(doc, all);
}

/** Two sorted, non-overlapping edit lists as one. */
function merge(a: FlatEdits, b: FlatEdits): FlatEdits {
  if (b.count === 0) return a;
  const out = new FlatEdits();
  let i = 0, j = 0;
  while (i < a.count || j < b.count) {
    const fromA = j >= b.count || (i < a.count && a.offset(i) <= b.offset(j));
    const e = fromA ? a : b;
    const k = fromA ? i++ : j++;
    out.push(e.offset(k), e.length(k), e.text(k));
  }
  return out;
}

/** LSP edits of sorted flat edits: one each, or (past MAX_FORMAT_EDITS) one of the span they cover. */
function* toLspSteps(doc: PolicyDocument, edits: FlatEdits): Generator<void, TextEdit[]> {
  const n = edits.count;
  const out: TextEdit[] = [];
  if (n <= MAX_FORMAT_EDITS) {
    for (let i = 0; i < n; i++) {
      if (i % TOKENS_PER_SLICE === TOKENS_PER_SLICE - 1) yield;
      out.push({ range: rangeOf(doc, edits.offset(i), edits.length(i)), newText: edits.text(i) });
    }
    return out;
  }
  const text = doc.text;
  const from = edits.offset(0);
  const to = edits.offset(n - 1) + edits.length(n - 1);
  // Joined a slice at a time: the many small pieces die young (a cheap collection), only the joined text lives on.
  const joined: string[] = [];
  let parts: string[] = [];
  let at = from;
  for (let i = 0; i < n; i++) {
    const offset = edits.offset(i);
    if (offset > at) parts.push(text.slice(at, offset));
    parts.push(edits.text(i));
    at = offset + edits.length(i);
    if (parts.length >= 2 * TOKENS_PER_SLICE) {
      joined.push(parts.join(''));
      parts = [];
      yield;
    }
  }
  joined.push(parts.join(''));
  out.push({ range: rangeOf(doc, from, to - from), newText: joined.join('') });
  return out;
}

/** Edits deleting the spaces and tabs that end a line inside or at the end of a comment (within `range`). */
function commentLineEnds(text: string, range: { offset: number; length: number } | undefined): FlatEdits {
  const out = new FlatEdits();
  const scanner = createScanner(text, false);
  const from = range?.offset ?? 0;
  const to = range ? range.offset + range.length : text.length;
  for (let kind = scanner.scan(); kind !== SyntaxKind.EOF; kind = scanner.scan()) {
    if (kind !== SyntaxKind.LineCommentTrivia && kind !== SyntaxKind.BlockCommentTrivia) continue;
    const start = scanner.getTokenOffset();
    const end = start + scanner.getTokenLength();
    if (end < from || start > to) continue;
    for (let i = start; i <= end; i++) {
      // A line ends inside the comment (at a line break) or where a line comment ends.
      const c = text.charCodeAt(i);
      if (!(i === end ? kind === SyntaxKind.LineCommentTrivia : c === 10 || c === 13)) continue;
      let j = i;
      while (j > start && (text.charCodeAt(j - 1) === 32 || text.charCodeAt(j - 1) === 9)) j--;
      if (j < i && j >= from && i <= to) {
        out.push(j, i - j, '');
      }
    }
  }
  return out;
}
