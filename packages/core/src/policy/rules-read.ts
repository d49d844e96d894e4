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
import { isIpv4OrPrefix, parsedCidr, type ParsedCidr } from '../formats/ip';
import { isRepositoryPattern } from '../formats/repository-pattern';
import { isPolicyUrl, parseUrl, type ParsedUrl } from '../eval/url';
import type { PresetCatalog, PresetEntry } from '../presets/catalog';
import { HTTP_SOURCE_KINDS } from './types';

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const isEnumerableOwn = Object.prototype.propertyIsEnumerable;

/** Set by `kindKey`: whether the key it returned is the only one. */
let kindIsSole = false;

/** The first own key (as `Object.keys(x)[0]`), setting `kindIsSole`; no key array or result object built. */
function kindKey(obj: JsonObject): string | undefined {
  let kind: string | undefined;
  for (const key in obj) {
    if (!isEnumerableOwn.call(obj, key)) continue;
    if (kind !== undefined) { kindIsSole = false; return kind; }
    kind = key;
  }
  kindIsSole = kind !== undefined;
  return kind;
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

/**
 * A `connections` item as the evaluator and lint read it (`readConnection`).
 * @internal
 */
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

/**
 * A CIDR in the format of its field (`ipv4-or-prefix` when `ipv4Only`, else `ip-or-prefix`), parsed;
 * undefined when the text is not in that format. Memoised (formats/ip.ts `parsedCidr`): the schema's
 * format check, the reader and lint's walker all ask. The result is shared: never mutate it.
 */
export function cidrOf(text: string, ipv4Only = false): ParsedCidr | undefined {
  return ipv4Only && !isIpv4OrPrefix(text) ? undefined : parsedCidr(text);
}

/** The string items of an array (the array itself when every item is one: callers never mutate it). */
function strings(v: unknown): readonly string[] | undefined {
  if (!Array.isArray(v)) return undefined;
  for (let i = 0; i < v.length; i++) if (typeof v[i] !== 'string') return v.filter((x): x is string => typeof x === 'string');
  return v as string[];
}
const allStrings = (v: unknown, ok: (s: string) => boolean, nonEmpty: boolean): boolean => {
  if (!Array.isArray(v) || (nonEmpty && v.length === 0)) return false;
  for (let i = 0; i < v.length; i++) if (typeof v[i] !== 'string' || !ok(v[i])) return false;
  return true;
};
const anyString = (): boolean => true;
const nonEmptyString = (s: string): boolean => s.length > 0;
const isOciOperation = (o: string): boolean => OCI_OPERATIONS.has(o);
/** Every item of a `cidrs` member (present) is a CIDR of its field's format. */
function cidrsAllValid(cidrs: unknown, ipv4Only: boolean): boolean {
  if (!Array.isArray(cidrs) || cidrs.length === 0) return false;
  for (let i = 0; i < cidrs.length; i++) if (typeof cidrs[i] !== 'string' || cidrOf(cidrs[i], ipv4Only) === undefined) return false;
  return true;
}
/** Text already in lower case (most names): `toLowerCase` then need not run. */
function isLower(text: string): boolean {
  for (let i = 0; i < text.length; i++) { const c = text.charCodeAt(i); if (c >= 65 && c <= 90) return false; }
  return true;
}

// The members each body may hold (for `onlyKeys`), built once.
const KEYS_URLS = ['urls'];
const KEYS_APT = ['urls', 'purlNamespace'];
const KEYS_CARGO = ['indexUrl', 'downloadUrl'];
const KEYS_OCI = ['urls', 'repositoryPatterns', 'operations'];
const KEYS_GIT = ['repositoryPatterns', 'https', 'ssh'];
const KEYS_GIT_HTTPS = ['baseUrl'];
const KEYS_GIT_SSH = ['host', 'port', 'user', 'upstreamKnownHosts'];
const KEYS_TLS = ['serverNamePatterns', 'cidrs', 'ports', 'alpn'];
const KEYS_TCP = ['hostPatterns', 'cidrs', 'ports'];
const KEYS_UDP = ['cidrs', 'ports'];
const KEYS_ICMP = ['cidrs'];
const isPort = (p: unknown): boolean => typeof p === 'number' && Number.isInteger(p) && p >= 1 && p <= 65535;
const OCI_OPERATIONS = new Set(['pull', 'push', 'delete']);

function urlRead(text: unknown, member: string, item = -1, leaf?: string): UrlRead | undefined {
  if (typeof text !== 'string') return undefined;
  return { text, url: parseUrl(text), member, item, leaf };
}

/** A URL of an exact rule: in the policy URL format and parsed. */
const exactUrl = (u: UrlRead | undefined): boolean => u !== undefined && u.url !== undefined && isPolicyUrl(u.text);

/** Reads the `urls` items into `urls`; true when every item is an exact URL (and there is one). */
function readUrlList(list: unknown[], read: SourceRead): boolean {
  let exact = list.length > 0;
  // Sized up front, trimmed after (`[]` + push reserves 17 slots on the first push).
  const urls: UrlRead[] = list.length === 0 ? [] : new Array(list.length);
  let k = 0;
  for (let j = 0; j < list.length; j++) {
    const u = urlRead(list[j], 'urls', j);
    if (u) urls[k++] = u;
    if (exact && !exactUrl(u)) exact = false;
  }
  urls.length = k;
  read.urls = urls;
  return exact;
}

/**
 * The URL members of a source body, as `readSource` reads them into `urls` (same members, same order:
 * `urls` items, cargo's `indexUrl` and `downloadUrl`, git's `https[].baseUrl`), without reading the
 * rest or building anything: lint rules that look at URL texts only (insecure-url, unmatchable hosts)
 * use it rather than keeping a full reading of every source. Held to `readSource` by a property test.
 */
export function forEachSourceUrl(kind: string, body: JsonObject, visit: (text: string, member: string, item: number, leaf: string | undefined) => void): void {
  if (URL_LIST_KINDS.has(kind) || kind === 'oci') {
    const urls = body.urls;
    if (Array.isArray(urls)) for (let j = 0; j < urls.length; j++) if (typeof urls[j] === 'string') visit(urls[j], 'urls', j, undefined);
  } else if (kind === 'cargo') {
    if (typeof body.indexUrl === 'string') visit(body.indexUrl, 'indexUrl', -1, undefined);
    if (typeof body.downloadUrl === 'string') visit(body.downloadUrl, 'downloadUrl', -1, undefined);
  } else if (kind === 'git') {
    const https = body.https;
    if (!Array.isArray(https)) return;
    for (let j = 0; j < https.length; j++) {
      const t = https[j];
      if (isObject(t) && typeof t.baseUrl === 'string') visit(t.baseUrl, 'https', j, 'baseUrl');
    }
  }
}

const NO_URLS: UrlRead[] = [];
const NO_SSH: SshRead[] = [];

/** Reads a `sources` item; undefined when it is not an object whose first member is an object. */
export function readSource(item: unknown): SourceRead | undefined {
  if (!isObject(item)) return undefined;
  const kind = kindKey(item);
  const sole = kindIsSole;
  if (kind === undefined) return undefined;
  const body = item[kind];
  if (!isObject(body)) return undefined;
  // Every member in the literal, so that none is added later (no property store, one shape).
  const read: SourceRead = {
    kind, role: undefined, urls: NO_URLS, operations: undefined, repositoryPatterns: undefined, ssh: NO_SSH, purlNamespace: undefined, exact: false,
  };
  const patterns = body.repositoryPatterns;
  const patternsOk = patterns === undefined || allStrings(patterns, isRepositoryPattern, false);
  if (URL_LIST_KINDS.has(kind)) {
    read.role = 'http';
    const urlsExact = readUrlList(Array.isArray(body.urls) ? body.urls : [], read);
    const purl = body.purlNamespace;
    if (kind === 'apt' && typeof purl === 'string' && purl !== '') read.purlNamespace = purl;
    read.exact = urlsExact && onlyKeys(body, kind === 'apt' ? KEYS_APT : KEYS_URLS)
      && (purl === undefined || typeof purl === 'string');
  } else if (kind === 'cargo') {
    read.role = 'http';
    const a = urlRead(body.indexUrl, 'indexUrl'), b = urlRead(body.downloadUrl, 'downloadUrl');
    read.urls = a && b ? [a, b] : a ? [a] : b ? [b] : [];
    read.exact = onlyKeys(body, KEYS_CARGO) && exactUrl(a) && exactUrl(b);
  } else if (kind === 'oci') {
    read.role = 'oci';
    const urlsExact = readUrlList(Array.isArray(body.urls) ? body.urls : [], read);
    read.operations = new Set(strings(body.operations));
    read.repositoryPatterns = strings(patterns);
    read.exact = urlsExact && onlyKeys(body, KEYS_OCI)
      && patternsOk && allStrings(body.operations, isOciOperation, true);
  } else if (kind === 'git') {
    read.role = 'git';
    read.repositoryPatterns = strings(patterns);
    let exact = onlyKeys(body, KEYS_GIT) && patternsOk && (body.https !== undefined || body.ssh !== undefined);
    if (body.https !== undefined) {
      const list = Array.isArray(body.https) ? body.https : [];
      exact &&= list.length > 0;
      const urls: UrlRead[] = list.length === 0 ? [] : new Array(list.length);
      let k = 0;
      read.urls = urls;
      for (let j = 0; j < list.length; j++) {
        const t = list[j];
        const u = isObject(t) ? urlRead(t.baseUrl, 'https', j, 'baseUrl') : undefined;
        if (u) urls[k++] = u;
        exact &&= isObject(t) && onlyKeys(t, KEYS_GIT_HTTPS) && exactUrl(u);
      }
      urls.length = k;
    }
    if (body.ssh !== undefined) {
      const list = Array.isArray(body.ssh) ? body.ssh : [];
      exact &&= list.length > 0;
      const ssh: SshRead[] = list.length === 0 ? [] : new Array(list.length);
      let k = 0;
      read.ssh = ssh;
      for (let j = 0; j < list.length; j++) {
        const t = list[j];
        if (!isObject(t) || typeof t.host !== 'string' || typeof t.port !== 'number') { exact = false; continue; }
        ssh[k++] = { item: j, host: t.host.toLowerCase(), port: t.port, user: typeof t.user === 'string' ? t.user : undefined };
        exact &&= onlyKeys(t, KEYS_GIT_SSH) && isHostPattern(t.host) && isPort(t.port)
          && (t.user === undefined || typeof t.user === 'string')
          && (t.upstreamKnownHosts === undefined || allStrings(t.upstreamKnownHosts, anyString, false));
      }
      ssh.length = k;
    }
    read.exact = exact;
  }
  read.exact &&= sole;
  return read;
}

/**
 * Reads a `connections` item; undefined when it is not an object whose first member is an object.
 * @internal
 */
export function readConnection(item: unknown): ConnectionRead | undefined {
  if (!isObject(item)) return undefined;
  const kind = kindKey(item);
  const sole = kindIsSole;
  if (kind === undefined) return undefined;
  const body = item[kind];
  if (!isObject(body)) return undefined;
  // Every member in the literal, so that none is added later (no property store, one shape).
  const read: ConnectionRead = { kind, names: undefined, cidrs: undefined, rawCidrs: undefined, ports: undefined, alpn: undefined, exact: false };
  const rawCidrs = strings(body.cidrs);
  if (rawCidrs) {
    read.rawCidrs = rawCidrs;
    const cidrs: ParsedCidr[] = rawCidrs.length === 0 ? [] : new Array(rawCidrs.length);
    let k = 0;
    for (let i = 0; i < rawCidrs.length; i++) { const p = cidrOf(rawCidrs[i]); if (p) cidrs[k++] = p; }
    cidrs.length = k;
    read.cidrs = cidrs;
  }
  const ports = body.ports;
  if (Array.isArray(ports)) read.ports = ports;
  let portsExact = ports === undefined;
  if (Array.isArray(ports)) {
    portsExact = true;
    for (let i = 0; i < ports.length; i++) if (!isPort(ports[i])) { portsExact = false; break; }
  }
  if (kind === 'tls' || kind === 'tcp') {
    const member = kind === 'tls' ? 'serverNamePatterns' : 'hostPatterns';
    const given = body[member];
    const names = strings(given);
    if (names) {
      let lower = true;
      for (let i = 0; i < names.length && lower; i++) lower = isLower(names[i]);
      read.names = lower ? names : names.map((n) => n.toLowerCase());
    }
    if (kind === 'tls' && Array.isArray(body.alpn)) read.alpn = body.alpn;
    read.exact = onlyKeys(body, kind === 'tls' ? KEYS_TLS : KEYS_TCP)
      && (given === undefined || allStrings(given, isHostPattern, true))
      && (body.cidrs === undefined || cidrsAllValid(body.cidrs, false)) && portsExact
      && (given !== undefined || body.cidrs !== undefined)
      && (kind !== 'tls' || (Array.isArray(ports) && ports.length > 0))
      && (body.alpn === undefined || allStrings(body.alpn, nonEmptyString, false));
  } else if (kind === 'udp' || kind === 'icmp') {
    read.exact = onlyKeys(body, kind === 'udp' ? KEYS_UDP : KEYS_ICMP) && body.cidrs !== undefined && cidrsAllValid(body.cidrs, true) && portsExact;
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
