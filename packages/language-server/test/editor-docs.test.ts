/**
 * docs/editor.md cannot drift from the server (issue 30 item 8): every feature the server
 * advertises to a client like VS Code has its row in the Features table, and every screenshot the
 * page and the extension's README show is in the repository (the e2e's --update-screenshots
 * writes them).
 */
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { clientPerTest } from './harness';

const client = clientPerTest();
const root = new URL('../../../', import.meta.url);
const page = readFileSync(new URL('docs/editor.md', root), 'utf8');

/** Each provider of the initialize result -> the row of the Features table that documents it. */
const ROW_OF: Record<string, string> = {
  completionProvider: 'Completion',
  hoverProvider: 'Hover',
  codeActionProvider: 'Quick fixes',
  executeCommandProvider: 'Policy test files',
  documentSymbolProvider: 'Outline',
  workspaceSymbolProvider: 'Workspace symbols',
  foldingRangeProvider: 'Folding and selection',
  selectionRangeProvider: 'Folding and selection',
  documentFormattingProvider: 'Formatting',
  documentRangeFormattingProvider: 'Formatting',
  documentLinkProvider: 'Links',
  codeLensProvider: 'Code lenses',
  definitionProvider: 'Go to definition',
  referencesProvider: 'References',
  documentHighlightProvider: 'Document highlight',
  renameProvider: 'Rename',
  inlayHintProvider: 'Inlay hints',
  diagnosticProvider: 'Pull diagnostics and progress',
};

/** The first cell of each row of the table under `## Features`. */
function featureRows(): string[] {
  const section = page.slice(page.indexOf('## Features'), page.indexOf('\n## ', page.indexOf('## Features') + 1));
  const table = section.slice(0, section.indexOf('\n\n', section.indexOf('| Feature |')));
  return table.split('\n').filter((l) => l.startsWith('| ') && !l.startsWith('| Feature')).map((l) => l.split('|')[1].trim());
}

describe('docs/editor.md', () => {
  it('has a Features row for every provider the server advertises to VS Code (pulling diagnostics too)', async () => {
    const c = await client({
      capabilities: { textDocument: { diagnostic: { dynamicRegistration: false } }, workspace: { diagnostics: { refreshSupport: true }, configuration: true }, window: { workDoneProgress: true } },
    });
    const providers = Object.keys(c.initializeResult.capabilities).filter((k) => k.endsWith('Provider'));
    expect(providers).toEqual(expect.arrayContaining(['diagnosticProvider', 'definitionProvider', 'inlayHintProvider']));
    expect(providers.filter((p) => !(p in ROW_OF)), 'a new provider: give it a row in docs/editor.md and in ROW_OF').toEqual([]);
    const rows = featureRows();
    expect(rows).toContain('Diagnostics');
    expect([...new Set(providers.map((p) => ROW_OF[p]))].filter((r) => !rows.includes(r))).toEqual([]);
  });

  it('shows only screenshots that exist', () => {
    const images = [...page.matchAll(/\]\((\.\.\/extension\/images\/[^)\s]+\.png)\)/g)].map((m) => m[1]);
    expect(images.length).toBeGreaterThanOrEqual(10);
    expect(images.filter((p) => !existsSync(new URL(`docs/${p}`, root)))).toEqual([]);
    // The extension's README links them by URL (the .vsix holds images/*.png only).
    const readme = readFileSync(new URL('extension/README.md', root), 'utf8');
    const linked = [...readme.matchAll(/raw\/HEAD\/(extension\/images\/[^)\s]+\.png)/g)].map((m) => m[1]);
    expect(linked.length).toBeGreaterThanOrEqual(5);
    expect(linked.filter((p) => !existsSync(new URL(p, root)))).toEqual([]);
  });
});
