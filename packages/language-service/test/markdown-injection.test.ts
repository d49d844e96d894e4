/**
 * Security issue 28, item 6: hover, completion documentation and related information show outside
 * values (the policy's, a preset catalog's) as inert markdown. Each answer is rendered by two real
 * renderers, marked (GFM, as VS Code) and markdown-it (raw HTML and fuzzy links on), and must hold no
 * link, no image and no tag but the service's own.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Marked } from 'marked';
import MarkdownIt from 'markdown-it';
import { escapeControl, loadPresetCatalog, parsePolicyDocument, type PresetCatalog } from '@netpolicy/core';
import type { Hover, MarkupContent } from 'vscode-languageserver-types';
import { DEFAULT_SETTINGS, doComplete, doHover, doValidation, markdownToText, type ServiceSettings } from '../src/index';

const marked = new Marked({ gfm: true, async: false });
const markdownIt = new MarkdownIt({ html: true, linkify: true });
const render = (md: string) => [marked.parse(md) as string, markdownIt.render(md)];

/** The tags the service's own markdown makes: paragraphs, code spans, bold, lists; a description indented four spaces is a code block. */
const OURS = /^<\/?(p|code|pre|strong|ul|li)>$/;

function expectInert(md: string): void {
  for (const html of render(md)) {
    expect(html).not.toMatch(/<a[\s>]/i);
    expect(html).not.toMatch(/<img/i);
    for (const tag of html.match(/<[^>]*>?/g) ?? []) expect(tag, html).toMatch(OURS);
  }
}

/** The code spans of rendered markdown (marked's), decoded. */
function spans(md: string): string[] {
  const html = marked.parse(md) as string;
  return [...html.matchAll(/<code>([\s\S]*?)<\/code>/g)].map((m) => m[1].replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&'));
}

const settingsWith = (catalog: PresetCatalog): ServiceSettings => ({ catalog, severity: {} });

/** The hover on the first occurrence of `value` (a JSON string) in the policy, inside its quotes. */
function hoverOn(policy: unknown, value: string, settings: ServiceSettings = DEFAULT_SETTINGS): string {
  const text = JSON.stringify(policy);
  const at = text.indexOf(JSON.stringify(value));
  if (at < 0) throw new Error('value not in the policy');
  const doc = parsePolicyDocument(text, { fileName: 'p.netpolicy.json' });
  const hover = doHover(doc, doc.lineIndex.positionAt(at + 1), settings) as Hover | null;
  return hover ? (hover.contents as MarkupContent).value : '';
}

const REPORT = '\n\n![p](http://x.example/p.png)\n\n[Click to update](https://evil.example/u)';

describe('hover shows outside values as inert markdown', () => {
  it('a host pattern: the report\'s value is one code span, no image, no link', () => {
    const md = hoverOn({ connections: [{ tcp: { hostPatterns: [REPORT] } }] }, REPORT);
    expect(md).toMatch(/^Matches exactly /);
    expectInert(md);
    expect(spans(md)[0]).toBe(escapeControl(REPORT));
  });

  it('an unknown preset name', () => {
    const name = '`x`\n\n<img src=x onerror=alert(1)>\n\n[Click](command:workbench.action.terminal.sendSequence)';
    const md = hoverOn({ presets: [name] }, name);
    expect(md).toMatch(/^Unknown preset /);
    expectInert(md);
    expect(spans(md)).toEqual([escapeControl(name)]);
  });

  it('a catalog preset: its name, description and rules', () => {
    const name = 'corp``` **x** <b>';
    const catalog = loadPresetCatalog({
      presets: [{ name, description: `Our mirror.${REPORT} <http://x.example> www.x.example a@b.example`, known: { sources: [{ npm: { urls: ['https://npm.example/a_(b)*c*'] } }] } }],
    });
    const md = hoverOn({ presets: [name] }, name, settingsWith(catalog));
    expectInert(md);
    expect(md.startsWith(`**preset** ${'`'.repeat(4)}${name}${'`'.repeat(4)}\n\n`)).toBe(true);
    expect(spans(md)).toEqual([name, 'https://npm.example/a_(b)*c*']);
    // The description renders as its own text.
    expect(marked.parse(md)).toContain('Our mirror.\\n\\n![p](http://x.example/p.png)\\n\\n[Click to update](https://evil.example/u) &lt;http://x.example&gt; www.x.example a@b.example');
  });

  it('a key, a URL, an SSH host and user, an OCI operation', () => {
    const cases: Array<[unknown, string]> = [
      [{ sources: [{ [REPORT]: {} }] }, REPORT],
      [{ sources: [{ pypi: { urls: [`https://pypi.example/${REPORT}`] } }] }, `https://pypi.example/${REPORT}`],
      [{ sources: [{ git: { repositoryPatterns: ['*'], ssh: [{ host: REPORT, port: 22, user: REPORT }] } }] }, REPORT],
      [{ sources: [{ oci: { urls: ['https://r.example'], operations: [REPORT] } }] }, 'oci'],
    ];
    for (const [policy, value] of cases) {
      const md = hoverOn(policy, value);
      expect(md).not.toBe('');
      expectInert(md);
    }
  });

  it('a plain-text client gets the values back as they are (control characters escaped)', () => {
    const { doc, position } = (() => {
      const text = JSON.stringify({ connections: [{ tcp: { hostPatterns: ['a`b\\*c*'] } }] });
      const d = parsePolicyDocument(text, { fileName: 'p.netpolicy.json' });
      return { doc: d, position: d.lineIndex.positionAt(text.indexOf('a`b') + 1) };
    })();
    const plain = doHover(doc, position, { ...DEFAULT_SETTINGS, client: { snippets: true, completionMarkdown: true, hoverMarkdown: false } })!;
    expect((plain.contents as MarkupContent).value).toBe('Matches exactly a`b\\*c* (case-insensitive, a trailing dot ignored).\n\nDoes not match its subdomains (a.a`b\\*c*): use *.a`b\\*c* for those.');
    expect(markdownToText(`Our ${'`'.repeat(2)} \`x ${'`'.repeat(2)} \\[a\\]\\(b\\) **c**`)).toBe('Our `x [a](b) c');
  });
});

describe('completion documentation shows a catalog\'s description as inert markdown', () => {
  it('the report\'s description, and a name with control characters', () => {
    const name = 'evil\u202e\nname';
    const catalog = loadPresetCatalog({ presets: [{ name, description: `Mirror${REPORT}`, opaque: true }] });
    const text = '{ "presets": [  ] }';
    const doc = parsePolicyDocument(text, { fileName: 'p.netpolicy.json' });
    const items = doComplete(doc, doc.lineIndex.positionAt(text.indexOf('[') + 2), settingsWith(catalog)).items;
    const item = items.find((i) => i.textEdit && (i.textEdit as { newText: string }).newText.startsWith(JSON.stringify(name)))!;
    expect(item.label).toBe('evil\\u202e\\nname');
    expect(item.filterText).toBe(JSON.stringify(name));
    const md = (item.documentation as MarkupContent).value;
    expectInert(md);
    expect(md).toMatch(/^Mirror\\\\n\\\\n\\!\\\[p\\\]/);
    const plain = doComplete(doc, doc.lineIndex.positionAt(text.indexOf('[') + 2), { ...settingsWith(catalog), client: { snippets: true, completionMarkdown: false, hoverMarkdown: true } }).items
      .find((i) => i.filterText === JSON.stringify(name))!;
    expect((plain.documentation as MarkupContent).value).toBe(`${escapeControl(`Mirror${REPORT}`)}\n\nContents unknown (opaque): a denial while it is enabled is uncertain.`);
  });
});

describe('related information', () => {
  it('names a catalog preset escaped; an ordinary related message is unchanged', () => {
    const name = `x](http://evil.example) ${REPORT}`;
    const catalog = loadPresetCatalog({ presets: [{ name, description: 'd', known: { sources: [{ npm: { urls: ['https://npm.example'] } }] } }] });
    const text = JSON.stringify({ presets: [name], sources: [{ npm: { urls: ['https://npm.example'] } }, { pypi: { urls: ['https://p.example'] } }, { pypi: { urls: ['https://p.example'] } }] });
    const doc = parsePolicyDocument(text, { fileName: 'p.netpolicy.json' });
    const diagnostics = doValidation(doc, 'file:///p.netpolicy.json', settingsWith(catalog));
    const redundant = diagnostics.find((d) => d.code === 'redundant-with-preset')!;
    const message = redundant.relatedInformation![0].message;
    expectInert(message);
    expect(markdownToText(message)).toBe(`preset:${escapeControl(name)} allows what this rule allows.`);
    expect(diagnostics.find((d) => d.code === 'duplicate-rule')!.relatedInformation![0].message).toBe('The earlier identical rule.');
  });
});

/** Hostile strings: link, image and autolink syntax, raw HTML, backtick runs, emphasis, block markers, line breaks, bidi and control characters. */
const hostile = fc.array(fc.oneof(
  fc.constantFrom('[', ']', '](', '![p](http://x.example/p.png)', '[Click](https://evil.example/u)', '<http://x.example>', 'http://x.example', 'www.x.example', 'a@b.example',
    'x.com', '<img src=x>', '<a href="http://x">', '&lt;', '`', '``', '```', '*', '**', '_', '~~', '# ', '- ', '1. ', '> ', '    ', '|', '\\', '\n', '\n\n', '\r', '\u2028', '\u202e', '\u001b', '\u0000', ' '),
  fc.string({ maxLength: 6 }),
), { minLength: 1, maxLength: 12 }).map((parts) => parts.join('')).filter((s) => s.length > 0);

describe('every sink, on generated hostile values', () => {
  it('hovers on host patterns, server names, URLs, preset names (unknown and from a catalog), keys', () => {
    fc.assert(fc.property(hostile, hostile, (v, w) => {
      const catalog = loadPresetCatalog({ presets: [{ name: w, description: v, opaque: true }] });
      const settings = settingsWith(catalog);
      const policies: Array<[unknown, string, ServiceSettings?]> = [
        [{ connections: [{ tcp: { hostPatterns: [v] } }] }, v],
        [{ connections: [{ tls: { serverNamePatterns: [`*.${v}`] } }] }, `*.${v}`],
        [{ sources: [{ npm: { urls: [`https://r.example/${v}`] } }] }, `https://r.example/${v}`],
        [{ presets: [v] }, v],
        [{ presets: [w] }, w, settings],
        [{ connections: [{ tcp: { hostPatterns: [v], ports: [w] } }] }, 'tcp'],
      ];
      for (const [policy, value, s] of policies) {
        const md = hoverOn(policy, value, s);
        expectInert(md);
      }
      const text = '{ "presets": [  ] }';
      const doc = parsePolicyDocument(text, { fileName: 'p.netpolicy.json' });
      const item = doComplete(doc, doc.lineIndex.positionAt(text.indexOf('[') + 2), settings).items.find((i) => i.filterText === w || i.filterText === JSON.stringify(w))!;
      expectInert((item.documentation as MarkupContent).value);
    }), { numRuns: 300 });
  });
});
