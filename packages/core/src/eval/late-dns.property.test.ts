import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Explainer, explain, explainTrace, type ExplainReport } from './explain';
import { parseTrace } from '../trace/reader';
import type { Policy } from '../policy/types';
import { validate } from '../validate/validate';

// D4: a connection's names are those of every DNS observation of the trace, before it or after.
// The streaming explain reads a text twice only when an answer after a connection could change
// what the report says of it; whatever the order of answers and connections, its report is the
// one of explainTrace, which knows every answer from the start.

const addresses = ['10.0.0.1', '10.0.0.2', '192.0.2.7', '2001:db8::5'];
const names = ['a.example', 'b.example', 'db.internal', 'API.Example.', 'x.cdn.example', 'a.example.'];

const dns = fc.record({
  protocol: fc.constant('dns'),
  query_name: fc.constantFrom(...names),
  answers: fc.array(fc.oneof(fc.constantFrom(...addresses), fc.constantFrom(...names)), { minLength: 1, maxLength: 3 }),
});
const tcp = fc.record({
  protocol: fc.constant('tcp'),
  remote_ip: fc.constantFrom(...addresses),
  remote_port: fc.constantFrom(443, 5432),
  allowed: fc.boolean(),
  hostnames: fc.subarray(names, { maxLength: 2 }),
}, { requiredKeys: ['protocol', 'remote_ip', 'remote_port'] });
const tls = fc.record({
  protocol: fc.constant('tcp'),
  remote_ip: fc.constantFrom(...addresses),
  remote_port: fc.constant(443),
  server_name: fc.constantFrom(...names),
  alpn: fc.constant(['h2']),
  hostnames: fc.subarray(names, { maxLength: 2 }),
}, { requiredKeys: ['protocol', 'remote_ip', 'remote_port', 'server_name'] });
const trace = fc.array(fc.oneof(dns, tcp, tls), { minLength: 1, maxLength: 14 })
  .map((observations) => JSON.stringify({ schema_version: '1.0', observations: observations.map((o, i) => ({ ...o, sequence: i + 1 })) }));

const policies: Policy[] = [
  { default: 'deny', presets: [], connections: [{ tcp: { hostPatterns: ['a.example'], ports: [5432] } }, { tls: { serverNamePatterns: ['*.cdn.example'], ports: [443] } }, { tcp: { cidrs: ['10.0.0.0/31'], ports: [5432] } }] } as Policy,
  { default: 'allow', presets: [], connections: [{ tcp: { hostPatterns: ['b.example', 'db.internal'] } }] } as Policy,
  { default: 'deny', presets: [], connections: [{ tls: { serverNamePatterns: ['api.example'], ports: [443] } }, { tcp: { hostPatterns: ['*.example'], ports: [443] } }] } as Policy,
];

/** What the report says of each result, and its counts (not the observation objects themselves). */
function said(r: ExplainReport): unknown {
  return {
    summary: r.summary,
    results: r.results.map((x) => ({ sequence: x.sequence, destination: x.destination, model: x.model, agrees: x.agrees, fix: x.fix, nearMiss: x.nearMiss, reliesOnDefault: x.reliesOnDefault, access: x.access })),
  };
}

describe('DNS answers in any order (property)', () => {
  it('the policies are valid (their name rules are evaluated, not ignored)', () => {
    for (const p of policies) expect(validate(JSON.stringify(p)).diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  });

  it('the streaming explain reports what explainTrace reports, for --only all and denied', async () => {
    await fc.assert(fc.asyncProperty(trace, fc.constantFrom(...policies), fc.constantFrom('all' as const, 'denied' as const), async (text, policy, only) => {
      const streamed = await explain(policy, text, { only });
      const whole = explainTrace(policy, text, { only });
      expect(said(streamed)).toEqual(said(whole));
    }), { numRuns: 400 });
  });

  it('an answer after a connection that names only what the connection named reads the trace once', () => {
    const text = JSON.stringify({ observations: [
      { protocol: 'tcp', sequence: 1, remote_ip: '192.0.2.7', remote_port: 5432, hostnames: ['DB.internal.'] },
      { protocol: 'dns', sequence: 2, query_name: 'db.internal', answers: ['192.0.2.7'] },
    ] });
    const explainer = new Explainer(policies[0]);
    for (const o of parseTrace(text).observations) explainer.add(o);
    const once = explainer.finish();
    expect(once.lateDnsAnswers).toBe(false);
    expect(said(once)).toEqual(said(explainTrace(policies[0], text)));
    // A name the connection did not name is late: the connection may be allowed by it.
    const later = JSON.stringify({ observations: [
      { protocol: 'tcp', sequence: 1, remote_ip: '192.0.2.7', remote_port: 5432, hostnames: ['db.internal'] },
      { protocol: 'dns', sequence: 2, query_name: 'a.example', answers: ['192.0.2.7'] },
    ] });
    const second = new Explainer(policies[0]);
    for (const o of parseTrace(later).observations) second.add(o);
    expect(second.finish().lateDnsAnswers).toBe(true);
    expect(explainTrace(policies[0], later).results[0].model.verdict).toBe('allow');
  });
});
