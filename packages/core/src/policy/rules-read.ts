/**
 * The one reader of rule shapes (decisions.md D4): what a source or connection item of a policy says,
 * read once for the evaluator (eval/rules.ts) and for lint (lint/rule-atoms.ts), and which presets a
 * policy enables. Any JSON value is accepted without throwing.
 *
 * The reading is lenient, as the evaluator is: members of the wrong type are skipped, so a rule
 * means what its well-typed parts say. `exact` is true only when the item has exactly the schema's
 * shape (one known kind, known members, every value in its format): lint claims coverage between
 * exact rules only, so a finding never rests on a member the schema would reject.
 */
import { isHostPattern } from '../formats/host-pattern';
import { isIpv4OrPrefix, parseCidr, type ParsedCidr } from '../formats/ip';
import { isRepositoryPattern } from '../formats/repository-pattern';
import { isPolicyUrl, parseUrl, type ParsedUrl } from '../eval/url';
import type { PresetCatalog, PresetEntry } from '../presets/catalog';
import { HTTP_SOURCE_KINDS } from './types';

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const isEnumerableOwn = Object.prototype.propertyIsEnumerable;

/** The first own key (as `Object.keys(x)[0]`), and whether it is the only one; no key array built. */
function kindKey(obj: JsonObject): { kind: string | undefined; sole: boolean } {
  let kind: string | undefined;
  for (const key in obj) {
    if (!isEnumerableOwn.call(obj, key)) continue;
    if (kind !== undefined) return { kind, sole: false };
    kind = key;
  }
  return { kind, sole: kind !== undefined };
}

/** Every own key of `obj` is one of `allowed`. */
function onlyKeys(obj: JsonObject, allowed: readonly string[]): boolean {
  for (const key in obj) if (isEnumerableOwn.call(obj, key) && !allowed.includes(key)) return false;
  return true;
}

/** The kinds whose `urls` permit every request they cover (D4 "HTTP-kind source"). */
export const URL_LIST_KINDS: ReadonlySet<string> = new Set<string>([...HTTP_SOURCE_KINDS, 'apt']);

/** A URL member of a source: where it is (`urls/2`, `indexUrl`, `https/0/baseUrl`) and how it parses. */
export interface UrlRead {
  text: string;
  /** Undefined when the evaluator cannot parse it (then it permits nothing). */
  url: ParsedUrl | undefined;
  member: string;
  /** Array index under `member`, -1 for a plain member. */
  item: number;
  leaf?: string;
}

/** An `ssh` transport of a git source (host lower-cased). */
export interface SshRead { item: number; host: string; port: number; user?: string }

export type UrlRole = 'http' | 'oci' | 'git';

export interface SourceRead {
  kind: string;
  /** What its URLs permit: any request they cover (`http`), registry API calls (`oci`), git smart HTTP (`git`). */
  role: UrlRole | undefined;
  urls: UrlRead[];
  /** oci `operations` (string items). */
  operations?: ReadonlySet<string>;
  /** oci/git `repositoryPatterns` (string items); undefined when absent = any repository. */
  repositoryPatterns?: readonly string[];
  ssh: SshRead[];
  /** apt `purlNamespace` when a non-empty string. */
  purlNamespace?: string;
  /** Exactly the schema's shape (see the module comment). */
  exact: boolean;
}

export interface ConnectionRead {
  kind: string;
  /** Lower-cased `serverNamePatterns` (tls) or `hostPatterns` (tcp) string items, when the member is an array. */
  names?: readonly string[];
  /** The parsed `cidrs` items (those that parse), when the member is an array. */
  cidrs?: readonly ParsedCidr[];
  /** The `cidrs` string items as written. */
  rawCidrs?: readonly string[];
  /** `ports` as written, when an array. */
  ports?: readonly unknown[];
  /** tls `alpn` as written, when an array. */
  alpn?: readonly unknown[];
  exact: boolean;
}

/** By field format (any IP, IPv4 only), then text. */
const cidrMemo = { any: new Map<string, ParsedCidr | null>(), v4: new Map<string, ParsedCidr | null>() };

/**
 * A CIDR in the format of its field (`ipv4-or-prefix` when `ipv4Only`, else `ip-or-prefix`), parsed;
 * undefined when the text is not in that format. Memoised (bounded): the reader and lint's walker both
 * ask. The result is shared: never mutate it.
 */
export function cidrOf(text: string, ipv4Only = false): ParsedCidr | undefined {
  const memo = ipv4Only ? cidrMemo.v4 : cidrMemo.any;
  let cidr = memo.get(text);
  if (cidr === undefined) {
    cidr = (ipv4Only ? isIpv4OrPrefix(text) : true) ? parseCidr(text) ?? null : null;
    if (memo.size >= 25000) memo.clear();
    memo.set(text, cidr);
  }
  return cidr ?? undefined;
}

const strings = (v: unknown): string[] | undefined => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : undefined);
const allStrings = (v: unknown, ok: (s: string) => boolean, nonEmpty: boolean): boolean =>
  Array.isArray(v) && (!nonEmpty || v.length > 0) && v.every((x) => typeof x === 'string' && ok(x));
const isPort = (p: unknown): boolean => typeof p === 'number' && Number.isInteger(p) && p >= 1 && p <= 65535;
const OCI_OPERATIONS = new Set(['pull', 'push', 'delete']);

function urlRead(text: unknown, member: string, item = -1, leaf?: string): UrlRead | undefined {
  if (typeof text !== 'string') return undefined;
  return { text, url: parseUrl(text), member, item, leaf };
}

/** A URL of an exact rule: in the policy URL format and parsed. */
const exactUrl = (u: UrlRead | undefined): boolean => u !== undefined && u.url !== undefined && isPolicyUrl(u.text);

/** Reads a `sources` item; undefined when it is not an object whose first member is an object. */
export function readSource(item: unknown): SourceRead | undefined {
  if (!isObject(item)) return undefined;
  const { kind, sole } = kindKey(item);
  if (kind === undefined) return undefined;
  const body = item[kind];
  if (!isObject(body)) return undefined;
  const urls: UrlRead[] = [];
  const ssh: SshRead[] = [];
  const read: SourceRead = { kind, role: undefined, urls, ssh, exact: false };
  const patterns = body.repositoryPatterns;
  const patternsOk = patterns === undefined || allStrings(patterns, isRepositoryPattern, false);
  if (URL_LIST_KINDS.has(kind)) {
    read.role = 'http';
    const list = Array.isArray(body.urls) ? body.urls : [];
    for (let j = 0; j < list.length; j++) { const u = urlRead(list[j], 'urls', j); if (u) urls.push(u); }
    const purl = body.purlNamespace;
    if (kind === 'apt' && typeof purl === 'string' && purl !== '') read.purlNamespace = purl;
    read.exact = onlyKeys(body, kind === 'apt' ? ['urls', 'purlNamespace'] : ['urls'])
      && list.length > 0 && urls.length === list.length && urls.every(exactUrl)
      && (purl === undefined || typeof purl === 'string');
  } else if (kind === 'cargo') {
    read.role = 'http';
    const a = urlRead(body.indexUrl, 'indexUrl'), b = urlRead(body.downloadUrl, 'downloadUrl');
    if (a) urls.push(a);
    if (b) urls.push(b);
    read.exact = onlyKeys(body, ['indexUrl', 'downloadUrl']) && exactUrl(a) && exactUrl(b);
  } else if (kind === 'oci') {
    read.role = 'oci';
    const list = Array.isArray(body.urls) ? body.urls : [];
    for (let j = 0; j < list.length; j++) { const u = urlRead(list[j], 'urls', j); if (u) urls.push(u); }
    read.operations = new Set(strings(body.operations) ?? []);
    read.repositoryPatterns = strings(patterns);
    read.exact = onlyKeys(body, ['urls', 'repositoryPatterns', 'operations'])
      && list.length > 0 && urls.length === list.length && urls.every(exactUrl)
      && patternsOk && allStrings(body.operations, (o) => OCI_OPERATIONS.has(o), true);
  } else if (kind === 'git') {
    read.role = 'git';
    read.repositoryPatterns = strings(patterns);
    let exact = onlyKeys(body, ['repositoryPatterns', 'https', 'ssh']) && patternsOk && (body.https !== undefined || body.ssh !== undefined);
    if (body.https !== undefined) {
      const list = Array.isArray(body.https) ? body.https : [];
      exact &&= list.length > 0;
      for (let j = 0; j < list.length; j++) {
        const t = list[j];
        const u = isObject(t) ? urlRead(t.baseUrl, 'https', j, 'baseUrl') : undefined;
        if (u) urls.push(u);
        exact &&= isObject(t) && onlyKeys(t, ['baseUrl']) && exactUrl(u);
      }
    }
    if (body.ssh !== undefined) {
      const list = Array.isArray(body.ssh) ? body.ssh : [];
      exact &&= list.length > 0;
      for (let j = 0; j < list.length; j++) {
        const t = list[j];
        if (!isObject(t) || typeof t.host !== 'string' || typeof t.port !== 'number') { exact = false; continue; }
        ssh.push({ item: j, host: t.host.toLowerCase(), port: t.port, user: typeof t.user === 'string' ? t.user : undefined });
        exact &&= onlyKeys(t, ['host', 'port', 'user', 'upstreamKnownHosts']) && isHostPattern(t.host) && isPort(t.port)
          && (t.user === undefined || typeof t.user === 'string')
          && (t.upstreamKnownHosts === undefined || allStrings(t.upstreamKnownHosts, () => true, false));
      }
    }
    read.exact = exact;
  }
  read.exact &&= sole;
  return read;
}

/** Reads a `connections` item; undefined when it is not an object whose first member is an object. */
export function readConnection(item: unknown): ConnectionRead | undefined {
  if (!isObject(item)) return undefined;
  const { kind, sole } = kindKey(item);
  if (kind === undefined) return undefined;
  const body = item[kind];
  if (!isObject(body)) return undefined;
  const read: ConnectionRead = { kind, exact: false };
  const rawCidrs = strings(body.cidrs);
  if (rawCidrs) {
    read.rawCidrs = rawCidrs;
    const cidrs: ParsedCidr[] = [];
    for (const c of rawCidrs) { const p = cidrOf(c); if (p) cidrs.push(p); }
    read.cidrs = cidrs;
  }
  if (Array.isArray(body.ports)) read.ports = body.ports;
  const cidrsExact = (ipv4Only: boolean) => body.cidrs === undefined
    || allStrings(body.cidrs, (c) => cidrOf(c, ipv4Only) !== undefined, true);
  const portsExact = body.ports === undefined || (Array.isArray(body.ports) && body.ports.every(isPort));
  if (kind === 'tls' || kind === 'tcp') {
    const member = kind === 'tls' ? 'serverNamePatterns' : 'hostPatterns';
    const names = strings(body[member]);
    if (names) read.names = names.map((n) => n.toLowerCase());
    if (kind === 'tls' && Array.isArray(body.alpn)) read.alpn = body.alpn;
    read.exact = onlyKeys(body, kind === 'tls' ? [member, 'cidrs', 'ports', 'alpn'] : [member, 'cidrs', 'ports'])
      && (body[member] === undefined || allStrings(body[member], isHostPattern, true))
      && cidrsExact(false) && portsExact
      && (body[member] !== undefined || body.cidrs !== undefined)
      && (kind !== 'tls' || (Array.isArray(body.ports) && body.ports.length > 0))
      && (body.alpn === undefined || allStrings(body.alpn, (s) => s.length > 0, false));
  } else if (kind === 'udp' || kind === 'icmp') {
    read.exact = onlyKeys(body, kind === 'udp' ? ['cidrs', 'ports'] : ['cidrs']) && body.cidrs !== undefined && cidrsExact(true) && portsExact;
  }
  read.exact &&= sole;
  return read;
}

/** An enabled preset: its catalog entry, or none when the name is not in the catalog (then opaque). */
export interface EnabledPreset {
  name: string;
  /** Known contents; undefined when the preset is opaque or unknown to the catalog. */
  known?: PresetEntry['known'];
  /** Index in the policy's `presets` array; -1 when `presets` is omitted (every preset enabled). */
  index: number;
}

/**
 * The presets a policy enables (D4: all when `presets` is absent, none when it is not an array),
 * in catalog order, then names the catalog lacks (opaque) in document order.
 */
export function enabledPresets(policy: unknown, catalog: PresetCatalog): EnabledPreset[] {
  const presets = isObject(policy) ? policy.presets : undefined;
  if (presets === undefined) return catalog.presets.map((p) => ({ name: p.name, known: p.opaque ? undefined : p.known, index: -1 }));
  if (!Array.isArray(presets)) return [];
  const at = new Map<string, number>();
  presets.forEach((name, i) => { if (typeof name === 'string' && !at.has(name)) at.set(name, i); });
  const result: EnabledPreset[] = [];
  for (const p of catalog.presets) {
    const index = at.get(p.name);
    if (index !== undefined) result.push({ name: p.name, known: p.opaque ? undefined : p.known, index });
  }
  for (const [name, index] of at) if (!catalog.byName.has(name)) result.push({ name, known: undefined, index });
  return result;
}
