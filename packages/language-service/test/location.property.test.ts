import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { getLocation } from 'jsonc-parser';
import { locationAt } from '../src/location';

const same = (text: string, offset: number) => {
  const ref = getLocation(text, offset);
  const got = locationAt(text, offset);
  expect({ path: got.path, isAtPropertyKey: got.isAtPropertyKey }, `${JSON.stringify(text)} at ${offset}`).toEqual({ path: ref.path, isAtPropertyKey: ref.isAtPropertyKey });
};

const layout = fc.constantFrom(undefined, 0, 1, 2, '\t');
const edits = fc.constantFrom('"', ',', ':', '{', '}', '[', ']', ' ', 'x', '"k":', '// c\n', '/* c */', '1', 'tru', '\n', '\\', '"\\u00e9"', '"\\x"', '\u00a0', '-', '01', '1e5', '1.', '/', '\t', '"a\u0001b"', '\u2028');

describe('locationAt agrees with jsonc-parser getLocation', () => {
  it('on JSON documents, at every offset', () => {
    fc.assert(fc.property(fc.jsonValue({ maxDepth: 4 }), layout, (value, indent) => {
      const text = JSON.stringify(value, null, indent as any) ?? 'null';
      for (let o = 0; o <= text.length; o++) same(text, o);
    }), { numRuns: 150 });
  });
  it('on documents being edited (text inserted or cut anywhere), at every offset', () => {
    fc.assert(fc.property(fc.jsonValue({ maxDepth: 3 }), layout, fc.nat(), edits, fc.boolean(), (value, indent, at, insert, cut) => {
      const base = JSON.stringify(value, null, indent as any) ?? 'null';
      const i = at % (base.length + 1);
      const text = cut ? base.slice(0, i) : base.slice(0, i) + insert + base.slice(i);
      for (let o = 0; o <= text.length; o++) same(text, o);
    }), { numRuns: 300 });
  });
  it('on the cases completion meets', () => {
    for (const text of ['{ }', '{ "de }', '{ "default": }', '{"presets":["n"]}', '{ "a": 1, }', '{ "sources": [ { } ] }', '{} ', '[1,]', '{"a":{}}', '{"a":[]}', '// x\n{ "a": /* y */ 1 }']) {
      for (let o = 0; o <= text.length; o++) same(text, o);
    }
  });
});

describe('the fast scan', () => {
  it('answers alone (no fallback) wherever the text before the cursor is grammatical', async () => {
    const { scanLocation } = await import('../src/location');
    fc.assert(fc.property(fc.jsonValue({ maxDepth: 4 }), layout, (value, indent) => {
      const text = JSON.stringify(value, null, indent as any) ?? 'null';
      for (let o = 0; o <= text.length; o++) expect(scanLocation(text, o), `${text} at ${o}`).toBeDefined();
    }), { numRuns: 100 });
  });
});
