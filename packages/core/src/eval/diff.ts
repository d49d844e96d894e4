/** Accesses whose verdict changes between two policies, for code review (`netpolicy diff`). */
import type { Policy } from '../policy/types';
import { isKnownObservation, type AnyObservation } from '../trace/types';
import { accessOf, describeAccess, type Decision } from './access';
import { compilePolicy, type CompiledPolicy } from './evaluate';
import { ResolvedNames } from './resolved-names';
import type { EvalOptions } from './rules';

export type ChangeKind = 'newly-allowed' | 'newly-denied' | 'rule-changed';

export interface VerdictChange {
  sequence: number;
  protocol: string;
  destination: string;
  change: ChangeKind;
  old: Decision;
  new: Decision;
}

/** Compares the decisions of two policies on observations fed one at a time. */
export class PolicyDiffer {
  private readonly old: CompiledPolicy;
  private readonly next: CompiledPolicy;
  private resolved = new ResolvedNames();
  accesses = 0;

  constructor(oldPolicy: Policy, newPolicy: Policy, options: EvalOptions = {}) {
    this.old = compilePolicy(oldPolicy, options);
    this.next = compilePolicy(newPolicy, options);
  }

  /** Starts a trace; pass the names of all its DNS answers when known (a first pass over it). */
  beginTrace(resolvedNames?: ReadonlyMap<string, readonly string[]>): void {
    this.resolved = new ResolvedNames(resolvedNames);
  }

  add(observation: AnyObservation): VerdictChange | undefined {
    // Narrowed to the union of the known protocols; an unknown protocol has no access to decide.
    if (!isKnownObservation(observation)) return undefined;
    const o = observation;
    if (o.protocol === 'dns') {
      this.resolved.learn(o);
      return undefined;
    }
    const a = accessOf(o, o.protocol === 'tcp' && o.remoteIp !== undefined ? this.resolved.namesOf(o.remoteIp) : undefined);
    if (!a) return undefined;
    this.accesses++;
    const before = this.old.evaluate(a);
    const after = this.next.evaluate(a);
    let change: ChangeKind | undefined;
    if (before.verdict !== after.verdict) change = after.verdict === 'allow' ? 'newly-allowed' : 'newly-denied';
    else if (before.rule !== after.rule) change = 'rule-changed';
    if (!change) return undefined;
    return { sequence: o.sequence, protocol: o.protocol, destination: describeAccess(a), change, old: before, new: after };
  }
}
