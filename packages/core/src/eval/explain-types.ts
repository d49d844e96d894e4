/**
 * The shapes explain reports (decisions.md D4): one observation explained, the counts by the
 * policy's verdict and by the recorded one, the report of a whole trace, and the options of an
 * `Explainer`. Types only, so the explainer, the trace readers and the CLI share them without
 * importing each other.
 */
import type { TraceHeader, AnyObservation } from '../trace/types';
import type { Access } from './access';
import type { DenialFix } from './fix';
import type { NearMiss } from './near-miss';
import type { EvalOptions } from './rules';

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
