/**
 * Where the cursor is, as jsonc-parser's `getLocation` says it (the path to the member or item
 * being edited, and whether a key is expected there), found by one scan of the text before the
 * cursor. `getLocation` walks the text through its visitor (about 4x the cost of a scan: 47 ms at
 * the end of a 2 MB policy); this scan answers alone while the text before the cursor follows the
 * JSON grammar, and hands every other case (a syntax error before the cursor) to `getLocation`.
 * A property test holds it to `getLocation`.
 */
import { getLocation } from 'jsonc-parser';
import type { PolicyDocument } from '@netpolicy/core';

/** jsonc-parser's `SyntaxKind` values (a const enum, which isolated modules cannot read). */
export const SyntaxKind = {
  OpenBraceToken: 1, CloseBraceToken: 2, OpenBracketToken: 3, CloseBracketToken: 4, CommaToken: 5, ColonToken: 6,
  NullKeyword: 7, TrueKeyword: 8, FalseKeyword: 9, StringLiteral: 10, NumericLiteral: 11,
  LineCommentTrivia: 12, BlockCommentTrivia: 13, EOF: 17,
} as const;

export interface CursorLocation {
  path: Array<string | number>;
  isAtPropertyKey: boolean;
}

/** The key or scalar value the cursor is on (its right end included), found by the fast scan. */
export interface CursorToken {
  offset: number;
  length: number;
  value: string | number | boolean | null;
  isKey: boolean;
}

type Expect = 'value' | 'key' | 'colon' | 'comma-or-end';

/** The fast scan; undefined when the text before the cursor leaves the grammar (the caller falls back). */
/**
 * The tokens of JSON with comments, as jsonc-parser's scanner gives them for valid input, at the
 * speed of native searches: strings are skipped with `indexOf`, and a string's value is built only
 * when asked. Anything unusual (a control character or bad escape in a string, a malformed number,
 * an unknown word) is an error token, and the caller falls back to jsonc-parser.
 */
class FastTokens {
  private offset = 0;
  /** Where the last token ended (the next scan starts there). */
  end = 0;
  private error = 0;
  private kind = 0;
  /** Offsets of the next `\n`, `\r` and `\\` at or after the last string (-1: none left, -2: not searched yet). */
  private nextLF = -2;
  private nextCR = -2;
  private nextBS = -2;
  constructor(private readonly text: string) {}

  scan(): number {
    const text = this.text;
    let i = this.end;
    for (;;) {
      const c = text.charCodeAt(i);
      if (c === 32 || c === 9 || c === 10 || c === 13) i++;
      else break;
    }
    this.offset = i;
    this.error = 0;
    if (i >= text.length) { this.end = i; return (this.kind = SyntaxKind.EOF); }
    const c = text.charCodeAt(i);
    switch (c) {
      case 123: this.end = i + 1; return (this.kind = SyntaxKind.OpenBraceToken);
      case 125: this.end = i + 1; return (this.kind = SyntaxKind.CloseBraceToken);
      case 91: this.end = i + 1; return (this.kind = SyntaxKind.OpenBracketToken);
      case 93: this.end = i + 1; return (this.kind = SyntaxKind.CloseBracketToken);
      case 44: this.end = i + 1; return (this.kind = SyntaxKind.CommaToken);
      case 58: this.end = i + 1; return (this.kind = SyntaxKind.ColonToken);
      case 34: {
        let close = text.indexOf('"', i + 1);
        while (close > 0) {
          let backslashes = 0;
          for (let k = close - 1; text.charCodeAt(k) === 92; k--) backslashes++;
          if ((backslashes & 1) === 0) break;
          close = text.indexOf('"', close + 1);
        }
        if (close < 0) { this.end = text.length; this.error = 1; return (this.kind = SyntaxKind.StringLiteral); }
        this.end = close + 1;
        // A line break ends a string for jsonc-parser (an error: fall back); escapes must be valid.
        // The next line break and backslash are remembered: each search moves forward only, so the
        // whole scan stays linear even in a text without line breaks.
        if (this.nextLF !== -1 && this.nextLF < i) this.nextLF = text.indexOf('\n', i);
        if (this.nextCR !== -1 && this.nextCR < i) this.nextCR = text.indexOf('\r', i);
        if (this.nextBS !== -1 && this.nextBS < i) this.nextBS = text.indexOf('\\', i);
        if ((this.nextLF !== -1 && this.nextLF < close) || (this.nextCR !== -1 && this.nextCR < close)) this.error = 1;
        else if (this.nextBS !== -1 && this.nextBS < close) {
          try { JSON.parse(text.slice(i, close + 1)); } catch { this.error = 1; }
        }
        return (this.kind = SyntaxKind.StringLiteral);
      }
      case 47: {
        const next = text.charCodeAt(i + 1);
        if (next === 47) {
          let eol = i + 2;
          while (eol < text.length && text.charCodeAt(eol) !== 10 && text.charCodeAt(eol) !== 13) eol++;
          this.end = eol;
          return (this.kind = SyntaxKind.LineCommentTrivia);
        }
        if (next === 42) {
          const close = text.indexOf('*/', i + 2);
          if (close < 0) { this.end = text.length; this.error = 1; } else this.end = close + 2;
          return (this.kind = SyntaxKind.BlockCommentTrivia);
        }
        this.end = i + 1;
        this.error = 1;
        return (this.kind = 16);
      }
      default: {
        let k = i;
        while (k < text.length) {
          const d = text.charCodeAt(k);
          if ((d >= 48 && d <= 57) || (d >= 97 && d <= 122) || (d >= 65 && d <= 90) || d === 45 || d === 43 || d === 46) k++;
          else break;
        }
        if (k === i) k = i + 1;
        this.end = k;
        const word = text.slice(i, k);
        if (word === 'true') return (this.kind = SyntaxKind.TrueKeyword);
        if (word === 'false') return (this.kind = SyntaxKind.FalseKeyword);
        if (word === 'null') return (this.kind = SyntaxKind.NullKeyword);
        if (NUMBER.test(word)) return (this.kind = SyntaxKind.NumericLiteral);
        this.error = 1;
        return (this.kind = 16);
      }
    }
  }

  /** The line break and backslash searches' state, to resume a scan (ScanMemo). */
  lines(): [number, number, number] { return [this.nextLF, this.nextCR, this.nextBS]; }
  /** Continues from `end` as a scan that stopped there, with its `lines()`. */
  restore(end: number, [lf, cr, bs]: [number, number, number]): void {
    this.end = end;
    this.nextLF = lf;
    this.nextCR = cr;
    this.nextBS = bs;
  }

  getTokenOffset(): number { return this.offset; }
  getTokenLength(): number { return this.end - this.offset; }
  getTokenError(): number { return this.error; }
  /** The token's value: a string's content (escapes decoded), else its text. */
  getTokenValue(): string {
    const raw = this.text.slice(this.offset, this.end);
    if (this.kind !== SyntaxKind.StringLiteral) return raw;
    const inner = raw.slice(1, -1);
    if (inner.indexOf('\\') < 0) return inner;
    try {
      return JSON.parse(raw) as string;
    } catch {
      this.error = 1;
      return inner;
    }
  }
}

/** A JSON number (linear: no nested quantifiers). */
const NUMBER = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?$/;

/** The fast scan's state after a token: a scan of the same text resumes from it for any position past `end`. */
interface Checkpoint {
  end: number;
  path: Array<string | number>;
  kinds: Array<'object' | 'array'>;
  expect: Expect;
  isAtPropertyKey: boolean;
  lines: [number, number, number];
}

/**
 * Scan states saved along one text, about every `step` characters, by the scans that went that
 * far: a later scan of the same text (hover, completion, code actions on one version of a
 * document) starts from the last state before its position instead of the start of the text
 * (8 ms to the end of a 2 MB policy). Tokens that end before the position never decide the
 * answer, so the state after them is the same whatever the position (a property test holds a
 * scan with a memo to one without).
 */
export class ScanMemo {
  readonly points: Checkpoint[] = [];
  /**
   * `base`: the memo of an earlier text, often the previous version of the same document. Its
   * states are taken over while the text up to them (and the character after, which ends a word
   * or a line comment) is the same in both: an edit near the end keeps most of them.
   */
  constructor(readonly text: string, readonly step = 16384, base?: ScanMemo) {
    if (!base || base.step !== step) return;
    let from = 0;
    for (const p of base.points) {
      if (p.end + 1 > text.length || text.slice(from, p.end + 1) !== base.text.slice(from, p.end + 1)) break;
      // The line break and backslash searches looked past `end`, into text that may differ: searched again.
      this.points.push({ ...p, lines: [-2, -2, -2] });
      from = p.end + 1;
    }
  }
}

/**
 * Each memo is kept on its owner (a symbol-keyed member), not in a WeakMap: a WeakMap entry keeps
 * the memo, and through it a superseded version's 1.9 MB text, alive through young-generation
 * collections after the version is gone, so the language server promoted nearly every version's
 * text to the old generation (docs/performance.md, issue 29 item 6, round four).
 */
const MEMO = Symbol('scanMemo');
/** The latest memo per file name, held weakly (a closed document's text is not kept), at most RECENT. */
const recent = new Map<string, WeakRef<ScanMemo>>();
const RECENT = 64;

/**
 * The memo of `text`, kept as long as `owner` (one parsed version of a document) is; a new one
 * starts from the states of the last memo made for `name` that are still true of `text`.
 */
export function scanMemo(owner: object, text: string, name?: string): ScanMemo {
  let memo = (owner as { [MEMO]?: ScanMemo })[MEMO];
  if (memo && memo.text === text) return memo;
  memo = new ScanMemo(text, undefined, name === undefined ? undefined : recent.get(name)?.deref());
  (owner as { [MEMO]?: ScanMemo })[MEMO] = memo;
  if (name !== undefined) {
    recent.delete(name);
    recent.set(name, new WeakRef(memo));
    if (recent.size > RECENT) recent.delete(recent.keys().next().value as string);
  }
  return memo;
}

/**
 * Takes the cursor scan's saved states (hover, completion) over to a new version of a document at
 * once, rather than at its first hover or completion: until then the states of the previous
 * version would hold its text alive, and a young-generation collection while the new version is
 * validated would promote that text to the old generation. A server calls it right after parsing
 * each new version of an open document.
 * @public
 */
export function carryScanStates(doc: PolicyDocument): void {
  scanMemo(doc, doc.text, doc.fileName);
}

export function scanLocation(text: string, position: number, memo?: ScanMemo): (CursorLocation & { token?: CursorToken }) | undefined {
  const scanner = new FastTokens(text);
  let path: Array<string | number> = [];
  let kinds: Array<'object' | 'array'> = [];
  let expect = 'value' as Expect;
  let isAtPropertyKey = false;
  const points = memo && memo.text === text ? memo.points : undefined;
  let next = Infinity;
  if (points && memo) {
    // The last state strictly before the position (binary search: points are in text order).
    let lo = 0, hi = points.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (points[mid].end < position) lo = mid + 1;
      else hi = mid;
    }
    const from = lo > 0 ? points[lo - 1] : undefined;
    if (from) {
      scanner.restore(from.end, from.lines);
      path = [...from.path];
      kinds = [...from.kinds];
      expect = from.expect;
      isAtPropertyKey = from.isAtPropertyKey;
    }
    // New states only past the last one saved (a scan from an earlier state stops before it).
    if (lo === points.length) next = (from ? from.end : 0) + memo.step;
  }
  const done = () => ({ path, isAtPropertyKey });
  for (;;) {
    if (scanner.end >= next && points && memo) {
      points.push({ end: scanner.end, path: [...path], kinds: [...kinds], expect, isAtPropertyKey, lines: scanner.lines() });
      next = scanner.end + memo.step;
    }
    const token: number = scanner.scan();
    const offset = scanner.getTokenOffset();
    const length = scanner.getTokenLength();
    if (token === SyntaxKind.LineCommentTrivia || token === SyntaxKind.BlockCommentTrivia) {
      if (scanner.getTokenError() !== 0) return undefined;
      continue;
    }
    if (token === SyntaxKind.EOF) return done();
    if (scanner.getTokenError() !== 0) return undefined;
    const inObject = kinds[kinds.length - 1] === 'object';
    switch (token) {
      case SyntaxKind.OpenBraceToken:
      case SyntaxKind.OpenBracketToken:
        if (expect !== 'value') return undefined;
        if (position <= offset) return done();
        isAtPropertyKey = token === SyntaxKind.OpenBraceToken ? position > offset : isAtPropertyKey;
        kinds.push(token === SyntaxKind.OpenBraceToken ? 'object' : 'array');
        path.push(token === SyntaxKind.OpenBraceToken ? '' : 0);
        expect = token === SyntaxKind.OpenBraceToken ? 'key' : 'value';
        break;
      case SyntaxKind.CloseBraceToken:
      case SyntaxKind.CloseBracketToken: {
        const closesObject = token === SyntaxKind.CloseBraceToken;
        if (kinds.length === 0 || (kinds[kinds.length - 1] === 'object') !== closesObject) return undefined;
        // `{}` / `[]` are fine; a trailing comma (or a key without value) is not.
        const empty = closesObject ? expect === 'key' && path[path.length - 1] === '' : expect === 'value' && path[path.length - 1] === 0;
        if (expect !== 'comma-or-end' && !(empty && precededByOpen(text, offset))) return undefined;
        if (position <= offset) return done();
        kinds.pop();
        path.pop();
        expect = 'comma-or-end';
        break;
      }
      case SyntaxKind.ColonToken:
        if (expect !== 'colon') return undefined;
        if (position <= offset) return done();
        isAtPropertyKey = false;
        expect = 'value';
        break;
      case SyntaxKind.CommaToken:
        if (expect !== 'comma-or-end' || kinds.length === 0) return undefined;
        if (position <= offset) return done();
        if (inObject) {
          isAtPropertyKey = true;
          path[path.length - 1] = '';
          expect = 'key';
        } else {
          path[path.length - 1] = (path[path.length - 1] as number) + 1;
          expect = 'value';
        }
        break;
      case SyntaxKind.StringLiteral:
        if (expect === 'key') {
          if (position < offset) return done();
          path[path.length - 1] = scanner.getTokenValue();
          if (position <= offset + length) return { path, isAtPropertyKey, token: { offset, length, value: scanner.getTokenValue(), isKey: true } };
          expect = 'colon';
          break;
        }
      // falls through: a string value
      case SyntaxKind.NumericLiteral:
      case SyntaxKind.TrueKeyword:
      case SyntaxKind.FalseKeyword:
      case SyntaxKind.NullKeyword:
        if (expect !== 'value') return undefined;
        if (position < offset) return done();
        if (position <= offset + length) return { path, isAtPropertyKey, token: { offset, length, value: literal(token, scanner.getTokenValue()), isKey: false } };
        expect = 'comma-or-end';
        break;
      default:
        return undefined;
    }
  }
}

function literal(token: number, text: string): string | number | boolean | null {
  switch (token) {
    case SyntaxKind.NumericLiteral: return Number(text);
    case SyntaxKind.TrueKeyword: return true;
    case SyntaxKind.FalseKeyword: return false;
    case SyntaxKind.NullKeyword: return null;
    default: return text;
  }
}

/** True when the token before `offset` (skipping white space) opens a container: `{}` and `[]` are empty, not trailing commas. */
function precededByOpen(text: string, offset: number): boolean {
  let i = offset - 1;
  while (i >= 0 && (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r')) i--;
  return text[i] === '{' || text[i] === '[';
}

/** The location at `position`, equal to jsonc-parser's `getLocation(text, position)` in `path` and `isAtPropertyKey`. */
export function locationAt(text: string, position: number, memo?: ScanMemo): CursorLocation {
  const fast = scanLocation(text, position, memo);
  if (fast) return fast;
  const slow = getLocation(text, position);
  return { path: slow.path, isAtPropertyKey: slow.isAtPropertyKey };
}
