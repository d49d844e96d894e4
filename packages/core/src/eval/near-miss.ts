/**
 * Why a denied access was denied: the rule that came nearest to permitting it and what it missed
 * (port, SNI missing, apex vs `*.`, address outside the CIDRs, operation not listed, repository
 * pattern, ...). Only rules that name the destination (host, address) are candidates.
 */
import { isHostPattern, matchHostPattern, normaliseHost } from '../formats/host-pattern';
import type { Policy } from '../policy/types';
import { anyPermits } from './naive';
import { literalRepositoryPattern } from './recognise';
import type { Access } from './access';
import {
  addressOf, cidrsContain, gitRepository, itemRules, ociOperation, ociRepository, patternsAllow,
  type ConnEntry, type ImpliedEntry, type PolicyRules, type SshEntry, type UrlEntry,
} from './rules';
import { CidrTrie, HostTrie } from './tries';
import { parseUrl, pathCovers, type ParsedUrl } from './url';

/**
 * Why a rule missed an access, as a stable code (the message says it in words).
 * @public
 */
export type MissCode =
  | 'port' | 'scheme' | 'path' | 'sni-missing' | 'apex-vs-wildcard' | 'subdomain-vs-exact' | 'host'
  | 'cidr' | 'operation' | 'not-registry-path' | 'repository' | 'alpn' | 'alpn-on-request'
  | 'tls-rule-plain-tcp' | 'user';

/**
 * One reason a rule missed an access: its code and a sentence naming the values that differ.
 * @public
 */
export interface MissReason { code: MissCode; message: string }

/**
 * The rule that came nearest to permitting a denied access, and why it did not: what explain shows beside each denial.
 * @public
 */
export interface NearMiss {
  /** The rule that almost matched: `/sources/N`, `/connections/N` or `preset:<name>`. */
  rule: string;
  /** Every way it missed (a rule can miss on the port and the path at once). */
  reasons: MissReason[];
  /** The reasons as one sentence. */
  message: string;
  /** When one added item closes the gap: the rule widened (explain offers it before a new rule). */
  widen?: Widening;
}

interface Candidate { rule: string; order: number; reasons: MissReason[] }

/** How a host relates to one host pattern: match, the apex/wildcard confusion, or unrelated. */
function nameRelation(pattern: string, host: string): MissReason | 'match' | undefined {
  if (matchHostPattern(pattern, host)) return 'match';
  const h = normaliseHost(host);
  if (pattern.startsWith('*.') && pattern.slice(2) === h) {
    return { code: 'apex-vs-wildcard', message: `\`${pattern}\` matches names below ${h}, never ${h} itself (add \`${h}\`)` };
  }
  if (!pattern.startsWith('*.') && h.endsWith(`.${pattern}`)) {
    return { code: 'subdomain-vs-exact', message: `\`${pattern}\` matches only ${pattern} exactly, not ${h} (use \`*.${pattern}\`)` };
  }
  return undefined;
}

function bestNameRelation(patterns: readonly string[], hosts: readonly string[]): MissReason | 'match' | undefined {
  let near: MissReason | undefined;
  for (const host of hosts) for (const p of patterns) {
    const r = nameRelation(p, host);
    if (r === 'match') return r;
    near ??= r;
  }
  return near;
}

function portText(ports: ReadonlySet<number>): string {
  return [...ports].join(', ');
}

function urlCandidate(e: UrlEntry, method: string, url: ParsedUrl): Candidate | undefined {
  if (e.url.host !== url.host) return undefined;
  const reasons: MissReason[] = [];
  if (e.url.scheme !== url.scheme) reasons.push({ code: 'scheme', message: `the rule URL is ${e.url.scheme}, the request ${url.scheme}` });
  const defaultPorts = e.url.scheme !== url.scheme && e.url.port === (e.url.scheme === 'https' ? 443 : 80) && url.port === (url.scheme === 'https' ? 443 : 80);
  if (e.url.port !== url.port && !defaultPorts) reasons.push({ code: 'port', message: `the rule URL is on port ${e.url.port}, the request on ${url.port}` });
  if (!pathCovers(e.url.path, url.path)) reasons.push({ code: 'path', message: `path ${url.path} is not under ${e.url.path} (prefixes end at a \`/\`)` });
  if (e.kind === 'oci') {
    const name = ociRepository(url.path);
    const op = ociOperation(method);
    if (name === undefined) reasons.push({ code: 'not-registry-path', message: `${url.path} is not a registry API path (/v2/<name>/manifests|blobs|tags|referrers/...)` });
    else if (name !== '' && e.repositoryPatterns && !patternsAllow(e.repositoryMatchers, name)) {
      reasons.push({ code: 'repository', message: `repository ${name} matches none of repositoryPatterns ${e.repositoryPatterns.join(', ')}` });
    }
    if (!op || !e.operations!.has(op)) reasons.push({ code: 'operation', message: `${method} is ${op ? `operation \`${op}\`` : 'no registry operation'}, not in operations ${[...e.operations!].join(', ')}` });
  } else if (e.kind === 'git' && e.repositoryPatterns) {
    const repo = gitRepository(e.url.path, url.path);
    if (!patternsAllow(e.repositoryMatchers, repo)) {
      reasons.push({ code: 'repository', message: `repository ${repo || '(none)'} matches none of repositoryPatterns ${e.repositoryPatterns.join(', ')}` });
    }
  }
  return reasons.length ? { rule: e.id, order: e.order, reasons } : undefined;
}

function connCandidate(e: ConnEntry, a: Access, url: ParsedUrl | undefined): Candidate | undefined {
  const reasons: MissReason[] = [];
  let related = false;
  let port: number;
  let names: string[];
  if (a.kind === 'http') {
    if (!url) return undefined;
    port = url.port;
    names = [url.host];
    if (e.kind === 'tls' && url.scheme !== 'https') reasons.push({ code: 'scheme', message: 'a tls rule permits https requests only' });
    if (e.kind === 'tls' && e.alpn) reasons.push({ code: 'alpn-on-request', message: 'a tls rule that states alpn never matches a request (its ALPN is not recorded)' });
  } else if (a.kind === 'tls' || a.kind === 'tcp') {
    port = a.port;
    if (e.kind === 'tls') {
      if (a.kind === 'tcp') reasons.push({ code: 'tls-rule-plain-tcp', message: 'a tls rule never permits a plain TCP connection (no TLS was seen)' });
      names = a.kind === 'tls' && a.serverName !== undefined ? [a.serverName] : [];
      if (e.names && names.length === 0) {
        if (a.kind === 'tls') reasons.push({ code: 'sni-missing', message: 'the connection sent no server name (SNI), so serverNamePatterns cannot match' });
        related = related || (a.hostnames ?? []).some((h) => bestNameRelation(e.names!, [h]) === 'match');
      }
      if (e.alpn && a.kind === 'tls' && !(a.alpn ?? []).some((x) => e.alpn!.includes(x))) {
        reasons.push({ code: 'alpn', message: `offered ALPN ${(a.alpn ?? []).join(', ') || '(none)'} shares nothing with alpn ${e.alpn.join(', ')}` });
      }
    } else names = (a.hostnames ?? []).slice();
  } else return undefined;
  if (e.names && names.length > 0) {
    const r = bestNameRelation(e.names, names);
    if (r === 'match') related = true;
    else if (r) { related = true; reasons.push(r); }
    else reasons.push({ code: 'host', message: `${names[0]} matches none of ${e.names.join(', ')}` });
  }
  if (e.cidrs) {
    const remoteIp = a.remoteIp;
    const address = addressOf(remoteIp);
    if (cidrsContain(e.cidrs, address)) related = true;
    // An address rule for the same port is about the same service somewhere else.
    else if (!e.names && e.ports?.has(port) && address && e.cidrs.some((c) => c.version === address.version)) related = true;
    if (!cidrsContain(e.cidrs, address)) reasons.push({ code: 'cidr', message: remoteIp ? `address ${remoteIp} is outside cidrs ${e.cidrs.length > 3 ? `(${e.cidrs.length} prefixes)` : (e.rawCidrs ?? []).join(', ')}` : 'no remote address was recorded, and the rule states cidrs' });
  }
  if (e.ports && !e.ports.has(port)) reasons.push({ code: 'port', message: `port ${port} is not in ports ${portText(e.ports)}` });
  return related && reasons.length ? { rule: e.id, order: e.order, reasons } : undefined;
}

function sshCandidate(e: SshEntry, a: Extract<Access, { kind: 'ssh' }>): Candidate | undefined {
  const reasons: MissReason[] = [];
  const r = bestNameRelation([e.host], [a.host]);
  if (r === undefined) return undefined;
  if (r !== 'match') reasons.push(r);
  if (e.port !== a.port) reasons.push({ code: 'port', message: `the ssh transport is on port ${e.port}, the command used ${a.port}` });
  if (e.user !== undefined && e.user !== a.user) reasons.push({ code: 'user', message: `user ${a.user ?? '(none)'} is not ${e.user}` });
  if (e.repositoryPatterns && !patternsAllow(e.repositoryMatchers, a.repositoryPath)) {
    reasons.push({ code: 'repository', message: `repository ${a.repositoryPath ?? '(none)'} matches none of repositoryPatterns ${e.repositoryPatterns.join(', ')}` });
  }
  return reasons.length ? { rule: e.id, order: e.order, reasons } : undefined;
}

/**
 * Indexes of the rules that can relate to a destination, so that explaining a denial costs what
 * the destination's rules cost, not the whole policy: URL entries by host, name rules on the
 * host's path in a suffix trie, address rules by prefix, address-only rules by port.
 */
class RelatedIndex {
  readonly urlsByHost = new Map<string, UrlEntry[]>();
  readonly names = new HostTrie<ConnEntry>();
  readonly cidrs = new CidrTrie<ConnEntry>();
  readonly cidrOnlyByPort = new Map<number | 'any', ConnEntry[]>();
  readonly unnamed: ConnEntry[] = [];
  readonly impliedByHost = new Map<string, ImpliedEntry[]>();
  readonly ssh = new HostTrie<SshEntry>();

  constructor(rules: PolicyRules) {
    const add = <K, V>(map: Map<K, V[]>, key: K, value: V) => { const list = map.get(key); if (list) list.push(value); else map.set(key, [value]); };
    for (const e of rules.urls) add(this.urlsByHost, e.url.host, e);
    for (const e of rules.conns) {
      if (e.names) for (const n of e.names) this.names.add(n, e);
      if (e.cidrs) {
        for (const c of e.cidrs) this.cidrs.add(c, e);
        if (!e.names) {
          if (e.ports) for (const p of e.ports) add(this.cidrOnlyByPort, p, e);
          else add(this.cidrOnlyByPort, 'any', e);
        }
      }
      if (!e.names && !e.cidrs) this.unnamed.push(e);
    }
    for (const e of rules.implied) add(this.impliedByHost, e.host, e);
    for (const e of rules.ssh) this.ssh.add(e.host, e);
  }

  /**
   * Connection rules that may relate to an access: by name, by address, address rules on the
   * port; sorted by order (ties in that order of finding). The address rules of a port (hundreds
   * in a policy of many databases) are already in order: they are merged with the few others,
   * not hashed into a set and sorted with them for every denied connection.
   */
  conns(names: readonly string[], remoteIp: string | undefined, port: number): readonly ConnEntry[] {
    const found: ConnEntry[] = this.unnamed.slice();
    for (const n of names) for (const e of this.names.related(normaliseHost(n))) found.push(e);
    const address = addressOf(remoteIp);
    if (address) this.cidrs.lookup(address, found);
    // The first finding of each rule, in order of finding, then sorted (stable: ties keep it).
    const few = found.length > 1 ? distinct(found).sort((x, y) => x.order - y.order) : found;
    const byPort = this.cidrOnlyByPort.get(port);
    if (byPort === undefined) return few;
    if (few.length === 0) return byPort;
    const out: ConnEntry[] = [];
    const inFew = few.length > 32 ? new Set(few) : undefined;
    let i = 0;
    for (const e of byPort) {
      if (inFew ? inFew.has(e) : few.includes(e)) continue; // found already: its place is its first finding's
      while (i < few.length && few[i].order <= e.order) out.push(few[i++]);
      out.push(e);
    }
    while (i < few.length) out.push(few[i++]);
    return out;
  }
}

/** The items of `list` without repeats, each at its first place. */
function distinct<T>(list: readonly T[]): T[] {
  if (list.length > 32) return [...new Set(list)];
  const out: T[] = [];
  for (const x of list) if (!out.includes(x)) out.push(x);
  return out;
}

const indexes = new WeakMap<PolicyRules, RelatedIndex>();

function relatedIndex(rules: PolicyRules): RelatedIndex {
  let index = indexes.get(rules);
  if (!index) indexes.set(rules, (index = new RelatedIndex(rules)));
  return index;
}

/**
 * The nearest rule that did not permit `a` (fewest missed criteria, then earliest), if any names its destination.
 * @public
 */
export function nearMiss(rules: PolicyRules, a: Access, options: { exhaustive?: boolean; url?: ParsedUrl | null } = {}): NearMiss | undefined {
  // `exhaustive` tries every rule instead of the related ones (the reference for tests).
  const index: Pick<RelatedIndex, 'urlsByHost' | 'conns' | 'impliedByHost' | 'ssh'> = options.exhaustive ? {
    urlsByHost: new Map(rules.urls.map((e) => [e.url.host, rules.urls])),
    conns: () => rules.conns,
    impliedByHost: new Map(rules.implied.map((e) => [e.host, rules.implied])),
    ssh: { related: () => rules.ssh } as unknown as HostTrie<SshEntry>,
  } : relatedIndex(rules);
  const candidates: Candidate[] = [];
  // Every candidate misses at least one criterion, and ties go to the lower order: once one misses
  // a single criterion, a rule of higher order cannot win, and is not looked at (a policy may hold
  // hundreds of address rules for a port, each a candidate for every denied connection to it).
  let bestOrder = Infinity;
  const hopeless = (order: number) => !options.exhaustive && order > bestOrder;
  const push = (c: Candidate | undefined) => {
    if (!c) return;
    candidates.push(c);
    if (c.reasons.length === 1 && c.order < bestOrder) bestOrder = c.order;
  };
  if (a.kind === 'http') {
    const url = options.url === undefined ? parseUrl(a.url) : options.url;
    if (url) for (const e of index.urlsByHost.get(url.host) ?? []) if (!hopeless(e.order)) push(urlCandidate(e, a.method, url));
    if (url) for (const e of index.conns([url.host], a.remoteIp, url.port)) if (!hopeless(e.order)) push(connCandidate(e, a, url));
  } else if (a.kind === 'tls' || a.kind === 'tcp') {
    const connNames = [...(a.kind === 'tls' && a.serverName !== undefined ? [a.serverName] : []), ...(a.hostnames ?? [])];
    for (const e of index.conns(connNames, a.remoteIp, a.port)) {
      if (hopeless(e.order)) break; // sorted by order: so is every one after it
      push(connCandidate(e, a, undefined));
    }
    const names = a.kind === 'tls' ? (a.serverName !== undefined ? [a.serverName] : []) : (a.hostnames ?? []);
    const implied = names.flatMap((n) => index.impliedByHost.get(normaliseHost(n)) ?? []);
    for (const e of implied) {
      if (names.some((n) => normaliseHost(n) === e.host) && e.port !== a.port) {
        push({ rule: e.id, order: e.order, reasons: [{ code: 'port', message: `the source implies connections to ${e.host} on port ${e.port}, not ${a.port}` }] });
      }
    }
  } else {
    for (const e of index.ssh.related(normaliseHost(a.host))) if (!hopeless(e.order)) push(sshCandidate(e, a));
  }
  if (candidates.length === 0) return undefined;
  const text = (c: Candidate) => c.reasons.map((r) => r.message).join('; ');
  candidates.sort((x, y) => x.reasons.length - y.reasons.length || x.order - y.order || (text(x) < text(y) ? -1 : text(x) > text(y) ? 1 : 0));
  const best = candidates[0];
  return { rule: best.rule, reasons: best.reasons, message: best.reasons.map((r) => r.message).join('; ') };
}

/**
 * The near miss's rule widened so that it permits the access: one item added to one of its arrays.
 * @public
 */
export interface Widening {
  /** Where to add (JSON-Patch style; `-` appends): `/connections/0/tls/ports/-`. */
  pointer: string;
  value: unknown;
  /** The widening in words: which member of which rule gains what. */
  message: string;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const pointerSegment = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

/** Values that would close the one gap a near miss names, most specific first (each is proved before it is offered). */
function closingValues(code: MissCode, kind: string, body: Record<string, unknown>, a: Access, url: ParsedUrl | null | undefined): { member: string; values: unknown[] } | undefined {
  switch (code) {
    case 'port':
      if (kind !== 'tls' && kind !== 'tcp') return undefined;
      return { member: 'ports', values: [a.kind === 'http' ? url?.port : a.kind === 'tls' || a.kind === 'tcp' ? a.port : undefined] };
    case 'apex-vs-wildcard':
    case 'subdomain-vs-exact': {
      if (kind !== 'tls' && kind !== 'tcp') return undefined;
      const names = a.kind === 'http' ? [url?.host] : a.kind === 'tls' ? [a.serverName] : a.kind === 'tcp' ? (a.hostnames ?? []) : [];
      return { member: kind === 'tls' ? 'serverNamePatterns' : 'hostPatterns', values: names.filter((n): n is string => n !== undefined && isHostPattern(normaliseHost(n))).map(normaliseHost) };
    }
    case 'cidr':
      if ((kind !== 'tls' && kind !== 'tcp') || a.kind === 'ssh' || a.remoteIp === undefined || !addressOf(a.remoteIp)) return undefined;
      return { member: 'cidrs', values: [a.remoteIp] };
    case 'operation':
      if (kind !== 'oci' || a.kind !== 'http') return undefined;
      return { member: 'operations', values: [ociOperation(a.method)] };
    case 'repository': {
      if (a.kind === 'ssh') return { member: 'repositoryPatterns', values: [literalRepositoryPattern(a.repositoryPath)] };
      if (a.kind !== 'http' || !url) return undefined;
      if (kind === 'oci') return { member: 'repositoryPatterns', values: [literalRepositoryPattern(ociRepository(url.path))] };
      if (kind !== 'git' || !Array.isArray(body.https)) return undefined;
      const values: unknown[] = [];
      for (const t of body.https) {
        const base = isObject(t) && typeof t.baseUrl === 'string' ? parseUrl(t.baseUrl) : undefined;
        if (base) values.push(literalRepositoryPattern(gitRepository(base.path, url.path)));
      }
      return { member: 'repositoryPatterns', values };
    }
    default:
      return undefined;
  }
}

/**
 * The near miss's rule, widened (issue 8 item 5): when the access missed a source or connection
 * of the policy for exactly one reason that an added array item closes (a port, a host name, an
 * address, an oci operation, a repository), that addition. Proved like every fix: the widened
 * rule alone permits the access (adding to a rule only adds permissions).
 */
export function widening(policy: Policy, near: NearMiss, a: Access, url?: ParsedUrl | null): Widening | undefined {
  if (near.reasons.length !== 1) return undefined;
  const match = /^\/(sources|connections)\/(\d+)$/.exec(near.rule);
  if (!match) return undefined;
  const list = (policy as Record<string, unknown>)[match[1]];
  const item = Array.isArray(list) ? list[Number(match[2])] : undefined;
  if (!isObject(item)) return undefined;
  let kind: string | undefined;
  for (const key in item) { kind = key; break; }
  const body = kind === undefined ? undefined : item[kind];
  if (kind === undefined || !isObject(body)) return undefined;
  const parsed = url === undefined && a.kind === 'http' ? parseUrl(a.url) : url;
  const closing = closingValues(near.reasons[0].code, kind, body, a, parsed);
  if (!closing || !Array.isArray(body[closing.member])) return undefined;
  for (const value of closing.values) {
    if (value === undefined || (body[closing.member] as unknown[]).includes(value)) continue;
    const widened = { [kind]: { ...body, [closing.member]: [...(body[closing.member] as unknown[]), value] } };
    if (!anyPermits(itemRules(match[1], widened), a, a.kind === 'http' ? parsed : undefined)) continue;
    return {
      pointer: `/${match[1]}/${match[2]}/${pointerSegment(kind)}/${closing.member}/-`,
      value,
      message: `add ${JSON.stringify(value)} to the ${closing.member} of ${near.rule}`,
    };
  }
  return undefined;
}
