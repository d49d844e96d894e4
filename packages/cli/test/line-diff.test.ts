/**
 * The unified diff of `check --fix` and `explain --apply` (line-diff.ts) against jsdiff: its
 * `applyPatch` turns the old text into the new one with our diff, jsdiff's `parsePatch` reads it,
 * its headers and hunk lines are jsdiff's where both find the same changes, and its time grows
 * about linearly where jsdiff's Myers grows with lines × changes.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { applyPatch, createTwoFilesPatch, parsePatch } from 'diff';
import { splitLines, unifiedLineDiff } from '../src/line-diff';

/** CPU time of `work` (not wall-clock: the machine may be loaded). */
function cpuMs<T>(work: () => T): { ms: number; result: T } {
  const before = process.cpuUsage();
  const result = work();
  const { user, system } = process.cpuUsage(before);
  return { ms: (user + system) / 1000, result };
}

const jsdiff = (before: string, after: string) => createTwoFilesPatch('a/f', 'b/f', before, after, undefined, undefined, { context: 3 }).replace(/^=+\n/m, '');

/** Texts from a few lines (many repeated, as `{`, `],` are in a policy), any line break, with or without a final one. */
const linesArb = fc.array(fc.constantFrom('{', '}', '  "a": 1,', '  "b": [', '  ],', 'x', 'y\r', '', '"http://a"', '"https://a"'), { maxLength: 30 });
const textArb = fc.tuple(linesArb, fc.constantFrom('\n', '\r\n'), fc.boolean()).map(([lines, eol, final]) => lines.join(eol) + (final && lines.length > 0 ? eol : ''));
/** A text and an edited copy: lines replaced, removed, inserted, moved. */
const pairArb = textArb.chain((before) => {
  const lines = splitLines(before);
  return fc.array(fc.tuple(fc.nat(), fc.constantFrom('replace', 'remove', 'insert', 'move'), fc.constantFrom('z\n', '  "c": 2,\n', '{\n', '"https://a"\n', 'w')), { maxLength: 8 }).map((edits) => {
    const out = [...lines];
    for (const [at, kind, line] of edits) {
      const i = out.length === 0 ? 0 : at % out.length;
      if (kind === 'replace' && out.length > 0) out[i] = line;
      else if (kind === 'remove') out.splice(i, 1);
      else if (kind === 'insert') out.splice(i, 0, line);
      else if (out.length > 1) out.splice(at % out.length, 0, ...out.splice(i, 1));
    }
    return [before, out.join('')] as const;
  });
});

describe('unifiedLineDiff', () => {
  it('cuts lines as jsdiff does', () => {
    expect(splitLines('a\nb\r\nc\rd')).toEqual(['a\n', 'b\r\n', 'c\rd']);
    expect(splitLines('a\n')).toEqual(['a\n']);
    expect(splitLines('')).toEqual([]);
  });

  it('prints what jsdiff prints for a change it sees the same way', () => {
    const before = '{\n  "default": "deny",\n  "presets": ["npm", "pypy", "npm"]\n}';
    const after = '{\n  "default": "deny",\n  "presets": ["npm", "pypi"]\n}';
    expect(unifiedLineDiff('a/f', 'b/f', before, after)).toBe(jsdiff(before, after));
    expect(unifiedLineDiff('a/f', 'b/f', before, after)).toBe([
      '--- a/f', '+++ b/f', '@@ -1,4 +1,4 @@', ' {', '   "default": "deny",', '-  "presets": ["npm", "pypy", "npm"]', '+  "presets": ["npm", "pypi"]', ' }', '\\ No newline at end of file', '',
    ].join('\n'));
    const many = Array.from({ length: 40 }, (_, i) => `line ${i}\n`).join('');
    const edited = many.replace('line 3\n', 'line three\n').replace('line 30\n', '').replace('line 39\n', 'line 39\nline 40\n');
    expect(unifiedLineDiff('a/f', 'b/f', many, edited)).toBe(jsdiff(many, edited));
    expect(unifiedLineDiff('a/f', 'b/f', 'same', 'same')).toBe('');
    expect(unifiedLineDiff('a/f', 'b/f', '', 'new\n')).toBe(jsdiff('', 'new\n'));
    expect(unifiedLineDiff('a/f', 'b/f', 'old\n', '')).toBe(jsdiff('old\n', ''));
  });

  it('jsdiff applies it: the old text becomes the new one, whatever the lines', () => {
    fc.assert(fc.property(pairArb, ([before, after]) => {
      const patch = unifiedLineDiff('a/f', 'b/f', before, after);
      if (before === after) {
        expect(patch).toBe('');
        return;
      }
      expect(parsePatch(patch)).toHaveLength(1);
      expect(applyPatch(before, patch)).toBe(after);
      // Never more changed lines than removing and adding every line.
      const changed = patch.split('\n').filter((l) => /^[-+](?![-+]{2} [ab]\/f$)/.test(l)).length;
      expect(changed).toBeLessThanOrEqual(splitLines(before).length + splitLines(after).length);
    }), { numRuns: 3000 });
  });

  it('prints exactly what jsdiff prints when lines are distinct and none moves (one longest common subsequence)', () => {
    const editArb = fc.array(fc.tuple(fc.nat(), fc.constantFrom('replace', 'remove', 'insert'), fc.integer({ min: 1, max: 3 })), { maxLength: 10 });
    fc.assert(fc.property(fc.integer({ min: 0, max: 60 }), editArb, fc.boolean(), (n, edits, final) => {
      const lines = Array.from({ length: n }, (_, i) => `line ${i}`);
      const out = [...lines];
      let fresh = 0;
      for (const [at, kind, count] of edits) {
        const i = out.length === 0 ? 0 : at % out.length;
        const news = Array.from({ length: count }, () => `new ${fresh++}`);
        if (kind === 'replace') out.splice(i, count, ...news);
        else if (kind === 'remove') out.splice(i, count);
        else out.splice(i, 0, ...news);
      }
      const before = lines.join('\n') + (final ? '\n' : '');
      const after = out.join('\n') + (final ? '\n' : '');
      expect(unifiedLineDiff('a/f', 'b/f', before, after)).toBe(before === after ? '' : jsdiff(before, after));
    }), { numRuns: 2000 });
  });

  it('agrees with jsdiff on the changed line count when every line is distinct', () => {
    // With distinct lines the anchors are a longest common subsequence, as Myers finds.
    const distinct = fc.uniqueArray(fc.integer({ min: 0, max: 60 }), { maxLength: 40 });
    fc.assert(fc.property(distinct, distinct, (x, y) => {
      const before = x.map((n) => `l${n}\n`).join('');
      const after = y.map((n) => `l${n}\n`).join('');
      const count = (p: string) => p.split('\n').filter((l) => /^[-+]l/.test(l)).length;
      expect(count(unifiedLineDiff('a/f', 'b/f', before, after))).toBe(count(jsdiff(before, after)));
    }), { numRuns: 1000 });
  });

  it('a change every few lines: time about linear in the file (jsdiff: lines × changes)', () => {
    const text = (n: number, fixed: boolean) => Array.from({ length: n }, (_, i) => `  {\n    "url": "${fixed ? 'https' : 'http'}://h${i}.example",\n    "ports": [\n      443\n    ]\n  },\n`).join('');
    const time = (n: number) => cpuMs(() => unifiedLineDiff('a/f', 'b/f', text(n, false), text(n, true)));
    const small = time(4000);
    const large = time(32000);
    expect(applyPatch(text(300, false), unifiedLineDiff('a/f', 'b/f', text(300, false), text(300, true)))).toBe(text(300, true));
    // Only the changed lines: one removed and one added per rule.
    const lines = large.result.split('\n');
    expect(lines.filter((l) => l.startsWith('+    "url"')).length).toBe(32000);
    expect(lines.filter((l) => /^[-+](?![-+]{2} )/.test(l)).length).toBe(64000);
    // 8 times the lines and changes: about 8 times the time, never the 64 times of lines × changes.
    // (Bounded at 10x the expected 8x for a loaded machine; quadratic cost would be far past it.)
    expect(large.ms).toBeLessThan(Math.max(small.ms, 20) * 80);
    expect(large.ms).toBeLessThan(20000);
  });
});
