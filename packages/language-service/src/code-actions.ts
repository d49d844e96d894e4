/**
 * Quick fixes from core's fix data (the same `fixEdits` the CLI's `check --fix` uses), "fix all of
 * this kind", and `source.fixAll.netpolicy`. The core diagnostics are recomputed for the current
 * text, so a fix never applies to a stale version and works when a client sends no `data` back.
 */
import { fixAllEdits, fixEdits, fixesOf, type Diagnostic, type DiagnosticCode, type PolicyDocument, type TextEdit as CoreEdit } from '@netpolicy/core';
import { clipped, fixChoices } from '@netpolicy/core/internal';
import { CodeActionKind, type CodeAction, type CodeActionContext, type Diagnostic as LspDiagnostic, type Range, type TextEdit } from 'vscode-languageserver-types';
import { SOURCE, toLspDiagnostic } from './diagnostics';
import { intersects, rangeOf, sameRange } from './ranges';

/**
 * The code action kind of "fix everything fixable in this file" (`source.fixAll.netpolicy`), for editors' fix-on-save.
 * @public
 */
export const FIX_ALL_KIND = `${CodeActionKind.SourceFixAll}.netpolicy`;

/**
 * Core's offset edits as LSP text edits on this document.
 * @public
 */
export function toLspEdits(doc: PolicyDocument, edits: readonly CoreEdit[]): TextEdit[] {
  return edits.map((e) => ({ range: rangeOf(doc, e.offset, e.length), newText: e.newText }));
}

function wants(only: readonly string[] | undefined, kind: string): boolean {
  return !only || only.length === 0 || only.some((k) => kind === k || kind.startsWith(`${k}.`));
}

/** The current core diagnostics that the client's diagnostics (or, without any, the range) name. */
function targets(doc: PolicyDocument, range: Range, context: CodeActionContext, current: readonly Diagnostic[]): Array<{ core: Diagnostic; lsp?: LspDiagnostic }> {
  const ours = (context.diagnostics ?? []).filter((d) => d && d.source === SOURCE);
  if (ours.length === 0) {
    return current.filter((d) => intersects(rangeOf(doc, d.offset, d.length), range)).map((core) => ({ core }));
  }
  const out: Array<{ core: Diagnostic; lsp?: LspDiagnostic }> = [];
  for (const lsp of ours) {
    const core = current.find((d) => d.code === lsp.code && sameRange(rangeOf(doc, d.offset, d.length), lsp.range));
    if (core) out.push({ core, lsp });
  }
  return out;
}

/**
 * The code actions for a range: each fix choice of the diagnostics there (the preferred one
 * marked), "fix all" of a code that has several fixable problems, and `FIX_ALL_KIND` when asked
 * for. `current` is `policyDiagnostics` of this very document, so no fix applies to a stale version.
 * @public
 */
export function getCodeActions(doc: PolicyDocument, uri: string, range: Range, context: CodeActionContext, current: readonly Diagnostic[]): CodeAction[] {
  const only = context.only;
  const actions: CodeAction[] = [];
  if (wants(only, CodeActionKind.QuickFix)) {
    const fixAllOffered = new Set<DiagnosticCode>();
    for (const { core, lsp } of targets(doc, range, context, current)) {
      const diagnostic = lsp ?? toLspDiagnostic(doc, uri, core);
      fixChoices(doc, core).forEach((choice, i) => {
        const edits = fixEdits(doc, core, i);
        if (edits.length === 0) return;
        actions.push({
          // A title can hold a value of the policy (`Change to https://…`): one line, cut.
          title: clipped(choice.title),
          kind: CodeActionKind.QuickFix,
          diagnostics: [diagnostic],
          isPreferred: i === 0,
          edit: { changes: { [uri]: toLspEdits(doc, edits) } },
        });
      });
      if (fixAllOffered.has(core.code)) continue;
      const sameKind = current.filter((d) => d.code === core.code && fixesOf(d.data).length > 0);
      if (sameKind.length < 2) continue;
      const edits = fixAllEdits(doc, current, new Set([core.code]));
      if (edits.length === 0) continue;
      fixAllOffered.add(core.code);
      actions.push({
        title: `Fix all ${sameKind.length} '${core.code}' problems in this file`,
        kind: CodeActionKind.QuickFix,
        diagnostics: sameKind.map((d) => toLspDiagnostic(doc, uri, d)),
        edit: { changes: { [uri]: toLspEdits(doc, edits) } },
      });
    }
  }
  if (only && only.length > 0 && wants(only, FIX_ALL_KIND) && !wants(only, CodeActionKind.QuickFix)) {
    const edits = fixAllEdits(doc, current);
    if (edits.length > 0) actions.push({ title: 'Fix all auto-fixable netpolicy problems', kind: FIX_ALL_KIND, edit: { changes: { [uri]: toLspEdits(doc, edits) } } });
  }
  return actions;
}
