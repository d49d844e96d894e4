/**
 * The evaluator's checks of what a caller hands it besides the policy (validate/policy-check.ts):
 * an access, a trace argument, a list. Cheap (a few `typeof`s), so they sit at every public entry
 * point; a wrong value is an `InputError` naming the function and the argument.
 */
import { describeValue, InputError } from '../validate/input-error';
import type { Access } from './access';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isPort = (v: unknown) => typeof v === 'number' && Number.isInteger(v);

/** Why `a` is not an `Access`, or undefined when it is one (the members evaluation reads). */
function accessProblem(a: unknown): string | undefined {
  if (!isObject(a)) return `must be an access object, got ${describeValue(a)}`;
  switch (a.kind) {
    case 'http':
      if (typeof a.url !== 'string') return `of kind http needs \`url\`, a string; got ${describeValue(a.url)}`;
      if (typeof a.method !== 'string') return `of kind http needs \`method\`, a string; got ${describeValue(a.method)}`;
      return undefined;
    case 'tls': case 'tcp':
      return isPort(a.port) ? undefined : `of kind ${a.kind} needs \`port\`, an integer; got ${describeValue(a.port)}`;
    case 'ssh':
      if (typeof a.host !== 'string') return `of kind ssh needs \`host\`, a string; got ${describeValue(a.host)}`;
      return isPort(a.port) ? undefined : `of kind ssh needs \`port\`, an integer; got ${describeValue(a.port)}`;
    default:
      return `needs \`kind\`: http, tls, tcp or ssh; got ${typeof a.kind === 'string' ? JSON.stringify(a.kind) : describeValue(a.kind)}`;
  }
}

/** Throws an `InputError` unless `a` is an `Access`. */
export function checkAccess(a: unknown, fn: string, argument = 'access'): asserts a is Access {
  const problem = accessProblem(a);
  if (problem !== undefined) throw new InputError(`${fn}: ${argument} ${problem}`, argument);
}

/** Throws an `InputError` unless `value` is an array (of `what`). */
export function checkArray(value: unknown, fn: string, argument: string, what: string): asserts value is unknown[] {
  if (!Array.isArray(value)) throw new InputError(`${fn}: ${argument} must be an array of ${what}, got ${describeValue(value)}`, argument);
}

/** Whether a value can be iterated, synchronously or not (a stream of trace chunks). */
export function isIterable(value: unknown): boolean {
  return typeof value === 'object' && value !== null && (typeof (value as Iterable<unknown>)[Symbol.iterator] === 'function' || typeof (value as AsyncIterable<unknown>)[Symbol.asyncIterator] === 'function');
}

/** Throws an `InputError` unless `trace` is a string or an object (a `Trace`, a trace document, or with `chunks`, a stream). */
export function checkTraceArgument(trace: unknown, fn: string, chunks: boolean): void {
  if (typeof trace === 'string' || (typeof trace === 'object' && trace !== null && (!Array.isArray(trace) || chunks))) return;
  const kinds = chunks ? "a trace's text, a trace document, a Trace, or chunks of text" : "a trace's text, a trace document or a Trace";
  throw new InputError(`${fn}: trace must be ${kinds}; got ${describeValue(trace)}`, 'trace');
}
