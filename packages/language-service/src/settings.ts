/** What the language service needs to know besides the document: the catalog and severities in force. */
import { defaultPresetCatalog, type PresetCatalog, type SeverityOptions } from '@netpolicy/core';

/** What every feature needs besides the document: the catalog and severities in force, and what the client can show. */
export interface ServiceSettings {
  /** The preset catalog in force (built-in, or with a user catalog's entries). */
  catalog: PresetCatalog;
  /** Severity per lint code (`off`: the rule does not run). */
  severity: SeverityOptions;
  /** What the client can show (from its capabilities); absent: snippets and Markdown. */
  client?: ClientFeatures;
}

/** The client capabilities the service's answers depend on. */
export interface ClientFeatures {
  /** `textDocument.completion.completionItem.snippetSupport`: false sends plain text, placeholders filled in. */
  snippets: boolean;
  /** Markdown in completion documentation (`completionItem.documentationFormat`); false sends plain text. */
  completionMarkdown: boolean;
  /** Markdown in hovers (`hover.contentFormat`); false sends plain text. */
  hoverMarkdown: boolean;
}

/** Markdown as plain text: the emphasis and code marks the service writes, removed. */
export function markdownToText(markdown: string): string {
  return markdown.replace(/\*\*/g, '').replace(/`/g, '');
}

/** The built-in catalog, every lint rule at its default severity, a client that shows snippets and Markdown. */
export const DEFAULT_SETTINGS: ServiceSettings = { catalog: defaultPresetCatalog, severity: {} };
