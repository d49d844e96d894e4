/**
 * `locateMany` (one visitor scan, no tree) against its reference, `Locator.range` on jsonc-parser's
 * tree: the same range for every pointer, found or not, for every target, in texts with duplicate
 * keys, comments and trailing commas.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parsePolicyDocument } from './document';
import { Locator } from './locate';
import { locateMany, type RangeRequest } from './locate-many';
import { toPointer } from './pointer';

const key = fc.oneof(fc.constantFrom('a', 'b', '0', '1', '__proto__', 'x/y', 'm~n', ''), fc.string({ maxLength: 3 }));
const leaf = fc.oneof(fc.string({ maxLength: 4 }), fc.integer(), fc.boolean(), fc.constant(null));
const gap = fc.constantFrom(' ', '', '\n  ', ' /* c */ ', ' // c\n');

/** JSONC texts (objects written from key/value lists, so keys repeat), with comments and trailing commas. */
const text = fc.letrec<{ node: string }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small' },
    leaf.map((v) => JSON.stringify(v)),
    fc.tuple(fc.array(tie('node'), { maxLength: 4 }), gap, fc.boolean()).map(([items, g, comma]) => `[${g}${items.join(`,${g}`)}${comma && items.length > 0 ? ',' : ''}]`),
    fc.tuple(fc.array(fc.tuple(key, tie('node')), { maxLength: 4 }), gap, fc.boolean())
      .map(([members, g, comma]) => `{${g}${members.map(([k, v]) => `${JSON.stringify(k)}:${g}${v}`).join(`,${g}`)}${comma && members.length > 0 ? ',' : ''}}`),
  ),
})).node;

const segment = fc.oneof(key, fc.constantFrom('00', '2', '3', '-1'));
const request = fc.record({
  pointer: fc.array(segment, { maxLength: 4 }).map((s) => toPointer(s)),
  target: fc.constantFrom<RangeRequest['target']>('value', 'key', 'object-key'),
});

describe('locateMany', () => {
  it('gives the range Locator gives on the tree, for every pointer asked', () => {
    fc.assert(fc.property(text, fc.array(request, { maxLength: 12 }), fc.boolean(), (t, requests, bom) => {
      const source = bom ? `\ufeff${t}` : t;
      const doc = parsePolicyDocument(source, { jsonc: true });
      if (doc.syntaxFailed) return;
      const locator = new Locator(doc);
      const expected = requests.map((r) => locator.range(r.pointer, r.target));
      expect(locateMany(bom ? ` ${t}` : t, requests)).toEqual(expected);
    }), { numRuns: 1500 });
  });

  it('finds every node of a document (each pointer of the value, each target)', () => {
    fc.assert(fc.property(text, (t) => {
      const doc = parsePolicyDocument(t, { jsonc: true });
      if (doc.syntaxFailed) return;
      const pointers: string[] = [];
      const collect = (v: unknown, path: Array<string | number>) => {
        pointers.push(toPointer(path));
        if (Array.isArray(v)) v.forEach((x, i) => collect(x, [...path, i]));
        else if (v && typeof v === 'object') for (const k of Object.keys(v)) collect((v as Record<string, unknown>)[k], [...path, k]);
      };
      collect(doc.value, []);
      const requests = pointers.flatMap((pointer) => (['value', 'key', 'object-key'] as const).map((target) => ({ pointer, target })));
      const locator = new Locator(doc);
      expect(locateMany(t, requests)).toEqual(requests.map((r) => locator.range(r.pointer, r.target)));
    }), { numRuns: 800 });
  });
});
