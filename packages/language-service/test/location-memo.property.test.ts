import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parsePolicyDocument } from '@netpolicy/core';
import { ScanMemo, carryScanStates, scanLocation, scanMemo } from '../src/location';

const layout = fc.constantFrom(undefined, 0, 1, 2, '\t');
const edits = fc.constantFrom('"', ',', ':', '{', '}', '[', ']', ' ', 'x', '"k":', '// c\n', '/* c */', '1', 'tru', '\n', '\\', '"\\u00e9"', '"a\\"b"', '\u2028');

describe('the fast scan with a memo', () => {
  it('answers as a scan from the start, whatever positions were asked before on the same text', () => {
    fc.assert(fc.property(fc.jsonValue({ maxDepth: 4 }), layout, fc.nat(), edits, fc.boolean(), fc.integer({ min: 1, max: 12 }), fc.array(fc.nat(), { minLength: 1, maxLength: 30 }), (value, indent, at, insert, cut, step, asked) => {
      const base = JSON.stringify(value, null, indent as any) ?? 'null';
      const i = at % (base.length + 1);
      const text = cut ? base.slice(0, i) : base.slice(0, i) + insert + base.slice(i);
      const memo = new ScanMemo(text, step);
      const positions = [...asked.map((a) => a % (text.length + 1)), ...Array.from({ length: text.length + 1 }, (_, o) => text.length - o)];
      for (const o of positions) expect(scanLocation(text, o, memo), `${JSON.stringify(text)} at ${o}`).toEqual(scanLocation(text, o));
    }), { numRuns: 400 });
  });
});

describe('a memo made from the memo of an earlier text', () => {
  it('answers as a scan from the start of the new text', () => {
    const edit = (text: string, at: number, insert: string, cut: number) => {
      const i = at % (text.length + 1);
      return text.slice(0, i) + insert + text.slice(Math.min(text.length, i + cut));
    };
    fc.assert(fc.property(fc.jsonValue({ maxDepth: 4 }), layout, fc.nat(), edits, fc.nat({ max: 3 }), fc.nat(), edits, fc.nat({ max: 3 }), fc.integer({ min: 1, max: 12 }), fc.array(fc.nat(), { minLength: 1, maxLength: 10 }), (value, indent, at1, ins1, cut1, at2, ins2, cut2, step, asked) => {
      const base = JSON.stringify(value, null, indent as any) ?? 'null';
      const a = edit(base, at1, ins1, cut1);
      const b = edit(a, at2, ins2, cut2);
      const memoA = new ScanMemo(a, step);
      for (const o of [a.length, ...asked]) scanLocation(a, o % (a.length + 1), memoA);
      const memoB = new ScanMemo(b, step, memoA);
      for (let o = b.length; o >= 0; o--) expect(scanLocation(b, o, memoB), `${JSON.stringify(a)} then ${JSON.stringify(b)} at ${o}`).toEqual(scanLocation(b, o));
    }), { numRuns: 1000 });
  });
  it('takes over the states before an edit', () => {
    const a = JSON.stringify({ sources: Array.from({ length: 50 }, (_, i) => ({ url: `https://h${i}.example`, ports: [i] })) }, null, 2);
    const memoA = new ScanMemo(a, 64);
    scanLocation(a, a.length, memoA);
    const at = a.lastIndexOf('49');
    const memoB = new ScanMemo(`${a.slice(0, at)}48${a.slice(at + 2)}`, 64, memoA);
    expect(memoB.points.length).toBeGreaterThan(memoA.points.length - 3);
  });
});

describe('carryScanStates', () => {
  it("moves the previous version's states to the new version at once, where hover and completion find them", () => {
    const fileName = 'carry.netpolicy.json';
    const a = JSON.stringify({ default: 'deny', connections: Array.from({ length: 2000 }, (_, i) => ({ tcp: { cidrs: [`10.${i >> 8}.${i & 255}.0/24`], ports: [5432] } })) }, null, 2);
    const docA = parsePolicyDocument(a, { fileName });
    const memoA = scanMemo(docA, docA.text, fileName);
    scanLocation(a, a.length, memoA);
    const at = a.lastIndexOf('5432');
    const b = `${a.slice(0, at)}5433${a.slice(at + 4)}`;
    const docB = parsePolicyDocument(b, { fileName });
    carryScanStates(docB);
    const memoB = scanMemo(docB, docB.text, fileName);
    expect(memoB.text).toBe(b);
    expect(memoB.points.length).toBeGreaterThan(memoA.points.length - 3);
    for (const o of [0, 100, at - 20, at + 2, b.length]) expect(scanLocation(b, o, memoB), `at ${o}`).toEqual(scanLocation(b, o));
  });
});
