import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { Explainer, explain, explainTrace } from './explain';
import { parseTrace } from '../trace/reader';
import type { Policy } from '../policy/types';

const dir = new URL('../../../../fixtures/traces/late-dns/', import.meta.url);
const policy = JSON.parse(readFileSync(new URL('policy.netpolicy.json', dir), 'utf8')) as Policy;
const text = readFileSync(new URL('trace.json', dir), 'utf8');
const verdicts = (r: { results: Array<{ sequence: number; model: { verdict: string; rule: string | null } }> }) =>
  r.results.map((x) => [x.sequence, x.model.verdict, x.model.rule]);
const expected = [[1, 'allow', '/connections/0'], [2, 'none', null], [3, 'deny', 'default']];

describe('DNS answers after the connection they name (D4: every DNS observation of the trace)', () => {
  it('explainTrace knows every answer from the start', () => {
    expect(verdicts(explainTrace(policy, text))).toEqual(expected);
  });

  it('explain of a text reads it again when an answer came late', async () => {
    const report = await explain(policy, text);
    expect(verdicts(report)).toEqual(expected);
    expect(report.lateDnsAnswers).toBe(false);
  });

  it('a single streaming pass reports the late answer, and a second pass with its names is exact', () => {
    const first = new Explainer(policy);
    for (const o of parseTrace(text).observations) first.add(o);
    const once = first.finish();
    expect(once.lateDnsAnswers).toBe(true);
    expect(verdicts(once)[0]).toEqual([1, 'deny', 'default']);
    const second = new Explainer(policy, { resolvedNames: first.resolvedNames });
    for (const o of parseTrace(text).observations) second.add(o);
    expect(verdicts(second.finish())).toEqual(expected);
  });
});
