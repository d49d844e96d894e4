/**
 * `applyFixes` and `fixAllEdits` against the round-based code they replaced, kept here as the
 * reference: each fix checked against every edit taken before it (quadratic). Generated policies
 * have many fixable findings, next to one another (duplicates in a row, a rule with two defects,
 * fixes whose edits touch and wait for a later round), in every layout.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parsePolicyDocument, type PolicyDocument } from '../validate/document';
import { validateDocument, type ValidateOptions } from '../validate/validate';
import type { Diagnostic, DiagnosticCode } from '../validate/types';
import { applyEdits, fixEdits, type TextEdit } from './fix-edits';
import { applyFixes, fixAllEdits } from './fix-all';

function referenceCollect(doc: PolicyDocument, diagnostics: readonly Diagnostic[], codes?: ReadonlySet<DiagnosticCode>): { edits: TextEdit[]; fixes: number } {
  let fixes = 0;
  const taken: Array<[number, number]> = [];
  const out: TextEdit[] = [];
  for (const d of diagnostics) {
    if (d.data === undefined || (codes && !codes.has(d.code))) continue;
    const edits = fixEdits(doc, d);
    if (edits.length === 0 || edits.some((e) => taken.some(([s, t]) => e.offset <= t && s <= e.offset + e.length))) continue;
    for (const e of edits) taken.push([e.offset, e.offset + e.length]);
    out.push(...edits);
    fixes++;
  }
  return { edits: out, fixes };
}

function referenceApplyFixes(text: string, options: ValidateOptions & { codes?: ReadonlySet<DiagnosticCode>; maxRounds?: number } = {}) {
  let doc = parsePolicyDocument(text, { fileName: options.fileName, jsonc: options.jsonc });
  let diagnostics = validateDocument(doc, options);
  let applied = 0;
  for (let round = 0; round < (options.maxRounds ?? 10); round++) {
    const { edits, fixes } = referenceCollect(doc, diagnostics, options.codes);
    if (edits.length === 0) break;
    const next = applyEdits(doc.text, edits);
    if (next === doc.text) break;
    applied += fixes;
    doc = parsePolicyDocument(next, { fileName: options.fileName, jsonc: options.jsonc });
    diagnostics = validateDocument(doc, options);
  }
  return { text: doc.text, applied, diagnostics };
}

/** Rules with a fixable defect (or two), and clean ones; the same rule may come several times in a row. */
const sourceArb = fc.constantFrom<unknown>(
  { pypi: { urls: ['http://pypi.example/simple'] } },
  { pypii: { urls: ['https://p.example'] } },
  { oci: { urls: ['https://r.example'], repositoryPatterns: ['team/*'], operations: ['pul'] } },
  { oci: { urls: ['http://r.example'] } },
  { npm: { url: ['https://x.example'] } },
  { git: { repositoryPatterns: ['a/b'] } },
  { git: { ssh: [{ host: 'g.example' }] } },
  { npm: { urls: ['https://registry.example'] } },
  { pypi: { urls: ['https://pypi.org'] } },
);
const connectionArb = fc.constantFrom<unknown>(
  { tcp: { cidrs: ['10.1.0.7/16', '10.1.0.7/16'], ports: ['5432'] } },
  { tcp: { cidrs: ['10.9.0.1/16'] } },
  { tcp: { ports: [22] } },
  { tls: { serverNamePatterns: ['a.example', '*.a.example', 'a.example'], ports: [443] } },
  { tls: { serverNamePatterns: ['*.corp.example'], ports: [443] } },
  { tls: { serverNamePatterns: ['api.corp.example'], ports: [443] } },
  { tls: { serverNamePatterns: ['b.example'] } },
  { udp: { cidrs: ['10.2.0.0/16'], ports: [53] } },
);
const runs = <T>(arb: fc.Arbitrary<T>) => fc.array(fc.tuple(arb, fc.integer({ min: 1, max: 3 })), { maxLength: 12 }).map((xs) => xs.flatMap(([x, n]) => Array.from({ length: n }, () => structuredClone(x))));
const policyArb = fc.record({
  default: fc.constantFrom('deny', 'alow', 'allow'),
  presets: fc.subarray(['npm', 'pypi', 'pypy', 'npm', 'debian']),
  sources: runs(sourceArb),
  connections: runs(connectionArb),
});
const layoutArb = fc.record({ indent: fc.constantFrom('', '  ', '\t'), crlf: fc.boolean(), trailingCommas: fc.boolean() });

function render(p: unknown, layout: { indent: string; crlf: boolean; trailingCommas: boolean }): string {
  let text = layout.indent === '' ? JSON.stringify(p) : JSON.stringify(p, null, layout.indent);
  // Trailing commas (a fixable syntax error in .json, allowed in .jsonc).
  if (layout.trailingCommas) text = text.replace(/(["\d\]}])(\s*)([\]}])/g, '$1,$2$3');
  return layout.crlf ? text.replace(/\n/g, '\r\n') : text;
}

describe('fixes in linear time give what the round-based code gave', () => {
  it('applyFixes: the same text, fix count and diagnostics on generated policies', () => {
    let multiRound = 0;
    let fixesSeen = 0;
    fc.assert(fc.property(policyArb, layoutArb, fc.constantFrom('p.json', 'p.jsonc'), fc.integer({ min: 1, max: 20 }), (policy, layout, fileName, maxRounds) => {
      const text = render(policy, layout);
      const ours = applyFixes(text, { fileName, maxRounds });
      const reference = referenceApplyFixes(text, { fileName, maxRounds });
      expect(ours.text).toBe(reference.text);
      expect(ours.applied).toBe(reference.applied);
      expect(ours.diagnostics).toEqual(reference.diagnostics);
      fixesSeen += ours.applied;
      if (ours.applied > referenceApplyFixes(text, { fileName, maxRounds: 1 }).applied) multiRound++;
    }), { numRuns: 300 });
    // The generator reaches what the check is about: many fixes, and fixes that wait for a later round.
    expect(fixesSeen).toBeGreaterThan(1000);
    expect(multiRound).toBeGreaterThan(20);
  });

  it('fixAllEdits: the same edits, also for diagnostics out of document order and one code only', () => {
    const orderArb = fc.oneof(fc.constant('document' as const), fc.constant('reversed' as const), fc.integer({ min: 1, max: 1000 }));
    fc.assert(fc.property(policyArb, layoutArb, orderArb, fc.constantFrom<DiagnosticCode | undefined>(undefined, 'duplicate-rule', 'duplicate-item', 'insecure-url'), (policy, layout, order, code) => {
      const doc = parsePolicyDocument(render(policy, layout), { fileName: 'p.json' });
      let diagnostics = validateDocument(doc, {});
      if (order === 'reversed') diagnostics.reverse();
      // Shuffled: by (index × seed) mod a prime larger than any count here.
      else if (typeof order === 'number') diagnostics = diagnostics.map((d, i) => [d, (i * order) % 1009] as const).sort((x, y) => x[1] - y[1]).map(([d]) => d);
      const codes = code ? new Set([code]) : undefined;
      expect(fixAllEdits(doc, diagnostics, codes)).toEqual(referenceCollect(doc, diagnostics, codes).edits);
    }), { numRuns: 300 });
  });
});
