/**
 * Explaining a trace against a policy (decisions.md D4): for every observation, the recorded
 * verdict (the fact) beside the model's (the explanation); for denials the nearest rule that
 * almost matched and the smallest fix. Data first: the CLI renders it as text, JSON or Markdown.
 */
import type { Policy } from '../policy/types';
import { readConnection, readSource } from '../policy/rules-read';
import { streamTrace, type TraceChunks } from '../trace/reader';
import { parseTrace } from '../trace/reader';
import { traceOf, type TraceDocument } from '../trace/document';
import { isKnownObservation, type AnyObservation, type DnsObservation, type Observation, type TcpObservation, type Trace, type TraceHeader } from '../trace/types';
import { accessOf, describeAccess, type Access } from './access';
import { namesHost, withResolvedNames } from './host-names';
import { CompiledPolicy, compiledFor } from './evaluate';
import { checkTraceArgument, isIterable } from './inputs';
import { describeValue, expectOptions, InputError } from '../validate/input-error';
import { checkPolicy } from '../validate/policy-check';
import { fixFor, type DenialFix } from './fix';
import { nearMiss, widening, type NearMiss } from './near-miss';
import { ResolvedNames } from './resolved-names';
import type { EvalOptions } from './rules';
import { normaliseHostFast, parseUrl, type ParsedUrl } from './url';

/**
 * A verdict as explain reports it: `none` for observations that have none (DNS, unknown protocols, nothing recorded).
 * @public
 */
export type ModelVerdict = 'allow' | 'deny' | 'none';

/**
 * One observation explained: the verdict the trace recorded beside the policy's (`model`), whether
 * they agree, and for a denial the nearest rule and the smallest fix.
 * @public
 */
export interface ExplainResult {
  /** Zero-based position in the trace. */
  index: number;
  sequence: number;
  protocol: string;
  destination: string;
  recorded: { verdict: ModelVerdict; reason: string | null; rule: string | null };
  model: { verdict: ModelVerdict; rule: string | null; certain: boolean };
  /** False when the recorded verdict and the model's differ (a missing recorded verdict never disagrees). */
  agrees: boolean;
  /**
   * For a model denial: the smallest policy addition that allows it, or (`kind: 'job'`) the change
   * the job should make when the policy already allows what it should have done.
   */
  fix: DenialFix | null;
  /** For a model denial: the rule that came nearest, and why it missed. */
  nearMiss: NearMiss | null;
  /** Allowed only because `default` is `allow` (no rule would permit it). */
  reliesOnDefault: boolean;
  access?: Access;
  observation: AnyObservation;
}

/**
 * Observations counted by the policy's verdict, with the disagreements and the uncertain denials.
 * @public
 */
export interface ExplainSummary {
  observations: number;
  allowed: number;
  denied: number;
  disagreements: number;
  /** Observations without a verdict (DNS, unknown protocols). */
  none: number;
  /** Denials that an enabled opaque preset might have permitted. */
  uncertain: number;
  /** Allowances that rely on `default: allow` alone. */
  reliesOnDefault: number;
}

/**
 * Observations counted by the verdict the trace recorded (the facts beside the model's counts).
 * @public
 */
export interface RecordedCounts {
  allowed: number;
  denied: number;
  /** DNS, unknown protocols, and accesses recorded without a verdict. */
  none: number;
}

/**
 * What explaining a whole trace gives (`Explainer.finish`, `explainTrace`): counts, results and the trace's header.
 * @public
 */
export interface ExplainReport {
  summary: ExplainSummary;
  /** The same observations counted by recorded verdict. */
  recorded: RecordedCounts;
  results: ExplainResult[];
  header: TraceHeader;
  /** Enabled presets whose contents are unknown. */
  opaquePresets: string[];
  /**
   * True when a DNS answer named an address only after a connection to that address had been
   * decided. D4 resolves names from every DNS observation of the trace, so such a trace must be
   * explained again with all its answers known from the start (`resolvedNames`): `explain` and
   * `explainTrace` do that themselves whenever they can read the trace twice.
   */
  lateDnsAnswers: boolean;
}

/**
 * How an `Explainer` works: the policy's evaluation options, which results to keep, and what to compute for them.
 * @public
 */
export interface ExplainOptions extends EvalOptions {
  /** Which results to keep: `all` (default) or `denied` (model or recorded denials, and disagreements). */
  only?: 'denied' | 'all';
  /** Called with each kept result, in order; with `keep: false` the report's `results` stays empty. */
  onResult?: (result: ExplainResult) => void;
  /** Keep the results in the report (default true); false for a stream of results through `onResult`. */
  keep?: boolean;
  /** Names DNS answers gave each address, known before the first observation (a second pass). */
  resolvedNames?: ReadonlyMap<string, readonly string[]>;
  /**
   * Leave `fix` and `nearMiss` of denials null; `Explainer.addDetails` fills them in for the
   * results a report shows. They are most of what a denial costs, and a report that groups
   * destinations shows a thousand of them however many the trace holds (`netpolicy explain`'s
   * text and Markdown; its JSON lists every result with them, and --apply needs every fix).
   */
  deferDetails?: boolean;
}

function recordedOf(observation: AnyObservation): ExplainResult['recorded'] {
  const o = isKnownObservation(observation) ? observation : undefined;
  if (o === undefined || o.protocol === 'dns') return { verdict: 'none', reason: null, rule: null };
  const allowed = o.protocol === 'http' ? (o.denied === undefined ? undefined : !o.denied) : o.allowed;
  return { verdict: allowed === undefined ? 'none' : allowed ? 'allow' : 'deny', reason: o.deniedReason ?? null, rule: o.matchedRule ?? null };
}

function destinationOf(o: AnyObservation, a: Access | undefined): string {
  if (a) return describeAccess(a);
  if (isKnownObservation(o) && o.protocol === 'dns') return `dns ${o.queryType ?? '?'} ${o.queryName ?? '?'}`;
  return o.protocol;
}

/**
 * Denied accesses whose near miss and fix are remembered: a table of 512 slots, each holding the
 * last access whose destination text fell in it. Small on purpose: every entry held is copied by
 * the young-generation collector and then promoted, so in a trace whose denials are all distinct
 * a cache of 4,096 cost more than it saved (300,000 distinct URLs: scavenges 0.6 s -> 0.27 s
 * with 256, together with the JSON text cache of the CLI). A job repeats a handful of denied
 * destinations, which it keeps. Not a map: the slot comes from a few characters of the
 * destination, so a denial that is new (most are) costs no hashing of its whole text, no map
 * insertion and no eviction (a map of 256 and its older generation were 6 % of explaining
 * 300,000 distinct denied URLs).
 */
const DETAIL_SLOTS = 512;

/** The slot of a destination's text: its length and four of its characters, mixed. */
function detailSlot(text: string): number {
  const n = text.length;
  let h = Math.imul(n ^ text.charCodeAt(n - 1), 0x9e3779b1);
  h = Math.imul(h ^ text.charCodeAt(n - 2), 0x85ebca6b);
  h = Math.imul(h ^ text.charCodeAt(n >> 1), 0xc2b2ae35);
  h = Math.imul(h ^ text.charCodeAt((n * 3) >> 2), 0x27d4eb2f);
  return (h ^ (h >>> 15)) & (DETAIL_SLOTS - 1);
}

const sameList = (a: readonly string[] | undefined, b: readonly string[] | undefined): boolean => {
  if (a === b) return true;
  if (a === undefined || b === undefined || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
};

/** The same access: every member its near miss and fix depend on. */
function sameAccess(a: Access, b: Access): boolean {
  switch (a.kind) {
    case 'http': return b.kind === 'http' && a.url === b.url && a.method === b.method && a.remoteIp === b.remoteIp;
    case 'tls': return b.kind === 'tls' && a.serverName === b.serverName && a.port === b.port && a.remoteIp === b.remoteIp && sameList(a.alpn, b.alpn) && sameList(a.hostnames, b.hostnames);
    case 'tcp': return b.kind === 'tcp' && a.port === b.port && a.remoteIp === b.remoteIp && sameList(a.hostnames, b.hostnames);
    case 'ssh': return b.kind === 'ssh' && a.host === b.host && a.port === b.port && a.user === b.user && a.repositoryPath === b.repositoryPath;
  }
}

interface DenialDetails { fix: DenialFix | null; nearMiss: NearMiss | null }
interface DetailSlot { access: Access; details: DenialDetails }
/** Addresses of connections remembered for `lateDnsAnswers`; beyond, any later answer counts as late. */
const CONNECTED_TRACKED = 1 << 20;
const NO_NAMES: readonly string[] = Object.freeze([]);


/**
 * Explains observations one at a time: feed them with `add`, then `finish`.
 * @public
 */
export class Explainer {
  readonly compiled: CompiledPolicy;
  private readonly summary: ExplainSummary = { observations: 0, allowed: 0, denied: 0, disagreements: 0, none: 0, uncertain: 0, reliesOnDefault: 0 };
  private readonly recorded: RecordedCounts = { allowed: 0, denied: 0, none: 0 };
  private readonly results: ExplainResult[] = [];
  private readonly resolved: ResolvedNames;
  /** Near miss and fix of recent denials (see DETAIL_SLOTS). */
  private readonly detailSlots: (DetailSlot | undefined)[] = new Array<DetailSlot | undefined>(DETAIL_SLOTS).fill(undefined);
  private readonly only: 'denied' | 'all';
  private readonly keep: boolean;
  private readonly deferDetails: boolean;
  /**
   * Addresses of the connections decided so far whose result a later DNS answer could change
   * (see `add`), each with the host names every one of those connections named itself: a later
   * answer naming one of them makes `lateDnsAnswers`, unless its names are all among those (the
   * connection's access would be the same: `withResolvedNames` adds a name once).
   */
  private readonly connected = new Map<string, readonly string[]>();
  private connectedOverflow = false;
  private lateDnsAnswers = false;
  /**
   * The URL of the HTTP request `add` is explaining, as parsed for it (`parseUrl`; null when it
   * does not parse; undefined for other observations). Read in `onResult`, it spares a second
   * parse (SBOM attribution, issue 32).
   * @internal
   */
  parsedUrl: ParsedUrl | null | undefined;

  /** A policy that does not meet the schema is an `InputError` with its first problem. */
  constructor(readonly policy: Policy, private readonly options: ExplainOptions = {}) {
    this.compiled = compiledFor(policy, options, 'Explainer');
    this.only = options.only ?? 'all';
    this.keep = options.keep ?? true;
    this.deferDetails = options.deferDetails ?? false;
    this.resolved = new ResolvedNames(options.resolvedNames);
  }

  /** Every name DNS answers gave each address so far (feed a second pass through `resolvedNames`). */
  get resolvedNames(): Map<string, string[]> {
    return this.resolved.toMap();
  }

  add(o: AnyObservation): ExplainResult | undefined {
    const s = this.summary;
    s.observations++;
    const protocol = o.protocol;
    const known = isKnownObservation(o) ? o : undefined;
    if (known?.protocol === 'dns') this.learn(known);
    const remoteIp = known?.protocol === 'http' || known?.protocol === 'tcp' ? known.remoteIp : undefined;
    const resolved = protocol === 'tcp' && remoteIp !== undefined ? this.resolved.namesOf(remoteIp) : undefined;
    // Evaluate through a reused scratch access; a result that is kept gets its own copy.
    const scratch = known && this.scratchFor(known, resolved);
    // Parsed once per observation and handed to evaluation, near miss and fix. Not cached by its
    // text: hashing a URL to look it up cost more than parsing it (profile of bench/explain.bench.mjs).
    const url = known?.protocol === 'http' ? parseUrl(known.url) ?? null : undefined;
    this.parsedUrl = url;
    const d = scratch ? this.compiled.evaluate(scratch, url) : undefined;
    const verdict: ModelVerdict = d ? d.verdict : 'none';
    const reliesOnDefault = verdict === 'allow' && d!.rule === 'default';
    if (d === undefined) s.none++;
    else if (verdict === 'allow') { s.allowed++; if (reliesOnDefault) s.reliesOnDefault++; }
    else { s.denied++; if (!d.certain) s.uncertain++; }
    // The recorded verdict: `denied` for http, `allowed` for tcp and ssh_git.
    const flag = known === undefined || known.protocol === 'dns' ? undefined : known.protocol === 'http' ? (known.denied === undefined ? undefined : !known.denied) : known.allowed;
    const recordedVerdict: ModelVerdict = flag === undefined ? 'none' : flag ? 'allow' : 'deny';
    if (flag === undefined) this.recorded.none++;
    else if (flag) this.recorded.allowed++;
    else this.recorded.denied++;
    const agrees = recordedVerdict === 'none' || recordedVerdict === verdict;
    if (!agrees) s.disagreements++;
    const kept = !(this.only === 'denied' && verdict !== 'deny' && recordedVerdict !== 'deny' && agrees);
    // More names can only permit more, so a later answer for this address changes nothing the
    // report holds unless the connection was reported (every denial is) or allowed by the default alone.
    if (protocol === 'tcp' && remoteIp !== undefined && (kept || reliesOnDefault)) this.noteConnected(remoteIp, (o as TcpObservation).hostnames);
    if (!kept) return undefined;
    const access = scratch ? accessOf(o, resolved) : undefined;
    const destination = destinationOf(o, access);
    let fix: DenialFix | null = null;
    let near: NearMiss | null = null;
    if (verdict === 'deny' && access && !this.deferDetails) ({ fix, nearMiss: near } = this.details(destination, access, url));
    const result: ExplainResult = {
      index: o.index, sequence: o.sequence, protocol, destination, recorded: recordedOf(o),
      model: d ? { verdict: d.verdict, rule: d.rule, certain: d.certain } : { verdict: 'none', rule: null, certain: true },
      agrees, fix, nearMiss: near, reliesOnDefault, access, observation: o,
    };
    if (this.keep) this.results.push(result);
    this.options.onResult?.(result);
    return result;
  }

  /**
   * Fills in the near miss and fix of a denial that `deferDetails` left out: what `add` would
   * have given it (they depend on the access alone). Nothing for other results.
   */
  addDetails(result: ExplainResult): void {
    const access = result.access;
    if (result.model.verdict !== 'deny' || !access) return;
    const url = access.kind === 'http' ? parseUrl(access.url) ?? null : undefined;
    const { fix, nearMiss: near } = this.details(result.destination, access, url);
    result.fix = fix;
    result.nearMiss = near;
  }

  private noteConnected(address: string, own: readonly string[] | undefined): void {
    const connected = this.connected;
    const named = connected.get(address);
    if (named === undefined) {
      if (connected.size < CONNECTED_TRACKED) connected.set(address, own ?? NO_NAMES);
      else this.connectedOverflow = true;
      return;
    }
    // Another connection to the address: only the names both named stay harmless.
    if (named.length > 0 && named !== own) connected.set(address, named.filter((n) => own !== undefined && namesHost(own, normaliseHostFast(n))));
  }

  finish(header: TraceHeader = {}): ExplainReport {
    return { summary: { ...this.summary }, recorded: { ...this.recorded }, results: this.results, header, opaquePresets: this.compiled.rules.opaqueNames.slice(), lateDnsAnswers: this.lateDnsAnswers };
  }

  private readonly scratchHttp = { kind: 'http' as const, method: 'GET', url: '', remoteIp: undefined as string | undefined };
  private readonly scratchTls = { kind: 'tls' as const, serverName: undefined as string | undefined, alpn: undefined as string[] | undefined, remoteIp: undefined as string | undefined, port: 0, hostnames: undefined as string[] | undefined };
  private readonly scratchTcp = { kind: 'tcp' as const, remoteIp: undefined as string | undefined, port: 0, hostnames: undefined as string[] | undefined };
  private readonly scratchSsh = { kind: 'ssh' as const, host: '', port: 0, user: undefined as string | undefined, repositoryPath: undefined as string | undefined };

  /** The access of an observation in a reused object (the same as accessOf, without allocating). */
  private scratchFor(o: Observation, resolved: string[] | undefined): Access | undefined {
    switch (o.protocol) {
      case 'http': {
        const a = this.scratchHttp;
        a.method = o.method ?? 'GET'; a.url = o.url; a.remoteIp = o.remoteIp;
        return a;
      }
      case 'tcp': {
        // Evaluation only reads the names: the resolved list itself stands in for a copy of it.
        const hostnames = resolved && resolved.length ? withResolvedNames(o.hostnames, resolved, false) : o.hostnames;
        if (o.serverName !== undefined || (o.alpn !== undefined && o.alpn.length > 0)) {
          const a = this.scratchTls;
          a.serverName = o.serverName; a.alpn = o.alpn; a.remoteIp = o.remoteIp; a.port = o.remotePort; a.hostnames = hostnames;
          return a;
        }
        const a = this.scratchTcp;
        a.remoteIp = o.remoteIp; a.port = o.remotePort; a.hostnames = hostnames;
        return a;
      }
      case 'ssh_git': {
        const a = this.scratchSsh;
        a.host = o.host; a.port = o.port; a.user = o.user; a.repositoryPath = o.repositoryPath;
        return a;
      }
      default:
        return undefined;
    }
  }

  private learn(d: DnsObservation): void {
    const gained = this.resolved.learn(d);
    if (this.lateDnsAnswers || gained.length === 0) return; // said once is enough
    if (this.connectedOverflow) { this.lateDnsAnswers = true; return; }
    const names = this.resolved.lastNames;
    for (const address of gained) {
      const named = this.connected.get(address);
      if (named === undefined) continue;
      // The connections to the address named these very names: their accesses stay as they were.
      for (const name of names) if (!namesHost(named, name)) { this.lateDnsAnswers = true; return; }
    }
  }

  /**
   * Near miss and fix per denied access (a job repeats the same denied access many times): what
   * they depend on is the access itself, names and address included. `access` is the result's
   * own (never the scratch access), so a slot may keep it.
   */
  private details(destination: string, access: Access, url: ParsedUrl | null | undefined): DenialDetails {
    const i = detailSlot(destination);
    const slot = this.detailSlots[i];
    if (slot !== undefined && sameAccess(slot.access, access)) return slot.details;
    const details = this.computeDetails(access, url);
    this.detailSlots[i] = { access, details };
    return details;
  }

  private computeDetails(access: Access, url: ParsedUrl | null | undefined): DenialDetails {
    const near = nearMiss(this.compiled.rules, access, { url }) ?? null;
    if (near) {
      const widen = widening(this.policy, near, access, url);
      if (widen) near.widen = widen;
    }
    return { fix: fixFor(this.policy, access, this.options, url), nearMiss: near };
  }
}

/**
 * Explains a trace, asynchronously (a Promise of the report; `explainTrace` is its synchronous
 * twin for a trace in memory): a parsed trace, a trace document as an object (the service's document, as
 * `@netpolicy/client`'s `getNetworkTrace()` returns it in `data`, or `JSON.parse` of a trace file:
 * read like its text, see `traceOf`), its whole text, or a stream of chunks (strings or UTF-8
 * bytes). Streams are read observation by observation; memory stays bounded when `keep` is false
 * or `only` is `denied`. Names come from every DNS observation of the trace (D4): when an answer
 * arrives after a connection to its address, a trace held in memory or as text is explained a
 * second time with every answer known; a one-time stream cannot be, and its report says so
 * (`lateDnsAnswers`). A policy that does not meet the schema, or a trace argument of another kind,
 * rejects with an `InputError`; a trace that cannot be read, with a `TraceError` (one too).
 * @public
 */
export async function explain(policy: Policy, trace: Trace | TraceDocument | string | TraceChunks, options: ExplainOptions = {}): Promise<ExplainReport> {
  checkPolicy(policy, 'explain');
  checkTraceArgument(trace, 'explain', true);
  expectOptions(options, 'explain');
  if (typeof trace === 'object' && !('observations' in trace) && !isIterable(trace)) {
    throw new InputError(`explain: trace must be a trace's text, a trace document, a Trace, or chunks of text; got ${describeValue(trace)} without \`observations\``, 'trace');
  }
  if (typeof trace === 'object' && trace !== null && 'observations' in trace && Array.isArray((trace as Trace).observations)) {
    return explainTrace(policy, trace as Trace | TraceDocument, options);
  }
  const pass = async (o: ExplainOptions) => {
    const explainer = new Explainer(policy, o);
    const header = await streamTrace(trace as TraceChunks | string, (obs) => { explainer.add(obs); });
    return { explainer, report: explainer.finish(header) };
  };
  const first = await pass(options);
  if (!first.report.lateDnsAnswers || typeof trace !== 'string') return first.report;
  return (await pass({ ...options, resolvedNames: first.explainer.resolvedNames })).report;
}

/**
 * Explains a trace held in memory, synchronously: a parsed trace, a trace document as an object,
 * or its text (every DNS answer is known from the start). `explain` is the asynchronous form that
 * also reads chunks. A policy that does not meet the schema, or a trace argument of another kind,
 * is an `InputError` (the policy's first problem: message, `code`, `pointer`); a document that is
 * not a valid trace is a `TraceError` (an `InputError` too).
 * @public
 */
export function explainTrace(policy: Policy, trace: Trace | TraceDocument | string, options: ExplainOptions = {}): ExplainReport {
  checkPolicy(policy, 'explainTrace');
  checkTraceArgument(trace, 'explainTrace', false);
  expectOptions(options, 'explainTrace');
  const t = typeof trace === 'string' ? parseTrace(trace) : traceOf(trace);
  const names = new ResolvedNames();
  for (const o of t.observations) if (isKnownObservation(o) && o.protocol === 'dns') names.learn(o);
  const explainer = new Explainer(policy, { ...options, resolvedNames: names.toMap() });
  for (const o of t.observations) explainer.add(o);
  // The header as the stream readers give it: everything but the observations.
  const { observations: _observations, ...header } = t;
  return explainer.finish(header);
}

/**
 * A rule named for people: its pointer (or `preset:<name>`) with its kind and first URL host,
 * host pattern or CIDR, e.g. `/sources/2 (oci registry.example.org)`, `/connections/0 (tls *.example.org)`.
 * @public
 */
export function describeRule(policy: Policy, id: string): string {
  const match = /^\/(sources|connections)\/(\d+)$/.exec(id);
  if (!match) return id === 'default' ? `the default (${policy.default === 'allow' ? 'allow' : 'deny'})` : id;
  const list = (policy as Record<string, unknown>)[match[1]];
  const item = Array.isArray(list) ? list[Number(match[2])] : undefined;
  let what: string | undefined;
  if (match[1] === 'sources') {
    const read = readSource(item);
    if (read) what = `${read.kind}${read.urls[0]?.url ? ` ${read.urls[0].url.host}` : read.ssh[0] ? ` ${read.ssh[0].host}` : ''}`;
  } else {
    const read = readConnection(item);
    if (read) what = `${read.kind}${read.names?.[0] !== undefined ? ` ${read.names[0]}` : read.rawCidrs?.[0] !== undefined ? ` ${read.rawCidrs[0]}` : ''}`;
  }
  return what ? `${id} (${what})` : id;
}

/**
 * One plain sentence comparing the recorded verdict with the model's (D4: both, when they differ).
 * @public
 */
export function verdictSentence(r: ExplainResult): string {
  const rec = r.recorded.verdict === 'none' ? 'recorded: no verdict' :
    `recorded: ${r.recorded.verdict === 'deny' ? 'denied' : 'allowed'}${r.recorded.reason ? ` (${r.recorded.reason})` : ''}${r.recorded.rule ? ` by ${r.recorded.rule}` : ''}`;
  const m = r.model;
  const mod = m.verdict === 'none' ? 'model: no verdict' :
    m.verdict === 'allow' ? `model: allowed by ${m.rule === 'default' ? 'the default (allow)' : m.rule}` :
    `model: denied by the default${m.certain ? '' : ' (uncertain: an enabled opaque preset might allow it)'}`;
  return `${rec}; ${mod}`;
}
