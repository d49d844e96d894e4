/**
 * The `Explainer`: explains observations one at a time, in trace order, and counts them. For each
 * it sets the recorded verdict beside the policy's, keeps the results asked for, works out the
 * near miss and fix of denials (or leaves them for `addDetails`), learns names from DNS answers
 * and notices answers that arrive too late for connections already decided (`lateDnsAnswers`).
 */
import type { Policy } from '../policy/types';
import { isKnownObservation, type AnyObservation, type DnsObservation, type Observation, type TcpObservation, type TraceHeader } from '../trace/types';
import { accessOf, describeAccess, type Access } from './access';
import { namesHost, withResolvedNames } from './host-names';
import { CompiledPolicy, compiledFor } from './evaluate';
import { DETAIL_SLOTS, detailSlot, sameAccess, type DenialDetails, type DetailSlot } from './explain-details';
import type { ExplainOptions, ExplainReport, ExplainResult, ExplainSummary, ModelVerdict, RecordedCounts } from './explain-types';
import { fixFor, type DenialFix } from './fix';
import { nearMiss, widening, type NearMiss } from './near-miss';
import { ResolvedNames } from './resolved-names';
import { normaliseHostFast, parseUrl, type ParsedUrl } from './url';

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
