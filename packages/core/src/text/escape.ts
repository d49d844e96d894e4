/**
 * The one escaping of text that came from outside (service responses, policy and trace strings, file
 * names) before it reaches a terminal or a CI log. A control character there can recolour the
 * terminal, set its title, move the cursor, forge a whole line (CR, LF) such as
 * `netpolicy fetch: wrote trace.json` or a CI workflow command, or reorder what is shown (bidi
 * controls). Each such character is shown as a visible escape instead:
 *
 * - C0 controls U+0000..U+001F and DEL U+007F: `\n`, `\r`, `\t`, others `\u001b`;
 * - C1 controls U+0080..U+009F (U+009B is a one-character CSI on some terminals);
 * - bidi controls U+061C, U+200E, U+200F, U+202A..U+202E, U+2066..U+2069;
 * - line and paragraph separators U+2028, U+2029.
 *
 * Everything else, backslashes included, is left as it is: messages stay readable, and the
 * escapes only mark where a control character was.
 */

// One character class: linear, no backtracking.
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/**
 * `text` with each control, bidi and line-separator character shown as a visible escape (`\n`, `\u001b`); the same string when it has none.
 * @public
 */
export function escapeControl(text: string): string {
  CONTROL.lastIndex = 0;
  if (!CONTROL.test(text)) return text;
  return text.replace(CONTROL, (c) => NAMED[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * Outside text shown in a line of a text report or message: control characters escaped, and cut
 * to `max` characters with `…` (a 10 MB URL or test name is one line of a terminal, not 10 MB of
 * it; JSON output keeps the exact strings).
 * @internal
 */
export function clipped(text: string, max = 300): string {
  return escapeControl(text.length > max ? `${text.slice(0, max)}…` : text);
}

/**
 * Outside text in a VS Code label that renders `$(name)` as an icon (code lens titles, status
 * bar text): `$(` is written `\$(`, which VS Code shows as the literal text. Apply after
 * `escapeControl`.
 * @public
 */
export function escapeIcons(text: string): string {
  return text.includes('$(') ? text.replace(/\$\(/g, '\\$(') : text;
}

/**
 * VS Code renders `[text](command:ID?args)`, `[text](https://...)` and `[text](file:...)` in a
 * notification, a modal's message, a quick input's prompt and validation message as a live link:
 * one click runs the command. Breaking the `](` between label and target leaves no link that any
 * of them can parse, and the text readable: `[text] (command:...)`.
 */
const LINK_JOIN = /\]\(/g;

/**
 * Outside text (a setting, a file's name or key, a trace's URL, a service's problem title) in a
 * message the editor shows: a notification, a modal, a quick pick, a status bar text, a log line.
 * Control, bidi and line-separator characters are escaped (`escapeControl`), link syntax is
 * broken (`[a](command:x)` is shown as `[a] (command:x)`, never as a live link), and the text is cut to
 * `max` characters with `…`. Apply it to the whole message at the sink: the message's own
 * words are unchanged by it.
 * @public
 */
export function escapeMessage(text: string, max = Infinity): string {
  const cut = text.length > max ? `${text.slice(0, max)}…` : text;
  const escaped = escapeControl(cut);
  return escaped.includes('](') ? escaped.replace(LINK_JOIN, '] (') : escaped;
}
