/**
 * Outside text (a policy's values and keys, a preset catalog's names and descriptions) inside
 * markdown the editor renders: a hover, completion documentation. VS Code renders it even in
 * Restricted Mode, so a value such as `\n\n![p](http://x)\n\n[Click to update](https://evil.example/u)`
 * must not become an image, a link or HTML. A value is either put in a code span that nothing
 * inside it can close (`markdownCode`), or escaped so that it renders as its own text
 * (`markdownText`). Both first show control, bidi and line-break characters as visible escapes
 * (`escapeControl`): with no line break in it, no value can end a paragraph or start a block.
 */
import { escapeControl } from './escape';

const BACKTICKS = /`+/g;

/**
 * `text` as an inline code span (CommonMark 6.1) that cannot be closed from inside: control,
 * bidi and line-break characters shown as escapes (`\n`, `\u202e`), then fenced by one backtick
 * more than the longest run of backticks in it, with a space inside each fence when the text
 * starts or ends with a backtick or would lose a space to the fence (an empty text is a span of one space).
 * Everything in between is shown literally: no link, image, HTML or emphasis. Keep it out of
 * `**…**` and `*…*`: marked before version 12 can pair a `*` inside a wider span with them and
 * render the rest of the value as markdown.
 * @internal
 */
export function markdownCode(text: string): string {
  const value = escapeControl(text);
  // An empty span does not parse (two backticks are a run of two): one space shows there is nothing.
  if (value === '') return '` `';
  let longest = 0;
  BACKTICKS.lastIndex = 0;
  for (let m = BACKTICKS.exec(value); m; m = BACKTICKS.exec(value)) if (m[0].length > longest) longest = m[0].length;
  const fence = '`'.repeat(longest + 1);
  // CommonMark strips one space from each end of a span that starts and ends with one (and is
  // not all spaces): a padded value keeps its own spaces.
  const pad = value.startsWith('`') || value.endsWith('`') || (value.startsWith(' ') && value.endsWith(' ') && /[^ ]/.test(value)) ? ' ' : '';
  return `${fence}${pad}${value}${pad}${fence}`;
}

// Text that no CommonMark or GFM renderer (autolink literals, markdown-it's fuzzy links) turns into
// anything but itself or a code span: it starts with a letter (no list, heading or indented code)
// and holds only letters, digits, spaces, `,;:'()-`, dots not followed by a letter or digit (no
// domain name, no `www.`), and whole single-backtick spans of those. No `/` (so no `://`), no `@`,
// `<`, `[`, `&`, `*`, `_`, backslash or unpaired backtick (which would pair with the fence of a
// span after it and open that span's value). One character class per alternative, each starting
// differently: linear.
const INERT = /^(?:[A-Za-z](?:[A-Za-z0-9 ,;:'()-]|\.(?![A-Za-z0-9])|`[A-Za-z0-9 ,;:'()-]+`)*)?$/;
const PUNCTUATION = /[!-/:-@[-`{-~]/g;

/**
 * `text` as markdown that renders as the text itself: control, bidi and line-break characters
 * shown as escapes (`\n`, `\u202e`), then every ASCII punctuation character backslash-escaped
 * (`\[`, `\<`, `\&`, `\.`, `\:`), so no paragraph break, heading, list, emphasis, image, link,
 * autolink (`<http://x>`, bare `http://x`, `www.x`, `a@b.c`, `x.com`), entity or raw HTML comes
 * from it. Text already made only of letters, digits, spaces and `,;:'()-` (dots too when not
 * followed by a letter or digit, and whole `` `code` `` spans of these), starting with a letter, is
 * returned as it is: a plain-text reader (LSP's related information is plain text) sees no
 * backslashes in an ordinary sentence such as `preset:npm allows what this rule allows.` As a
 * paragraph of its own, text indented four spaces is still an indented code block: inert too.
 * @internal
 */
export function markdownText(text: string): string {
  const value = escapeControl(text);
  return INERT.test(value) ? value : value.replace(PUNCTUATION, (c) => `\\${c}`);
}
