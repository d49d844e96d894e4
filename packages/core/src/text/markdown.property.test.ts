import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Marked } from 'marked';
import MarkdownIt from 'markdown-it';
import { escapeControl } from './escape';
import { markdownCode, markdownText } from './markdown';

// Two real CommonMark renderers: marked with GFM (autolink literals: `http://x`, `www.x`, `a@b.c`),
// what VS Code renders hovers and completion documentation with; markdown-it with raw HTML on and
// linkify (fuzzy: `x.com` is a link), what other clients and previews use. Raw HTML is passed through
// by both, so any tag from a value would show in the output.
const marked = new Marked({ gfm: true, async: false });
const markdownIt = new MarkdownIt({ html: true, linkify: true });
const RENDERERS: Array<[string, (md: string) => string]> = [
  ['marked', (md) => marked.parse(md) as string],
  ['markdown-it', (md) => markdownIt.render(md)],
];

/** Strings made of what hostile markdown is made of: links, images, autolinks, raw HTML, entities, backtick runs, block markers, line breaks, bidi and control characters. */
const hostile = fc.array(fc.oneof(
  fc.constantFrom(
    '[', ']', '(', ')', '](', '![', '[Click to update](https://evil.example/u)', '![p](http://x.example/p.png)', '[a][b]', '[a]', '\n[a]: http://x.example\n', '[^1]',
    '<http://x.example>', '<a@b.example>', 'http://x.example', 'https://x.example/a?b=c', 'www.x.example', 'x.com', 'a@b.co', 'mailto:a@b.co', '//x.com', 'javascript:alert(1)',
    'ｘ。com', 'пример.рф', '<img src=x onerror=alert(1)>', '<a href="http://x">', '</code>', '<!-- c -->', '<script>', '<?php ?>', '<![CDATA[x]]>', '&lt;', '&#60;img&#62;', '&amp;', '&#x5b;',
    '`', '``', '```', '````', ' `', '` ', '~~~', '\\', '\\`', '*', '**', '_', '~~', '#', '# ', '- ', '+ ', '1. ', '1) ', '> ', '    ', '---', '===', '|', '| a | b |\n|---|---|',
    '\n', '\n\n', '\r\n', '\r', '\u2028', '\u2029', '\u202e', '\u2066', '\u200f', '\u001b[31m', '\u009b', '\u0000', '\t', ' ', '  ', '$(zap)', '{a,b}', '"t"', "'t'",
  ),
  fc.string({ maxLength: 6 }),
  fc.string({ unit: fc.constantFrom(...'!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~ ax0\n'), maxLength: 10 }),
  fc.string({ unit: 'binary', maxLength: 4 }),
), { maxLength: 20 }).map((parts) => parts.join(''));

/** The text of rendered HTML with its entities decoded (marked and markdown-it write `&lt;`, `&amp;`, `&quot;`, `&#39;`). */
function decode(html: string): string {
  return html.replace(/&(?:#x([0-9a-f]+)|#([0-9]+)|(lt|gt|amp|quot|apos));/gi, (_m, hex, dec, name) => {
    if (hex) return String.fromCodePoint(parseInt(hex, 16));
    if (dec) return String.fromCodePoint(parseInt(dec, 10));
    return ({ lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" } as Record<string, string>)[name.toLowerCase()];
  });
}

/** Every tag of rendered HTML (text is escaped by both renderers: a `<` in the output starts a tag). */
const tags = (html: string) => html.match(/<[^>]*>?/g) ?? [];

/** No link, image or tag other than ours: every tag is one of `allowed`. */
function inert(html: string, allowed: RegExp): void {
  expect(html).not.toMatch(/<a[\s>]/i);
  expect(html).not.toMatch(/<img/i);
  for (const tag of tags(html)) expect(tag).toMatch(allowed);
}

/**
 * What a code span of `s` shows, compared with `spaces` on both sides: `s` with control characters
 * escaped. Values of spaces only (an empty one is a span of one space) are not compared: markdown-it
 * strips a space from each end of such a span too, against CommonMark (marked does not).
 */
const spaces = (text: string) => (/^ *$/.test(text) ? '' : text);
const shown = (s: string) => spaces(escapeControl(s));

describe('markdownCode', () => {
  it('is one code span holding the whole value (control characters escaped), and nothing else, in a sentence', () => {
    fc.assert(fc.property(hostile, (s) => {
      const md = `Matches exactly ${markdownCode(s)} (case-insensitive).`;
      for (const [name, render] of RENDERERS) {
        const html = render(md).trim();
        inert(html, /^<\/?(p|code)>$/);
        const spans = [...html.matchAll(/<code>([\s\S]*?)<\/code>/g)];
        expect(spans.length, name).toBe(1);
        expect(spaces(decode(spans[0][1])), name).toBe(shown(s));
        if (shown(s) !== '') expect(decode(html.replace(/<\/?(p|code)>/g, '')), name).toBe(`Matches exactly ${shown(s)} (case-insensitive).`);
      }
    }), { numRuns: 1500 });
  });

  it('stays closed beside other spans and emphasis, and in a list item', () => {
    fc.assert(fc.property(hostile, hostile, (a, b) => {
      const md = `**preset** ${markdownCode(a)}\n\n- tcp ${markdownCode(b)} (+1)\n- ${markdownCode(a)}, ${markdownCode(b)}\n\nDoes **not** match ${markdownCode(b)} itself.`;
      for (const [name, render] of RENDERERS) {
        const html = render(md);
        inert(html, /^<\/?(p|code|strong|ul|li)>$/);
        const spans = [...html.matchAll(/<code>([\s\S]*?)<\/code>/g)].map((m) => spaces(decode(m[1])));
        expect(spans, name).toEqual([a, b, a, b, b].map(shown));
      }
    }), { numRuns: 500 });
  });

  it('is not safe inside emphasis with marked 9 (a `*` in a wider span pairs with the `**`): values stay out of it', () => {
    // Why the language service writes `**preset** \`npm\``, never `**preset \`npm\`**`. marked 12 and later
    // (VS Code's) keep the span; marked 9, in the tree through other tools, renders the image.
    const md = `**preset ${markdownCode('^*![p](http://x.example/i.png)`')}**`;
    expect(marked.parse(md)).toMatch(/<img/);
    expect(markdownIt.render(md)).not.toMatch(/<img/);
  });

  it('writes the shortest fence that cannot close inside, padded where CommonMark would strip', () => {
    expect(markdownCode('example.com')).toBe('`example.com`');
    expect(markdownCode('a`b')).toBe('``a`b``');
    expect(markdownCode('`a')).toBe('`` `a ``');
    expect(markdownCode('a ``` b')).toBe('````a ``` b````');
    expect(markdownCode(' a ')).toBe('`  a  `');
    expect(markdownCode('  ')).toBe('`  `');
    expect(markdownCode('')).toBe('` `');
    expect(markdownCode('a\n\nb\u202e')).toBe('`a\\n\\nb\\u202e`');
  });
});

describe('markdownText', () => {
  it('renders as the value itself (control characters escaped) in a sentence: no link, image, HTML or emphasis', () => {
    fc.assert(fc.property(hostile, (s) => {
      const md = `Unknown preset ${markdownText(s)} in the catalog.`;
      for (const [name, render] of RENDERERS) {
        const html = render(md).trim();
        inert(html, /^<\/?p>$/);
        expect(decode(html.replace(/<\/?p>/g, '')), name).toBe(`Unknown preset ${escapeControl(s)} in the catalog.`);
      }
    }), { numRuns: 1500 });
  });

  it('starts no block and no link as a paragraph of its own, or as a list item', () => {
    fc.assert(fc.property(hostile, (s) => {
      const md = `**preset \`x\`**\n\n${markdownText(s)}\n\nContents:\n- tcp ${markdownText(s)}`;
      for (const [, render] of RENDERERS) inert(render(md), /^<\/?(p|code|pre|strong|ul|li)>$/);
    }), { numRuns: 1000 });
  });

  it('leaves an ordinary sentence as it is, and escapes every ASCII punctuation character otherwise', () => {
    expect(markdownText('Alpine Linux APK packages (dl-cdn.alpinelinux.org).')).toBe('Alpine Linux APK packages \\(dl\\-cdn\\.alpinelinux\\.org\\)\\.');
    expect(markdownText("Code forge A: Git hosting, release downloads and its package registries. Contents not published.")).toBe('Code forge A: Git hosting, release downloads and its package registries. Contents not published.');
    expect(markdownText('preset:npm allows what this rule allows.')).toBe('preset:npm allows what this rule allows.');
    expect(markdownText('\n\n![p](http://x)\n\n[Click to update](https://evil.example/u)')).toBe(
      '\\\\n\\\\n\\!\\[p\\]\\(http\\:\\/\\/x\\)\\\\n\\\\n\\[Click to update\\]\\(https\\:\\/\\/evil\\.example\\/u\\)',
    );
    expect(markdownText('<img src=x>&amp;')).toBe('\\<img src\\=x\\>\\&amp\\;');
    expect(markdownText('')).toBe('');
  });

  it('is the text itself exactly when that is already inert (a whole `span` rendered as code)', () => {
    const sentence = fc.array(fc.constantFrom('w', 'Zq', '09', ' ', ',', ';', ':', "'", '(', ')', '-', '.', '. ', '`presets`', '`a b`', '`', '``', '/', '@', '_', 'x.com', 'e.g. '), { maxLength: 12 })
      .map((parts) => `w${parts.join('')}`);
    fc.assert(fc.property(fc.oneof(sentence, fc.string({ maxLength: 12 })), hostile, (s, after) => {
      const out = markdownText(s);
      if (out !== s) {
        expect(out.replace(/\\(.)/g, '$1')).toBe(s);
        return;
      }
      // Beside a code span of a hostile value: the span still holds the whole value.
      const md = `x ${out} y ${markdownCode(after)} z`;
      for (const [name, render] of RENDERERS) {
        const html = render(md).trim();
        inert(html, /^<\/?(p|code)>$/);
        const spans = [...html.matchAll(/<code>([\s\S]*?)<\/code>/g)].map((m) => spaces(decode(m[1])));
        expect(spans[spans.length - 1], name).toBe(shown(after));
        expect(decode(html.replace(/<code>[\s\S]*?<\/code>|<\/?p>/g, '')), name).toBe(`x ${s.replace(/`[^`]*`/g, '')} y  z`);
      }
    }), { numRuns: 500 });
    expect(markdownText('preset:npm (enabled because `presets` is omitted) allows what this rule allows.')).toBe('preset:npm (enabled because `presets` is omitted) allows what this rule allows.');
    expect(markdownText('a `b')).toBe('a \\`b');
  });
});
