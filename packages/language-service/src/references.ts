/**
 * References: what a position in a policy names (a rule, the default, an enabled preset), where
 * that rule is in the policy and in test files (`"rule": "/sources/0"`, `"preset:NAME"`,
 * `"default"`), which of a trace usage's observations it decided, and where each observation of
 * a trace file is (its own lines). The server decides which files to read and reads them; these
 * functions read parsed documents, a usage and trace text.
 */
import { LineIndex, type PolicyDocument } from '@netpolicy/core';
import type { Position, Range } from 'vscode-languageserver-types';
import { member, nodeAtOffset, presetAt, rootOf } from './definition';
import { offsetOf, pointerRange, rangeOf } from './ranges';
import { MAX_TRACE_REFERENCES, type TraceUsage } from './trace-usage';

/**
 * What a references request in a policy is about: a rule (`/sources/N`, `/connections/N`, or
 * `default`, the denials nothing else decided), or an enabled preset (a rule too: `preset:NAME`).
 * @public
 */
export type ReferenceTarget =
  | { kind: 'rule'; rule: string }
  | { kind: 'preset'; rule: string; name: string; range: Range };

/**
 * The target at a position: a preset name in `presets`; anywhere in a source or connection (its
 * rule); on `default` or its value; at the policy's first character when it has no `default`
 * member (where the lens of the default's accesses stands). Undefined elsewhere.
 * @public
 */
export function referenceTargetAt(doc: PolicyDocument, position: Position): ReferenceTarget | undefined {
  const preset = presetAt(doc, position);
  if (preset) return { kind: 'preset', rule: `preset:${preset.value}`, name: preset.value, range: preset.range };
  const offset = offsetOf(doc, position);
  const at = nodeAtOffset(doc, offset);
  if (!at) return undefined;
  const [head, index] = at.path;
  if ((head === 'sources' || head === 'connections') && typeof index === 'number') return { kind: 'rule', rule: `/${head}/${index}` };
  if (head === 'default') return { kind: 'rule', rule: 'default' };
  const root = rootOf(doc);
  if (at.path.length === 0 && root?.type === 'object' && offset === root.offset && !member(root, 'default')) return { kind: 'rule', rule: 'default' };
  return undefined;
}

/**
 * The string items of a policy's `presets` equal to `name` (each whole, quotes included).
 * @public
 */
export function presetOccurrences(doc: PolicyDocument, name: string): Range[] {
  const list = member(rootOf(doc), 'presets');
  if (list?.type !== 'array') return [];
  return (list.children ?? []).filter((n) => n.type === 'string' && n.value === name).map((n) => rangeOf(doc, n.offset, n.length));
}

/**
 * Where a policy states a rule: the source or connection, the `default` member, or each
 * `presets` item naming the preset (the declaration a references request may include).
 * @public
 */
export function ruleRanges(doc: PolicyDocument, rule: string): Range[] {
  if (rule.startsWith('preset:')) return presetOccurrences(doc, rule.slice('preset:'.length));
  const range = rule === 'default' ? pointerRange(doc, '/default', true) : /^\/(sources|connections)\/\d+$/.test(rule) ? pointerRange(doc, rule) : undefined;
  return range ? [range] : [];
}

/**
 * The `rule` values of a policy test file (`{"tests": [{"rule": "/sources/0"}]}`) that name `rule`
 * exactly, as `netpolicy test` compares them (each whole, quotes included).
 * @public
 */
export function testRuleRanges(doc: PolicyDocument, rule: string): Range[] {
  const list = member(rootOf(doc), 'tests');
  if (list?.type !== 'array') return [];
  const out: Range[] = [];
  for (const test of list.children ?? []) {
    const r = member(test, 'rule');
    if (r?.type === 'string' && r.value === rule) out.push(rangeOf(doc, r.offset, r.length));
  }
  return out;
}

/**
 * An observation a rule decided: the trace file (its path) and the observation's zero-based index in it.
 * @public
 */
export interface ObservationRef {
  /** The trace file's path. */
  trace: string;
  /** The observation's zero-based index in that file. */
  index: number;
}

/**
 * The observations `rule` decided, in the order of the traces: the first `MAX_TRACE_REFERENCES`
 * (`count` says how many it decided in all).
 * @public
 */
export function ruleObservations(usage: TraceUsage, rule: string): { observations: ObservationRef[]; count: number } {
  const u = usage.byRule.get(rule);
  if (!u) return { observations: [], count: 0 };
  const n = Math.min(u.count, MAX_TRACE_REFERENCES);
  const observations: ObservationRef[] = new Array(n);
  for (let k = 0; k < n; k++) observations[k] = { trace: usage.files[u.observed[2 * k]].path, index: u.observed[2 * k + 1] };
  return { observations, count: u.count };
}

const START = 0, KEY = 1, COLON = 2, VALUE = 3, ELEMENTS = 4, DONE = 5, FAILED = 6;

/**
 * Where each observation of a trace document is: the range of its text (`{` to `}`) in LSP
 * positions, for a references request to point into the trace file. `write` the text in pieces
 * as it is decoded, then `end`; four numbers an observation (16 bytes), no object each.
 *
 * Observations are found as core's trace reader finds them (every element of every top-level
 * `observations` array, in order; member names compared once unescaped), by their structure
 * alone: nothing is parsed. Text is converted to positions by `LineIndex` (UTF-16 code units; a
 * line ends at `\n`, `\r\n` or a lone `\r`), a piece at a time: pieces are cut after a `\n`, so
 * that no line break is split, and a file without one is one piece. A document whose structure
 * breaks stops the index there (`complete` false): the observations before it keep their places.
 * @public
 */
export class ObservationPlaces {
  /** How many observations were found. */
  count = 0;
  /** False when the text broke off or broke the document's structure. */
  complete = false;
  /** [start line, start character, end line, end character] per observation. */
  private places = new Uint32Array(4 * 1024);
  private pending = '';
  private phase = START;
  /** The line and character where the next piece starts. */
  private line = 0;
  private character = 0;
  // The value being skipped: nesting depth, inside a string, after a backslash, a bare value (number, literal).
  private depth = 0;
  private inString = false;
  private escaped = false;
  private bare = false;
  private skipping = false;
  /** A member name being read (its raw text between the quotes), and whether the current member is `observations`. */
  private key: string | undefined;
  private isObservations = false;
  private afterElement = false;
  /** The next backslash of the piece at or after the scan (-1 >>> 0, past any piece, when there is none). */
  private backslash = -1;

  /** The range of observation `i` (zero-based), or undefined when there is no such observation. */
  range(i: number): Range | undefined {
    if (!(i >= 0 && i < this.count)) return undefined;
    const p = this.places;
    return { start: { line: p[4 * i], character: p[4 * i + 1] }, end: { line: p[4 * i + 2], character: p[4 * i + 3] } };
  }

  /** The next text of the document. */
  write(text: string): void {
    if (this.phase === FAILED || this.phase === DONE) return;
    this.pending += text;
    const cut = this.pending.lastIndexOf('\n');
    if (cut < 0) return;
    const piece = this.pending.slice(0, cut + 1);
    this.pending = this.pending.slice(cut + 1);
    this.scan(piece);
  }

  /** The end of the document. */
  end(): this {
    if (this.pending) this.scan(this.pending);
    this.pending = '';
    this.complete = this.phase === DONE;
    return this;
  }

  private scan(piece: string): void {
    const lines = new LineIndex(piece);
    this.backslash = -1;
    const at = (offset: number, slot: number) => {
      const p = lines.positionAt(offset);
      this.places[slot] = this.line + p.line;
      this.places[slot + 1] = p.line === 0 ? this.character + p.character : p.character;
    };
    const n = piece.length;
    let i = 0;
    while (i < n && this.phase < DONE) {
      if (this.skipping) {
        i = this.skip(piece, i);
        if (this.skipping) break;
        if (this.phase === ELEMENTS) {
          at(i, 4 * this.count + 2);
          this.count++;
          this.afterElement = true;
        } else {
          this.phase = KEY;
        }
        continue;
      }
      if (this.key !== undefined) {
        i = this.readKey(piece, i);
        continue;
      }
      const c = piece.charCodeAt(i);
      if (c === 32 || c === 10 || c === 13 || c === 9) { i++; continue; }
      switch (this.phase) {
        case START:
          if (c === 0xfeff) break;
          this.phase = c === 123 ? KEY : FAILED;
          break;
        case KEY:
          if (c === 125) this.phase = DONE;
          else if (c === 34) this.key = '';
          else if (c !== 44) this.phase = FAILED;
          break;
        case COLON:
          this.phase = c === 58 ? VALUE : FAILED;
          break;
        case VALUE:
          if (this.isObservations) {
            if (c !== 91) { this.phase = FAILED; break; }
            this.phase = ELEMENTS;
            this.afterElement = false;
          } else {
            this.startSkip(c);
            continue;
          }
          break;
        case ELEMENTS:
          if (c === 93) { this.phase = KEY; break; }
          if (c === 44 && this.afterElement) { this.afterElement = false; break; }
          if (this.afterElement) { this.phase = FAILED; break; }
          if (4 * this.count + 4 > this.places.length) {
            const grown = new Uint32Array(2 * this.places.length);
            grown.set(this.places);
            this.places = grown;
          }
          at(i, 4 * this.count);
          this.startSkip(c);
          continue;
      }
      i++;
    }
    const end = lines.positionAt(n);
    this.character = end.line === 0 ? this.character + end.character : end.character;
    this.line += end.line;
  }

  /** Reads a member name from `i` (after its opening quote) up to its closing quote; then expects `:`. */
  private readKey(piece: string, i: number): number {
    const n = piece.length;
    let j = i;
    while (j < n) {
      const c = piece.charCodeAt(j);
      if (this.escaped) this.escaped = false;
      else if (c === 92) this.escaped = true;
      else if (c === 34) break;
      j++;
    }
    this.key += piece.slice(i, j);
    if (j >= n) return n;
    const raw = this.key!;
    let name: unknown = raw;
    if (raw.includes('\\')) {
      try {
        name = JSON.parse(`"${raw}"`);
      } catch {
        this.phase = FAILED;
      }
    }
    this.isObservations = name === 'observations';
    this.key = undefined;
    if (this.phase !== FAILED) this.phase = COLON;
    return j + 1;
  }

  private startSkip(c: number): void {
    this.skipping = true;
    this.depth = 0;
    this.inString = false;
    this.escaped = false;
    this.bare = !(c === 123 || c === 91 || c === 34);
  }

  /** Skips the value being read from `i`; returns where it ended (`skipping` false) or the piece's end. */
  private skip(piece: string, i: number): number {
    const n = piece.length;
    if (this.bare) {
      while (i < n) {
        const c = piece.charCodeAt(i);
        if (c === 44 || c === 125 || c === 93 || c === 32 || c === 10 || c === 13 || c === 9) { this.skipping = false; return i; }
        i++;
      }
      return n;
    }
    let depth = this.depth;
    while (i < n) {
      if (this.inString) {
        // Strings are most of a trace: jumps to the next quote or backslash (indexOf), not a loop over characters.
        if (this.escaped) { this.escaped = false; i++; continue; }
        if (this.backslash < i) this.backslash = piece.indexOf('\\', i) >>> 0;
        const q = piece.indexOf('"', i);
        if (this.backslash < n && (q < 0 || this.backslash < q)) { i = this.backslash + 1; this.escaped = true; continue; }
        if (q < 0) return n;
        i = q + 1;
        this.inString = false;
        if (depth === 0) { this.skipping = false; return i; }
        continue;
      }
      const c = piece.charCodeAt(i++);
      if (c === 34) this.inString = true;
      else if (c === 123 || c === 91) depth++;
      else if (c === 125 || c === 93) {
        if (--depth <= 0) { this.skipping = false; this.depth = 0; return i; }
      }
    }
    this.depth = depth;
    return n;
  }
}
