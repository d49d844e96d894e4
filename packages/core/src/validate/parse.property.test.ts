/**
 * The fast path of `parseDocument` (JSON.parse + one counting scan) against the reference: the
 * jsonc-parser visitor that builds the value and reports every syntax diagnostic.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parseDocument, visitForTest } from './parse';

const key = fc.oneof(fc.constantFrom('a', 'b', '__proto__', 'x:y', 'q"r', 'b\\\\', '{', '['), fc.string({ maxLength: 4 }));
const leaf = fc.oneof(fc.string({ maxLength: 6 }), fc.integer(), fc.boolean(), fc.constant(null), fc.constantFrom(':', '"', '\\', '{[', '\\"'));

/** JSON texts, some with duplicate keys (objects written from key/value lists), some deeply nested. */
const text = fc.letrec<{ node: string }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small' },
    leaf.map((v) => JSON.stringify(v)),
    fc.array(tie('node'), { maxLength: 4 }).map((items) => `[${items.join(', ')}]`),
    fc.array(fc.tuple(key, tie('node')), { maxLength: 4 }).map((members) => `{${members.map(([k, v]) => `${JSON.stringify(k)}: ${v}`).join(',\n ')}}`),
  ),
})).node;

/** The same texts, and pretty-printed ones, with no backslash: the path that counts quotes. */
const noBackslash = fc.oneof(text, text.map((t) => JSON.stringify(JSON.parse(t), null, 2))).filter((t) => !t.includes('\\'));

/** parseDocument's value, syntax verdict and diagnostics are the visitor's. */
function sameAsVisitor(t: string, jsonc: boolean): void {
  const fast = parseDocument(t, jsonc);
  const reference = visitForTest(t, jsonc);
  expect(fast.syntaxFailed).toBe(reference.syntaxFailed);
  expect(fast.diagnostics).toEqual(reference.diagnostics);
  expect(fast.value).toEqual(reference.value);
}

describe('parseDocument fast path', () => {
  it('gives the value and the diagnostics of the visitor, on texts without a backslash too', () => {
    fc.assert(fc.property(noBackslash, fc.boolean(), sameAsVisitor), { numRuns: 1000 });
  });

  it('gives the value and the diagnostics of the visitor', () => {
    fc.assert(fc.property(text, fc.boolean(), sameAsVisitor), { numRuns: 1000 });
  });

  it('reports nesting too deep for a policy, as the visitor does', () => {
    const deep = '['.repeat(200) + ']'.repeat(200);
    expect(parseDocument(deep, false)).toEqual(visitForTest(deep, false));
    expect(parseDocument(deep, false).syntaxFailed).toBe(true);
    // Exactly at the limit and one past it, with and without a backslash in the text; a duplicate
    // key whose dropped value is the deep one.
    for (const levels of [128, 129]) {
      for (const tail of ['', '"\\\\"']) {
        const t = `${'['.repeat(levels - 1)}[${tail}]${']'.repeat(levels - 1)}`;
        expect({ ...parseDocument(t, false), plain: undefined }).toEqual(visitForTest(t, false));
        expect(parseDocument(t, false).syntaxFailed).toBe(levels > 128);
      }
    }
    const hidden = `{"a": ${'['.repeat(200)}${']'.repeat(200)}, "a": 1}`;
    expect(parseDocument(hidden, false)).toEqual(visitForTest(hidden, false));
    expect(parseDocument(hidden, false).syntaxFailed).toBe(true);
  });

  it('finds a duplicate key whatever the strings hold (quotes counted only without a backslash)', () => {
    for (const t of ['{"a": 1, "a": 1}', '{"a": "x", "b": {"c": [], "c": []}}', '{"a": "\\"", "a": 2}', '{"a:": 1, "a:": 1}', '[{"x": "\\u0022"}, {"y": 1, "y": 1}]']) {
      expect(parseDocument(t, false).diagnostics.map((d) => d.code)).toEqual(['duplicate-key']);
      expect(parseDocument(t, false)).toEqual(visitForTest(t, false));
    }
  });
});
