import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { escapeControl, escapeMessage } from './escape';

/** VS Code's parser of links in notifications, modals and quick input prompts (src/vs/base/common/linkedText.ts). */
const VSCODE_LINK = /\[([^\]]+)\]\(((?:https?:\/\/|command:|file:)[^)\s]+)(?: (["'])(.+?)(\3))?\)/gi;
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

/** Strings made of the pieces hostile text is made of: link syntax, brackets, backticks, newlines, bidi and control characters. */
const hostile = fc.array(fc.oneof(
  fc.constantFrom('[', ']', '(', ')', '](', '[F](command:workbench.action.terminal.sendSequence?{"text":"\\nsh<x\\n"})', 'command:', 'https://evil.example/u', 'file:///etc/passwd',
    '`', '```', '\n', '\r\n', '\u2028', '\u202e', '\u2066', '\u001b[31m', '\u009b', '$(zap)', '![p](http://x)', ' "t")', '\\', '{a,b}', '\u0000'),
  fc.string({ maxLength: 8 }),
  fc.string({ unit: 'binary', maxLength: 8 }),
), { maxLength: 24 }).map((parts) => parts.join(''));

describe('escapeMessage', () => {
  it('leaves no link VS Code would render, and no control character', () => {
    fc.assert(fc.property(hostile, (s) => {
      const out = escapeMessage(s);
      VSCODE_LINK.lastIndex = 0;
      expect(VSCODE_LINK.test(out)).toBe(false);
      expect(CONTROL.test(out)).toBe(false);
    }), { numRuns: 2000 });
  });

  it('changes text without link syntax or control characters not at all', () => {
    fc.assert(fc.property(fc.string({ maxLength: 40 }), (s) => {
      fc.pre(!s.includes('](') && escapeControl(s) === s);
      expect(escapeMessage(s)).toBe(s);
    }));
  });

  it('keeps every character of the text readable (only a space is added between ] and ()', () => {
    fc.assert(fc.property(hostile, (s) => {
      expect(escapeMessage(s).replace(/\] \(/g, '](')).toBe(escapeControl(s).replace(/\] \(/g, ']('));
    }));
  });

  it('breaks the example of the report', () => {
    const pattern = '[F](command:workbench.action.terminal.sendSequence?{"text":"\\nsh<x\\n"}){a,b}';
    expect(escapeMessage(`netpolicy.filePatterns: ${pattern} has too many alternatives`)).toBe('netpolicy.filePatterns: [F] (command:workbench.action.terminal.sendSequence?{"text":"\\nsh<x\\n"}){a,b} has too many alternatives');
    expect(escapeMessage('a\u202eb [x](https://e.example)')).toBe('a\\u202eb [x] (https://e.example)');
  });

  it('cuts to max characters', () => {
    expect(escapeMessage('x'.repeat(10), 4)).toBe('xxxx…');
    expect(escapeMessage('x'.repeat(4), 4)).toBe('xxxx');
    // A cut never leaves a link behind either.
    expect(escapeMessage('[a](command:x)'.repeat(3), 5)).toBe('[a] (c…');
  });
});
