/**
 * The indexed evaluator (decisions.md D4). Indexes are built once per policy; an access collects
 * candidate entries from them (cost independent of the number of rules), verifies each with the
 * shared predicates, and the permitting entry with the lowest order is the deciding rule.
 */
import { normaliseHost } from '../formats/host-pattern';
import type { Policy } from '../policy/types';
import type { Access, Decision } from './access';
import { decide } from './naive';
import {
  addressOf, connPermitsConnection, connPermitsRequest, policyRules, sshPermits, urlEntryPermits,
  type ConnEntry, type EvalOptions, type ImpliedEntry, type PolicyRules, type RuleRef, type SshEntry, type UrlEntry,
} from './rules';
import { CidrTrie, HostTrie, UrlTrie } from './tries';
import { parseUrl, type ParsedUrl } from './url';

export class CompiledPolicy {
  readonly rules: PolicyRules;
  private readonly urlTrie = new UrlTrie<UrlEntry>();
  /** tls rules by serverNamePatterns, tcp rules by hostPatterns. */
  private readonly tlsNames = new HostTrie<ConnEntry>();
  private readonly tcpNames = new HostTrie<ConnEntry>();
  /** Connection rules stating cidrs but no name patterns. */
  private readonly cidrs = new CidrTrie<ConnEntry>();
  /** Connection rules stating neither (invalid policies; kept so the model stays total). */
  private readonly unindexed: ConnEntry[] = [];
  /** Source URL host:port → the first source implying a connection to it. */
  private readonly implied = new Map<string, ImpliedEntry>();
  private readonly ssh = new HostTrie<SshEntry>();

  constructor(readonly policy: Policy, options: EvalOptions = {}) {
    this.rules = policyRules(policy, options);
    for (const e of this.rules.urls) this.urlTrie.add(e.url, e);
    for (const e of this.rules.conns) {
      if (e.names) for (const n of e.names) (e.kind === 'tls' ? this.tlsNames : this.tcpNames).add(n, e);
      else if (e.cidrs) for (const c of e.cidrs) this.cidrs.add(c, e);
      else this.unindexed.push(e);
    }
    for (const e of this.rules.implied) {
      const key = `${e.host}:${e.port}`;
      const seen = this.implied.get(key);
      if (!seen || e.order < seen.order) this.implied.set(key, e);
    }
    for (const e of this.rules.ssh) this.ssh.add(e.host, e);
  }

  /** The decision for one access. */
  evaluate(access: Access): Decision {
    return decide(this.rules, this.firstPermitting(access));
  }

  /** The permitting rule with the lowest order, if any. */
  firstPermitting(a: Access): RuleRef | undefined {
    let best: RuleRef | undefined;
    const consider = (e: RuleRef) => { if (!best || e.order < best.order) best = e; };
    if (a.kind === 'http') {
      const url = parseUrl(a.url);
      if (!url) return undefined;
      this.urlTrie.lookup(url, (e) => { if ((!best || e.order < best.order) && urlEntryPermits(e, a.method, url)) best = e; });
      this.connCandidates(url.scheme === 'https' ? url.host : undefined, [url.host], a.remoteIp, (e) => {
        if ((!best || e.order < best.order) && connPermitsRequest(e, url, a.remoteIp)) best = e;
      });
      return best;
    }
    if (a.kind === 'tls' || a.kind === 'tcp') {
      const tls = a.kind === 'tls';
      const names = a.hostnames ?? [];
      const serverName = tls && a.serverName !== undefined ? normaliseHost(a.serverName) : undefined;
      this.connCandidates(serverName, names.map(normaliseHost), a.remoteIp, (e) => {
        if ((!best || e.order < best.order) && connPermitsConnection(e, a, tls)) best = e;
      });
      if (tls) {
        if (serverName !== undefined) { const hit = this.implied.get(`${serverName}:${a.port}`); if (hit) consider(hit); }
      } else {
        for (const n of names) { const hit = this.implied.get(`${normaliseHost(n)}:${a.port}`); if (hit) consider(hit); }
      }
      return best;
    }
    this.ssh.lookup(normaliseHost(a.host), (e) => { if ((!best || e.order < best.order) && sshPermits(e, a)) best = e; });
    return best;
  }

  private connCandidates(tlsName: string | undefined, tcpNames: readonly string[], remoteIp: string | undefined, hit: (e: ConnEntry) => void): void {
    if (tlsName !== undefined) this.tlsNames.lookup(tlsName, hit);
    for (const n of tcpNames) this.tcpNames.lookup(n, hit);
    const address = addressOf(remoteIp);
    if (address) this.cidrs.lookup(address, hit);
    for (const e of this.unindexed) hit(e);
  }
}

const compiled = new WeakMap<object, { options: EvalOptions; value: CompiledPolicy }>();

/** Builds the indexes of a policy once; `evaluate` reuses them for the same policy object. */
export function compilePolicy(policy: Policy, options: EvalOptions = {}): CompiledPolicy {
  const cached = compiled.get(policy);
  if (cached && cached.options.catalog === options.catalog) return cached.value;
  const value = new CompiledPolicy(policy, options);
  compiled.set(policy, { options, value });
  return value;
}

/** The model's decision for one access under a policy (D4). */
export function evaluate(policy: Policy, access: Access, options: EvalOptions = {}): Decision {
  return compilePolicy(policy, options).evaluate(access);
}

export type { ParsedUrl };
