/** decodeText (inputs must be UTF-8), held to the platform's own fatal UTF-8 decoder on random bytes. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeText, UsageError } from '../src/io';

const fatal = new TextDecoder('utf-8', { fatal: true });

describe('decodeText', () => {
  it('equals TextDecoder on valid UTF-8, and names a byte whose prefix is valid otherwise', () => {
    fc.assert(fc.property(fc.oneof(fc.uint8Array({ maxLength: 64 }), fc.string({ unit: 'binary', maxLength: 32 }).map((s) => new TextEncoder().encode(s))), (bytes) => {
      let expected: string | undefined;
      try {
        expected = fatal.decode(bytes);
      } catch { /* invalid */ }
      const utf16 = bytes.length >= 2 && ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff));
      let error: UsageError | undefined;
      let got: string | undefined;
      try {
        got = decodeText(bytes, 'x');
      } catch (e) {
        error = e as UsageError;
      }
      if (utf16) {
        expect(error?.message).toMatch(/^cannot read x: it is UTF-(16|32) text; save it as UTF-8$/);
        return;
      }
      if (expected !== undefined) {
        expect(got).toBe(expected);
        return;
      }
      const m = /^cannot read x: not UTF-8 text \(byte 0x([0-9a-f]{2}) at offset (\d+)\); save it as UTF-8$/.exec(error?.message ?? '');
      expect(m).not.toBeNull();
      const at = Number(m![2]);
      expect(at).toBeLessThan(bytes.length);
      expect(bytes[at]).toBe(parseInt(m![1], 16));
      // Everything before the named byte is valid UTF-8 on its own.
      expect(() => fatal.decode(bytes.subarray(0, at))).not.toThrow();
    }), { numRuns: 2000 });
  });
});
