// deferDetails: denials' near miss and fix left out while explaining, filled in afterwards by
// addDetails for the results a report shows. Held to explaining with them: the same results.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { readFileSync, readdirSync } from 'node:fs';
import { Explainer, type ExplainResult } from './explain';
import { parseTrace } from '../trace/reader';
import type { AnyObservation } from '../trace/types';
import type { Policy } from '../policy/types';
import { compilePolicy } from './evaluate';
import { nearMiss, widening } from './near-miss';
import { fixFor } from './fix';
import { parseUrl } from './url';

const dir = new URL('../../../../fixtures/traces/', import.meta.url).pathname;

function explainAll(policy: Policy, observations: readonly AnyObservation[], deferDetails: boolean): ExplainResult[] {
  const explainer = new Explainer(policy, { deferDetails });
  for (const o of observations) explainer.add(o);
  const { results } = explainer.finish();
  // In reverse, so that no result depends on the order details are asked in.
  if (deferDetails) for (const r of results.slice().reverse()) explainer.addDetails(r);
  return results;
}

describe('deferred near misses and fixes', () => {
  it.each(readdirSync(dir))('%s: filled in afterwards, every result is what explaining with them gives', (name) => {
    const policy = JSON.parse(readFileSync(`${dir}${name}/policy.netpolicy.json`, 'utf8')) as Policy;
    const { observations } = parseTrace(readFileSync(`${dir}${name}/trace.json`, 'utf8'));
    expect(explainAll(policy, observations, true)).toEqual(explainAll(policy, observations, false));
  });

  it('are left null until asked for, and only denials get them', () => {
    const policy = JSON.parse(readFileSync(`${dir}denials/policy.netpolicy.json`, 'utf8')) as Policy;
    const { observations } = parseTrace(readFileSync(`${dir}denials/trace.json`, 'utf8'));
    const explainer = new Explainer(policy, { deferDetails: true });
    for (const o of observations) explainer.add(o);
    const { results } = explainer.finish();
    const denials = results.filter((r) => r.model.verdict === 'deny');
    expect(denials.length).toBeGreaterThan(3);
    expect(results.every((r) => r.fix === null && r.nearMiss === null)).toBe(true);
    for (const r of results) explainer.addDetails(r);
    expect(denials.filter((r) => r.fix !== null).length).toBeGreaterThan(3);
    expect(denials.filter((r) => r.nearMiss !== null).length).toBeGreaterThan(0);
    expect(results.filter((r) => r.model.verdict !== 'deny').every((r) => r.fix === null && r.nearMiss === null)).toBe(true);
  });

  it('on random observations near the denials policy (repeats, DNS names, every protocol)', () => {
    const denials = JSON.parse(readFileSync(`${dir}denials/policy.netpolicy.json`, 'utf8')) as Policy;
    // Rules whose near misses depend on the offered ALPN and on a request's address.
    const policy = { ...denials, connections: [{ tls: { serverNamePatterns: ['example.org'], ports: [443], alpn: ['h2'] } }, ...(denials.connections ?? []), { tcp: { cidrs: ['104.16.0.0/16'], ports: [443] } }] } as Policy;
    const host = fc.constantFrom('registry.npmjs.org', 'registry.yarnpkg.com', 'ghcr.example.com', 'a.example.org', 'example.org', 'pypi.org', 'git.example.com', 'db.internal');
    const ip = fc.constantFrom('10.20.1.2', '10.21.0.1', '104.16.25.34', 'fd00::1', '::ffff:10.20.0.9');
    const observation = fc.oneof(
      fc.record({ protocol: fc.constant('http'), method: fc.constantFrom('GET', 'PUT', 'POST'), url: fc.tuple(fc.constantFrom('https', 'http'), host, fc.constantFrom('/', '/left-pad', '/v2/acme/app/manifests/1', '/v2/other/app/blobs/x', '/acme/x.git/info/refs')).map(([s, h, p]) => `${s}://${h}${p}`), remote_ip: ip }),
      fc.record({ protocol: fc.constant('tcp'), remote_ip: ip, remote_port: fc.constantFrom(443, 5432, 22), server_name: fc.option(host, { nil: undefined }), hostnames: fc.array(host, { maxLength: 2 }), alpn: fc.constantFrom([], ['h2'], ['http/1.1']) }),
      fc.record({ protocol: fc.constant('tcp'), remote_ip: ip, remote_port: fc.constant(443), server_name: fc.constant('example.org'), alpn: fc.constantFrom([], ['h2'], ['http/1.1']) }),
      fc.record({ protocol: fc.constant('http'), method: fc.constant('GET'), url: fc.constant('https://registry.yarnpkg.com/x'), remote_ip: fc.constantFrom('10.9.9.9', '172.3.0.1', '104.16.25.34') }),
      fc.record({ protocol: fc.constant('ssh_git'), host, port: fc.constantFrom(22, 2222), user: fc.constantFrom('git', 'bot'), repository_path: fc.constantFrom('/acme/app.git', '/other/app.git', 'acme/x') }),
      fc.record({ protocol: fc.constant('dns'), query_name: host, answers: fc.array(ip, { minLength: 1, maxLength: 2 }) }),
    );
    fc.assert(fc.property(fc.array(observation, { minLength: 1, maxLength: 30 }), (list) => {
      const text = JSON.stringify({ schema_version: '1.0', observations: list.map((o, i) => ({ ...o, sequence: i + 1 })) });
      const { observations } = parseTrace(text);
      const eager = explainAll(policy, observations, false);
      expect(explainAll(policy, observations, true)).toEqual(eager);
      // Every denial's near miss and fix are what working them out afresh gives: the table of
      // recent denials never hands an access the details of another (the same destination text
      // with another address, other names or other ALPN falls in the same slot).
      const rules = compilePolicy(policy).rules;
      for (const r of eager) {
        if (r.model.verdict !== 'deny') continue;
        const a = r.access!;
        const url = a.kind === 'http' ? parseUrl(a.url) ?? null : undefined;
        const near = nearMiss(rules, a, { url }) ?? null;
        const widen = near && widening(policy, near, a, url);
        if (near && widen) near.widen = widen;
        expect({ fix: r.fix, nearMiss: r.nearMiss }).toEqual({ fix: fixFor(policy, a, {}, url), nearMiss: near });
      }
    }), { numRuns: 300 });
  });
});
