import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { explainTrace, type ExplainResult } from '@netpolicy/core';
import { GroupTable, jsonResult, resultJson } from '../src/commands/explain/render';

const fixtures = new URL('../../../fixtures/traces/', import.meta.url).pathname;

describe('explain JSON, written member by member', () => {
  it('is the text of JSON.stringify(jsonResult(r)) for every result of every fixture trace', () => {
    let n = 0;
    for (const name of readdirSync(fixtures)) {
      // The policy beside each trace (its file name follows the fixtures' naming, whatever it is).
      const file = readdirSync(join(fixtures, name)).find((f) => f.includes('polic') && f.endsWith('.json') && !f.includes('test'));
      if (!file || !existsSync(join(fixtures, name, 'trace.json'))) continue;
      const report = explainTrace(JSON.parse(readFileSync(join(fixtures, name, file), 'utf8')), readFileSync(join(fixtures, name, 'trace.json'), 'utf8'));
      for (const r of report.results) { expect(resultJson(r)).toBe(JSON.stringify(jsonResult(r))); n++; }
    }
    expect(n).toBeGreaterThan(20);
  });

  it('escapes any string as JSON.stringify does (property)', () => {
    const base = explainTrace({ default: 'deny', presets: [] }, '{"observations":[{"protocol":"http","url":"https://x.example/","denied":true,"denied_reason":"r"}]}').results[0];
    fc.assert(fc.property(fc.string({ unit: 'binary' }), fc.string(), fc.option(fc.string()), fc.boolean(), (destination, protocol, reason, relies) => {
      const r: ExplainResult = { ...base, destination, protocol, recorded: { ...base.recorded, reason }, reliesOnDefault: relies };
      expect(resultJson(r)).toBe(JSON.stringify(jsonResult(r)));
    }), { numRuns: 300 });
  });
});

describe('GroupTable', () => {
  const result = (destination: string, sequence: number) => ({ destination, sequence, index: sequence }) as unknown as ExplainResult;
  it('keeps at most its capacity, replacing one-off destinations first, and counts what it leaves out', () => {
    const t = new GroupTable(10);
    for (let i = 0; i < 5; i++) for (let k = 0; k < 3; k++) t.add(result(`hot${i}`, i * 3 + k));
    for (let i = 0; i < 10000; i++) t.add(result(`once${i}`, 100 + i));
    expect(t.groups.size).toBe(10);
    for (let i = 0; i < 5; i++) expect(t.groups.get(`hot${i}`)?.count).toBe(3);
    expect(t.total).toBe(15 + 10000);
    expect(t.omittedAccesses).toBe(10000 - 5);
    const shown = [...t.groups.values()].reduce((s, g) => s + g.count, 0);
    expect(shown + t.omittedAccesses).toBe(t.total);
  });
});

/** The table as first written (a Set of one-off destinations, oldest first): what GroupTable keeps must not change. */
class ReferenceTable {
  readonly groups = new Map<string, { count: number; first: number; sequences: number[] }>();
  private readonly singles = new Set<string>();
  total = 0;
  omittedAccesses = 0;
  omittedDestinations = 0;
  constructor(readonly capacity: number) {}
  add(destination: string, sequence: number): void {
    this.total++;
    const g = this.groups.get(destination);
    if (g) {
      if (g.count++ === 1) this.singles.delete(destination);
      if (g.sequences.length <= 6) g.sequences.push(sequence);
      return;
    }
    if (this.groups.size >= this.capacity) {
      const oldest = this.singles.values().next();
      this.omittedAccesses++;
      this.omittedDestinations++;
      if (oldest.done) return;
      this.singles.delete(oldest.value);
      this.groups.delete(oldest.value);
    }
    this.groups.set(destination, { count: 1, first: sequence, sequences: [sequence] });
    this.singles.add(destination);
  }
}

describe('GroupTable against the reference (property)', () => {
  it('holds the same groups, counts and omissions for any sequence of destinations', () => {
    fc.assert(fc.property(fc.integer({ min: 1, max: 12 }), fc.array(fc.nat(40), { maxLength: 3000 }), (capacity, picks) => {
      const t = new GroupTable(capacity);
      const ref = new ReferenceTable(capacity);
      picks.forEach((p, i) => { t.add({ destination: `d${p}`, sequence: i, index: i } as unknown as ExplainResult); ref.add(`d${p}`, i); });
      expect([...t.groups.values()].map((g) => [g.destination, g.count, g.first.sequence, g.sequences])).toEqual([...ref.groups].map(([d, g]) => [d, g.count, g.first, g.sequences]));
      expect([t.total, t.omittedAccesses, t.omittedDestinations]).toEqual([ref.total, ref.omittedAccesses, ref.omittedDestinations]);
    }), { numRuns: 300 });
  });
});
