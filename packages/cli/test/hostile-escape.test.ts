/** escapeControl, the one function that escapes outside text for terminals and CI logs (issue 10 item 2). */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { escapeControl } from '../src/escape';
import { cpuMs } from '../../../test-support/cpu-time';

// Every character escapeControl must neutralise (the line feed included: a message is one line).
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
const controlChar = fc.constantFrom(
  ...Array.from({ length: 32 }, (_, i) => String.fromCharCode(i)),
  ...Array.from({ length: 33 }, (_, i) => String.fromCharCode(0x7f + i)),
  '\u061c', '\u200e', '\u200f', '\u2028', '\u2029', '\u202a', '\u202b', '\u202c', '\u202d', '\u202e', '\u2066', '\u2067', '\u2068', '\u2069',
);

describe('escapeControl', () => {
  it('leaves no control character, whatever the input', () => {
    fc.assert(fc.property(fc.array(fc.oneof(fc.string({ maxLength: 16 }), controlChar, fc.string({ unit: 'binary', maxLength: 4 })), { maxLength: 24 }).map((a) => a.join('')), (s) => {
      expect(escapeControl(s)).not.toMatch(CONTROLS);
    }));
  });

  it('is the identity on text without control characters (backslashes, accents, emoji and all)', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 64 }).filter((s) => !CONTROLS.test(s)), (s) => {
      expect(escapeControl(s)).toBe(s);
    }));
    expect(escapeControl('C:\\path\\n é 😀 ✓')).toBe('C:\\path\\n é 😀 ✓');
  });

  it('shows each control character as a visible escape, in place', () => {
    expect(escapeControl('a\nb\rc\td')).toBe('a\\nb\\rc\\td');
    expect(escapeControl('\u001b[31mred\u001b]0;title\u0007')).toBe('\\u001b[31mred\\u001b]0;title\\u0007');
    expect(escapeControl('\u009b2J \u0085 \u007f')).toBe('\\u009b2J \\u0085 \\u007f');
    expect(escapeControl('abc\u202egnp.exe \u2066x\u2069 \u2028')).toBe('abc\\u202egnp.exe \\u2066x\\u2069 \\u2028');
    expect(escapeControl('\u0000')).toBe('\\u0000');
  });

  it('keeps the order and every other character (the escapes can be read back)', () => {
    const unescape = (s: string) => s.replace(/\\(n|r|t|u[0-9a-f]{4})/g, (_, e: string) => (e === 'n' ? '\n' : e === 'r' ? '\r' : e === 't' ? '\t' : String.fromCharCode(parseInt(e.slice(1), 16))));
    fc.assert(fc.property(fc.array(fc.oneof(fc.string({ maxLength: 16 }).filter((s) => !s.includes('\\')), controlChar), { maxLength: 24 }).map((a) => a.join('')), (s) => {
      expect(unescape(escapeControl(s))).toBe(s);
    }));
  });

  it('is linear: 1 MB of controls', () => {
    const big = '\u001b\n'.repeat(500_000);
    const { ms, result } = cpuMs(() => escapeControl(big));
    expect(result).toHaveLength(big.length / 2 * 8);
    expect(ms).toBeLessThan(5000); // CPU time (the machine's load does not count), about 200 ms
  });
});
