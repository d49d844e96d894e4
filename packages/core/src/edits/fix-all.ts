/**
 * "Fix all": the preferred fix of many diagnostics at once (`check --fix`, the editor's "fix all
 * of this kind"). One round takes every fix whose edits do not touch another's; rounds repeat on
 * the re-validated text until nothing fixable is left or a round changes nothing.
 */
import { parsePolicyDocument, type PolicyDocument } from '../validate/document';
import { validateDocument, type ValidateOptions } from '../validate/validate';
import type { Diagnostic, DiagnosticCode } from '../validate/types';
import { applyEdits, fixEdits, type TextEdit } from './fix-edits';

/**
 * Non-overlapping edits applying the preferred fix of each diagnostic (in document order; a fix that would overlap an earlier one waits for the next round).
 * @public
 */
export function fixAllEdits(doc: PolicyDocument, diagnostics: readonly Diagnostic[], codes?: ReadonlySet<DiagnosticCode>): TextEdit[] {
  return collect(doc, diagnostics, codes).edits;
}

function collect(doc: PolicyDocument, diagnostics: readonly Diagnostic[], codes?: ReadonlySet<DiagnosticCode>): { edits: TextEdit[]; fixes: number } {
  let fixes = 0;
  const taken = new TakenRanges();
  const out: TextEdit[] = [];
  for (const d of diagnostics) {
    if (d.data === undefined || (codes && !codes.has(d.code))) continue;
    const edits = fixEdits(doc, d);
    if (edits.length === 0 || edits.some((e) => taken.touches(e.offset, e.offset + e.length))) continue;
    for (const e of edits) taken.add(e.offset, e.offset + e.length);
    out.push(...edits);
    fixes++;
  }
  return { edits: out, fixes };
}

/**
 * The ranges of the edits taken in a round, sorted by start: "does [from, to] touch a taken range"
 * is a binary search, not a scan of every range taken (a round of 60,000 fixes had been quadratic).
 * A range is taken only when it touches none taken before, and a fix's own edits are disjoint, so
 * the ends rise with the starts and the last range starting at or before `to` is the only one that
 * can reach `from`. Should two ranges of one fix ever overlap, the check scans them all.
 */
class TakenRanges {
  private readonly starts: number[] = [];
  private readonly ends: number[] = [];
  private ordered = true;

  touches(from: number, to: number): boolean {
    if (!this.ordered) {
      for (let i = 0; i < this.starts.length; i++) if (from <= this.ends[i] && this.starts[i] <= to) return true;
      return false;
    }
    const i = this.lastStartingAtOrBefore(to);
    return i >= 0 && this.ends[i] >= from;
  }

  add(from: number, to: number): void {
    // Fixes come in document order, so a new range almost always goes last.
    const at = this.lastStartingAtOrBefore(from) + 1;
    if ((at > 0 && this.ends[at - 1] >= from) || (at < this.starts.length && this.starts[at] <= to)) this.ordered = false;
    this.starts.splice(at, 0, from);
    this.ends.splice(at, 0, to);
  }

  /** The index of the last range starting at or before `offset`, or -1. */
  private lastStartingAtOrBefore(offset: number): number {
    const n = this.starts.length;
    if (n === 0 || this.starts[n - 1] <= offset) return n - 1;
    let lo = 0;
    let hi = n;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.starts[mid] <= offset) lo = mid + 1;
      else hi = mid;
    }
    return lo - 1;
  }
}

/**
 * What `applyFixes` returns: the fixed text, how many fixes it took, and what is left to fix by hand.
 * @public
 */
export interface ApplyFixesResult {
  text: string;
  /** Fixes applied in all rounds. */
  applied: number;
  /** The diagnostics of the final text. */
  diagnostics: Diagnostic[];
}

/**
 * Applies every preferred fix (of `codes`, or all) to `text`, round after round (at most `maxRounds`).
 * @public
 */
export function applyFixes(text: string, options: ValidateOptions & { codes?: ReadonlySet<DiagnosticCode>; maxRounds?: number } = {}): ApplyFixesResult {
  let doc = parsePolicyDocument(text, { fileName: options.fileName, jsonc: options.jsonc });
  let diagnostics = validateDocument(doc, options);
  let applied = 0;
  for (let round = 0; round < (options.maxRounds ?? 10); round++) {
    const { edits, fixes } = collect(doc, diagnostics, options.codes);
    if (edits.length === 0) break;
    const next = applyEdits(doc.text, edits);
    if (next === doc.text) break;
    applied += fixes;
    doc = parsePolicyDocument(next, { fileName: options.fileName, jsonc: options.jsonc });
    diagnostics = validateDocument(doc, options);
  }
  return { text: doc.text, applied, diagnostics };
}
