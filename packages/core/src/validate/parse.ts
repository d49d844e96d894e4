/**
 * Parsing a policy file: one jsonc-parser pass that builds the value and reports syntax problems
 * (strict JSON for `.json`, comments and trailing commas allowed for `.jsonc`), duplicate keys,
 * and nesting deeper than any policy needs. `__proto__` keys become own properties.
 */
import { visit, printParseErrorCode, type ParseErrorCode } from 'jsonc-parser';
import type { Diagnostic } from './types';
import { toPointer } from './pointer';

/**
 * How deep containers may nest before a document is refused (json-syntax), and before the editor stops formatting it.
 * @internal
 */
export const MAX_DEPTH = 128;

export interface ParsedDocument {
  value: unknown;
  /** True when the text is not JSON at all (the value is partial and not worth checking further). */
  syntaxFailed: boolean;
  diagnostics: Diagnostic[];
  /** True when `JSON.parse` read the text and it had no duplicate key and no deep nesting (plain JSON). */
  plain?: boolean;
}

class TooDeep extends Error {
  constructor(readonly offset: number) {
    super('too deep');
  }
}

const SYNTAX_MESSAGES: Partial<Record<string, string>> = {
  InvalidSymbol: 'unexpected character',
  InvalidNumberFormat: 'invalid number',
  PropertyNameExpected: 'expected a property name in double quotes',
  ValueExpected: 'expected a value',
  ColonExpected: 'expected `:` after the property name',
  CommaExpected: 'expected `,` between items',
  CloseBraceExpected: 'expected `}` to close the object',
  CloseBracketExpected: 'expected `]` to close the array',
  EndOfFileExpected: 'unexpected content after the end of the document',
  InvalidCommentToken: 'invalid comment',
  UnexpectedEndOfComment: 'unterminated comment',
  UnexpectedEndOfString: 'unterminated string',
  UnexpectedEndOfNumber: 'unterminated number',
  InvalidUnicode: 'invalid unicode escape',
  InvalidEscapeCharacter: 'invalid escape character in string',
  InvalidCharacter: 'invalid character in string (control characters must be escaped)',
};

const MAX_SYNTAX_DIAGNOSTICS = 5;

/**
 * Parses a policy file.
 *
 * Fast path (any file that is plain JSON, the common case): `JSON.parse` gives the value (flat
 * strings: strings sliced out of a large source text slow down every later map lookup and keep
 * the whole text alive), and a count of the text's string literals (or members) against the
 * value's tells whether a key was repeated (`plainAsParsed`). Plain JSON has no comments or
 * trailing commas, so the only syntax diagnostic left is `duplicate-key`. Only when a key is
 * repeated, or nesting is too deep, does the jsonc-parser visitor run to place the diagnostics.
 *
 * Otherwise (comments, trailing commas, syntax errors) the visitor builds the value and reports.
 */
export function parseDocument(text: string, jsonc: boolean): ParsedDocument {
  let value: unknown;
  let plain = true;
  try {
    value = JSON.parse(text);
  } catch {
    plain = false;
  }
  if (plain) {
    if (plainAsParsed(text, value)) return { value, syntaxFailed: false, diagnostics: [], plain: true };
    const checked = visitDocument(text, jsonc, false);
    return checked.syntaxFailed ? checked : { value, syntaxFailed: false, diagnostics: checked.diagnostics };
  }
  if (!jsonc) {
    const checked = visitDocument(text, false, false);
    if (checked.syntaxFailed) return checked;
    // Comments or trailing commas (errors in .json, reported) still leave a value worth checking.
    return { value: visitDocument(text, false, true).value, syntaxFailed: false, diagnostics: checked.diagnostics };
  }
  return visitDocument(text, true, true);
}

/**
 * Whether a text that `JSON.parse` accepted has no duplicate key and no nesting deeper than
 * MAX_DEPTH, given the parsed value. A duplicate key collapses into one property, so the text then
 * holds more than the value: more members, and more string literals (each member's key is one).
 *
 * Without a backslash in the text (the common case) every `"` delimits a string literal, so the
 * literals are counted by a native search for `"` alone, and compared with the keys and strings of
 * the value (a walk that stops past MAX_DEPTH: without a duplicate, the value nests exactly as the
 * text does). With a backslash, a quote may be escaped: one scan skips strings and counts members
 * and depth (`scanShape`). `depth`: how deep the text's value sits in its document (a slice of
 * a larger text, see reparse.ts).
 */
export function plainAsParsed(text: string, value: unknown, depth = 0): boolean {
  if (text.indexOf('\\') < 0) {
    const strings = countStrings(value, depth);
    if (strings < 0) return false;
    let quotes = 0;
    for (let i = text.indexOf('"'); i >= 0; i = text.indexOf('"', i + 1)) quotes++;
    return quotes === 2 * strings;
  }
  const shape = scanShape(text);
  return depth + shape.maxDepth <= MAX_DEPTH && shape.members === countMembers(value);
}

/** Keys and string values of a parsed value; -1 when its containers nest deeper than MAX_DEPTH. */
function countStrings(value: unknown, depth: number): number {
  if (typeof value === 'string') return 1;
  if (value === null || typeof value !== 'object') return 0;
  if (depth >= MAX_DEPTH) return -1;
  let n = 0;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const c = countStrings(value[i], depth + 1);
      if (c < 0) return -1;
      n += c;
    }
    return n;
  }
  for (const key in value) {
    const c = countStrings((value as Record<string, unknown>)[key], depth + 1);
    if (c < 0) return -1;
    n += c + 1;
  }
  return n;
}

/**
 * The index of the quote that closes the string opened at `open`, or -1. Found with `indexOf`: a
 * quote is escaped when an odd run of backslashes precedes it (nothing backtracks).
 * @internal
 */
export function closingQuote(text: string, open: number): number {
  let end = text.indexOf('"', open + 1);
  while (end > 0) {
    let backslashes = 0;
    for (let k = end - 1; text.charCodeAt(k) === 92 /* \ */; k--) backslashes++;
    if ((backslashes & 1) === 0) return end;
    end = text.indexOf('"', end + 1);
  }
  return -1;
}

/**
 * Members (`:` outside strings) and the deepest nesting of a text that `JSON.parse` accepted.
 * Strings are skipped with `indexOf` (a quote is escaped when an odd run of backslashes precedes it).
 */
function scanShape(text: string): { members: number; maxDepth: number } {
  let members = 0, depth = 0, maxDepth = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      const end = closingQuote(text, i);
      if (end < 0) break; // unreachable for text JSON.parse accepted; never loop
      i = end;
    } else if (c === 58 /* : */) members++;
    else if (c === 123 /* { */ || c === 91 /* [ */) {
      if (++depth > maxDepth) maxDepth = depth;
    } else if (c === 125 /* } */ || c === 93 /* ] */) depth--;
  }
  return { members, maxDepth };
}

/** Own members of every object in a parsed value. */
export function countMembers(value: unknown): number {
  if (value === null || typeof value !== 'object') return 0;
  let n = 0;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) n += countMembers(value[i]);
    return n;
  }
  for (const key in value) {
    n++;
    n += countMembers((value as Record<string, unknown>)[key]);
  }
  return n;
}

interface Frame {
  array: boolean;
  /** Items so far (arrays): the index of the next one. */
  count: number;
  keys?: Set<string>;
  container?: unknown[] | Record<string, unknown>;
}

function visitDocument(text: string, jsonc: boolean, build: boolean): ParsedDocument {
  const diagnostics: Diagnostic[] = [];
  const frames: Frame[] = [];
  const segments: Array<string | number> = [];
  let root: unknown = undefined;
  let key: string | undefined;
  let lastComma = -1;
  let syntaxErrors = 0;

  const place = (v: unknown) => {
    const parent = frames[frames.length - 1];
    if (parent === undefined) root = v;
    else if (parent.array) {
      parent.count++;
      if (build) (parent.container as unknown[]).push(v);
    } else if (build) {
      const obj = parent.container as Record<string, unknown>;
      if (key === '__proto__') Object.defineProperty(obj, key, { value: v, writable: true, enumerable: true, configurable: true });
      else obj[key as string] = v;
    }
  };
  const enter = (array: boolean, offset: number) => {
    if (frames.length >= MAX_DEPTH) throw new TooDeep(offset);
    const parent = frames[frames.length - 1];
    if (parent !== undefined) segments.push(parent.array ? parent.count : (key as string));
    const container = build ? (array ? [] : {}) : undefined;
    place(container);
    frames.push({ array, count: 0, keys: array ? undefined : new Set(), container });
    lastComma = -1;
  };
  const leave = () => {
    if (lastComma >= 0 && !jsonc) {
      diagnostics.push({
        code: 'trailing-comma', severity: 'error', pointer: '', offset: lastComma, length: 1,
        message: 'trailing comma: strict JSON allows no comma after the last item (use a .jsonc file for trailing commas)',
        data: { kind: 'delete-text', title: 'Remove the trailing comma' },
      });
    }
    lastComma = -1;
    frames.pop();
    if (frames.length > 0) segments.pop();
  };

  try {
    visit(
      text,
      {
        onObjectBegin: (offset) => enter(false, offset),
        onArrayBegin: (offset) => enter(true, offset),
        onObjectEnd: leave,
        onArrayEnd: leave,
        onObjectProperty: (property, offset, length) => {
          lastComma = -1;
          key = property;
          const keys = frames[frames.length - 1]?.keys;
          if (keys?.has(property)) {
            diagnostics.push({
              code: 'duplicate-key', severity: 'error', pointer: toPointer([...segments, property]), offset, length,
              message: `duplicate key \`${property}\`: JSON readers disagree on which value wins; keep one`,
            });
          }
          keys?.add(property);
        },
        onLiteralValue: (value) => {
          lastComma = -1;
          place(value);
        },
        onSeparator: (sep, offset) => {
          if (sep === ',') lastComma = offset;
        },
        onComment: (offset, length) => {
          if (!jsonc) {
            diagnostics.push({
              code: 'comment-not-allowed', severity: 'error', pointer: '', offset, length,
              message: 'comments are not allowed in a .json policy file (the service takes strict JSON); remove it or use a .jsonc file',
              data: { kind: 'delete-text', title: 'Remove the comment' },
            });
          }
        },
        onError: (error: ParseErrorCode, offset, length) => {
          syntaxErrors++;
          if (syntaxErrors > MAX_SYNTAX_DIAGNOSTICS) return;
          const name = printParseErrorCode(error);
          const empty = text.trim().length === 0;
          diagnostics.push({
            code: 'json-syntax', severity: 'error', pointer: '', offset, length,
            message: empty ? 'the file is empty: a policy is a JSON object such as {"default": "deny"}' : `JSON syntax error: ${SYNTAX_MESSAGES[name] ?? name}`,
          });
        },
      },
      { allowTrailingComma: true, disallowComments: false, allowEmptyContent: false },
    );
  } catch (error) {
    if (!(error instanceof TooDeep)) throw error;
    diagnostics.push({
      code: 'json-syntax', severity: 'error', pointer: '', offset: error.offset, length: 1,
      message: `nesting deeper than ${MAX_DEPTH} levels: a policy is at most a few levels deep`,
    });
    return { value: undefined, syntaxFailed: true, diagnostics };
  }
  return { value: root, syntaxFailed: syntaxErrors > 0, diagnostics };
}

/** The visitor alone (building the value): the reference the fast path is tested against. */
export function visitForTest(text: string, jsonc: boolean): ParsedDocument {
  return visitDocument(text, jsonc, true);
}
