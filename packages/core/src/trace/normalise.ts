/**
 * Turns one parsed observation (snake_case or camelCase members) into the internal shape,
 * checking types. Unknown members are kept in `extra`; a `__proto__` key is kept as data,
 * never as a prototype.
 */
import { camelOf, COMMON_MEMBERS, JOB_MEMBERS, PROTOCOL_MEMBERS, REQUIRED_MEMBERS, TOP_MEMBERS, type MemberSpec, type MemberType } from './fields';
import type { AnyObservation, TraceHeader, TraceJob } from './types';
import { InputError } from '../validate/input-error';

/**
 * A trace that cannot be read: says where (observation index, member) and what is wrong. An
 * `InputError` of the argument `trace`, so one `instanceof InputError` catches every input refused.
 * @public
 */
export class TraceError extends InputError {
  constructor(message: string, readonly observationIndex?: number, readonly member?: string) {
    super(message, 'trace');
    this.name = 'TraceError';
  }
}

interface CompiledMember { snake: string; camel: string; type: MemberType }

function compile(specs: readonly MemberSpec[]): CompiledMember[] {
  return specs.map(([snake, type]) => ({ snake, camel: camelOf(snake), type }));
}

/** The member tables the readers use, made on first use: importing core builds none. */
interface Tables {
  jobMembers: CompiledMember[];
  topMembers: CompiledMember[];
  /** Each known protocol's table; `other` for any other protocol. */
  protocols: Map<string, ProtocolTable>;
  other: ProtocolTable;
  snakeNames: WireNames;
  camelNames: WireNames;
}
let builtTables: Tables | undefined;
const tables = (): Tables => (builtTables ??= buildTables());

const TYPE_TEXT: Record<MemberType, string> = {
  string: 'a string',
  decimal: 'a decimal string (digits only; 64-bit counters are sent as strings)',
  integer: 'an integer',
  boolean: 'true or false',
  strings: 'an array of strings',
};

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `the string ${JSON.stringify(value.length > 40 ? value.slice(0, 40) + '…' : value)}`;
  if (typeof value === 'number') return `the number ${value}`;
  return typeof value === 'object' ? 'an object' : `${typeof value} ${String(value)}`;
}

function isDecimal(s: string): boolean {
  if (s.length === 0 || s.length > 40) return false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

function checkType(value: unknown, type: MemberType): boolean {
  switch (type) {
    case 'string': return typeof value === 'string';
    case 'decimal': return typeof value === 'string' && isDecimal(value);
    case 'integer': return typeof value === 'number' && Number.isSafeInteger(value);
    case 'boolean': return typeof value === 'boolean';
    case 'strings': {
      if (!Array.isArray(value)) return false;
      for (const item of value) if (typeof item !== 'string') return false;
      return true;
    }
  }
}

function setData(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

/**
 * Copies the known members of `raw` into `out` (camelCase), checks their types, and returns the
 * number of raw keys consumed. `where` names the object in errors.
 */
function readMembers(raw: Record<string, unknown>, members: CompiledMember[], out: Record<string, unknown>, where: (member: string) => string, index?: number): number {
  let consumed = 0;
  for (let m = 0; m < members.length; m++) {
    const spec = members[m];
    let name = spec.snake;
    let value = raw[name];
    if (value === undefined && spec.camel !== name) {
      name = spec.camel;
      value = raw[name];
    }
    if (value === undefined) continue;
    consumed++;
    if (spec.camel !== spec.snake && raw[spec.camel] !== undefined && name === spec.snake) consumed++;
    if (value === null) continue; // null is treated as absent
    if (!checkType(value, spec.type)) {
      throw new TraceError(`${where(name)}: \`${name}\` must be ${TYPE_TEXT[spec.type]}, got ${describe(value)}`, index, name);
    }
    out[spec.camel] = spec.type === 'strings' ? (value as string[]).slice() : value;
  }
  return consumed;
}

function collectExtra(raw: Record<string, unknown>, members: CompiledMember[][]): Record<string, unknown> | undefined {
  let extra: Record<string, unknown> | undefined;
  for (const key of Object.keys(raw)) {
    let known = false;
    for (const list of members) {
      for (const m of list) if (m.snake === key || m.camel === key) { known = true; break; }
      if (known) break;
    }
    if (!known) setData((extra ??= {}), key, raw[key]);
  }
  return extra;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Every spelling (snake_case and camelCase) of the members of each protocol, common members
 * included: one lookup per key read. An object without a prototype, not a Map: the keys of a
 * parsed observation are internalized strings whose hash V8 already holds, and a property lookup
 * with one costs less than Map.get (200,000 observations, 2 million keys: about 10 ms less). No
 * prototype, so `__proto__`, `constructor` and the like are unknown members like any other.
 */
type KeyTable = Record<string, CompiledMember | undefined>;
function keyTable(lists: CompiledMember[][]): KeyTable {
  const table: KeyTable = Object.create(null);
  for (const list of lists) for (const m of list) { table[m.snake] = m; table[m.camel] = m; }
  return table;
}
/** What normalising an observation of one protocol reads: its key table and its required members (one lookup per observation). */
interface ProtocolTable { keys: KeyTable; required: { snake: string; camel: string }[] | undefined }

function buildTables(): Tables {
  const common = compile(COMMON_MEMBERS);
  const required = new Map(Object.entries(REQUIRED_MEMBERS).map(([p, list]) => [p, list.map((snake) => ({ snake, camel: camelOf(snake) }))]));
  const snakeNames: WireNames = Object.fromEntries([COMMON_MEMBERS, ...Object.values(PROTOCOL_MEMBERS)].flat().map(([snake]) => [camelOf(snake), snake]));
  return {
    jobMembers: compile(JOB_MEMBERS),
    topMembers: compile(TOP_MEMBERS),
    protocols: new Map(Object.entries(PROTOCOL_MEMBERS).map(([p, specs]) => [p, { keys: keyTable([common, compile(specs)]), required: required.get(p) }])),
    other: { keys: keyTable([common]), required: undefined },
    snakeNames,
    camelNames: Object.fromEntries(Object.keys(snakeNames).map((c) => [c, c])),
  };
}

/** `observation N (sequence S)`, for errors. */
function observationName(raw: Record<string, unknown>, index: number): string {
  return `observation ${index}${typeof raw.sequence === 'number' ? ` (sequence ${raw.sequence})` : ''}`;
}

/*
 * The common case written out: an observation of a known protocol whose known members are all in
 * one spelling (snake_case, or camelCase) and of the right type or null (absent), its required
 * members there, any others kept in `extra`. Reads by each member's name and named writes instead
 * of the general path's table lookups and computed stores: about half the normalising time on a
 * 200,000-observation trace (docs/performance.md, issue 20 round 4). Anything else (both spellings
 * mixed, a wrong type, a missing member, another protocol) gives `undefined`, and the general path
 * reads the observation and says what is wrong. Held to the general path by
 * `normalise.property.test.ts`.
 *
 * Each `take*` checks one member: 0 when absent, 1 when null (absent, as in the general path) or
 * of its type, and `BAD` (which no count of members survives) otherwise. The counts are compared
 * with the observation's keys: when they differ, the other keys are unknown members (kept in
 * `extra`, as the general path keeps them) or a second spelling (the general path's to read).
 */
const BAD = -1024;
const takeString = (v: unknown): number => (v === undefined ? 0 : v === null || typeof v === 'string' ? 1 : BAD);
const takeDecimal = (v: unknown): number => (v === undefined ? 0 : v === null || (typeof v === 'string' && isDecimal(v)) ? 1 : BAD);
const takeInteger = (v: unknown): number => (v === undefined ? 0 : v === null || (typeof v === 'number' && Number.isSafeInteger(v)) ? 1 : BAD);
const takeBoolean = (v: unknown): number => (v === undefined ? 0 : v === null || typeof v === 'boolean' ? 1 : BAD);
const takeStrings = (v: unknown): number => (v === undefined ? 0 : v === null || checkType(v, 'strings') ? 1 : BAD);

/** The observation being built (members set only when there: the general path leaves absent ones out). */
type Out = Record<string, unknown>;

/**
 * The observation by the fast path, its members spelled snake_case (the wire's) or else camelCase
 * (decisions.md D1: the reader takes both); undefined when neither fits (the general path's then).
 */
export function fastObservation(raw: Record<string, unknown>, index: number): AnyObservation | undefined {
  // A trace keeps to one spelling: the one that fitted the last observation is tried first.
  const { snakeNames, camelNames } = tables();
  const first = lastCamel ? fastWith(raw, index, camelNames, true) : fastWith(raw, index, snakeNames, false);
  if (first !== undefined) return first;
  const other = lastCamel ? fastWith(raw, index, snakeNames, false) : fastWith(raw, index, camelNames, true);
  if (other !== undefined) lastCamel = !lastCamel;
  return other;
}
let lastCamel = false;

/** The wire name of each member (camelCase) in one spelling: read as `raw[N.remoteIp]`. */
type WireNames = Readonly<Record<string, string>>;

function fastWith(raw: Record<string, unknown>, index: number, N: WireNames, camel: boolean): AnyObservation | undefined {
  let keys = 0;
  for (const _ in raw) keys++;
  const protocol = raw.protocol;
  const observedAt = raw[N.observedAt];
  const sequence = raw[N.sequence];
  let seen = 1 + takeString(observedAt) + takeInteger(sequence);
  const out: Out = { index, protocol };
  if (observedAt != null) out.observedAt = observedAt;
  out.sequence = sequence ?? index;
  // Members besides the protocol's (null: none; undefined: leave the observation to the general path).
  let extra: Record<string, unknown> | null | undefined;
  switch (protocol) {
    case 'http': {
      const method = raw[N.method], url = raw[N.url], remoteIp = raw[N.remoteIp], statusCode = raw[N.statusCode];
      const responseBodySize = raw[N.responseBodySize], denied = raw[N.denied], deniedReason = raw[N.deniedReason], matchedRule = raw[N.matchedRule];
      seen += takeString(method) + takeString(url) + takeString(remoteIp) + takeInteger(statusCode) + takeDecimal(responseBodySize) + takeBoolean(denied) + takeString(deniedReason) + takeString(matchedRule);
      extra = seen === keys ? null : unknownMembers(raw, 'http', seen, camel);
      if (extra === undefined || url == null) return undefined;
      if (method != null) out.method = method;
      out.url = url;
      if (remoteIp != null) out.remoteIp = remoteIp;
      if (statusCode != null) out.statusCode = statusCode;
      if (responseBodySize != null) out.responseBodySize = responseBodySize;
      if (denied != null) out.denied = denied;
      if (deniedReason != null) out.deniedReason = deniedReason;
      if (matchedRule != null) out.matchedRule = matchedRule;
      break;
    }
    case 'tcp': {
      const allowed = raw[N.allowed], bytesReceived = raw[N.bytesReceived], bytesSent = raw[N.bytesSent], deniedReason = raw[N.deniedReason];
      const duration = raw[N.duration], error = raw[N.error], matchedRule = raw[N.matchedRule], remotePort = raw[N.remotePort];
      const remoteIp = raw[N.remoteIp], hostnames = raw[N.hostnames], alpn = raw[N.alpn], serverName = raw[N.serverName];
      seen += takeBoolean(allowed) + takeDecimal(bytesReceived) + takeDecimal(bytesSent) + takeString(deniedReason) + takeString(duration) + takeString(error)
        + takeString(matchedRule) + takeInteger(remotePort) + takeString(remoteIp) + takeStrings(hostnames) + takeStrings(alpn) + takeString(serverName);
      extra = seen === keys ? null : unknownMembers(raw, 'tcp', seen, camel);
      if (extra === undefined || remotePort == null) return undefined;
      if (allowed != null) out.allowed = allowed;
      if (bytesReceived != null) out.bytesReceived = bytesReceived;
      if (bytesSent != null) out.bytesSent = bytesSent;
      if (deniedReason != null) out.deniedReason = deniedReason;
      if (duration != null) out.duration = duration;
      if (error != null) out.error = error;
      if (matchedRule != null) out.matchedRule = matchedRule;
      out.remotePort = remotePort;
      if (remoteIp != null) out.remoteIp = remoteIp;
      if (hostnames != null) out.hostnames = hostnames;
      if (alpn != null) out.alpn = alpn;
      if (serverName != null) out.serverName = serverName;
      break;
    }
    case 'dns': {
      const resolverIp = raw[N.resolverIp], queryName = raw[N.queryName], queryType = raw[N.queryType], answers = raw[N.answers];
      seen += takeString(resolverIp) + takeString(queryName) + takeString(queryType) + takeStrings(answers);
      extra = seen === keys ? null : unknownMembers(raw, 'dns', seen, camel);
      if (extra === undefined) return undefined;
      if (resolverIp != null) out.resolverIp = resolverIp;
      if (queryName != null) out.queryName = queryName;
      if (queryType != null) out.queryType = queryType;
      if (answers != null) out.answers = answers;
      break;
    }
    case 'ssh_git': {
      const allowed = raw[N.allowed], bytesReceivedUpstream = raw[N.bytesReceivedUpstream], bytesSentUpstream = raw[N.bytesSentUpstream];
      const deniedReason = raw[N.deniedReason], forcedShallow = raw[N.forcedShallow], duration = raw[N.duration], exitStatus = raw[N.exitStatus];
      const host = raw[N.host], port = raw[N.port], user = raw[N.user], repositoryPath = raw[N.repositoryPath], gitService = raw[N.gitService];
      const remoteUrl = raw[N.remoteUrl], matchedRule = raw[N.matchedRule];
      seen += takeBoolean(allowed) + takeDecimal(bytesReceivedUpstream) + takeDecimal(bytesSentUpstream) + takeString(deniedReason) + takeBoolean(forcedShallow)
        + takeString(duration) + takeInteger(exitStatus) + takeString(host) + takeInteger(port) + takeString(user) + takeString(repositoryPath)
        + takeString(gitService) + takeString(remoteUrl) + takeString(matchedRule);
      extra = seen === keys ? null : unknownMembers(raw, 'ssh_git', seen, camel);
      if (extra === undefined || host == null || port == null) return undefined;
      if (allowed != null) out.allowed = allowed;
      if (bytesReceivedUpstream != null) out.bytesReceivedUpstream = bytesReceivedUpstream;
      if (bytesSentUpstream != null) out.bytesSentUpstream = bytesSentUpstream;
      if (deniedReason != null) out.deniedReason = deniedReason;
      if (forcedShallow != null) out.forcedShallow = forcedShallow;
      if (duration != null) out.duration = duration;
      if (exitStatus != null) out.exitStatus = exitStatus;
      out.host = host;
      out.port = port;
      if (user != null) out.user = user;
      if (repositoryPath != null) out.repositoryPath = repositoryPath;
      if (gitService != null) out.gitService = gitService;
      if (remoteUrl != null) out.remoteUrl = remoteUrl;
      if (matchedRule != null) out.matchedRule = matchedRule;
      break;
    }
    default:
      return undefined;
  }
  if (extra) out.extra = extra;
  return out as unknown as AnyObservation;
}

/**
 * The members of `raw` that its protocol does not know, as the general path keeps them (`extra`,
 * `__proto__` as data); undefined when a key is the other spelling of a member the protocol knows
 * (the general path decides which spelling counts) or when the known members were not all of
 * their type (`seen` negative).
 */
function unknownMembers(raw: Record<string, unknown>, protocol: string, seen: number, camel: boolean): Record<string, unknown> | undefined {
  if (seen < 0) return undefined;
  const known = tables().protocols.get(protocol)!.keys;
  let extra: Record<string, unknown> | undefined;
  for (const key in raw) {
    const spec = known[key];
    if (spec === undefined) setData((extra ??= {}), key, raw[key]);
    else if (key !== (camel ? spec.camel : spec.snake)) return undefined;
  }
  return extra;
}

/**
 * Normalises observation number `index` (zero-based) of a trace. One pass over the keys the
 * observation has (not over every member a protocol may have), each looked up once: this runs
 * once per observation, on traces of millions. `owned`: `raw` was parsed for this call alone and
 * nothing else holds it, so its arrays (host names, ALPN, answers) are taken over, not copied
 * (the trace reader; a caller's object keeps its own arrays).
 * @public
 */
export function normaliseObservation(raw: unknown, index: number, owned = false): AnyObservation {
  if (!isPlainObject(raw)) throw new TraceError(`observation ${index}: must be an object, got ${describe(raw)}`, index);
  if (owned) {
    const fast = fastObservation(raw, index);
    if (fast !== undefined) return fast;
  }
  return normaliseGeneral(raw, index, owned);
}

/** The general path of `normaliseObservation`: every spelling, unknown members, nulls, and the errors. */
export function normaliseGeneral(raw: Record<string, unknown>, index: number, owned: boolean): AnyObservation {
  const protocol = raw.protocol;
  if (protocol === undefined || protocol === null) throw new TraceError(`${observationName(raw, index)}: missing member \`protocol\` (http, dns, tcp or ssh_git)`, index, 'protocol');
  if (typeof protocol !== 'string') throw new TraceError(`${observationName(raw, index)}: \`protocol\` must be ${TYPE_TEXT.string}, got ${describe(protocol)}`, index, 'protocol');
  const { protocols, other } = tables();
  const table = protocols.get(protocol) ?? other;
  const members = table.keys;
  const out: Record<string, unknown> = { index };
  let extra: Record<string, unknown> | undefined;
  for (const key in raw) {
    const value = raw[key];
    const spec = members[key];
    if (spec === undefined) { setData((extra ??= {}), key, value); continue; }
    // Both spellings present: the snake_case one counts.
    if (key !== spec.snake && raw[spec.snake] !== undefined) continue;
    if (value === null) continue; // null is treated as absent
    if (!checkType(value, spec.type)) throw new TraceError(`${observationName(raw, index)}: \`${key}\` must be ${TYPE_TEXT[spec.type]}, got ${describe(value)}`, index, key);
    out[spec.camel] = spec.type === 'strings' && !owned ? (value as string[]).slice() : value;
  }
  const needed = table.required;
  if (needed) {
    for (const m of needed) {
      if (out[m.camel] === undefined) throw new TraceError(`${observationName(raw, index)}: ${protocol} observation is missing member \`${m.snake}\``, index, m.snake);
    }
  }
  if (out.sequence === undefined) out.sequence = index;
  if (extra) out.extra = extra;
  return out as unknown as AnyObservation;
}

const MAX_U64 = 18446744073709551615n;

function checkJobId(value: string | undefined, member: string): void {
  if (value === undefined) return;
  if ((value.length > 1 && value[0] === '0') || BigInt(value) > MAX_U64) {
    throw new TraceError(`job: \`${member}\` must be a decimal string from 0 to 18446744073709551615 without leading zeros, got ${JSON.stringify(value)}`, undefined, member);
  }
}

/** Normalises the job metadata object. */
export function normaliseJob(raw: unknown): TraceJob {
  if (!isPlainObject(raw)) throw new TraceError(`job: must be an object, got ${describe(raw)}`, undefined, 'job');
  const out: Record<string, unknown> = {};
  const { jobMembers } = tables();
  readMembers(raw, jobMembers, out, () => 'job');
  checkJobId(out.jobId as string | undefined, 'job_id');
  checkJobId(out.runId as string | undefined, 'run_id');
  const extra = collectExtra(raw, [jobMembers]);
  if (extra) out.extra = extra;
  return out as TraceJob;
}

/** Adds one top-level member (other than `observations`) to a header. */
export function addHeaderMember(header: TraceHeader, key: string, value: unknown): void {
  if (key === 'job') {
    if (value !== null) header.job = normaliseJob(value);
    return;
  }
  for (const m of tables().topMembers) {
    if (key === m.snake || key === m.camel) {
      if (value === null) return;
      if (!checkType(value, m.type)) throw new TraceError(`\`${key}\` must be ${TYPE_TEXT[m.type]}, got ${describe(value)}`, undefined, key);
      (header as Record<string, unknown>)[m.camel] = value;
      return;
    }
  }
  setData((header.extra ??= {}), key, value);
}
