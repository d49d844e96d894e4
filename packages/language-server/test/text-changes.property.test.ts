/**
 * `merge`: changes applied one after another, as one change of the original text. The text
 * outside the merged change is the same before and after, so a reparse of the span it names
 * (core's reparsePolicyDocument) sees every edit.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { TextChange } from '@netpolicy/core';
import { merge } from '../src/text-changes';

describe('merge', () => {
  it('names a span outside which the old and new texts agree', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 30 }), fc.array(fc.tuple(fc.nat(), fc.nat(), fc.string({ maxLength: 5 })), { minLength: 1, maxLength: 6 }), (original, changes) => {
        let text = original;
        let merged: TextChange | undefined;
        for (const [a, b, inserted] of changes) {
          const s = Math.min(a, b) % (text.length + 1);
          const e = Math.min(s + (Math.max(a, b) % 4), text.length);
          text = text.slice(0, s) + inserted + text.slice(e);
          merged = merge(merged, s, e, inserted.length);
        }
        const { start, end, newEnd } = merged!;
        expect(start).toBeLessThanOrEqual(end);
        expect(start).toBeLessThanOrEqual(newEnd);
        expect(original.length - end).toBe(text.length - newEnd);
        expect(text.slice(0, start)).toBe(original.slice(0, start));
        expect(text.slice(newEnd)).toBe(original.slice(end));
      }),
      { numRuns: 2000 },
    );
  });

  it('keeps one change as it is, and two in one place as one', () => {
    expect(merge(undefined, 5, 7, 3)).toEqual({ start: 5, end: 7, newEnd: 8 });
    // "abcdefghij": [5, 7) became "XYZ" (abcdeXYZhij), then the Y went (abcdeXZhij)
    expect(merge({ start: 5, end: 7, newEnd: 8 }, 6, 7, 0)).toEqual({ start: 5, end: 7, newEnd: 7 });
  });
});
