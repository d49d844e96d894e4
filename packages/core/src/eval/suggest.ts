/**
 * A least-privilege policy from one or more traces (union over runs): presets where a known preset
 * permits the access, ecosystem sources recognised from URL shapes and SSH commands, narrow
 * connections otherwise. The result is checked: the model allows every access it was built from.
 */
import { defaultPresetCatalog } from '../presets/catalog';
import { isHostPattern, normaliseHost, unmatchableHostProblem } from '../formats/host-pattern';
import type { Connection, OciOperation, Policy, Source } from '../policy/types';
import { isKnownObservation, type AnyObservation, type Observation } from '../trace/types';
import { accessOf, type Access } from './access';
import { ResolvedNames } from './resolved-names';
import { CompiledPolicy } from './evaluate';
import { presetsPermitting } from './fix';
import { connectionFor, ecosystemOf, literalRepositoryPattern, sourceForSsh } from './recognise';
import { gitRepository, ociOperation, ociRepository, type EvalOptions } from './rules';
import { originUrl, parseUrl } from './url';
import { httpsForm } from './https-form';
import { checkAccess, checkArray, isIterable } from './inputs';
import { describeValue, expectOptions, InputError } from '../validate/input-error';

export { httpsForm } from './https-form';

/**
 * Options of `Suggester`: by default, accesses the trace records as denied are left out.
 * @public
 */
export interface SuggestOptions extends EvalOptions {
  /** Also allow accesses the traces record as denied (default false). */
  includeDenied?: boolean;
}

/**
 * An access the suggested policy does not allow as recorded, and why.
 * @public
 */
export interface LeftOut {
  access: Access;
  /**
   * `denied`: recorded as denied in every run; `insecure-http`: a plain-http request to a software
   * source, allowed in its https form only; `unmatchable-host`: its host name breaks DNS's length or
   * label rules, so no rule naming it could match a real host (`check` flags such a rule).
   */
  reason: 'denied' | 'insecure-http' | 'unmatchable-host';
  /** Observations of this access. */
  count: number;
}


/**
 * Whether the host name an access would be allowed by (a URL's host, a TLS server name, an SSH
 * host) is one no rule can match: over 253 characters, a label over 63, an empty label, a label
 * starting or ending with `-` (D3). A rule naming it would be flagged `unmatchable-host-pattern`.
 */
function unmatchableName(a: Access): boolean {
  const name = a.kind === 'http' ? parseUrl(a.url)?.host : a.kind === 'tls' ? a.serverName : a.kind === 'ssh' ? a.host : undefined;
  if (name === undefined) return false;
  const host = normaliseHost(name);
  return isHostPattern(host) && unmatchableHostProblem(host) !== undefined;
}

/** The verdict a trace recorded for an observation: `denied` for http, `allowed` for tcp and ssh_git. */
function recordedDenied(o: Observation): boolean {
  switch (o.protocol) {
    case 'http': return o.denied === true;
    case 'tcp': case 'ssh_git': return o.allowed === false;
    default: return false;
  }
}

/**
 * Collects the accesses of traces; `finish` writes the policy.
 * @public
 */
export class Suggester {
  private readonly accesses = new Map<string, Access>();
  private readonly denied = new Map<string, LeftOut>();
  private readonly insecure = new Map<string, LeftOut>();
  private readonly unmatchable = new Map<string, LeftOut>();
  private resolved = new ResolvedNames();

  constructor(private readonly options: SuggestOptions = {}) {}

  /** Starts a new trace (DNS answers of one trace do not name addresses in another). */
  beginTrace(resolvedNames?: ReadonlyMap<string, readonly string[]>): void {
    this.resolved = new ResolvedNames(resolvedNames);
  }

  add(observation: AnyObservation): void {
    // Narrowed to the union of the known protocols; an unknown protocol has no access to allow.
    if (!isKnownObservation(observation)) return;
    const o = observation;
    if (o.protocol === 'dns') {
      this.resolved.learn(o);
      return;
    }
    const a = accessOf(o, o.protocol === 'tcp' && o.remoteIp !== undefined ? this.resolved.namesOf(o.remoteIp) : undefined);
    if (!a) return;
    const key = JSON.stringify(a);
    if (!this.options.includeDenied && recordedDenied(o)) {
      const left = this.denied.get(key) ?? { access: a, reason: 'denied' as const, count: 0 };
      left.count++;
      this.denied.set(key, left);
      return;
    }
    if (unmatchableName(a)) {
      const left = this.unmatchable.get(key) ?? { access: a, reason: 'unmatchable-host' as const, count: 0 };
      left.count++;
      this.unmatchable.set(key, left);
      return;
    }
    // A plain-http request to a software source that no preset allows as made: its https form.
    const secure = httpsForm(a);
    if (secure && presetsPermitting(a, this.options).length === 0) {
      const left = this.insecure.get(key) ?? { access: a, reason: 'insecure-http' as const, count: 0 };
      left.count++;
      this.insecure.set(key, left);
      const secureKey = JSON.stringify(secure);
      if (!this.accesses.has(secureKey)) this.accesses.set(secureKey, secure);
      return;
    }
    if (!this.accesses.has(key)) this.accesses.set(key, a);
  }

  finish(): Policy {
    return suggestFromAccesses([...this.accesses.values()], this.options);
  }

  /**
   * What the policy of `finish` does not allow as recorded: accesses denied in every run (unless
   * `includeDenied`), plain-http requests to software sources (allowed in their https form), and
   * accesses to a host name no rule can match.
   */
  leftOut(): LeftOut[] {
    const denied = [...this.denied].filter(([key]) => !this.accesses.has(key) && !this.insecure.has(key) && !this.unmatchable.has(key)).map(([, l]) => l);
    return [...denied, ...this.insecure.values(), ...this.unmatchable.values()];
  }
}

function sortedUnique<T>(items: Iterable<T>): T[] {
  return [...new Set(items)].sort() as T[];
}

/** Stage 1: the accesses a known preset permits name that preset; the rest go on. */
function presetsFor(accesses: Access[], options: EvalOptions): { presets: Set<string>; rest: Access[] } {
  const catalog = options.catalog ?? defaultPresetCatalog;
  const presetPolicies = catalog.presets.filter((p) => !p.opaque && p.known).map((p) => ({ name: p.name, compiled: new CompiledPolicy({ presets: [p.name as never] }, options) }));
  const presets = new Set<string>();
  const rest: Access[] = [];
  for (const a of accesses) {
    const hit = presetPolicies.find((p) => p.compiled.firstPermitting(a));
    if (hit) presets.add(hit.name);
    else rest.push(a);
  }
  return { presets, rest };
}

/** What stage 2 recognised, grouped the way sources are written. */
interface Recognised {
  /** origin -> repository ('' = the `/v2/` ping, '*any*' = no literal pattern) -> operations */
  oci: Map<string, Map<string, Set<OciOperation>>>;
  /** origin -> repository patterns ('' or '*any*' = any) */
  gitHttps: Map<string, Set<string>>;
  /** `kind origin` -> a URL-list source */
  simple: Map<string, Source>;
  ssh: Map<string, { host: string; port: number; user?: string; repos: Set<string> }>;
  /** Accesses no ecosystem shape names. */
  unrecognised: Access[];
}

/** Stage 2: ecosystem sources from HTTP URL shapes and SSH commands. */
function recogniseSources(accesses: Access[]): Recognised {
  const r: Recognised = { oci: new Map(), gitHttps: new Map(), simple: new Map(), ssh: new Map(), unrecognised: [] };
  for (const a of accesses) {
    if (a.kind === 'ssh') {
      const s = sourceForSsh(a);
      if (!s) { r.unrecognised.push(a); continue; }
      const t = (s as { git: { ssh: { host: string; port: number; user?: string }[] } }).git.ssh[0];
      const key = `${t.host}:${t.port}:${t.user ?? ''}`;
      const entry = r.ssh.get(key) ?? { host: t.host, port: t.port, user: t.user, repos: new Set<string>() };
      if (t.user === undefined) delete entry.user;
      entry.repos.add(literalRepositoryPattern(a.repositoryPath) ?? '');
      r.ssh.set(key, entry);
      continue;
    }
    if (a.kind !== 'http') { r.unrecognised.push(a); continue; }
    const url = parseUrl(a.url);
    const kind = url && ecosystemOf(url);
    if (!url || !kind) { r.unrecognised.push(a); continue; }
    const origin = originUrl(url);
    if (kind === 'oci') {
      const op = ociOperation(a.method);
      if (!op) { r.unrecognised.push(a); continue; }
      const name = ociRepository(url.path)!;
      const repos = r.oci.get(origin) ?? new Map();
      const repo = name === '' ? '' : literalRepositoryPattern(name) ?? '*any*';
      const ops = repos.get(repo) ?? new Set();
      ops.add(op);
      repos.set(repo, ops);
      r.oci.set(origin, repos);
    } else if (kind === 'git') {
      const repos = r.gitHttps.get(origin) ?? new Set();
      repos.add(literalRepositoryPattern(gitRepository('/', url.path)) ?? '*any*');
      r.gitHttps.set(origin, repos);
    } else {
      r.simple.set(`${kind} ${origin}`, { [kind]: { urls: [origin] } } as Source);
    }
  }
  return r;
}

/** The oci sources of one origin: one per distinct operation set, listing the repositories that used exactly it. */
function ociSources(origin: string, repos: Map<string, Set<OciOperation>>): Source[] {
  const out: Source[] = [];
  // `/v2/` pings need the operation only; they are covered by any source of the origin with it.
  const ping = repos.get('');
  repos.delete('');
  const anyRepo = repos.get('*any*');
  repos.delete('*any*');
  const byOps = new Map<string, { ops: OciOperation[]; repos: string[] }>();
  for (const [repo, ops] of repos) {
    const list = sortedUnique(ops);
    const key = list.join(',');
    const g = byOps.get(key) ?? { ops: list, repos: [] };
    g.repos.push(repo);
    byOps.set(key, g);
  }
  for (const g of byOps.values()) out.push({ oci: { urls: [origin], repositoryPatterns: sortedUnique(g.repos), operations: g.ops } });
  if (anyRepo) out.push({ oci: { urls: [origin], operations: sortedUnique(anyRepo) } });
  if (ping) {
    const covered = [...ping].every((op) => [...byOps.values()].some((g) => g.ops.includes(op)) || anyRepo?.has(op));
    if (!covered) out.push({ oci: { urls: [origin], operations: sortedUnique(ping) } });
  }
  return out;
}

/** Stage 3: the recognised accesses as sources, in a stable order. */
function sourcesOf(r: Recognised): Source[] {
  const sources: Source[] = [];
  for (const [, source] of [...r.simple].sort((x, y) => x[0].localeCompare(y[0]))) sources.push(source);
  for (const [origin, repos] of r.oci) sources.push(...ociSources(origin, repos));
  for (const [origin, repos] of r.gitHttps) {
    const any = repos.has('*any*') || repos.has('');
    sources.push({ git: { ...(any ? {} : { repositoryPatterns: sortedUnique(repos) }), https: [{ baseUrl: origin }] } });
  }
  for (const t of r.ssh.values()) {
    const any = t.repos.has('');
    sources.push({ git: { ...(any ? {} : { repositoryPatterns: sortedUnique(t.repos) }), ssh: [{ host: t.host, port: t.port, ...(t.user !== undefined ? { user: t.user } : {}) }] } });
  }
  return sources;
}

/** Stage 4: narrow connections for the accesses left, merged by target (ports united). */
function connectionsFor(accesses: Access[]): Connection[] {
  const conns = new Map<string, { kind: 'tls' | 'tcp'; field: 'serverNamePatterns' | 'hostPatterns' | 'cidrs'; target: string; ports: Set<number> }>();
  for (const a of accesses) {
    const c = connectionFor(a);
    if (!c) continue;
    const kind = 'tls' in c ? 'tls' : 'tcp';
    const body = (c as unknown as Record<string, Record<string, unknown>>)[kind];
    const field = (body.serverNamePatterns ? 'serverNamePatterns' : body.hostPatterns ? 'hostPatterns' : 'cidrs') as 'serverNamePatterns' | 'hostPatterns' | 'cidrs';
    const target = (body[field] as string[])[0];
    const key = `${kind} ${field} ${target}`;
    const entry = conns.get(key) ?? { kind, field, target, ports: new Set<number>() };
    for (const p of body.ports as number[]) entry.ports.add(p);
    conns.set(key, entry);
  }
  return [...conns.values()]
    .sort((x, y) => x.kind.localeCompare(y.kind) || x.target.localeCompare(y.target))
    .map((e) => ({ [e.kind]: { [e.field]: [e.target], ports: [...e.ports].sort((a, b) => a - b) } }) as unknown as Connection);
}

/**
 * A least-privilege policy that allows every access: presets (stage 1), then ecosystem sources
 * (stages 2 and 3), then narrow connections for what is left (stage 4; the sources' implied
 * connections already cover their hosts), then a safety net that gives anything still denied
 * its own narrowest rule.
 * @public
 */
export function suggestFromAccesses(accesses: Access[], options: EvalOptions = {}): Policy {
  checkArray(accesses, 'suggestFromAccesses', 'accesses', 'accesses');
  accesses.forEach((a, i) => checkAccess(a, 'suggestFromAccesses', `accesses[${i}]`));
  const catalog = options.catalog ?? defaultPresetCatalog;
  const { presets, rest } = presetsFor(accesses, options);
  const recognised = recogniseSources(rest);
  const sources = sourcesOf(recognised);
  const catalogIndex = (name: string) => catalog.presets.findIndex((p) => p.name === name);
  const presetList = [...presets].sort((a, b) => catalogIndex(a) - catalogIndex(b)) as never;
  const policyOf = (connections: Connection[]): Policy => ({ default: 'deny', presets: presetList, sources, connections });
  const interim = new CompiledPolicy(policyOf([]), options);
  const left = [...recognised.unrecognised, ...rest.filter((a) => a.kind === 'http' || a.kind === 'ssh')].filter((a) => !interim.firstPermitting(a));
  const connections = connectionsFor(left);
  const policy = policyOf(connections);
  const check = new CompiledPolicy(policy, options);
  for (const a of accesses) {
    if (check.firstPermitting(a)) continue;
    const c = connectionFor(a);
    if (c) connections.push(c);
    else if (a.kind === 'ssh') { const s = sourceForSsh(a); if (s) sources.push(s); }
  }
  const result: Policy = { default: 'deny', presets: policy.presets };
  if (sources.length) result.sources = sources;
  if (connections.length) result.connections = connections;
  return result;
}

/**
 * Suggests a policy from parsed observations (of one or more traces, each a separate array).
 * @public
 */
export function suggestPolicy(traces: Iterable<AnyObservation>[], options: SuggestOptions = {}): Policy {
  checkArray(traces, 'suggestPolicy', 'traces', 'lists of observations (one per trace: parseTrace(text).observations)');
  expectOptions(options, 'suggestPolicy');
  traces.forEach((t, i) => {
    if (!isIterable(t)) throw new InputError(`suggestPolicy: traces[${i}] must be a list of observations (parseTrace(text).observations), got ${describeValue(t)}`, 'traces');
  });
  const s = new Suggester(options);
  for (const trace of traces) {
    s.beginTrace();
    for (const o of trace) s.add(o);
  }
  return s.finish();
}
