/**
 * Explaining a trace against a policy (decisions.md D4): for every observation, the recorded
 * verdict (the fact) beside the model's (the explanation); for denials the nearest rule that
 * almost matched and the smallest fix. Data first: the CLI renders it as text, JSON or Markdown.
 */
import type { Policy } from '../policy/types';
import { streamTrace, type TraceChunks } from '../trace/reader';
import { parseTrace } from '../trace/reader';
import { traceOf, type TraceDocument } from '../trace/document';
import { isKnownObservation, type Trace } from '../trace/types';
import { checkTraceArgument, isIterable } from './inputs';
import { describeValue, expectOptions, InputError } from '../validate/input-error';
import { checkPolicy } from '../validate/policy-check';
import type { ExplainOptions, ExplainReport } from './explain-types';
import { Explainer } from './explainer';
import { ResolvedNames } from './resolved-names';

// The explainer, its types and its words live in their own modules; this one stays what the rest imports.
export type { ExplainOptions, ExplainReport, ExplainResult, ExplainSummary, ModelVerdict, RecordedCounts } from './explain-types';
export { Explainer } from './explainer';
export { describeRule, verdictSentence } from './explain-text';

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
