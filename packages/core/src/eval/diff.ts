/**
 * What a policy change does, for code review (`netpolicy diff`): accesses whose verdict changes
 * (replayed from traces), which rules decide the traced accesses under each policy, the rules the
 * change adds and removes, and the lint findings it adds or resolves. Pure: the CLI reads the
 * files, the traces and git.
 */
import type { Policy } from '../policy/types';
import type { PresetCatalog } from '../presets/catalog';
import { canonicalJson } from '../json/canonical';
import { parsePointer, valueAt } from '../validate/pointer';
import { isKnownObservation, type AnyObservation } from '../trace/types';
import { accessOf, describeAccess, type Decision } from './access';
import { compiledFor, type CompiledPolicy } from './evaluate';
import { checkPolicy } from '../validate/policy-check';
import { ResolvedNames } from './resolved-names';
import { enabledPresets, type EvalOptions } from './rules';

/**
 * How a traced access fares under the new policy: its verdict flips, or it keeps it under another rule.
 * @public
 */
export type ChangeKind = 'newly-allowed' | 'newly-denied' | 'rule-changed';

/**
 * A traced access whose decision differs between the two policies (`PolicyDiffer.add`).
 * @public
 */
export interface VerdictChange {
  sequence: number;
  protocol: string;
  destination: string;
  change: ChangeKind;
  old: Decision;
  new: Decision;
}

/**
 * Compares the decisions of two policies on observations fed one at a time.
 * @public
 */
export class PolicyDiffer {
  private readonly old: CompiledPolicy;
  private readonly next: CompiledPolicy;
  private resolved = new ResolvedNames();
  accesses = 0;
  /** Traced accesses each rule decides (`/sources/N`, `/connections/N`, `preset:NAME`, `default`), under OLD. */
  readonly oldUses = new Map<string, number>();
  /** The same under NEW. */
  readonly newUses = new Map<string, number>();

  /** A policy that does not meet the schema is an `InputError` naming it (`oldPolicy`, `newPolicy`). */
  constructor(oldPolicy: Policy, newPolicy: Policy, options: EvalOptions = {}) {
    this.old = compiledFor(oldPolicy, options, 'PolicyDiffer', 'oldPolicy');
    this.next = compiledFor(newPolicy, options, 'PolicyDiffer', 'newPolicy');
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
    this.oldUses.set(before.rule, (this.oldUses.get(before.rule) ?? 0) + 1);
    this.newUses.set(after.rule, (this.newUses.get(after.rule) ?? 0) + 1);
    let change: ChangeKind | undefined;
    if (before.verdict !== after.verdict) change = after.verdict === 'allow' ? 'newly-allowed' : 'newly-denied';
    else if (before.rule !== after.rule) change = 'rule-changed';
    if (!change) return undefined;
    return { sequence: o.sequence, protocol: o.protocol, destination: describeAccess(a), change, old: before, new: after };
  }
}

/**
 * What a changed rule is: an entry of `sources`, of `connections`, or an enabled preset.
 * @public
 */
export type RuleKind = 'source' | 'connection' | 'preset';

/**
 * A rule only one of the two policies has.
 * @public
 */
export interface RuleChange {
  kind: RuleKind;
  /** The rule as decisions name it, in the policy that has it: `/sources/N`, `/connections/N` or `preset:NAME`. */
  rule: string;
  /** Where it is written: `/sources/N`, `/connections/N`, `/presets/N`; absent for a preset enabled by omitting `presets`. */
  pointer?: string;
  /** The source or connection object, or the preset's name. */
  value: unknown;
  /**
   * Traced accesses it decides (under NEW for an added rule, OLD for a removed one: the first
   * permitting rule, as explain reports it); undefined when no traces were replayed.
   */
  uses?: number;
}

/**
 * What `diffRules` finds: the rules added and removed, and the default action when it changes.
 * @public
 */
export interface RuleDiff {
  added: RuleChange[];
  removed: RuleChange[];
  /** The default action when it changes (absent `default` is `deny`). */
  default?: { old: 'allow' | 'deny'; new: 'allow' | 'deny' };
}

/**
 * How many traced accesses each rule decided under each policy (`PolicyDiffer`'s `oldUses` and `newUses`).
 * @public
 */
export interface RuleUsage { old: ReadonlyMap<string, number>; new: ReadonlyMap<string, number> }

const KINDS = [['sources', 'source'], ['connections', 'connection']] as const;

/**
 * The rules NEW adds and OLD had that NEW has not. Rules are matched by content (sources with
 * sources, connections with connections; object keys in any order), as a multiset: a rule moved
 * to another place is neither added nor removed; a second copy of a rule is added. Presets are
 * compared by the names each policy enables (every catalog preset when `presets` is absent).
 * `usage` (from `PolicyDiffer`) fills in `uses`.
 * @public
 */
export function diffRules(oldPolicy: Policy, newPolicy: Policy, catalog: PresetCatalog, usage?: RuleUsage): RuleDiff {
  checkPolicy(oldPolicy, 'diffRules', 'oldPolicy');
  checkPolicy(newPolicy, 'diffRules', 'newPolicy');
  const added: RuleChange[] = [];
  const removed: RuleChange[] = [];
  const uses = (map: ReadonlyMap<string, number> | undefined, rule: string) => (map ? map.get(rule) ?? 0 : undefined);
  for (const [member, kind] of KINDS) {
    const before = rulesOf(oldPolicy, member);
    const after = rulesOf(newPolicy, member);
    const left = new Unmatched(before.length, (i) => canonicalJson(before[i]));
    for (let i = 0; i < after.length; i++) {
      if (left.take(canonicalJson(after[i]))) continue;
      const rule = `/${member}/${i}`;
      added.push({ kind, rule, pointer: rule, value: after[i], uses: uses(usage?.new, rule) });
    }
    for (const i of left.rest()) {
      const rule = `/${member}/${i}`;
      removed.push({ kind, rule, pointer: rule, value: before[i], uses: uses(usage?.old, rule) });
    }
  }
  const oldPresets = enabledPresets(oldPolicy, catalog);
  const newPresets = enabledPresets(newPolicy, catalog);
  const oldNames = new Set(oldPresets.map((p) => p.name));
  const newNames = new Set(newPresets.map((p) => p.name));
  const preset = (p: { name: string; index: number }, map: ReadonlyMap<string, number> | undefined): RuleChange => ({
    kind: 'preset', rule: `preset:${p.name}`, ...(p.index >= 0 ? { pointer: `/presets/${p.index}` } : {}), value: p.name, uses: uses(map, `preset:${p.name}`),
  });
  for (const p of newPresets) if (!oldNames.has(p.name)) added.push(preset(p, usage?.new));
  for (const p of oldPresets) if (!newNames.has(p.name)) removed.push(preset(p, usage?.old));
  const before = oldPolicy.default === 'allow' ? 'allow' : 'deny';
  const after = newPolicy.default === 'allow' ? 'allow' : 'deny';
  return { added, removed, ...(before !== after ? { default: { old: before, new: after } } : {}) };
}

function rulesOf(policy: Policy, member: 'sources' | 'connections'): unknown[] {
  const list = (policy as Record<string, unknown>)[member];
  return Array.isArray(list) ? list : [];
}

/**
 * What a lint finding needs for `diffFindings`.
 * @public
 */
export interface FindingLike { code: string; pointer: string }

/**
 * What makes a finding the same finding in both versions of a policy, whatever index its rule has:
 * - within a source or connection (`/sources/N/...`): the code, the member (`sources`), the path
 *   inside the rule with array indexes left out (`pypi/urls/*`), and the value found there (the
 *   whole rule for a pointer to the rule): a rule that moves keeps its findings, and a URL of a
 *   rule keeps its finding when other URLs are added beside it;
 * - a preset entry (`/presets/N`): the code and the preset's name;
 * - anything else (`/default`, `""`, `/sources`): the code and the pointer.
 */
export function findingKey(finding: FindingLike, policy: unknown): string {
  const segments = parsePointer(finding.pointer);
  const top = segments[0];
  if ((top === 'sources' || top === 'connections' || top === 'presets') && segments.length >= 2 && /^(0|[1-9][0-9]*)$/.test(segments[1])) {
    const value = valueAt(policy, finding.pointer);
    if (top === 'presets') return `${finding.code}\u0000presets\u0000${segments.length === 2 ? canonicalJson(value) : finding.pointer}`;
    const inner = segments.slice(2).map((s) => (/^(0|[1-9][0-9]*)$/.test(s) ? '*' : s.replace(/[*~]/g, '~$&'))).join('/');
    return `${finding.code}\u0000${top}\u0000${inner}\u0000${canonicalJson(value)}`;
  }
  return `${finding.code}\u0000${finding.pointer}`;
}

/**
 * Lint findings the change adds (NEW's, in its order) and resolves (OLD's), matched by
 * `findingKey` as a multiset: a second finding with one key is added when OLD had one.
 * @public
 */
export function diffFindings<T extends FindingLike>(oldFindings: readonly T[], oldPolicy: unknown, newFindings: readonly T[], newPolicy: unknown): { added: T[]; resolved: T[] } {
  const left = new Unmatched(oldFindings.length, (i) => findingKey(oldFindings[i], oldPolicy));
  const added: T[] = [];
  for (const f of newFindings) if (!left.take(findingKey(f, newPolicy))) added.push(f);
  return { added, resolved: left.rest().map((i) => oldFindings[i]) };
}

/** Items 0..n-1 by key, taken one at a time (earliest first): a multiset match in linear time. */
class Unmatched {
  private readonly byKey = new Map<string, { items: number[]; taken: number }>();
  private readonly taken: boolean[];

  constructor(n: number, keyOf: (i: number) => string) {
    this.taken = new Array<boolean>(n).fill(false);
    for (let i = 0; i < n; i++) {
      const key = keyOf(i);
      const group = this.byKey.get(key);
      if (group) group.items.push(i);
      else this.byKey.set(key, { items: [i], taken: 0 });
    }
  }

  /** Takes the earliest item with this key not taken yet; false when there is none. */
  take(key: string): boolean {
    const group = this.byKey.get(key);
    if (!group || group.taken === group.items.length) return false;
    this.taken[group.items[group.taken++]] = true;
    return true;
  }

  /** The items never taken, in order. */
  rest(): number[] {
    const out: number[] = [];
    for (let i = 0; i < this.taken.length; i++) if (!this.taken[i]) out.push(i);
    return out;
  }
}
