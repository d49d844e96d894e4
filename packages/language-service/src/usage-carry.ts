/**
 * A trace usage carried to a later version of its policy: the last evaluation's entries, each
 * re-keyed to where its rule is now. After an edit that inserts, removes or reorders rules, a rule
 * pointer such as `/sources/3` names another rule; until the traces are evaluated again, lenses,
 * hit counts and references would show one rule's accesses on another. Rules are followed by
 * identity (core's reparse of an edit inside one rule keeps every other rule's parsed value),
 * else by their JSON (the same rule text, in order among equal ones). A rule that changed or was
 * added since has no entry, and is listed in `unevaluated` (its accesses are not known yet).
 */
import type { RuleUsage, TraceUsage } from './trace-usage';

/** The root arrays whose items are rules, and a pointer into one (what follows the index is kept). */
const ROOT_ARRAYS = ['sources', 'connections'] as const;
const RULE_POINTER = /^\/(sources|connections)\/(0|[1-9]\d*)(?=\/|$)/;

/** Each rule's JSON, kept while its parsed value lives (a rule's parsed value is not changed after parsing). */
const JSON_OF = new WeakMap<object, string>();

function jsonOf(item: unknown): string {
  if (!item || typeof item !== 'object') return JSON.stringify(item) ?? 'null';
  let json = JSON_OF.get(item);
  if (json === undefined) JSON_OF.set(item, (json = JSON.stringify(item)));
  return json;
}

/** The array under root member `key` (an own member: `__proto__` is data here). */
function arrayOf(value: unknown, key: string): readonly unknown[] {
  if (!value || typeof value !== 'object' || !Object.hasOwn(value, key)) return [];
  const array = (value as Record<string, unknown>)[key];
  return Array.isArray(array) ? array : [];
}

/** For each item of `before`, its index in `after` (-1: changed or gone); `unmatched` gets the indexes in `after` no item of `before` went to. */
function follow(before: readonly unknown[], after: readonly unknown[], unmatched: number[]): Int32Array {
  const to = new Int32Array(before.length).fill(-1);
  if (before === after) {
    for (let i = 0; i < before.length; i++) to[i] = i;
    return to;
  }
  const byObject = new Map<unknown, number>();
  for (let i = 0; i < before.length; i++) if (before[i] && typeof before[i] === 'object') byObject.set(before[i], i);
  const left: number[] = [];
  for (let j = 0; j < after.length; j++) {
    const i = byObject.get(after[j]);
    if (i !== undefined && to[i] === -1) to[i] = j;
    else left.push(j);
  }
  if (left.length === 0) return to;
  // By JSON: equal rules in the order they come.
  const byJson = new Map<string, number[]>();
  for (let i = 0; i < before.length; i++) {
    if (to[i] !== -1) continue;
    const key = jsonOf(before[i]);
    const queue = byJson.get(key);
    if (queue) queue.push(i);
    else byJson.set(key, [i]);
  }
  for (const j of left) {
    const i = byJson.get(jsonOf(after[j]))?.shift();
    if (i === undefined) unmatched.push(j);
    else to[i] = j;
  }
  return to;
}

/**
 * `usage`, evaluated against the policy value `from`, carried to the value `to` of a later version
 * of the same document: each rule's entry under the pointer where that rule is in `to`; rules of
 * `to` that `from` did not have (changed or added), and presets it did not enable, in
 * `unevaluated`. Returns `usage` itself when `from` is `to`.
 * @public
 */
export function carryUsage(usage: TraceUsage, from: unknown, to: unknown): TraceUsage {
  if (from === to) return usage;
  const moved = new Map<string, Int32Array>();
  const unevaluated = new Set<string>();
  for (const key of ROOT_ARRAYS) {
    const unmatched: number[] = [];
    moved.set(key, follow(arrayOf(from, key), arrayOf(to, key), unmatched));
    for (const j of unmatched) unevaluated.add(`/${key}/${j}`);
  }
  const enabled = new Set(arrayOf(from, 'presets'));
  for (const name of arrayOf(to, 'presets')) if (typeof name === 'string' && !enabled.has(name)) unevaluated.add(`preset:${name}`);
  const byRule = new Map<string, RuleUsage>();
  for (const [pointer, u] of usage.byRule) {
    const m = RULE_POINTER.exec(pointer);
    if (!m) {
      // `preset:NAME` and `default`.
      byRule.set(pointer, u);
      continue;
    }
    const j = moved.get(m[1]!)![Number(m[2])] ?? -1;
    if (j >= 0) byRule.set(`/${m[1]}/${j}${pointer.slice(m[0].length)}`, u);
  }
  return { ...usage, byRule, unevaluated };
}
