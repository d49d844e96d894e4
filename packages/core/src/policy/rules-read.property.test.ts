/** `forEachSourceUrl` (URL texts only, nothing built) against its reference: the `urls` of `readSource`. */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { SOURCE_KINDS } from './types';
import { forEachSourceUrl, readSource } from './rules-read';

const text = fc.oneof(fc.constantFrom('https://a.example/x', 'http://B.example', 'oci://r', 'not a url', ''), fc.string({ maxLength: 6 }));
const junk = fc.oneof(text, fc.integer(), fc.constant(null), fc.boolean(), fc.constant({}), fc.constant([]));
const item = fc.oneof(text, junk, fc.record({ baseUrl: fc.oneof(text, junk) }, { requiredKeys: [] }));
const body = fc.record({
  urls: fc.oneof(fc.array(item, { maxLength: 4 }), junk),
  indexUrl: fc.oneof(text, junk),
  downloadUrl: fc.oneof(text, junk),
  https: fc.oneof(fc.array(item, { maxLength: 4 }), junk),
  purlNamespace: junk,
}, { requiredKeys: [] });
const kind = fc.oneof(fc.constantFrom(...SOURCE_KINDS), fc.constantFrom('tls', 'other'));

describe('forEachSourceUrl', () => {
  it('visits exactly the URLs readSource reads, in its order, with the same places', () => {
    fc.assert(fc.property(kind, body, (k, b) => {
      const seen: unknown[] = [];
      forEachSourceUrl(k, b as Record<string, unknown>, (t, member, index, leaf) => seen.push({ text: t, member, item: index, leaf }));
      const reference = (readSource({ [k]: b })?.urls ?? []).map((u) => ({ text: u.text, member: u.member, item: u.item, leaf: u.leaf }));
      expect(seen).toEqual(reference);
    }), { numRuns: 2000 });
  });
});
