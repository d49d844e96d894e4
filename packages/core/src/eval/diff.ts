/** Accesses whose verdict changes between two policies, for code review (`netpolicy diff`). */
import type { Policy } from '../policy/types';
import type { AnyObservation } from '../trace/types';
import { accessOf, describeAccess, type Decision } from './access';
import { compilePolicy, type CompiledPolicy } from './evaluate';
import type { EvalOptions } from './rules';
import { normaliseHost } from '../formats/host-pattern';

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
  private resolved = new Map<string, string[]>();
  accesses = 0;

  constructor(oldPolicy: Policy, newPolicy: Policy, options: EvalOptions = {}) {
    this.old = compilePolicy(oldPolicy, options);
    this.next = compilePolicy(newPolicy, options);
  }

  beginTrace(): void {
    this.resolved = new Map();
  }

  add(o: AnyObservation): VerdictChange | undefined {
    if (o.protocol === 'dns') {
      const d = o as Extract<AnyObservation, { protocol: 'dns' }>;
      if (d.queryName && d.answers) for (const ip of d.answers) this.resolved.set(ip, [...(this.resolved.get(ip) ?? []), normaliseHost(d.queryName)]);
      return undefined;
    }
    const ip = (o as { remoteIp?: string }).remoteIp;
    const a = accessOf(o, o.protocol === 'tcp' && ip !== undefined ? this.resolved.get(ip) : undefined);
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
