/**
 * The rules of a policy as the evaluation model sees them (decisions.md D4), in reporting order:
 * sources (document order), connections (document order), enabled presets (catalog order).
 * Each entry is one way a rule can permit an access; the predicates here are shared by the
 * indexed evaluator (which verifies its index candidates with them) and the naive one.
 */
import { matchHostPattern, normaliseHost } from '../formats/host-pattern';
import { parseAddress, samePrefix, type ParsedCidr } from '../formats/ip';
import { compileRepositoryPattern, matchCompiledRepositoryPattern, type CompiledRepositoryPattern } from '../formats/repository-pattern';
import { defaultPresetCatalog, type PresetCatalog } from '../presets/catalog';
import type { Connection, Policy, Source } from '../policy/types';
import { enabledPresets as readEnabledPresets, readConnection, readSource, type EnabledPreset } from '../policy/rules-read';
import type { ParsedUrl } from './url';

/**
 * A rule as decisions name it, with its place in reporting order (the permitting rule with the lowest order decides).
 * @public
 */
export interface RuleRef {
  /** Position in reporting order: lower wins. */
  order: number;
  /** `/sources/N`, `/connections/N` or `preset:<name>`. */
  id: string;
}

/** A URL of a source: covers requests by prefix, plus the kind's own condition. */
export interface UrlEntry extends RuleRef {
  url: ParsedUrl;
  kind: 'http' | 'oci' | 'git';
  operations?: ReadonlySet<string>;
  repositoryPatterns?: readonly string[];
  /** The same patterns compiled (present exactly when `repositoryPatterns` is). */
  repositoryMatchers?: readonly CompiledRepositoryPattern[];
}

/** A `tls` or `tcp` connection rule. */
export interface ConnEntry extends RuleRef {
  kind: 'tls' | 'tcp';
  /** Lower-cased `serverNamePatterns` (tls) or `hostPatterns` (tcp), when stated. */
  names?: readonly string[];
  cidrs?: readonly ParsedCidr[];
  /** The cidrs as written (for messages). */
  rawCidrs?: readonly string[];
  ports?: ReadonlySet<number>;
  alpn?: readonly string[];
}

/** The connection a source implies to the host and port of one of its URLs. */
export interface ImpliedEntry extends RuleRef { host: string; port: number }

/** An `ssh` transport of a git source. */
export interface SshEntry extends RuleRef {
  host: string;
  port: number;
  user?: string;
  repositoryPatterns?: readonly string[];
  repositoryMatchers?: readonly CompiledRepositoryPattern[];
}

/**
 * The rules of a policy and its enabled presets as the evaluation model reads them, one entry per
 * way a rule can permit an access (`policyRules`); both evaluators and the explainer work on these.
 * @public
 */
export interface PolicyRules {
  urls: UrlEntry[];
  conns: ConnEntry[];
  implied: ImpliedEntry[];
  ssh: SshEntry[];
  defaultAllow: boolean;
  /** An enabled preset has unknown contents: denials are uncertain. */
  opaque: boolean;
  /** Names of the enabled opaque presets. */
  opaqueNames: string[];
  /** All rule ids in order (for reports). */
  refs: RuleRef[];
}

/**
 * Options of every evaluation: the preset catalog in force.
 * @public
 */
export interface EvalOptions {
  /** Where enabled preset names are looked up (the built-in catalog by default). */
  catalog?: PresetCatalog;
}

function addSource(out: PolicyRules, source: unknown, ref: RuleRef): void {
  const read = readSource(source);
  if (!read || read.role === undefined) return;
  const kind = read.role;
  const patterns = read.repositoryPatterns;
  const matchers = patterns === undefined ? undefined : patterns.map(compileRepositoryPattern);
  for (const u of read.urls) {
    if (!u.url) continue;
    // Entries are written out member by member: `{ ...ref, more }` costs V8 microseconds per
    // object (measured: 6 µs with six members after the spread, 0.04 µs without).
    out.urls.push(kind === 'http' ? { order: ref.order, id: ref.id, url: u.url, kind }
      : kind === 'oci' ? { order: ref.order, id: ref.id, url: u.url, kind, operations: read.operations, repositoryPatterns: patterns, repositoryMatchers: matchers }
      : { order: ref.order, id: ref.id, url: u.url, kind, repositoryPatterns: patterns, repositoryMatchers: matchers });
    out.implied.push({ order: ref.order, id: ref.id, host: u.url.host, port: u.url.port });
  }
  for (const t of read.ssh) out.ssh.push({ order: ref.order, id: ref.id, host: t.host, port: t.port, user: t.user, repositoryPatterns: patterns, repositoryMatchers: matchers });
}

function addConnection(out: PolicyRules, connection: unknown, ref: RuleRef): void {
  const read = readConnection(connection);
  if (!read || (read.kind !== 'tls' && read.kind !== 'tcp')) return; // udp and icmp have no observation kind
  const ports = read.ports && read.ports.length > 0 ? new Set(read.ports as number[]) : undefined;
  const alpn = read.alpn && read.alpn.length > 0 ? (read.alpn as string[]) : undefined;
  out.conns.push({ order: ref.order, id: ref.id, kind: read.kind, names: read.names, cidrs: read.cidrs, rawCidrs: read.rawCidrs, ports, alpn });
}

function addFragment(out: PolicyRules, fragment: { sources?: Source[]; connections?: Connection[] }, ref: RuleRef): void {
  for (const s of fragment.sources ?? []) addSource(out, s, ref);
  for (const c of fragment.connections ?? []) addConnection(out, c, ref);
}

/** The presets a policy enables (all when `presets` is absent), in catalog order: the one reading, shared with lint. */
export function enabledPresets(policy: Policy, catalog: PresetCatalog): EnabledPreset[] {
  return readEnabledPresets(policy, catalog);
}

/**
 * Flattens a policy (and its enabled presets) into entries in reporting order.
 * @internal
 */
export function policyRules(policy: Policy, options: EvalOptions = {}): PolicyRules {
  const catalog = options.catalog ?? defaultPresetCatalog;
  const out: PolicyRules = { urls: [], conns: [], implied: [], ssh: [], defaultAllow: policy.default === 'allow', opaque: false, opaqueNames: [], refs: [] };
  let order = 0;
  (policy.sources ?? []).forEach((s, i) => {
    const ref = { order: order++, id: `/sources/${i}` };
    out.refs.push(ref);
    addSource(out, s, ref);
  });
  (policy.connections ?? []).forEach((c, i) => {
    const ref = { order: order++, id: `/connections/${i}` };
    out.refs.push(ref);
    addConnection(out, c, ref);
  });
  for (const preset of enabledPresets(policy, catalog)) {
    const ref = { order: order++, id: `preset:${preset.name}` };
    out.refs.push(ref);
    if (preset.known) addFragment(out, preset.known, ref);
    else { out.opaque = true; out.opaqueNames.push(preset.name); }
  }
  return out;
}

/**
 * The entries of one `sources` or `connections` item alone (a fix, before it is added to a policy).
 * @internal
 */
export function itemRules(member: string, item: unknown): PolicyRules {
  const out: PolicyRules = { urls: [], conns: [], implied: [], ssh: [], defaultAllow: false, opaque: false, opaqueNames: [], refs: [] };
  const ref = { order: 0, id: `/${member}/0` };
  out.refs.push(ref);
  if (member === 'sources') addSource(out, item, ref);
  else if (member === 'connections') addConnection(out, item, ref);
  return out;
}

// ---- Predicates (D4) ----------------------------------------------------------------------

type Address = { version: 4 | 6; bytes: number[] };

/**
 * Parses a recorded address (formats/ip-address.ts `parseAddress`: by hand, every form). Not memoised:
 * parsing an address costs less than hashing its text to look it up, and in a trace whose
 * addresses are all distinct a memo only added work and promoted entries. Callers share nothing:
 * each call returns a new object.
 */
export function addressOf(text: string | undefined): Address | undefined {
  return text === undefined ? undefined : parseAddress(text);
}

export function cidrsContain(cidrs: readonly ParsedCidr[], address: Address | undefined): boolean {
  if (!address) return false;
  for (const c of cidrs) if (c.version === address.version && samePrefix(c.bytes, address.bytes, c.prefix)) return true;
  return false;
}

export function anyNameMatches(patterns: readonly string[], names: readonly (string | undefined)[]): boolean {
  for (const n of names) {
    if (n === undefined) continue;
    for (const p of patterns) if (matchHostPattern(p, n)) return true;
  }
  return false;
}

export type OciOperation = 'pull' | 'push' | 'delete';

/** The registry operation an HTTP method performs (GET, HEAD pull; POST, PUT, PATCH push; DELETE delete), or undefined for other methods. */
export function ociOperation(method: string): OciOperation | undefined {
  switch (method.toUpperCase()) {
    case 'GET': case 'HEAD': return 'pull';
    case 'POST': case 'PUT': case 'PATCH': return 'push';
    case 'DELETE': return 'delete';
    default: return undefined;
  }
}

/** Is `path[start, end)` one of the registry API endpoints (manifests, blobs, tags, referrers)? Compared in place: no slice to allocate and hash per segment. */
function isOciEndpoint(path: string, start: number, end: number): boolean {
  switch (end - start) {
    case 9: return path.startsWith('manifests', start) || path.startsWith('referrers', start);
    case 5: return path.startsWith('blobs', start);
    case 4: return path.startsWith('tags', start);
    default: return false;
  }
}

/**
 * The repository `<name>` of a registry API path `/v2/<name>/(manifests|blobs|tags|referrers)/...`,
 * '' for `/v2/` itself, undefined for any other path.
 */
export function ociRepository(path: string): string | undefined {
  if (path === '/v2/' || path === '/v2') return '';
  if (!path.startsWith('/v2/')) return undefined;
  // Segments after `/v2/`: the first endpoint keyword after one or more non-empty name segments,
  // followed by at least one more segment.
  let start = 4;
  let k = 0;
  while (true) {
    const end = path.indexOf('/', start);
    if (end < 0) return undefined; // the last segment cannot be the keyword
    if (k >= 1 && isOciEndpoint(path, start, end)) return path.slice(4, start - 1);
    if (end === start) return undefined;
    k++;
    start = end + 1;
  }
}

/** The repository path of a git smart-HTTP request below a base path (D4). */
export function gitRepository(basePath: string, path: string): string {
  const base = basePath.endsWith('/') ? basePath.slice(0, -1) : basePath;
  const rest = path.slice(base.length);
  let end = rest.length;
  for (const marker of ['/info/refs', '/git-upload-pack', '/git-receive-pack']) {
    const at = rest.indexOf(marker);
    if (at >= 0 && at < end) end = at;
  }
  let from = 0;
  while (true) {
    const at = rest.indexOf('.git', from);
    if (at < 0 || at >= end) break;
    if (at + 4 === rest.length || rest.charCodeAt(at + 4) === 47) { end = at; break; }
    from = at + 1;
  }
  return rest.slice(0, end);
}

/**
 * Does a repository path match one of the patterns (absent = any)? Compiled patterns, matched in
 * place: no memo by path (in a trace whose every repository is new, a memo by path missed every
 * time, and its entries were promoted by the collector).
 */
export function patternsAllow(matchers: readonly CompiledRepositoryPattern[] | undefined, path: string | undefined): boolean {
  if (matchers === undefined) return true;
  if (path === undefined) return false;
  for (let i = 0; i < matchers.length; i++) if (matchCompiledRepositoryPattern(matchers[i], path)) return true;
  return false;
}

/** The kind-specific condition of a URL entry that already covers the request URL. */
export function urlEntryPermits(e: UrlEntry, method: string, url: ParsedUrl): boolean {
  if (e.kind === 'http') return true;
  if (e.kind === 'oci') {
    const name = ociRepository(url.path);
    if (name === undefined) return false;
    const op = ociOperation(method);
    if (op === undefined || !e.operations!.has(op)) return false;
    return name === '' || patternsAllow(e.repositoryMatchers, name);
  }
  return patternsAllow(e.repositoryMatchers, gitRepository(e.url.path, url.path));
}

/**
 * Does a connection rule permit an HTTP request (a request sent over the connection it permits)?
 * `namesChecked`: the caller found the rule by matching its name patterns against the URL host.
 */
export function connPermitsRequest(e: ConnEntry, url: ParsedUrl, remoteIp: string | undefined, namesChecked = false): boolean {
  if (e.kind === 'tls') {
    if (url.scheme !== 'https' || e.alpn !== undefined) return false;
  } else if (url.scheme !== 'https' && url.scheme !== 'http') return false;
  if (e.names && !namesChecked && !anyNameMatches(e.names, [url.host])) return false;
  if (e.cidrs && !cidrsContain(e.cidrs, addressOf(remoteIp))) return false;
  if (e.ports && !e.ports.has(url.port)) return false;
  return true;
}

/**
 * Does a connection rule permit a TCP connection (`tls`: the connection carries TLS)?
 * `namesChecked`: the caller found the rule by matching its name patterns (tls: against the
 * server name; tcp: against the host names).
 */
export function connPermitsConnection(e: ConnEntry, a: { serverName?: string; alpn?: readonly string[]; remoteIp?: string; port: number; hostnames?: readonly string[] }, tls: boolean, namesChecked = false): boolean {
  if (e.kind === 'tls') {
    if (!tls) return false;
    if (e.names && !namesChecked && (a.serverName === undefined || !anyNameMatches(e.names, [a.serverName]))) return false;
    if (e.alpn && !(a.alpn ?? []).some((x) => e.alpn!.includes(x))) return false;
  } else if (e.names && !namesChecked && !anyNameMatches(e.names, a.hostnames ?? [])) return false;
  if (e.cidrs && !cidrsContain(e.cidrs, addressOf(a.remoteIp))) return false;
  if (e.ports && !e.ports.has(a.port)) return false;
  return true;
}

export function sshPermits(e: SshEntry, a: { host: string; port: number; user?: string; repositoryPath?: string }): boolean {
  return matchHostPattern(e.host, a.host) && e.port === a.port && (e.user === undefined || e.user === a.user) && patternsAllow(e.repositoryMatchers, a.repositoryPath);
}

export { normaliseHost };
