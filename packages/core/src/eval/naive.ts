/**
 * The naive reference evaluator: tries every rule in reporting order, no index. Slow on purpose
 * and simple enough to read against decisions.md D4; property tests hold the indexed evaluator to it.
 */
import { normaliseHost } from '../formats/host-pattern';
import type { Policy } from '../policy/types';
import type { Access, Decision } from './access';
import { connPermitsConnection, connPermitsRequest, policyRules, sshPermits, urlEntryPermits, type EvalOptions, type PolicyRules } from './rules';
import { parseUrl, urlCovers, type ParsedUrl } from './url';

function permittingOrders(rules: PolicyRules, a: Access, parsed?: ParsedUrl | null): { order: number; id: string }[] {
  const hits: { order: number; id: string }[] = [];
  if (a.kind === 'http') {
    const url = parsed === undefined ? parseUrl(a.url) : parsed;
    if (!url) return hits;
    for (const e of rules.urls) if (urlCovers(e.url, url) && urlEntryPermits(e, a.method, url)) hits.push(e);
    for (const e of rules.conns) if (connPermitsRequest(e, url, a.remoteIp)) hits.push(e);
  } else if (a.kind === 'tls' || a.kind === 'tcp') {
    const tls = a.kind === 'tls';
    for (const e of rules.conns) if (connPermitsConnection(e, a, tls)) hits.push(e);
    const names = tls ? (a.serverName === undefined ? [] : [a.serverName]) : (a.hostnames ?? []);
    for (const e of rules.implied) {
      if (e.port === a.port && names.some((n) => normaliseHost(n) === e.host)) hits.push(e);
    }
  } else {
    for (const e of rules.ssh) if (sshPermits(e, a)) hits.push(e);
  }
  return hits;
}

/**
 * Whether any rule of `rules` permits the access (the naive way: every rule tried). `parsed`: the
 * access's URL already parsed (null when it does not parse), else it is parsed here. On one item's
 * rules (`itemRules`) it says whether that item alone permits the access (a fix; a workspace symbol).
 * @internal
 */
export function anyPermits(rules: PolicyRules, a: Access, parsed?: ParsedUrl | null): boolean {
  return permittingOrders(rules, a, parsed).length > 0;
}

export function decide(rules: PolicyRules, best: { id: string } | undefined): Decision {
  if (best) return { verdict: 'allow', rule: best.id, certain: true };
  if (rules.defaultAllow) return { verdict: 'allow', rule: 'default', certain: true };
  return { verdict: 'deny', rule: 'default', certain: !rules.opaque };
}

const flattened = new WeakMap<object, { options: EvalOptions; rules: PolicyRules }>();

/** Evaluates one access by trying every rule (the flattened rule list is reused for the same policy object). */
export function evaluateNaive(policy: Policy, access: Access, options: EvalOptions = {}): Decision {
  let cached = flattened.get(policy);
  if (!cached || cached.options.catalog !== options.catalog) flattened.set(policy, (cached = { options, rules: policyRules(policy, options) }));
  const rules = cached.rules;
  let best: { order: number; id: string } | undefined;
  for (const hit of permittingOrders(rules, access)) if (!best || hit.order < best.order) best = hit;
  return decide(rules, best);
}
