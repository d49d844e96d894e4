/**
 * The smallest policy addition that allows a denied access (explain's `fix`, docs/cli.md): a JSON-Patch
 * style add. Prefers enabling a preset, then an ecosystem source, then a narrow connection.
 * Every fix is checked: with it applied, the model allows the access. A plain-http request whose
 * https form the policy already allows gets a fix for the job instead (`kind: 'job'`).
 */
import { defaultPresetCatalog } from '../presets/catalog';
import type { Connection, Policy, Source } from '../policy/types';
import type { Access } from './access';
import { CompiledPolicy, compilePolicy } from './evaluate';
import { checkAccess } from './inputs';
import { checkPolicy } from '../validate/policy-check';
import { anyPermits } from './naive';
import { connectionFor, sourceForRequest, sourceForSsh } from './recognise';
import { itemRules, type EvalOptions } from './rules';
import { httpsForm } from './https-form';
import { parseUrl, type ParsedUrl } from './url';

/**
 * A change to the policy: an addition (`kind` absent: explain's JSON keeps the shape it always had).
 * @public
 */
export interface Fix {
  kind?: 'policy';
  /** RFC 6901 pointer where to add: `/sources/-` appends; `/sources` when the policy has no sources yet. */
  pointer: string;
  value: unknown;
  /** Why this fix differs from what the job did (a plain-http request gets the https rule: the job should use https). */
  note?: string;
}

/**
 * A change to the job, none to the policy: the job made a plain-http request whose https form
 * the policy already allows (an `http://` rule would be flagged insecure-url).
 * @public
 */
export interface JobFix {
  kind: 'job';
  /** What to change in the job, in words. */
  note: string;
  /** The request the job should make instead (the https form of the URL it used). */
  url: string;
}

/**
 * explain's `fix` of a denial: a policy addition, or a change to the job (`kind: 'job'`).
 * @public
 */
export type DenialFix = Fix | JobFix;

/**
 * Whether a denial's fix is a policy addition (what `applyFix`, `denialFixEdits` and `--apply` take).
 * @public
 */
export function isPolicyFix(fix: DenialFix | null | undefined): fix is Fix {
  return fix != null && fix.kind !== 'job';
}

function addTo(policy: Policy, member: 'presets' | 'sources' | 'connections', item: unknown): Fix {
  return (policy as Record<string, unknown>)[member] === undefined ? { pointer: `/${member}`, value: [item] } : { pointer: `/${member}/-`, value: item };
}

/**
 * Applies a fix (as `netpolicy` proposes them: a new rule, or a near miss's widening) to a copy of
 * the policy: RFC 6901 pointer, `-` appends; a missing last member is created.
 * @public
 */
export function applyFix(policy: Policy, fix: Fix): Policy {
  const copy = structuredClone(policy) as Record<string, unknown>;
  const parts = fix.pointer.split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  let at: unknown = copy;
  for (let i = 0; i < parts.length - 1; i++) {
    const next = (at as Record<string, unknown>)[parts[i]];
    if (next === undefined && i === parts.length - 2 && parts[i + 1] === '-') {
      (at as Record<string, unknown>)[parts[i]] = [fix.value];
      return copy as Policy;
    }
    at = next;
  }
  const last = parts[parts.length - 1];
  if (Array.isArray(at) && last === '-') at.push(fix.value);
  else Object.defineProperty(at as object, last, { value: fix.value, enumerable: true, writable: true, configurable: true });
  return copy as Policy;
}

/**
 * Adding a rule only adds permissions, so a fix allows the access exactly when the added item
 * alone permits it: checked by the naive evaluator on the item's own rules (no policy compiled,
 * whatever the size of the user's). A preset is proved by `presetsPermitting`, which found it.
 */
function allows(fix: Fix, a: Access, options: EvalOptions, parsed: ParsedUrl | null | undefined): boolean {
  const member = fix.pointer.split('/')[1];
  const item = Array.isArray(fix.value) ? fix.value[0] : fix.value;
  if (member === 'presets') return compiledPresets(options).each.some((p) => p.name === item && p.compiled.firstPermitting(a, parsed) !== undefined);
  return anyPermits(itemRules(member, item), a, parsed);
}

const presetPolicies = new WeakMap<object, { all: CompiledPolicy; each: { name: string; compiled: CompiledPolicy }[] }>();

function compiledPresets(options: EvalOptions) {
  const catalog = options.catalog ?? defaultPresetCatalog;
  let compiled = presetPolicies.get(catalog);
  if (!compiled) {
    const known = catalog.presets.filter((p) => !p.opaque && p.known);
    compiled = {
      all: new CompiledPolicy({ presets: known.map((p) => p.name as never) }, options),
      each: known.map((p) => ({ name: p.name, compiled: new CompiledPolicy({ presets: [p.name as never] }, options) })),
    };
    presetPolicies.set(catalog, compiled);
  }
  return compiled;
}

/** The presets of the catalog whose known contents permit the access, in catalog order (`parsed`: its URL, already parsed). */
export function presetsPermitting(a: Access, options: EvalOptions = {}, parsed?: ParsedUrl | null): string[] {
  return compiledPresets(options).each.filter((p) => p.compiled.firstPermitting(a, parsed)).map((p) => p.name);
}

/**
 * The first preset in catalog order that permits the access and is not `enabled`: one lookup in
 * a policy enabling every known preset (its first permitting rule is that preset), the list
 * only when the first is already enabled.
 */
function presetToEnable(a: Access, enabled: readonly string[], options: EvalOptions, parsed: ParsedUrl | null | undefined): string | undefined {
  const first = compiledPresets(options).all.firstPermitting(a, parsed);
  if (!first) return undefined;
  const name = first.id.slice('preset:'.length);
  return enabled.includes(name) ? presetsPermitting(a, options, parsed).find((n) => !enabled.includes(n)) : name;
}

/**
 * The fix for a denied access, or null when no addition can be derived from what was recorded.
 * `parsed`: an http access's URL already parsed (null when it does not parse), else parsed here;
 * every step below reuses that one parse.
 * @public
 */
export function fixFor(policy: Policy, a: Access, options: EvalOptions = {}, parsed?: ParsedUrl | null): DenialFix | null {
  checkPolicy(policy, 'fixFor');
  checkAccess(a, 'fixFor');
  if (a.kind === 'http' && parsed === undefined) parsed = parseUrl(a.url) ?? null;
  const secure = a.kind === 'http' ? httpsForm(a, parsed) : undefined;
  if (a.kind === 'http' && secure) {
    const secureUrl = parseUrl(secure.url) ?? null;
    // Nothing to add when the policy already allows the https form: the job only has to use it.
    // Asked of the compiled policy's indexes (compiled once per policy): a scan of every rule per
    // plain-http destination made a trace of distinct URLs 9x slower.
    if (compilePolicy(policy, options).firstPermitting(secure, secureUrl) !== undefined) {
      return { kind: 'job', note: `make the job use ${secure.url}; the policy already allows it (the job used plain http: ${a.url})`, url: secure.url };
    }
    const fix = additionFor(policy, secure, options, secureUrl);
    // A rule that also allows the http request as made (a preset listing http mirrors, a tcp rule)
    // needs no note. A source made from the https form lists https URLs only: it never does.
    if (!fix || (!fix.pointer.startsWith('/sources') && allows(fix, a, options, parsed))) return fix;
    return { ...fix, note: `the job used plain http (${a.url}): this rule allows its https form only (an http:// rule is flagged insecure-url); make the job use ${secure.url}` };
  }
  return additionFor(policy, a, options, parsed);
}

/** The smallest addition that allows the access as made (a preset, a source, a connection), or null. */
function additionFor(policy: Policy, a: Access, options: EvalOptions, parsed: ParsedUrl | null | undefined): Fix | null {
  const tries: Fix[] = [];
  if (policy.presets !== undefined) {
    const preset = presetToEnable(a, policy.presets as readonly string[], options, parsed);
    if (preset) tries.push(addTo(policy, 'presets', preset));
  }
  let source: Source | undefined;
  if (a.kind === 'http') {
    if (parsed) source = sourceForRequest(parsed, a.method);
  } else if (a.kind === 'ssh') source = sourceForSsh(a);
  if (source) tries.push(addTo(policy, 'sources', source));
  const connection: Connection | undefined = connectionFor(a, parsed);
  if (connection) tries.push(addTo(policy, 'connections', connection));
  for (const fix of tries) if (allows(fix, a, options, parsed)) return fix;
  return null;
}
