import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { explainTrace, type ExplainResult } from '@netpolicy/core';
import { GroupTable, jsonResult, resultJson } from '../src/explain-render';

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
