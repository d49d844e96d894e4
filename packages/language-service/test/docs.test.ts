import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
// @ts-expect-error: a plain script without types
import { presetsMarkdown } from '../../../scripts/presets-doc.mjs';
import { DEFAULT_SETTINGS, findDocumentLinks } from '../src/index';
import { parsePolicyDocument } from '@netpolicy/core';

const root = fileURLToPath(new URL('../../../', import.meta.url));

describe('docs the editor links to', () => {
  it('docs/presets.md is generated from the catalog and current', () => {
    const catalog = JSON.parse(readFileSync(`${root}schemas/presets.json`, 'utf8'));
    expect(readFileSync(`${root}docs/presets.md`, 'utf8')).toBe(presetsMarkdown(catalog));
  });
  it('every preset link lands on a heading of docs/presets.md', () => {
    const page = readFileSync(`${root}docs/presets.md`, 'utf8');
    const names = DEFAULT_SETTINGS.catalog.presets.map((p) => p.name);
    const doc = parsePolicyDocument(JSON.stringify({ presets: names }), { fileName: 'p.netpolicy.json' });
    for (const link of findDocumentLinks(doc)) {
      const anchor = link.target!.split('#')[1];
      expect(page).toContain(`## \`${decodeURIComponent(anchor)}\``);
    }
  });
  it('docs/editor.md documents every setting and the custom request', () => {
    const page = readFileSync(`${root}docs/editor.md`, 'utf8');
    for (const s of ['presetCatalog', 'filePatterns', 'traces', 'severity', 'netpolicy/denials', 'netpolicy.config.json', '## Trace-aware editing', 'vim.lsp.start_client', 'vim.lsp.start', 'eglot', 'languages.toml']) expect(page).toContain(s);
  });
});
