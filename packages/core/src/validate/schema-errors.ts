/**
 * Turns Ajv's output for the policy schema into ONE clear diagnostic per real problem, with a
 * stable code (docs/diagnostics/README.md), a pointer, and what to do. Positions are added by the caller.
 *
 * Messages are built from the schema and Ajv's error params, not restated here: allowed names
 * from `properties`, allowed values from `enum`, ranges from `minimum`/`maximum`, alternatives
 * from `anyOf`, the kinds of a source or connection from its `properties`, what a value is from
 * its `title`, and examples from `examples` (or a skeleton built from the schema). What is ours
 * alone stays here: which code a definition's values get, and the plain-words reason a text
 * breaks a format (formats/, pattern-problems.ts).
 */
import type { ErrorObject } from 'ajv';
import { ipOrPrefixProblem, isIpOrPrefix } from '../formats/ip';
import { repositoryPatternProblem } from '../formats/repository-pattern';
import type { PresetCatalog } from '../presets/catalog';
import type { DiagnosticCode, DiagnosticData, FixData, RangeTarget } from './types';
import { schemaLookup, schemaLookupPath, type SchemaFragment } from './schema-at';
import { escapeSegment, parsePointer, valueAt } from './pointer';
import { closeMatches, nearestFirst, quote } from './suggest-names';
import { hostPatternProblem, urlProblem } from './pattern-problems';
import { canonicalJson } from '../json/canonical';

export interface SchemaFinding {
  code: DiagnosticCode;
  pointer: string;
  target: RangeTarget | 'object-key';
  message: string;
  data?: DiagnosticData;
}

/** The code of a value that breaks the rule of a schema definition (`$defs` name) or format. */
const VALUE_CODES: Readonly<Record<string, DiagnosticCode>> = {
  url: 'invalid-url',
  hostPattern: 'invalid-host-pattern',
  port: 'invalid-port',
  purlNamespace: 'invalid-purl-namespace',
  'repository-pattern': 'invalid-repository-pattern',
  'ip-or-prefix': 'invalid-cidr',
  'ipv4-or-prefix': 'invalid-cidr',
};

/** The code of an object that has not exactly one kind, by definition. */
const KIND_CODES: Readonly<Record<string, DiagnosticCode>> = { source: 'source-kind', connection: 'connection-kind' };

/** The reason a text breaks a pattern or format, in plain words, by definition or format name. */
const PROBLEMS: Readonly<Record<string, (text: string, schema: SchemaFragment) => string>> = {
  url: urlProblem,
  hostPattern: hostPatternProblem,
  'repository-pattern': (text) => repositoryPatternProblem(text) ?? 'invalid',
  'ip-or-prefix': (text) => ipOrPrefixProblem(text, false) ?? 'invalid',
  'ipv4-or-prefix': (text) => ipOrPrefixProblem(text, true) ?? 'invalid',
};

const NUMBER_WORDS = ['none', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve'];
const words = (n: number) => NUMBER_WORDS[n] ?? String(n);
const names = (list: readonly string[], join = ', ') => list.map((n) => `\`${n}\``).join(join);

function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'object') return 'an object';
  if (typeof v === 'number') return Number.isInteger(v) ? 'an integer' : 'a number';
  return `a ${typeof v}`;
}

const article = (word: string) => (/^[aeiou]/i.test(word) ? `an ${word}` : `a ${word}`);

/** A short name for what lives at `pointer`, for messages: "item 2 of `urls`", "`ports`", "the policy". */
function where(pointer: string): string {
  const segs = parsePointer(pointer);
  if (segs.length === 0) return 'the policy';
  const last = segs[segs.length - 1];
  if (/^\d+$/.test(last) && segs.length >= 2) return `item ${last} of \`${segs[segs.length - 2]}\``;
  return `\`${last}\``;
}

/** "/sources/0/pypi" -> "the `pypi` source", "/connections/1/tls" -> "the `tls` connection", else `where`. */
function kindContext(pointer: string): string {
  const segs = parsePointer(pointer);
  const [list, index, kind] = segs.slice(-3);
  if (segs.length === 3 && (list === 'sources' || list === 'connections') && /^\d+$/.test(index)) {
    return `the \`${kind}\` ${list === 'sources' ? 'source' : 'connection'}`;
  }
  return where(pointer);
}

function uniqueDuplicates(items: unknown[]): Array<{ later: number; first: number }> {
  const seen = new Map<string, number>();
  const out: Array<{ later: number; first: number }> = [];
  items.forEach((item, index) => {
    const key = canonicalJson(item);
    const first = seen.get(key);
    if (first === undefined) seen.set(key, index);
    else out.push({ later: index, first });
  });
  return out;
}

/** `{"a": 1, "b": [2, 3]}`: a value on one line, the way a person writes it in a message. */
function inlineJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(inlineJson).join(', ')}]`;
  if (value !== null && typeof value === 'object') return `{${Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}: ${inlineJson(v)}`).join(', ')}}`;
  return JSON.stringify(value) ?? 'null';
}

/** ` (a source is a JSON object with one kind, such as …)` from the schema's first example, or ''. */
function exampleHint(schema: SchemaFragment | undefined, what: string): string {
  const example = schema?.examples?.[0];
  if (example === undefined) return '';
  const kind = schema?.type === 'object' ? `a JSON object${schema.maxProperties === 1 ? ' with one kind' : ''}` : article(String(schema?.type));
  return ` (${what} is ${kind}, such as ${inlineJson(example)})`;
}

function translateOne(error: ErrorObject, root: unknown): SchemaFinding[] {
  const pointer = error.instancePath;
  const { def, schema } = schemaLookup(pointer);
  const data = valueAt(root, pointer);
  const params = error.params as Record<string, any>;
  const valueCode = (fallback: DiagnosticCode): DiagnosticCode => (def ? VALUE_CODES[def] : undefined) ?? (schema?.format ? VALUE_CODES[schema.format] : undefined) ?? fallback;
  const title = schema?.title ?? where(pointer);

  switch (error.keyword) {
    case 'type': {
      const expected = String(params.type);
      if (expected === 'integer' && typeof data === 'number') {
        return [{ code: valueCode('invalid-value'), pointer, target: 'value', message: `${title} ${data} is not an integer from ${schema?.minimum} to ${schema?.maximum}` }];
      }
      const digits = expected === 'integer' && typeof data === 'string' && /^\d+$/.test(data) ? Number(data) : undefined;
      const hint = digits !== undefined ? ` (write ${digits} without quotes)` : exampleHint(schema, pointer === '' ? 'a policy' : article(schema?.title ?? 'value'));
      return [{
        code: 'wrong-type', pointer, target: 'value', message: `${where(pointer)} must be ${article(expected)}, not ${typeName(data)}${hint}`,
        ...(digits !== undefined ? { data: { kind: 'replace' as const, value: digits, title: `Change to ${digits}` } } : {}),
      }];
    }
    case 'additionalProperties': {
      const name = String(params.additionalProperty);
      const allowed = Object.keys(schema?.properties ?? {});
      const close = closeMatches(name, allowed);
      // Rename candidates: close names the object does not already have (a rename must not make a duplicate key).
      const free = close.filter((c) => !(data !== null && typeof data === 'object' && Object.prototype.hasOwnProperty.call(data, c)));
      const dym = close.length > 0 ? ` Did you mean \`${close[0]}\`?` : '';
      // An object that holds exactly one member is a choice of kinds (a source, a connection).
      const what = schema?.maxProperties === 1 ? `${article(schema.title ?? def ?? 'value')} kind` : `a property of ${kindContext(pointer)}`;
      return [{
        code: 'unknown-property', pointer: `${pointer}/${escapeSegment(name)}`, target: 'key',
        message: `${quote(name)} is not ${what}.${dym} Allowed: ${names(nearestFirst(name, allowed))}.`,
        ...(free.length > 0 ? { data: { kind: 'rename-key' as const, candidates: free } } : {}),
      }];
    }
    case 'required': {
      if (error.schemaPath.includes('anyOf')) return [];
      const missing = String(params.missingProperty);
      return [{
        code: 'missing-property', pointer, target: 'object-key', message: `${kindContext(pointer)} is missing required property \`${missing}\``,
        data: { kind: 'insert-member', key: missing, value: skeletonAt([...parsePointer(pointer), missing], schema?.properties?.[missing]), title: `Add \`${missing}\`` },
      }];
    }
    case 'anyOf': {
      // Each branch requires one member: the alternatives, in the schema's order.
      const alternatives = ((schema?.anyOf ?? []) as SchemaFragment[]).flatMap((branch) => (branch.required ?? []) as string[]);
      const purpose = pointer.startsWith('/sources/') ? 'to say how to reach the server' : 'to say where it may connect';
      const fixes: FixData[] = alternatives.map((k) => ({ kind: 'insert-member', key: k, value: skeletonAt([...parsePointer(pointer), k], schema?.properties?.[k]), title: `Add \`${k}\`` }));
      return [{
        code: 'missing-target', pointer, target: 'object-key',
        message: `${kindContext(pointer)} needs ${names(alternatives, ' or ')}${alternatives.length === 2 ? ' (or both)' : ''} ${purpose}`,
        ...(fixes.length > 0 ? { data: { kind: 'choices' as const, fixes } } : {}),
      }];
    }
    case 'minProperties':
    case 'maxProperties': {
      const kinds = Object.keys(schema?.properties ?? {});
      const members = data && typeof data === 'object' ? Object.keys(data) : [];
      const recognised = members.filter((m) => kinds.includes(m));
      // Unknown members get unknown-property only; the kind count is about recognised members.
      if (recognised.length === 1 || (recognised.length === 0 && members.length > 0)) return [];
      const label = schema?.title ?? def ?? 'value';
      const has = recognised.length === 0 ? 'this one is empty' : `this one has ${words(recognised.length)}: ${names(recognised, ' and ')}`;
      return [{
        code: (def ? KIND_CODES[def] : undefined) ?? 'invalid-value', pointer, target: 'value',
        message: `${article(label)} has exactly one of the ${words(kinds.length)} kinds (${names(kinds)}); ${has}${recognised.length > 1 ? `. Split it into ${words(recognised.length)} ${label}s` : ''}`,
      }];
    }
    case 'enum': {
      const allowed = ((params.allowedValues ?? []) as unknown[]).map(String);
      const got = typeof data === 'string' ? data : JSON.stringify(data);
      const close = typeof data === 'string' ? closeMatches(data, allowed) : [];
      const ordered = typeof data === 'string' ? nearestFirst(data, allowed) : allowed;
      const dym = close.length > 0 ? ` Did you mean \`${close[0]}\`?` : '';
      const fix: DiagnosticData | undefined = close.length > 0 ? { kind: 'replace', value: close[0], title: `Change to ${close[0]}` } : undefined;
      return [{ code: 'invalid-value', pointer, target: 'value', message: `${quote(got)} is not allowed for ${where(pointer)}.${dym} Allowed: ${names(ordered)}.`, ...(fix ? { data: fix } : {}) }];
    }
    case 'pattern':
    case 'format': {
      const text = String(data);
      const rule = error.keyword === 'format' ? String(params.format) : def ?? '';
      if (rule === 'ipv4-or-prefix' && text.includes(':') && isIpOrPrefix(text)) {
        const kind = parsePointer(pointer).find((s) => s === 'udp' || s === 'icmp') ?? 'this';
        return [{ code: 'ipv6-not-allowed', pointer, target: 'value', message: `${quote(text)} is IPv6: ${kind} rules take ${schema?.title ?? 'IPv4 address or prefix'}es only (use a tls or tcp rule for IPv6)`.replace('address or prefixes', 'addresses and prefixes') }];
      }
      const what = schema?.title ? `a valid ${schema.title}` : `valid for ${where(pointer)}`;
      const problem = PROBLEMS[rule]?.(text, schema ?? {});
      const message = problem !== undefined ? `${quote(text)} is not ${what}: ${problem}` : `${quote(text)} is not ${what}. ${schema?.description ?? error.message ?? ''}`.trim();
      return [{ code: valueCode('invalid-value'), pointer, target: 'value', message }];
    }
    case 'minimum':
    case 'maximum':
      return [{ code: valueCode('invalid-value'), pointer, target: 'value', message: `${title} ${String(data)} is outside ${schema?.minimum} to ${schema?.maximum}` }];
    case 'minItems': {
      const example = skeleton(schema);
      const hint = Array.isArray(example) && example.length > 0 ? `, such as ${JSON.stringify(example)}` : '';
      return [{ code: 'empty-array', pointer, target: 'value', message: `${where(pointer)} must not be empty: list at least ${words(Number(params.limit))} item${Number(params.limit) === 1 ? '' : 's'}${hint}` }];
    }
    case 'uniqueItems': {
      if (!Array.isArray(data)) return [];
      return uniqueDuplicates(data).map(({ later, first }) => ({
        code: 'duplicate-item' as const, pointer: `${pointer}/${later}`, target: 'value' as const,
        message: `${quote(typeof data[later] === 'string' ? (data[later] as string) : canonicalJson(data[later]))} appears again in \`${parsePointer(pointer).at(-1)}\` (first at index ${first}); remove the duplicate`,
        data: { kind: 'remove-element' as const, title: 'Remove the duplicate item' },
      }));
    }
    case 'minLength':
      return [{ code: 'invalid-value', pointer, target: 'value', message: `${where(pointer)} must not be an empty string` }];
    default:
      return [{ code: 'invalid-value', pointer, target: 'value', message: `${where(pointer)}: ${error.message ?? 'invalid'}` }];
  }
}

/**
 * A value that satisfies `schema` as far as a skeleton can: its `examples[0]`, `default` or first
 * `enum` value; objects with their required members; arrays with one item when they need one.
 */
export function skeleton(schema: SchemaFragment | undefined, depth = 0): unknown {
  if (!schema || depth > 8) return null;
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  if (schema.default !== undefined) return schema.default;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  switch (schema.type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const key of (schema.required ?? []) as string[]) out[key] = skeleton(resolve(schema.properties?.[key]), depth + 1);
      return out;
    }
    case 'array':
      return (schema.minItems ?? 0) > 0 ? [skeleton(resolve(schema.items), depth + 1)] : [];
    case 'integer':
    case 'number':
      return schema.minimum ?? 0;
    case 'boolean':
      return false;
    default:
      return '';
  }
}

function resolve(schema: SchemaFragment | undefined): SchemaFragment | undefined {
  if (schema && typeof schema.$ref === 'string') return schemaLookupPath([]).schema?.$defs?.[schema.$ref.replace('#/$defs/', '')];
  return schema;
}

/** The skeleton of the value at a path (the schema found through the path, references followed). */
function skeletonAt(path: string[], fallback: SchemaFragment | undefined): unknown {
  return skeleton(schemaLookupPath(path).schema ?? resolve(fallback));
}

/**
 * `unknown-preset` for each string in `presets` that the catalog in force does not define: the
 * one place preset names are checked (the schema leaves them to the catalog, so a user catalog's
 * presets are valid names).
 */
export function presetNameFindings(root: unknown, catalog: PresetCatalog): SchemaFinding[] {
  if (root === null || typeof root !== 'object' || Array.isArray(root)) return [];
  const presets = Object.prototype.hasOwnProperty.call(root, 'presets') ? (root as Record<string, unknown>).presets : undefined;
  if (!Array.isArray(presets)) return [];
  const out: SchemaFinding[] = [];
  let names: string[] | undefined;
  presets.forEach((name, index) => {
    if (typeof name !== 'string' || catalog.byName.has(name)) return;
    names ??= catalog.presets.map((p) => p.name);
    const close = closeMatches(name, names);
    const dym = close.length > 0 ? ` Did you mean \`${close[0]}\`?` : '';
    const list = nearestFirst(name, names).map((n) => `\`${n}\``).join(', ');
    out.push({
      code: 'unknown-preset', pointer: `/presets/${index}`, target: 'value',
      message: `unknown preset ${quote(name)}.${dym} Presets: ${list}.`,
      ...(close.length > 0 ? { data: { kind: 'replace' as const, value: close[0], title: `Change to ${close[0]}` } } : {}),
    });
  });
  return out;
}

/** Translates and de-duplicates Ajv errors. A wrong type hides every other problem at or below it. */
export function translateSchemaErrors(errors: readonly ErrorObject[], root: unknown): SchemaFinding[] {
  const wrongTypeAt = new Set<string>();
  const translated: SchemaFinding[] = [];
  for (const error of errors) {
    for (const finding of translateOne(error, root)) {
      if (finding.code === 'wrong-type') wrongTypeAt.add(finding.pointer);
      translated.push(finding);
    }
  }
  const seen = new Set<string>();
  const out: SchemaFinding[] = [];
  for (const f of translated) {
    if (f.code !== 'wrong-type' && [...ancestorsOf(f.pointer)].some((p) => wrongTypeAt.has(p))) continue;
    const key = `${f.code}\u0000${f.pointer}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(f);
  }
  return out;
}

function* ancestorsOf(pointer: string): Generator<string> {
  yield pointer;
  let p = pointer;
  while (p !== '') {
    p = p.slice(0, p.lastIndexOf('/'));
    yield p;
  }
}
