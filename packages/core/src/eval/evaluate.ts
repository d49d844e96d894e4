/**
 * The indexed evaluator (decisions.md D4). Indexes are built once per policy; an access collects
 * candidate entries from them (cost independent of the number of rules), verifies each with the
 * shared predicates, and the permitting entry with the lowest order is the deciding rule.
 */
import type { Policy } from '../policy/types';
import type { Access, Decision } from './access';
import { decide } from './naive';
import {
  addressOf, connPermitsConnection, connPermitsRequest, gitRepository, ociRepository, policyRules, sshPermits, urlEntryPermits,
  type ConnEntry, type EvalOptions, type ImpliedEntry, type PolicyRules, type RuleRef, type SshEntry, type UrlEntry,
} from './rules';
import { RepositoryIndex } from './repository-index';
import { CidrTrie, HostTrie, UrlTrie } from './tries';
import { normaliseHostFast, parseUrl, type ParsedUrl } from './url';
import { checkPolicy } from '../validate/policy-check';
import { expectOptions } from '../validate/input-error';
import { checkAccess } from './inputs';

/**
 * A policy with its rules indexed for evaluation: the cost of `evaluate` does not grow with the
 * number of rules. Build it with `compilePolicy`, which keeps one per policy object and checks the
 * policy; the constructor takes the policy as it is (its model stays total on any object).
 * @public
 */
export class CompiledPolicy {
  readonly rules: PolicyRules;
  /** The sources' URLs: one group per URL the policy states (origin and path). */
  private readonly urlTrie = new UrlTrie<UrlGroup>();
  /** tls rules by serverNamePatterns, tcp rules by hostPatterns. */
  private readonly tlsNames = new HostTrie<ConnEntry>();
  private readonly tcpNames = new HostTrie<ConnEntry>();
  /** Connection rules stating cidrs but no name patterns. */
  private readonly cidrs = new CidrTrie<ConnEntry>();
  /**
   * The ports those rules state (`cidrAnyPort`: one states none). Connections to another port
   * skip the address lookup: no such rule could permit them.
   */
  private readonly cidrPorts = new Set<number>();
  private cidrAnyPort = false;
  /** Connection rules stating neither (invalid policies; kept so the model stays total). */
  private readonly unindexed: ConnEntry[] = [];
  /** Source URL host → port → the first source implying a connection to it. */
  private readonly implied = new Map<string, Map<number, ImpliedEntry>>();
  /** The ports of `implied`: a connection to any other port (a database, say) skips the name lookups. */
  private readonly impliedPorts = new Set<number>();
  /** The git sources' ssh transports: one group per host pattern. */
  private readonly ssh = new HostTrie<RepositoryIndex<SshEntry>>();

  constructor(readonly policy: Policy, options: EvalOptions = {}) {
    this.rules = policyRules(policy, options);
    const groups = new Map<string, UrlGroup>();
    for (const e of this.rules.urls) {
      const key = `${e.url.scheme}://${e.url.host}:${e.url.port}${e.url.path}`;
      let g = groups.get(key);
      if (!g) {
        groups.set(key, (g = { path: e.url.path, plain: [], oci: undefined, git: undefined }));
        this.urlTrie.add(e.url, g);
      }
      if (e.kind === 'http') g.plain.push(e);
      else (e.kind === 'oci' ? (g.oci ??= new RepositoryIndex()) : (g.git ??= new RepositoryIndex())).add(e);
    }
    for (const e of this.rules.conns) {
      if (e.names) for (const n of e.names) (e.kind === 'tls' ? this.tlsNames : this.tcpNames).add(n, e);
      else if (e.cidrs) {
        for (const c of e.cidrs) this.cidrs.add(c, e);
        if (e.ports) for (const p of e.ports) this.cidrPorts.add(p);
        else this.cidrAnyPort = true;
      }
      else this.unindexed.push(e);
    }
    for (const e of this.rules.implied) {
      let ports = this.implied.get(e.host);
      if (!ports) this.implied.set(e.host, (ports = new Map()));
      const seen = ports.get(e.port);
      if (!seen || e.order < seen.order) ports.set(e.port, e);
      this.impliedPorts.add(e.port);
    }
    const sshGroups = new Map<string, RepositoryIndex<SshEntry>>();
    for (const e of this.rules.ssh) {
      let g = sshGroups.get(e.host);
      if (!g) {
        sshGroups.set(e.host, (g = new RepositoryIndex()));
        this.ssh.add(e.host, g);
      }
      g.add(e);
    }
    this.byDefault = Object.freeze(decide(this.rules, undefined));
    this.decisions = new Array<Decision | undefined>(this.rules.refs.length).fill(undefined);
    this.firstConnectionOrder = (this.policy.sources ?? []).length;
  }

  /**
   * Decisions are shared, frozen objects: one per rule, plus the default's. Indexed by the rule's
   * order (one order per rule id), which spares hashing the id on every access.
   */
  private readonly decisions: (Decision | undefined)[];
  private readonly byDefault: Decision;

  /** The decision for one access (`url`: the access's URL already parsed, null when it does not parse). */
  evaluate(access: Access, url?: ParsedUrl | null): Decision {
    const best = this.firstPermitting(access, url);
    if (!best) return this.byDefault;
    let d = this.decisions[best.order];
    if (!d) this.decisions[best.order] = d = Object.freeze(decide(this.rules, best));
    return d;
  }

  /** Scratch array reused across calls (evaluation is synchronous); only its first `count` items are current. */
  private readonly urlHits: UrlGroup[] = [];
  /** Order of the first connection rule: a permitting source (lower order) cannot be beaten by one. */
  private readonly firstConnectionOrder: number;
  /** Scratch array of `cidrCandidates` (evaluation is synchronous: its callers finish with it first). */
  private readonly cidrHits: ConnEntry[] = [];

  /** The permitting rule with the lowest order, if any. */
  firstPermitting(a: Access, parsed?: ParsedUrl | null): RuleRef | undefined {
    let best: RuleRef | undefined;
    if (a.kind === 'http') {
      const url = parsed === undefined ? parseUrl(a.url) : parsed;
      if (!url) return undefined;
      const hits = this.urlHits;
      const count = this.urlTrie.lookup(url, hits);
      // The repository of a registry API path, read once per request (undefined: not one; '': `/v2/`).
      let ociName: string | undefined | null = null;
      for (let i = 0; i < count; i++) {
        const g = hits[i];
        best = bestForUrl(g.plain, best, a.method, url);
        const oci = g.oci;
        if (oci) {
          best = bestForUrl(oci.plain, best, a.method, url);
          if (oci.few) best = bestForUrl(oci.indexed, best, a.method, url);
          else {
            if (ociName === null) ociName = ociRepository(url.path);
            // `/v2/` itself is allowed by any repository pattern.
            if (ociName !== undefined) best = bestForUrl(ociName === '' ? oci.indexed : oci.candidates(ociName), best, a.method, url);
          }
        }
        const git = g.git;
        if (git) {
          best = bestForUrl(git.plain, best, a.method, url);
          best = bestForUrl(git.few ? git.indexed : git.candidates(gitRepository(g.path, url.path)), best, a.method, url);
        }
      }
      // Sources come before every connection: a permitting source cannot be beaten.
      if (best && best.order < this.firstConnectionOrder) return best;
      if (this.rules.conns.length === 0) return best;
      const remoteIp = a.remoteIp;
      if (url.scheme === 'https') best = bestForRequest(this.tlsNames.lookup(url.host), best, url, remoteIp);
      best = bestForRequest(this.tcpNames.lookup(url.host), best, url, remoteIp);
      best = bestForRequest(this.cidrCandidates(remoteIp, url.port), best, url, remoteIp);
      return bestForRequest(this.unindexed, best, url, remoteIp);
    }
    if (a.kind === 'tls' || a.kind === 'tcp') {
      const tls = a.kind === 'tls';
      const names = a.hostnames;
      // The connections sources imply come first in order.
      if (tls) {
        if (a.serverName !== undefined) {
          const hit = this.impliedFor(a.serverName, a.port);
          if (hit) best = hit;
        }
      } else if (names) {
        for (let i = 0; i < names.length; i++) {
          const hit = this.impliedFor(names[i], a.port);
          if (hit && (!best || hit.order < best.order)) best = hit;
        }
      }
      if (best && best.order < this.firstConnectionOrder) return best;
      if (this.rules.conns.length === 0) return best;
      if (tls && a.serverName !== undefined) best = bestForConnection(this.tlsNames.lookup(a.serverName), best, a, tls);
      if (names) for (let i = 0; i < names.length; i++) best = bestForConnection(this.tcpNames.lookup(names[i]), best, a, tls);
      best = bestForConnection(this.cidrCandidates(a.remoteIp, a.port), best, a, tls);
      return bestForConnection(this.unindexed, best, a, tls);
    }
    const groups = this.ssh.lookup(a.host);
    for (let i = 0; i < groups.length; i++) {
      const g = groups[i];
      best = bestForSsh(g.plain, best, a);
      best = bestForSsh(g.few ? g.indexed : g.candidates(a.repositoryPath), best, a);
    }
    return best;
  }

  /** The source implying a connection to `host` (any case, trailing dot allowed) on `port`. */
  private impliedFor(host: string, port: number): ImpliedEntry | undefined {
    if (!this.impliedPorts.has(port)) return undefined;
    let ports = this.implied.get(host);
    if (ports === undefined) {
      // Retry with the normalised name only when it differs (the same key would miss again).
      const normalised = normaliseHostFast(host);
      if (normalised !== host) ports = this.implied.get(normalised);
    }
    return ports?.get(port);
  }


  /**
   * Connection rules (stating cidrs but no names) whose CIDRs contain the address, in a scratch
   * array. Not memoised by address text: the lookup walks at most 32 or 128 trie nodes, and in a
   * trace whose addresses are all distinct a memo missed every time and promoted its entries.
   */
  private cidrCandidates(remoteIp: string | undefined, port: number): readonly ConnEntry[] {
    if (this.cidrs.size === 0 || remoteIp === undefined || !(this.cidrAnyPort || this.cidrPorts.has(port))) return NO_CONNS;
    const address = addressOf(remoteIp);
    if (!address) return NO_CONNS;
    const hits = this.cidrHits;
    hits.length = 0;
    this.cidrs.lookup(address, hits);
    return hits;
  }
}

const NO_CONNS: readonly ConnEntry[] = Object.freeze([]);

/**
 * The sources of one URL of the policy: http-kind entries tried one by one, oci and git entries
 * in a `RepositoryIndex` each (tried only when the request's repository may match their patterns).
 */
interface UrlGroup {
  /** The URL path the entries state (a git source's base path). */
  path: string;
  plain: UrlEntry[];
  oci: RepositoryIndex<UrlEntry> | undefined;
  git: RepositoryIndex<UrlEntry> | undefined;
}

/** The better of `best` and the source URL entries that permit the request. */
function bestForUrl(candidates: readonly UrlEntry[], best: RuleRef | undefined, method: string, url: ParsedUrl): RuleRef | undefined {
  for (let i = 0; i < candidates.length; i++) {
    const e = candidates[i];
    if ((!best || e.order < best.order) && urlEntryPermits(e, method, url)) best = e;
  }
  return best;
}

/** The better of `best` and the ssh transports that permit the command. */
function bestForSsh(candidates: readonly SshEntry[], best: RuleRef | undefined, a: Extract<Access, { kind: 'ssh' }>): RuleRef | undefined {
  for (let i = 0; i < candidates.length; i++) {
    const e = candidates[i];
    if ((!best || e.order < best.order) && sshPermits(e, a)) best = e;
  }
  return best;
}

/**
 * The better of `best` and the candidates that permit an HTTP request (sent over a connection the
 * rule permits). Rules with name patterns come only from the name indexes, which matched the URL
 * host: their names are not checked again.
 */
function bestForRequest(candidates: readonly ConnEntry[], best: RuleRef | undefined, url: ParsedUrl, remoteIp: string | undefined): RuleRef | undefined {
  for (let i = 0; i < candidates.length; i++) {
    const e = candidates[i];
    if ((!best || e.order < best.order) && connPermitsRequest(e, url, remoteIp, true)) best = e;
  }
  return best;
}

/**
 * The better of `best` and the candidates that permit a connection (`tls`: it carries TLS). Rules
 * with name patterns come only from the name indexes, which matched the server name (tls rules)
 * or the host names (tcp rules): their names are not checked again.
 */
function bestForConnection(candidates: readonly ConnEntry[], best: RuleRef | undefined, a: Extract<Access, { kind: 'tls' | 'tcp' }>, tls: boolean): RuleRef | undefined {
  for (let i = 0; i < candidates.length; i++) {
    const e = candidates[i];
    if ((!best || e.order < best.order) && connPermitsConnection(e, a, tls, true)) best = e;
  }
  return best;
}

const compiled = new WeakMap<object, { options: EvalOptions; value: CompiledPolicy }>();

/**
 * Builds the indexes of a policy once; `evaluate` reuses them for the same policy object. A policy
 * that does not meet the schema is an `InputError` with its first problem (checked once per object).
 * @public
 */
export function compilePolicy(policy: Policy, options: EvalOptions = {}): CompiledPolicy {
  return compiledFor(policy, options, 'compilePolicy');
}

/** `compilePolicy` for the entry point `fn` (named in the error of a policy that is not valid). */
export function compiledFor(policy: Policy, options: EvalOptions, fn: string, argument = 'policy'): CompiledPolicy {
  const cached = typeof policy === 'object' && policy !== null ? compiled.get(policy) : undefined;
  if (cached && cached.options.catalog === options.catalog) return cached.value;
  // A policy in the cache was checked when it was compiled; a new one is checked here.
  checkPolicy(policy, fn, argument);
  expectOptions(options, fn);
  const value = new CompiledPolicy(policy, options);
  compiled.set(policy, { options, value });
  return value;
}

/**
 * The model's decision for one access under a policy (docs/evaluation-model.md). Synchronous.
 * @public
 */
export function evaluate(policy: Policy, access: Access, options: EvalOptions = {}): Decision {
  checkAccess(access, 'evaluate');
  return compiledFor(policy, options, 'evaluate').evaluate(access);
}

export type { ParsedUrl };
