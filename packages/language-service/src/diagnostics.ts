/**
 * Diagnostics as LSP sees them: everything `check` reports (same codes, pointers and ranges),
 * with `source`, a link to the code's page, related places and tags. `data` carries what a quick
 * fix needs, but code actions never depend on it (some clients do not send it back).
 */
import { docsUrl, escapeControl, validateDocument, type Diagnostic, type PolicyDocument } from '@netpolicy/core';
import { markdownText } from '@netpolicy/core/internal';
import { DiagnosticSeverity, DiagnosticTag, type Diagnostic as LspDiagnostic, type DiagnosticRelatedInformation } from 'vscode-languageserver-types';
import { pointerRange, rangeOf } from './ranges';
import type { ServiceSettings } from './settings';

/**
 * The `source` of every diagnostic the service makes: code actions act only on diagnostics with it.
 * @public
 */
export const SOURCE = 'netpolicy';

const SEVERITY = { error: DiagnosticSeverity.Error, warning: DiagnosticSeverity.Warning, information: DiagnosticSeverity.Information, hint: DiagnosticSeverity.Hint } as const;

/**
 * What the server keeps in an LSP diagnostic's `data`: enough to find the core diagnostic again.
 * @public
 */
export interface DiagnosticPayload {
  pointer: string;
  offset: number;
  length: number;
}

/**
 * The core diagnostics of a policy document under the settings in force.
 * @public
 */
export function policyDiagnostics(doc: PolicyDocument, settings: ServiceSettings): Diagnostic[] {
  return validateDocument(doc, { catalog: settings.catalog, severity: settings.severity });
}

/**
 * One core diagnostic as LSP has it: range, severity, code with a link to its page, related places,
 * tags, and a `DiagnosticPayload`. The message quotes the document (an unknown preset's name, a
 * URL), which may come from a hostile repository: its control, bidi and line-separator characters
 * are shown as escapes (core's `escapeControl`, as `check` prints them), never applied by the
 * editor's list of problems.
 * @public
 */
export function toLspDiagnostic(doc: PolicyDocument, uri: string, d: Diagnostic): LspDiagnostic {
  const out: LspDiagnostic = {
    range: rangeOf(doc, d.offset, d.length),
    severity: SEVERITY[d.severity],
    code: d.code,
    codeDescription: { href: docsUrl(d.code) },
    source: SOURCE,
    message: escapeControl(d.message),
    data: { pointer: d.pointer, offset: d.offset, length: d.length } satisfies DiagnosticPayload,
  };
  if (d.related?.length) {
    const related: DiagnosticRelatedInformation[] = [];
    for (const r of d.related) {
      const range = pointerRange(doc, r.pointer);
      // A related message can name a catalog's preset (outside text); clients that render it as
      // markdown get it escaped, and an ordinary one reads the same as plain text.
      if (range) related.push({ location: { uri, range }, message: markdownText(r.message) });
    }
    if (related.length) out.relatedInformation = related;
  }
  if (d.tags?.length) {
    const tags = d.tags.map((t) => (t === 'unnecessary' ? DiagnosticTag.Unnecessary : DiagnosticTag.Deprecated));
    out.tags = tags;
  }
  return out;
}

/**
 * `check`'s diagnostics of the document, as LSP diagnostics.
 * @public
 */
export function doValidation(doc: PolicyDocument, uri: string, settings: ServiceSettings): LspDiagnostic[] {
  return policyDiagnostics(doc, settings).map((d) => toLspDiagnostic(doc, uri, d));
}
