/**
 * "Fix all": the preferred fix of many diagnostics at once (`check --fix`, the editor's "fix all
 * of this kind"). One round takes every fix whose edits do not touch another's; rounds repeat on
 * the re-validated text until nothing fixable is left or a round changes nothing.
 */
import { parsePolicyDocument, type PolicyDocument } from '../validate/document';
import { validateDocument, type ValidateOptions } from '../validate/validate';
import type { Diagnostic, DiagnosticCode } from '../validate/types';
import { applyEdits, fixEdits, type TextEdit } from './fix-edits';

/** Non-overlapping edits applying the preferred fix of each diagnostic (in document order; a fix that would overlap an earlier one waits for the next round). */
export function fixAllEdits(doc: PolicyDocument, diagnostics: readonly Diagnostic[], codes?: ReadonlySet<DiagnosticCode>): TextEdit[] {
  return collect(doc, diagnostics, codes).edits;
}

function collect(doc: PolicyDocument, diagnostics: readonly Diagnostic[], codes?: ReadonlySet<DiagnosticCode>): { edits: TextEdit[]; fixes: number } {
  let fixes = 0;
  const taken: Array<[number, number]> = [];
  const out: TextEdit[] = [];
  for (const d of diagnostics) {
    if (d.data === undefined || (codes && !codes.has(d.code))) continue;
    const edits = fixEdits(doc, d);
    if (edits.length === 0 || edits.some((e) => taken.some(([s, t]) => e.offset <= t && s <= e.offset + e.length))) continue;
    for (const e of edits) taken.push([e.offset, e.offset + e.length]);
    out.push(...edits);
    fixes++;
  }
  return { edits: out, fixes };
}

export interface ApplyFixesResult {
  text: string;
  /** Fixes applied in all rounds. */
  applied: number;
  /** The diagnostics of the final text. */
  diagnostics: Diagnostic[];
}

/** Applies every preferred fix (of `codes`, or all) to `text`, round after round (at most `maxRounds`). */
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
