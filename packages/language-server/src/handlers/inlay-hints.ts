/**
 * `textDocument/inlayHint`: address counts of CIDRs, services of ports, what enabled presets add,
 * and (trusted workspace, traces evaluated) hit counts per rule; each kind off with its
 * `netpolicy.inlayHints.*` setting. Only the requested range is looked at.
 */
import { getInlayHints, type InlayHintOptions } from '@netpolicy/language-service';
import type { Connection } from 'vscode-languageserver';
import type { Parts } from './parts';

/** The `netpolicy.inlayHints` settings: each kind is on unless set to false. */
function optionsOf(value: unknown): InlayHintOptions {
  if (!value || typeof value !== 'object') return {};
  const v = value as Record<string, unknown>;
  return { addresses: v.addresses !== false, services: v.services !== false, presets: v.presets !== false, traceHits: v.traceHits !== false };
}

export function register(connection: Connection, { session, workspace, documents, requests }: Pick<Parts, 'session' | 'workspace' | 'documents' | 'requests'>): void {
  connection.languages.inlayHint.on((p, token) => requests.withDoc('inlay hints', 'textDocument/inlayHint', p, token, [], (doc) => {
    const uri = p.textDocument.uri;
    const usage = session.trusted ? documents.usage(uri) : undefined;
    return getInlayHints(doc, p.range, workspace.folderOf(uri).service, optionsOf(session.editorSettings.inlayHints), usage);
  }));
}
