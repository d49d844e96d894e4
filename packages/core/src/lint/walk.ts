/**
 * The shared walker of lint rules: the well-shaped parts of a policy, with their JSON Pointers.
 * The value may be any JSON value; malformed parts are skipped silently (the schema reports them).
 * One view per lint context is cached, so ten rules walk the document once.
 */
import { CONNECTION_KINDS, SOURCE_KINDS } from '../policy/types';
import type { ConnectionKind, SourceKind } from '../policy/types';
import { cidrOf, readConnection, readSource } from '../policy/rules-read';
import type { ConnectionRead, SourceRead } from '../policy/rules-read';
import type { ParsedCidr } from '../formats/ip';

export type JsonObject = Record<string, unknown>;

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const isEnumerableOwn = Object.prototype.propertyIsEnumerable;

/**
 * The only key of an object (as `Object.keys` would list it), undefined when it has none or several.
 * for-in does not allocate the key array: this runs for every rule and rule body.
 */
export function soleKey(obj: JsonObject): string | undefined {
  let found: string | undefined;
  for (const key in obj) {
    if (!isEnumerableOwn.call(obj, key)) continue;
    if (found !== undefined) return undefined;
    found = key;
  }
  return found;
}

/** Every own key of `obj` is one of `allowed`. */
export function onlyKeys(obj: JsonObject, allowed: readonly string[]): boolean {
  for (const key in obj) if (isEnumerableOwn.call(obj, key) && !allowed.includes(key)) return false;
  return true;
}

/** RFC 6901 escaping of one reference token. */
export function escapeToken(token: string | number): string {
  if (typeof token === 'number') return String(token);
  if (!token.includes('~') && !token.includes('/')) return token;
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

export function pointerOf(...tokens: Array<string | number>): string {
  // A loop, not map/join: pointers are built for every rule, URL and CIDR of the policy.
  let out = '';
  for (let i = 0; i < tokens.length; i++) out += `/${escapeToken(tokens[i])}`;
  return out;
}

/** The string items of an array member (with their indexes); [] when the member is not an array. */
export function stringItems(value: unknown): Array<{ index: number; value: string }> {
  if (!Array.isArray(value)) return [];
  const out: Array<{ index: number; value: string }> = [];
  for (let i = 0; i < value.length; i++) if (typeof value[i] === 'string') out.push({ index: i, value: value[i] });
  return out;
}

export interface SourceEntry {
  index: number;
  /** `/sources/3` (built on each read: a policy of a million rules keeps no pointer text per rule). */
  readonly pointer: string;
  kind: SourceKind;
  /** The object under the kind member (`{ urls: [...] }`). */
  body: JsonObject;
  /** The whole source object. */
  raw: JsonObject;
}

export interface ConnectionEntry {
  index: number;
  readonly pointer: string;
  kind: ConnectionKind;
  body: JsonObject;
  raw: JsonObject;
}

/** An entry of `sources` or `connections`: one object of five fields per rule, its pointer made on demand. */
class Entry<K> {
  constructor(
    readonly source: boolean,
    readonly index: number,
    readonly kind: K,
    readonly body: JsonObject,
    readonly raw: JsonObject,
  ) {}

  get pointer(): string {
    return `${this.source ? '/sources/' : '/connections/'}${this.index}`;
  }
}

export interface PolicyView {
  root?: JsonObject;
  /** Every item of `sources` / `connections` (any shape), for rules that compare whole entries. */
  sourceItems: unknown[];
  connectionItems: unknown[];
  /** Entries with exactly one recognised kind member whose value is an object. */
  sources: SourceEntry[];
  connections: ConnectionEntry[];
  /** Derived lists, computed on first use (several rules share them). */
  memo: { cidrs?: CidrRef[] };
}

const sourceKinds = /* @__PURE__ */ new Set<string>(SOURCE_KINDS);
const connectionKinds = /* @__PURE__ */ new Set<string>(CONNECTION_KINDS);

/**
 * The kind of an item of `sources` (`source`) or `connections` with exactly one recognised kind
 * member whose value is an object (a walker entry); undefined otherwise.
 */
export function kindOf(item: unknown, source: boolean): string | undefined {
  if (!isObject(item)) return undefined;
  const kinds = source ? sourceKinds : connectionKinds;
  const kind = soleKey(item);
  return kind !== undefined && kinds.has(kind) && isObject(item[kind]) ? kind : undefined;
}

/**
 * Views are cached per lint context, not per document value: `lint()` passes one context to every
 * rule, so the document is walked once, and a document mutated between two runs is walked again.
 * The view is kept on the context itself (a symbol-keyed member), not in a WeakMap: a WeakMap entry
 * keeps a short-lived context's view, and every rule under it, alive through young-generation
 * collections, so a policy linted a batch at a time (validate/chunked.ts) promoted each batch to
 * the old generation (hundreds of megabytes of garbage for a million rules).
 */
const VIEW = Symbol('policy view');

export function viewOf(context: { value: unknown }): PolicyView {
  const holder = context as { value: unknown; [VIEW]?: PolicyView };
  return (holder[VIEW] ??= walk(context.value));
}

function walk(value: unknown): PolicyView {
  if (!isObject(value)) return { sourceItems: [], connectionItems: [], sources: [], connections: [], memo: {} };
  const sourceItems = Array.isArray(value.sources) ? value.sources : [];
  const connectionItems = Array.isArray(value.connections) ? value.connections : [];
  const sources: SourceEntry[] = [];
  for (let i = 0; i < sourceItems.length; i++) {
    const raw = sourceItems[i] as JsonObject;
    const kind = kindOf(raw, true);
    if (kind !== undefined) sources.push(new Entry<SourceKind>(true, i, kind as SourceKind, raw[kind] as JsonObject, raw));
  }
  const connections: ConnectionEntry[] = [];
  for (let i = 0; i < connectionItems.length; i++) {
    const raw = connectionItems[i] as JsonObject;
    const kind = kindOf(raw, false);
    if (kind !== undefined) connections.push(new Entry<ConnectionKind>(false, i, kind as ConnectionKind, raw[kind] as JsonObject, raw));
  }
  return { root: value, sourceItems, connectionItems, sources, connections, memo: {} };
}

/**
 * A value inside a source or connection: `<entry>/<kind>/<member>[/<item>][/<leaf>]`. Plain objects
 * (one literal per value, no class chain to construct), and the pointer text is built by `refPointer`
 * only for the few values that get a finding (building 10,000s of them up front cost GC time).
 */
export interface MemberRef {
  entry: { pointer: string; kind: string };
  member: string;
  /** Array index under `member`, -1 for a plain member. */
  item: number;
  leaf: string | undefined;
}

export function refPointer(ref: MemberRef): string {
  return memberPointer(ref.entry, ref.member, ref.item, ref.leaf);
}

/** `<entry>/<kind>/<member>[/<item>][/<leaf>]`. */
export function memberPointer(entry: { pointer: string; kind: string }, member: string, item: number, leaf: string | undefined): string {
  // Kinds and member names are fixed words: no RFC 6901 escaping needed.
  let pointer = `${entry.pointer}/${entry.kind}/${member}`;
  if (item >= 0) pointer += `/${item}`;
  if (leaf !== undefined) pointer += `/${leaf}`;
  return pointer;
}

/**
 * The shared reading of an entry (policy/rules-read.ts). Not kept: a policy of a million rules would
 * hold a reading of each for the whole lint run. Read an entry once per pass and let it go.
 */
export function readOf(entry: SourceEntry): SourceRead;
export function readOf(entry: ConnectionEntry): ConnectionRead;
export function readOf(entry: SourceEntry | ConnectionEntry): SourceRead | ConnectionRead {
  // The walker only lists objects whose sole member is an object: the reader always answers.
  return ((entry as { source?: boolean }).source ?? entry.pointer.startsWith('/sources/')) ? readSource(entry.raw)! : readConnection(entry.raw)!;
}

export interface CidrRef extends MemberRef {
  text: string;
  cidr: ParsedCidr;
}

/** Every well-formed CIDR of every connection (tls, tcp: ip-or-prefix; udp, icmp: ipv4-or-prefix). */
export function connectionCidrs(view: PolicyView): CidrRef[] {
  if (view.memo.cidrs) return view.memo.cidrs;
  const out: CidrRef[] = (view.memo.cidrs = []);
  for (const connection of view.connections) {
    const ipv4Only = connection.kind === 'udp' || connection.kind === 'icmp';
    const cidrs = connection.body.cidrs;
    if (!Array.isArray(cidrs)) continue;
    for (let j = 0; j < cidrs.length; j++) {
      const cidr = typeof cidrs[j] === 'string' ? cidrOf(cidrs[j], ipv4Only) : undefined;
      if (cidr) out.push({ entry: connection, member: 'cidrs', item: j, leaf: undefined, text: cidrs[j], cidr });
    }
  }
  return out;
}

/** Quote a user value in a message, shortened when long. */
export function quote(text: string, max = 80): string {
  return `\`${text.length > max ? `${text.slice(0, max)}…` : text}\``;
}

/**
 * Where the host of a URL ends when it is plain: lower-case letters, digits, dots and hyphens
 * right after `http://` or `https://` (`start` 7 or 8), ending the text or followed by `/`, `?` or
 * `#`, at most 253 characters, not ending in a dot. Such a host (no user, no port, nothing to
 * lower-case) is exactly the text `parseUrl` returns as the host, so callers read it in place;
 * -1 for any other text (callers then ask parseUrl).
 */
export function plainUrlHostEnd(text: string): number {
  const start = text.startsWith('https://') ? 8 : text.startsWith('http://') ? 7 : -1;
  if (start < 0) return -1;
  // The run of host characters, found natively (no backtracking: one class, one star).
  HOST_RUN.lastIndex = start;
  HOST_RUN.test(text);
  const i = HOST_RUN.lastIndex;
  const c = text.charCodeAt(i); // NaN at the end of the text
  const ends = i === text.length || c === 47 /* / */ || c === 63 /* ? */ || c === 35; /* # */
  return ends && i > start && i - start <= 253 && text.charCodeAt(i - 1) !== 46 ? i : -1;
}

const HOST_RUN = /[a-z0-9.-]*/y;

/**
 * Host names of labels of 1 to 63 characters that neither start nor end with `-`, matched from
 * `lastIndex` (sticky); where a match ends exactly at a plain host's end, that host has no label
 * problem. Each label is bounded (63), so a failing text costs linear time.
 */
export const FINE_LABELS = /(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?/y;

/** The start of the host `plainUrlHostEnd` found (after `https://` or `http://`). */
export function plainUrlHostStart(text: string): number {
  return text.charCodeAt(4) === 115 /* s */ ? 8 : 7;
}

