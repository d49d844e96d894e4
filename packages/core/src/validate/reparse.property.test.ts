/**
 * `reparsePolicyDocument` after an edit is `parsePolicyDocument` of the new text: the same value
 * (key order and `__proto__` members included), the same syntax verdict and diagnostics, whether
 * the edit stayed inside one item (one item parsed) or not (the whole text parsed), and over a
 * chain of edits (the spans carried from version to version).
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parsePolicyDocument, reparsePolicyDocument, type PolicyDocument } from './document';
import { MAX_DEPTH } from './parse';

const key = fc.oneof(fc.constantFrom('host', 'port', '__proto__', 'a', 'q"r', 'b\\', '{'), fc.string({ maxLength: 4 }));
const leaf = fc.oneof(fc.string({ maxLength: 6 }), fc.integer(), fc.integer(), fc.boolean(), fc.constant(null), fc.constantFrom(':', '"', '\\', '{[', '\\"', 'é', '\u2028'));
const member = fc.letrec<{ node: unknown }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small' },
    leaf,
    fc.array(tie('node'), { maxLength: 3 }),
    fc.array(fc.tuple(key, tie('node')), { maxLength: 3 }).map(objectOf),
  ),
})).node;
const item = fc.oneof(fc.array(fc.tuple(key, member), { maxLength: 4 }).map(objectOf), fc.array(member, { maxLength: 3 }), leaf);
const policy = fc.record({
  rootKeys: fc.array(fc.constantFrom('sources', 'connections', 'presets', '__proto__', 'x'), { minLength: 1, maxLength: 4 }),
  items: fc.array(fc.array(item, { maxLength: 6 }), { minLength: 4, maxLength: 4 }),
  space: fc.constantFrom(0, 1, 2, '\t'),
}).map(({ rootKeys, items, space }) => {
  const root = objectOf([...new Set(rootKeys)].map((k, i) => [k, items[i]] as [string, unknown]));
  return JSON.stringify(root, null, space);
});

/** An object with these members in order (a `__proto__` key is an own member, as JSON.parse makes it). */
function objectOf(members: Array<[string, unknown]>): Record<string, unknown> {
  const o: Record<string, unknown> = {};
  for (const [k, v] of members) Object.defineProperty(o, k, { value: v, writable: true, enumerable: true, configurable: true });
  return o;
}

const insert = fc.oneof(
  fc.constantFrom('', '1', '"', '\\', '{', '}', '[', ']', ',', ':', '"a": 1, ', '"host": "x", ', ' ', '\n', '/* c */', '"__proto__": {}, ', '[[[['.repeat(40)),
  fc.string({ maxLength: 4 }),
);

/** An edit at a random place, or inside the text of some object (where the one-item path applies). */
function edit(text: string) {
  const inside = [...text.matchAll(/\{/g)].map((m) => m.index!);
  return fc.tuple(fc.nat(), fc.nat({ max: 6 }), insert, fc.boolean()).map(([at, length, inserted, nearBrace]) => {
    const base = nearBrace && inside.length > 0 ? inside[at % inside.length]! + 1 + (at % 3) : at % (text.length + 1);
    const start = Math.min(Math.max(base, 1), text.length);
    const end = Math.min(start + length, text.length);
    return { start, end, inserted };
  });
}

/**
 * Where an edit goes: anywhere; just inside an object; right after a quote (letters, which keep
 * the text JSON when the quote opens a string); or over a digit (another digit).
 */
function placed(text: string, at: number, length: number, inserted: string, kind: string): { start: number; end: number; replacement: string } {
  const pick = (re: RegExp) => {
    const found = [...text.matchAll(re)].map((m) => m.index!);
    return found.length > 0 ? found[at % found.length]! : at % (text.length + 1);
  };
  const clamp = (n: number) => Math.min(Math.max(n, 1), text.length);
  if (kind === 'quote') {
    const start = clamp(pick(/"/g) + 1);
    return { start, end: start, replacement: 'xyz'.slice(0, 1 + (at % 3)) };
  }
  if (kind === 'digit') {
    const start = clamp(pick(/[0-9]/g));
    return { start, end: Math.min(start + 1, text.length), replacement: String(at % 10) };
  }
  const start = clamp(kind === 'brace' ? pick(/\{/g) + 1 + (at % 3) : at % (text.length + 1));
  return { start, end: Math.min(start + length, text.length), replacement: inserted };
}

/** True when the two values are root objects that share an array item (the one-item path was taken). */
function sharesAnItem(before: unknown, after: unknown): boolean {
  if (!before || !after || typeof before !== 'object' || typeof after !== 'object' || before === after) return false;
  for (const key of Object.keys(after)) {
    const a = (after as Record<string, unknown>)[key];
    const b = Object.prototype.hasOwnProperty.call(before, key) ? (before as Record<string, unknown>)[key] : undefined;
    if (Array.isArray(a) && Array.isArray(b) && a !== b && a.some((x, i) => x !== null && typeof x === 'object' && x === b[i])) return true;
    if (Array.isArray(a) && a === b) return true;
  }
  return false;
}

function sameAsParse(doc: PolicyDocument, text: string): void {
  const reference = parsePolicyDocument(text);
  expect(doc.text).toBe(text);
  expect(doc.syntaxFailed).toBe(reference.syntaxFailed);
  expect(doc.syntaxDiagnostics).toEqual(reference.syntaxDiagnostics);
  if (!reference.syntaxFailed) {
    expect(JSON.stringify(doc.value)).toBe(JSON.stringify(reference.value));
    expect(doc.value).toEqual(reference.value);
  }
}

describe('reparsePolicyDocument', () => {
  it('gives what a parse of the whole new text gives, over chains of edits', () => {
    let oneItem = 0;
    let edits = 0;
    fc.assert(
      fc.property(policy, fc.array(fc.tuple(fc.nat(), fc.nat({ max: 6 }), insert, fc.constantFrom('random', 'brace', 'quote', 'digit')), { minLength: 1, maxLength: 6 }), (text, steps) => {
        let doc = parsePolicyDocument(text);
        let current = text;
        for (const [at, length, inserted, kind] of steps) {
          const { start, end, replacement } = placed(current, at, length, inserted, kind);
          const next = current.slice(0, start) + replacement + current.slice(end);
          const previous = doc;
          doc = reparsePolicyDocument(doc, next, { start, end, newEnd: start + replacement.length });
          sameAsParse(doc, next);
          edits++;
          if (sharesAnItem(previous.value, doc.value)) oneItem++;
          current = next;
        }
      }),
      { numRuns: 2000 },
    );
    // The one-item path was taken often enough for this to test it.
    expect(oneItem).toBeGreaterThan(edits / 10);
  });

  it('gives what a parse gives, one edit at a time', () => {
    fc.assert(
      fc.property(policy.chain((text) => fc.tuple(fc.constant(text), edit(text))), ([text, { start, end, inserted }]) => {
        const next = text.slice(0, start) + inserted + text.slice(end);
        sameAsParse(reparsePolicyDocument(parsePolicyDocument(text), next, { start, end, newEnd: start + inserted.length }), next);
      }),
      { numRuns: 1500 },
    );
  });
});

describe('reparsePolicyDocument, one rule parsed', () => {
  const text = JSON.stringify({ defaultAction: 'deny', sources: [{ type: 'pypi' }, { type: 'npm', registry: 'https://registry.npmjs.org' }, { type: 'git', host: 'github.com' }], connections: [{ type: 'tcp', cidr: '10.0.0.0/8', ports: [5432] }] }, null, 2);
  const at = text.indexOf('5432') + 3;
  const next = `${text.slice(0, at)}3${text.slice(at + 1)}`;

  it('shares every other rule with the previous value', () => {
    const before = parsePolicyDocument(text);
    const after = reparsePolicyDocument(before, next, { start: at, end: at + 1, newEnd: at + 1 });
    const b = before.value as { sources: unknown[]; connections: Array<{ ports: number[] }> };
    const a = after.value as typeof b;
    expect(a.connections[0]!.ports).toEqual([5433]);
    expect(a.sources).toBe(b.sources);
    expect(a.connections[0]).not.toBe(b.connections[0]);
    // and the next edit goes on from the carried spans: the npm registry, before the first edit
    const r = next.indexOf('npmjs');
    const third = `${next.slice(0, r)}NPMJS${next.slice(r + 5)}`;
    const again = reparsePolicyDocument(after, third, { start: r, end: r + 5, newEnd: r + 5 });
    expect((again.value as typeof b).sources[1]).toEqual({ type: 'npm', registry: 'https://registry.NPMJS.org' });
    expect((again.value as typeof b).connections[0]).toBe(a.connections[0]);
  });

  it('carries the spans over edits that change a rule\'s length, before, inside and after it', () => {
    let doc = parsePolicyDocument(text);
    let current = text;
    const step = (find: string, replacement: string) => {
      const at = current.indexOf(find);
      const next = current.slice(0, at) + replacement + current.slice(at + find.length);
      const before = doc.value as { sources: unknown[]; connections: unknown[] };
      doc = reparsePolicyDocument(doc, next, { start: at, end: at + find.length, newEnd: at + replacement.length });
      current = next;
      sameAsParse(doc, next);
      return { before, after: doc.value as typeof before };
    };
    let r = step('pypi', 'pypi-mirror'); // longer: every later rule moves
    expect(r.after.connections).toBe(r.before.connections);
    r = step('5432', ''); // shorter (an empty port list), in a later rule
    expect(r.after.sources).toBe(r.before.sources);
    r = step('10.0.0.0/8', '10.0.0.0/16'); // the same rule again, now longer
    expect(r.after.sources).toBe(r.before.sources);
    r = step('github.com', 'example.org'); // an earlier rule again
    expect(r.after.connections).toBe(r.before.connections);
    expect(r.after.sources[0]).toBe(r.before.sources[0]);
  });

  it('parses the whole text when the edit leaves the rule unfinished, adds a duplicate key or nests too deep', () => {
    const before = parsePolicyDocument(text);
    const open = text.indexOf('"type": "git"');
    const unfinished = `${text.slice(0, open)}"${text.slice(open)}`;
    expect(reparsePolicyDocument(before, unfinished, { start: open, end: open, newEnd: open + 1 }).syntaxFailed).toBe(true);
    const dup = `${text.slice(0, open)}"type": "x", ${text.slice(open)}`;
    const d = reparsePolicyDocument(before, dup, { start: open, end: open, newEnd: open + 13 });
    expect(d.syntaxDiagnostics.map((x) => x.code)).toEqual(['duplicate-key']);
    // Nesting that a rule may hold by itself but not two levels down in the policy (and one level less, which it may).
    for (const [n, tooDeep] of [[MAX_DEPTH - 2, true], [MAX_DEPTH - 3, false]] as const) {
      const deep = `${text.slice(0, open)}"d": ${'['.repeat(n)}${']'.repeat(n)}, ${text.slice(open)}`;
      const d2 = reparsePolicyDocument(before, deep, { start: open, end: open, newEnd: open + deep.length - text.length });
      expect(d2.syntaxFailed).toBe(tooDeep);
      expect(parsePolicyDocument(deep).syntaxFailed).toBe(tooDeep);
    }
  });

  it('refuses an edit that does not describe the two texts', () => {
    const before = parsePolicyDocument(text);
    const d = reparsePolicyDocument(before, next, { start: at, end: at + 5, newEnd: at + 1 });
    expect(d.value).toEqual(parsePolicyDocument(next).value);
  });
});
