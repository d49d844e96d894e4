/**
 * Hostile text for tests (issue 28): the pieces a repository or a setting can put in a message,
 * and the check that VS Code would show none of them as a live link or a raw control character.
 */
import fc from 'fast-check';

/** VS Code's parser of links in notifications, modals and quick input prompts (src/vs/base/common/linkedText.ts). */
export const VSCODE_LINK = /\[([^\]]+)\]\(((?:https?:\/\/|command:|file:)[^)\s]+)(?: (["'])(.+?)(\3))?\)/gi;
export const CONTROL = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

/** Strings made of the pieces hostile text is made of: link syntax, brackets, backticks, newlines, bidi and control characters. */
export const hostile = fc.array(fc.oneof(
  fc.constantFrom('[', ']', '(', ')', '](', '[F](command:workbench.action.terminal.sendSequence?{"text":"\\nsh<x\\n"})', 'command:', 'https://evil.example/u', 'file:///etc/passwd',
    '`', '```', '\n', '\r\n', '\u2028', '\u202e', '\u2066', '\u001b[31m', '\u009b', '![p](http://x)', ' "t")', '\\', '{a,b}', '\u0000'),
  fc.string({ maxLength: 8 }),
  fc.string({ unit: 'binary', maxLength: 8 }),
), { maxLength: 24 }).map((parts) => parts.join(''));

/** Whether a text shown by VS Code would hold a live link or a raw control character. */
export function unsafe(text: string): boolean {
  VSCODE_LINK.lastIndex = 0;
  return VSCODE_LINK.test(text) || CONTROL.test(text);
}
