/**
 * `explain --apply`'s fixes in batches (apply-fixes.ts `applyDenialFixes`) against the same fixes
 * applied one at a time on a fresh parse each (`applyDenialFixesOneByOne`, the code it replaced):
 * the same text and the same fixes applied, on generated policies in every layout and runs of fixes
 * as explain makes them (appends to sources, connections and presets, creating a missing list, a
 * near miss's widening of a rule's list, values already present or repeated).
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { Fix } from '@netpolicy/core';
import { applyDenialFixes, applyDenialFixesOneByOne } from '../src/commands/explain/apply-fixes';

const source = fc.constantFrom<unknown>(
  { npm: { urls: ['https://registry.example'] } },
  { pypi: { urls: ['https://pypi.example/simple'] } },
  { oci: { urls: ['https://r.example'], repositoryPatterns: ['team/*'], operations: ['pull'] } },
);
const connection = fc.constantFrom<unknown>(
  { tls: { serverNamePatterns: ['api.example'], ports: [443] } },
  { tcp: { cidrs: ['10.1.0.0/16'], ports: [5432] } },
);
const policyArb = fc.record({
  default: fc.constant('deny'),
  presets: fc.subarray(['npm', 'pypi']),
  sources: fc.array(source, { maxLength: 3 }),
  connections: fc.array(connection, { maxLength: 3 }),
}, { requiredKeys: ['default'] });
const layoutArb = fc.record({ indent: fc.constantFrom('', '  ', '    ', '\t'), crlf: fc.boolean(), comments: fc.boolean(), oneLineLists: fc.boolean(), finalNewline: fc.boolean(), unindented: fc.boolean() });

function render(p: Record<string, unknown>, layout: { indent: string; crlf: boolean; comments: boolean; oneLineLists: boolean; finalNewline: boolean; unindented: boolean }): string {
  let text = layout.indent === '' ? JSON.stringify(p) : JSON.stringify(p, null, layout.indent);
  // One item a line, no indentation at all (the layout is then the default two spaces).
  if (layout.unindented) text = text.replace(/\n[ \t]+/g, '\n');
  if (layout.finalNewline) text += '\n';
  // Lists of strings on one line (`"presets": ["npm", "pypi"]`), as people write them.
  if (layout.oneLineLists && layout.indent !== '') text = text.replace(/\[\s*("[^"\n]*"(?:,\s*"[^"\n]*")*)\s*\]/g, (_, items: string) => `[${items.replace(/,\s*/g, ', ')}]`);
  if (layout.comments && layout.indent !== '') text = text.replace(/\]\n/g, '] // end\n');
  return layout.crlf ? text.replace(/\n/g, '\r\n') : text;
}

const fixArb: fc.Arbitrary<Fix> = fc.oneof(
  fc.integer({ min: 0, max: 40 }).map((i) => ({ pointer: '/sources/-', value: { npm: { urls: [`https://n${i % 12}.example`] } } })),
  fc.integer({ min: 0, max: 40 }).map((i) => ({ pointer: '/connections/-', value: { tls: { serverNamePatterns: [`h${i % 12}.example`], ports: [443] } } })),
  fc.constantFrom('npm', 'pypi', 'cargo', 'golang').map((name) => ({ pointer: '/presets/-', value: name })),
  fc.integer({ min: 0, max: 5 }).map((i) => ({ pointer: '/sources', value: [{ pypi: { urls: [`https://p${i}.example`] } }] })),
  fc.integer({ min: 0, max: 5 }).map((i) => ({ pointer: '/connections', value: [{ tcp: { cidrs: [`10.9.${i}.0/24`], ports: [22] } }] })),
  fc.constantFrom('npm', 'rubygems').map((name) => ({ pointer: '/presets', value: [name] })),
  fc.integer({ min: 0, max: 5 }).map((i) => ({ pointer: '/connections/0/tls/serverNamePatterns/-', value: `w${i}.example` })),
  fc.integer({ min: 0, max: 5 }).map((i) => ({ pointer: '/sources/0/oci/repositoryPatterns/-', value: `t${i}/*` })),
);

describe('explain --apply: fixes in batches give what one at a time gave', () => {
  it('the same text and the same fixes applied', () => {
    let batched = 0;
    fc.assert(fc.property(policyArb, layoutArb, fc.array(fixArb, { maxLength: 40 }), (policy, layout, fixes) => {
      const text = render(policy, layout);
      const ours = applyDenialFixes(text, 'p.netpolicy.jsonc', fixes);
      const reference = applyDenialFixesOneByOne(text, 'p.netpolicy.jsonc', fixes);
      expect(ours.text).toBe(reference.text);
      expect(ours.applied).toEqual(reference.applied);
      if (ours.applied.length > 1) batched++;
    }), { numRuns: 1500 });
    expect(batched).toBeGreaterThan(500);
  });

  it('2,000 appends: one parse per batch, not per fix (CPU time; one at a time took 20 s in a process)', () => {
    const fixes: Fix[] = Array.from({ length: 2000 }, (_, i) => ({ pointer: i % 2 ? '/sources/-' : '/connections/-', value: i % 2 ? { npm: { urls: [`https://n${i}.example`] } } : { tls: { serverNamePatterns: [`h${i}.example`], ports: [443] } } }));
    const text = JSON.stringify({ default: 'deny', sources: [{ npm: { urls: ['https://a.example'] } }], connections: [{ tls: { serverNamePatterns: ['b.example'], ports: [443] } }] }, null, 2);
    const before = process.cpuUsage();
    const result = applyDenialFixes(text, 'p.json', fixes);
    const { user, system } = process.cpuUsage(before);
    expect(result.applied).toHaveLength(2000);
    expect(JSON.parse(result.text).sources).toHaveLength(1001);
    expect((user + system) / 1000).toBeLessThan(3000); // tens of ms
  });
});
