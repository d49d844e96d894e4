/**
 * A trace held as an object rather than text: the service's document as `@netpolicy/client`'s
 * `getNetworkTrace()` gives it (`data`), or `JSON.parse` of a trace file. Its members are the wire
 * names (snake_case, or camelCase, D1), unchecked: it is read here with the functions the text
 * reader applies to each value it parses (`normaliseObservation`, `addHeaderMember`), so an
 * object and its text give the same trace (document.test.ts holds it to `parseTrace`).
 *
 * A `Trace` (what `parseTrace` and the stream readers make) is told apart from a document by
 * its shape: every observation carries the reader's numeric `index` (never a wire member), and
 * every member of the trace, its job and its observations is one the readers write (a camelCase
 * name, `index`, `extra` for the members they do not know): a snake_case name or an unknown
 * member marks a document. (A camelCase document without unknown members whose every observation
 * also had a numeric member `index`, which D1 does not define, would pass for a Trace.)
 */
import { camelOf, COMMON_MEMBERS, JOB_MEMBERS, PROTOCOL_MEMBERS, TOP_MEMBERS, type MemberSpec } from './fields';
import { addHeaderMember, normaliseObservation, TraceError } from './normalise';
import type { AnyObservation, Trace, TraceHeader } from './types';

/**
 * A network trace document as an object, members as on the wire (snake_case or camelCase).
 * @public
 */
export interface TraceDocument {
  observations: readonly unknown[];
  [member: string]: unknown;
}

/** The members the readers write: the camelCase names of `lists`, and `more`. */
function written(lists: (readonly MemberSpec[])[], more: string[]): Set<string> {
  const names = new Set(more);
  for (const list of lists) for (const [snake] of list) names.add(camelOf(snake));
  return names;
}
/** The members each part of a normalised trace may have, made on first use (not at import). */
interface Written { top: Set<string>; job: Set<string>; observation: Map<string, Set<string>>; otherObservation: Set<string> }
let writtenTables: Written | undefined;
function writtenMembers(): Written {
  return (writtenTables ??= {
    top: written([TOP_MEMBERS], ['observations', 'job', 'extra']),
    job: written([JOB_MEMBERS], ['extra']),
    observation: new Map(Object.entries(PROTOCOL_MEMBERS).map(([protocol, list]) => [protocol, written([COMMON_MEMBERS, list], ['index', 'extra'])])),
    otherObservation: written([COMMON_MEMBERS], ['index', 'extra']),
  });
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function onlyMembers(object: Record<string, unknown>, names: Set<string>): boolean {
  for (const key of Object.keys(object)) if (!names.has(key)) return false;
  return true;
}

/**
 * Whether `value` is a trace as netpolicy's readers make it (normalised: camelCase, unknown
 * members under `extra`, each observation with its `index`), rather than a trace document to be read.
 */
export function isNormalisedTrace(value: Trace | TraceDocument): value is Trace {
  const doc = value as Record<string, unknown>;
  const members = writtenMembers();
  if (!onlyMembers(doc, members.top)) return false;
  if (doc.job !== undefined && !(isPlainObject(doc.job) && onlyMembers(doc.job, members.job))) return false;
  const observations = doc.observations as readonly unknown[];
  for (let i = 0; i < observations.length; i++) {
    const o = observations[i];
    if (!isPlainObject(o) || typeof o.index !== 'number' || typeof o.sequence !== 'number' || typeof o.protocol !== 'string') return false;
    if (!onlyMembers(o, members.observation.get(o.protocol) ?? members.otherObservation)) return false;
  }
  return true;
}

/**
 * Reads a trace document held as an object, with the text reader's checks (a member of the wrong
 * type or a missing required member is a `TraceError` naming the observation and member) and
 * normalisation. The caller's object is not changed, and the trace shares none of its arrays.
 * @public
 */
export function readTraceDocument(doc: unknown): Trace {
  if (!isPlainObject(doc)) throw new TraceError(`a trace document must be an object with an \`observations\` array, got ${doc === null ? 'null' : Array.isArray(doc) ? 'an array' : typeof doc}`);
  const header: TraceHeader = {};
  let observations: AnyObservation[] | undefined;
  for (const key of Object.keys(doc)) {
    const value = doc[key];
    if (key !== 'observations') { addHeaderMember(header, key, value); continue; }
    if (!Array.isArray(value)) throw new TraceError('`observations` must be an array');
    observations = new Array(value.length);
    for (let i = 0; i < value.length; i++) observations[i] = normaliseObservation(value[i], i);
  }
  if (observations === undefined) throw new TraceError('the trace has no `observations` array');
  return { ...header, observations };
}

/** A `Trace` as it is, a trace document read (`readTraceDocument`): one way in for both shapes. */
export function traceOf(value: Trace | TraceDocument): Trace {
  // Anything but an object with an `observations` array is refused by readTraceDocument (TraceError).
  return isPlainObject(value) && Array.isArray(value.observations) && isNormalisedTrace(value) ? value : readTraceDocument(value);
}
