/**
 * The smallest policy addition that allows a denied access (explain's `fix`, docs/cli.md): a JSON-Patch
 * style add. Prefers enabling a preset, then an ecosystem source, then a narrow connection.
 * Every fix is checked: with it applied, the model allows the access.
 */
import { defaultPresetCatalog } from '../presets/catalog';
import type { Connection, Policy, Source } from '../policy/types';
import type { Access } from './access';
import { CompiledPolicy } from './evaluate';
import { anyPermits } from './naive';
import { connectionFor, sourceForRequest, sourceForSsh } from './recognise';
import { policyRules, type EvalOptions } from './rules';
import { httpsForm } from './suggest';
import { parseUrl, type ParsedUrl } from './url';

export interface Fix {
  /** RFC 6901 pointer where to add: `/sources/-` appends; `/sources` when the policy has no sources yet. */
  pointer: string;
  value: unknown;
  /** Why this fix differs from what the job did (a plain-http request gets the https rule: the job should use https). */
  note?: string;
}

function addTo(policy: Policy, member: 'presets' | 'sources' | 'connections', item: unknown): Fix {
  return (policy as Record<string, unknown>)[member] === undefined ? { pointer: `/${member}`, value: [item] } : { pointer: `/${member}/-`, value: item };
}

/** Applies a fix (as `netpolicy` proposes them) to a copy of the policy. */
export function applyFix(policy: Policy, fix: Fix): Policy {
  const copy = structuredClone(policy) as Record<string, unknown>;
  const parts = fix.pointer.split('/').slice(1);
  if (parts.length === 1) copy[parts[0]] = fix.value;
  else (copy[parts[0]] as unknown[]).push(fix.value);
  return copy as Policy;
}

/**
 * Adding a rule only adds permissions, so a fix allows the access exactly when the added item
 * alone permits it: checked by the naive evaluator on the item's own rules (no policy compiled,
 * whatever the size of the user's). A preset is proved by `presetsPermitting`, which found it.
 */
function allows(fix: Fix, a: Access, options: EvalOptions): boolean {
  const member = fix.pointer.split('/')[1];
  const item = Array.isArray(fix.value) ? fix.value[0] : fix.value;
  if (member === 'presets') return presetsPermitting(a, options).includes(item as string);
  return anyPermits(policyRules({ presets: [], [member]: [item] } as Policy, options), a);
}

const presetPolicies = new WeakMap<object, { name: string; compiled: CompiledPolicy }[]>();

/** The presets of the catalog whose known contents permit the access, in catalog order. */
export function presetsPermitting(a: Access, options: EvalOptions = {}): string[] {
  const catalog = options.catalog ?? defaultPresetCatalog;
  let compiled = presetPolicies.get(catalog);
  if (!compiled) {
    compiled = catalog.presets.filter((p) => !p.opaque && p.known).map((p) => ({ name: p.name, compiled: new CompiledPolicy({ presets: [p.name as never] }, options) }));
    presetPolicies.set(catalog, compiled);
  }
  return compiled.filter((p) => p.compiled.firstPermitting(a)).map((p) => p.name);
}

/** The fix for a denied access, or null when no addition can be derived from what was recorded. */
export function fixFor(policy: Policy, a: Access, options: EvalOptions = {}, parsed?: ParsedUrl | null): Fix | null {
  const secure = httpsForm(a);
  if (secure) {
    // Nothing to add when the policy already allows the https form: the job only has to use it.
    // (A scan of the policy's rules, once per distinct plain-http destination.)
    if (anyPermits(policyRules(policy, options), secure)) return null;
    const fix = fixFor(policy, secure, options);
    // A rule that also allows the http request as made (a preset listing http mirrors) needs no note.
    if (!fix || allows(fix, a, options)) return fix;
    return { ...fix, note: `the job used plain http (${(a as { url: string }).url}): this rule allows its https form only (an http:// rule is flagged insecure-url); make the job use ${secure.url}` };
  }
  const tries: Fix[] = [];
  if (policy.presets !== undefined) {
    const preset = presetsPermitting(a, options).find((n) => !policy.presets!.includes(n as never));
    if (preset) tries.push(addTo(policy, 'presets', preset));
  }
  let source: Source | undefined;
  if (a.kind === 'http') {
    const url = parsed === undefined ? parseUrl(a.url) : parsed;
    if (url) source = sourceForRequest(url, a.method);
  } else if (a.kind === 'ssh') source = sourceForSsh(a);
  if (source) tries.push(addTo(policy, 'sources', source));
  const connection: Connection | undefined = connectionFor(a);
  if (connection) tries.push(addTo(policy, 'connections', connection));
  for (const fix of tries) if (allows(fix, a, options)) return fix;
  return null;
}
