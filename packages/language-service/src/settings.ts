/** What the language service needs to know besides the document: the catalog and severities in force. */
import { defaultPresetCatalog, type PresetCatalog, type SeverityOptions } from '@netpolicy/core';

/**
 * What every feature needs besides the document: the catalog and severities in force, and what the client can show.
 * @public
 */
export interface ServiceSettings {
  /** The preset catalog in force (built-in, or with a user catalog's entries). */
  catalog: PresetCatalog;
  /** Severity per lint code (`off`: the rule does not run). */
  severity: SeverityOptions;
  /** What the client can show (from its capabilities); absent: snippets and Markdown. */
  client?: ClientFeatures;
}

/**
 * The client capabilities the service's answers depend on.
 * @public
 */
export interface ClientFeatures {
  /** `textDocument.completion.completionItem.snippetSupport`: false sends plain text, placeholders filled in. */
  snippets: boolean;
  /** Markdown in completion documentation (`completionItem.documentationFormat`); false sends plain text. */
  completionMarkdown: boolean;
  /** Markdown in hovers (`hover.contentFormat`); false sends plain text. */
  hoverMarkdown: boolean;
}

/**
 * Markdown as plain text: the marks the service writes removed. `**` goes; a code span (any fence,
 * core's `markdownCode`) becomes its contents; a backslash escape (core's `markdownText`) becomes
 * the character. Values keep their own backticks and asterisks.
 * @public
 */
export function markdownToText(markdown: string): string {
  let out = '';
  let i = 0;
  while (i < markdown.length) {
    MARK.lastIndex = i;
    const found = MARK.exec(markdown);
    const at = found ? found.index : markdown.length;
    out += markdown.slice(i, at);
    i = at;
    if (!found) break;
    const c = markdown[i];
    if (c === '\\') {
      out += markdown[i + 1];
      i += 2;
    } else if (c === '*') {
      i += 2;
    } else {
      let n = 1;
      while (markdown[i + n] === '`') n++;
      const close = closingFence(markdown, i + n, n);
      if (close < 0) { i += n; continue; }
      const inside = markdown.slice(i + n, close);
      // CommonMark: one space is stripped from each end of a span that has one at both (and more than spaces).
      out += inside.length >= 2 && inside.startsWith(' ') && inside.endsWith(' ') && /[^ ]/.test(inside) ? inside.slice(1, -1) : inside;
      i = close + n;
    }
  }
  return out;
}

/** What `markdownToText` acts on: a backslash escape, `**`, a backtick. */
const MARK = /\\[!-/:-@[-`{-~]|\*\*|`/g;

/** Where the run of exactly `n` backticks that closes a span opened before `from` starts; -1 when none does. */
function closingFence(text: string, from: number, n: number): number {
  for (let i = text.indexOf('`', from); i >= 0; i = text.indexOf('`', i)) {
    let m = 1;
    while (text[i + m] === '`') m++;
    if (m === n) return i;
    i += m;
  }
  return -1;
}

/**
 * The built-in catalog, every lint rule at its default severity, a client that shows snippets and Markdown.
 * @public
 */
export const DEFAULT_SETTINGS: ServiceSettings = { catalog: defaultPresetCatalog, severity: {} };
