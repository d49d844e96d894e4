/**
 * Security issue 28, item 6, over LSP: a hostile value in a policy or a workspace's preset catalog
 * reaches the client's hover, completion documentation and related information as inert markdown.
 * The answers are rendered with marked (GFM), as VS Code renders them, and with markdown-it (raw
 * HTML and fuzzy links on).
 */
import { describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Marked } from 'marked';
import MarkdownIt from 'markdown-it';
import { clientPerTest, fileUri } from './harness';

const marked = new Marked({ gfm: true, async: false });
const markdownIt = new MarkdownIt({ html: true, linkify: true });

/** Rendered by both: no link, no image, no tag but paragraphs, code spans, bold and lists. */
function expectInert(md: string): string {
  const html = marked.parse(md) as string;
  for (const out of [html, markdownIt.render(md)]) {
    expect(out).not.toMatch(/<a[\s>]/i);
    expect(out).not.toMatch(/<img/i);
    for (const tag of out.match(/<[^>]*>?/g) ?? []) expect(tag, out).toMatch(/^<\/?(p|code|strong|ul|li)>$/);
  }
  return html;
}

// The value of the report: a blank line ends a backtick span that keeps its newlines.
const VALUE = '\n\n![p](http://tracker.example/p.png)\n\n[Click to update](https://evil.example/u)';
const ESCAPED = '\\n\\n![p](http://tracker.example/p.png)\\n\\n[Click to update](https://evil.example/u)';

const client = clientPerTest();

describe.each([['in-process', false], ['spawned --stdio', true]])('the server %s', (_name, spawned) => {
  it('hovers a hostile hostPatterns value as one code span: no image, no link', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'np-ls-md-'));
    const uri = fileUri(join(dir, 'ci.netpolicy.json'));
    const c = await client({ spawn: spawned, rootUri: fileUri(dir) });
    const text = `{\n  "connections": [ { "tcp": { "hostPatterns": [${JSON.stringify(VALUE)}] } } ]\n}\n`;
    await c.open(uri, text, 1);
    const hover = await c.request<any>('textDocument/hover', { textDocument: { uri }, position: { line: 1, character: text.split('\n')[1].indexOf('\\n') + 1 } });
    expect(hover.contents.kind).toBe('markdown');
    const html = expectInert(hover.contents.value);
    expect(html).toContain(`<p>Matches exactly <code>${ESCAPED}</code> (case-insensitive, a trailing dot ignored).</p>`);
  });
});

describe('a workspace preset catalog', () => {
  it('its hostile name and description: hover, completion documentation and related information are inert', async () => {
    const name = `corp\`\`\` ${VALUE}`;
    const dir = mkdtempSync(join(tmpdir(), 'np-ls-md-'));
    writeFileSync(join(dir, 'catalog.json'), JSON.stringify({
      presets: [{ name, description: `Our mirror.${VALUE} <img src=x onerror=alert(1)> <http://x.example>`, known: { sources: [{ npm: { urls: ['https://npm.corp.example'] } }] } }],
    }));
    const c = await client({ rootUri: fileUri(dir), settings: { presetCatalog: 'catalog.json' } });
    const uri = fileUri(join(dir, 'a.netpolicy.json'));
    const text = `{"presets": [${JSON.stringify(name)}], "sources": [{"npm": {"urls": ["https://npm.corp.example"]}}]}`;
    await c.open(uri, text, 1);
    const published = await c.diagnostics(uri, 1);
    const redundant = published.diagnostics.find((d) => d.code === 'redundant-with-preset');
    expect(redundant).toBeDefined();
    expectInert(redundant.relatedInformation[0].message);

    const hover = await c.request<any>('textDocument/hover', { textDocument: { uri }, position: { line: 0, character: 15 } });
    const html = expectInert(hover.contents.value);
    expect(html).toContain('Our mirror.\\n\\n![p](http://tracker.example/p.png)');
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');

    const other = fileUri(join(dir, 'b.netpolicy.json'));
    await c.open(other, '{"presets": []}', 1);
    const items: any = await c.request('textDocument/completion', { textDocument: { uri: other }, position: { line: 0, character: 13 } });
    const item = items.items.find((i: any) => i.textEdit.newText.startsWith(JSON.stringify(name)));
    expectInert(item.documentation.value);
  });
});
