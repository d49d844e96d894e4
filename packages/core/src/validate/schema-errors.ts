/**
 * Turns Ajv's output for the policy schema into ONE clear diagnostic per real problem, with a
 * stable code (contracts.md), a pointer, and what to do. Positions are added by the caller.
 */
import type { ErrorObject } from 'ajv';
import { ipOrPrefixProblem, isIpOrPrefix, repositoryPatternProblem } from '../formats/index';
import { CONNECTION_KINDS, SOURCE_KINDS } from '../policy/types';
import type { PresetCatalog } from '../presets/catalog';
import type { DiagnosticCode, DiagnosticData, FixData, RangeTarget } from './types';
import { schemaLookup, schemaLookupPath, type SchemaFragment } from './schema-at';
import { escapeSegment, parsePointer, valueAt } from './pointer';
import { closeMatches, nearestFirst, quote } from './suggest-names';
import { hostPatternProblem, urlProblem } from './explain-format';
import { canonicalJson } from '../json/canonical';

export interface SchemaFinding {
  code: DiagnosticCode;
  pointer: string;
  target: RangeTarget | 'object-key';
  message: string;
  data?: DiagnosticData;
}

function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'object') return 'an object';
  if (typeof v === 'number') return Number.isInteger(v) ? 'an integer' : 'a number';
  return `a ${typeof v}`;
}

/** A short name for what lives at `pointer`, for messages: "`urls` of source 0", "the policy". */
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

function translateOne(error: ErrorObject, root: unknown): SchemaFinding[] {
  const pointer = error.instancePath;
  const { def, schema } = schemaLookup(pointer);
  const last = parsePointer(pointer).at(-1);
  const data = valueAt(root, pointer);
  const keyword = error.keyword;

  switch (keyword) {
    case 'type': {
      const expected = String((error.params as { type: string }).type);
      if (def === 'port' && typeof data === 'number') {
        return [{ code: 'invalid-port', pointer, target: 'value', message: `port ${data} is not an integer from 1 to 65535` }];
      }
      const hint =
        def === 'source' ? ' (a source is an object with one kind, such as {"pypi": {"urls": ["https://pypi.org"]}})' :
        def === 'connection' ? ' (a connection is an object with one kind, such as {"tls": {"serverNamePatterns": ["example.com"], "ports": [443]}})' :
        pointer === '' ? ' (a policy is a JSON object such as {"default": "deny"})' :
        (def === 'port' && typeof data === 'string' && /^\d+$/.test(data)) ? ` (write ${Number(data)} without quotes)` : '';
      const portText = def === 'port' && typeof data === 'string' && /^\d+$/.test(data);
      return [{
        code: 'wrong-type', pointer, target: 'value', message: `${where(pointer)} must be ${expected === 'integer' ? 'an integer' : `${/^[aeiou]/.test(expected) ? 'an' : 'a'} ${expected}`}, not ${typeName(data)}${hint}`,
        ...(portText ? { data: { kind: 'replace' as const, value: Number(data), title: `Change to ${Number(data)}` } } : {}),
      }];
    }
    case 'additionalProperties': {
      const name = String((error.params as { additionalProperty: string }).additionalProperty);
      const allowed = Object.keys(schema?.properties ?? {});
      const close = closeMatches(name, allowed);
      const ordered = nearestFirst(name, allowed);
      // Rename candidates: close names the object does not already have (a rename must not make a duplicate key).
      const free = close.filter((c) => !(data !== null && typeof data === 'object' && Object.prototype.hasOwnProperty.call(data, c)));
      const dym = close.length > 0 ? ` Did you mean \`${close[0]}\`?` : '';
      const isKind = def === 'source' || def === 'connection';
      const what = isKind ? `a ${def} kind` : `a property of ${kindContext(pointer)}`;
      return [{
        code: 'unknown-property', pointer: `${pointer}/${escapeSegment(name)}`, target: 'key',
        message: `${quote(name)} is not ${what}.${dym} Allowed: ${ordered.map((n) => `\`${n}\``).join(', ')}.`,
        ...(free.length > 0 ? { data: { kind: 'rename-key' as const, candidates: free } } : {}),
      }];
    }
    case 'required': {
      if (error.schemaPath.includes('anyOf')) return [];
      const missing = String((error.params as { missingProperty: string }).missingProperty);
      const memberSchema = schema?.properties?.[missing] as SchemaFragment | undefined;
      return [{
        code: 'missing-property', pointer, target: 'object-key', message: `${kindContext(pointer)} is missing required property \`${missing}\``,
        data: { kind: 'insert-member', key: missing, value: skeletonAt([...parsePointer(pointer), missing], memberSchema), title: `Add \`${missing}\`` },
      }];
    }
    case 'anyOf': {
      const [a, b] =
        def === 'gitSource' ? ['https', 'ssh'] :
        def === 'tlsConnection' ? ['serverNamePatterns', 'cidrs'] :
        def === 'tcpConnection' ? ['hostPatterns', 'cidrs'] : ['?', '?'];
      const what = def === 'gitSource' ? 'a `git` source needs `https` or `ssh` (or both) to say how to reach the server' : `${kindContext(pointer)} needs \`${a}\` or \`${b}\` (or both) to say where it may connect`;
      const options = [a, b].filter((k) => schema?.properties?.[k]);
      const fixes: FixData[] = options.map((k) => ({ kind: 'insert-member', key: k, value: skeletonAt([...parsePointer(pointer), k], schema?.properties?.[k]), title: `Add \`${k}\`` }));
      return [{ code: 'missing-target', pointer, target: 'object-key', message: what, ...(fixes.length > 0 ? { data: { kind: 'choices' as const, fixes } } : {}) }];
    }
    case 'minProperties':
    case 'maxProperties': {
      const isSource = def === 'source';
      const kinds: readonly string[] = isSource ? SOURCE_KINDS : CONNECTION_KINDS;
      const members = data && typeof data === 'object' ? Object.keys(data) : [];
      const recognised = members.filter((m) => kinds.includes(m));
      const unknown = members.length - recognised.length;
      // Unknown members get unknown-property only; the kind count is about recognised members.
      if (recognised.length === 1 || (recognised.length === 0 && unknown > 0)) return [];
      const label = isSource ? 'source' : 'connection';
      const all = kinds.map((k) => `\`${k}\``).join(', ');
      const count = isSource ? 'ten' : 'four';
      const words = ['none', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten'];
      const has = recognised.length === 0 ? 'this one is empty' : `this one has ${words[recognised.length]}: ${recognised.map((k) => `\`${k}\``).join(' and ')}`;
      return [{
        code: isSource ? 'source-kind' : 'connection-kind', pointer, target: 'value',
        message: `a ${label} has exactly one of the ${count} kinds (${all}); ${has}${recognised.length > 1 ? `. Split it into ${words[recognised.length]} ${label}s` : ''}`,
      }];
    }
    case 'enum': {
      const allowed = ((error.params as { allowedValues: unknown[] }).allowedValues ?? []).map(String);
      const got = typeof data === 'string' ? data : JSON.stringify(data);
      const close = typeof data === 'string' ? closeMatches(data, allowed) : [];
      const ordered = typeof data === 'string' ? nearestFirst(data, allowed) : allowed;
      const dym = close.length > 0 ? ` Did you mean \`${close[0]}\`?` : '';
      const list = ordered.map((n) => `\`${n}\``).join(', ');
      const fix: DiagnosticData | undefined = close.length > 0 ? { kind: 'replace', value: close[0], title: `Change to ${close[0]}` } : undefined;
      return [{ code: 'invalid-value', pointer, target: 'value', message: `${quote(got)} is not allowed for ${where(pointer)}.${dym} Allowed: ${list}.`, data: fix }];
    }
    case 'pattern': {
      const text = String(data);
      if (def === 'url') {
        return [{ code: 'invalid-url', pointer, target: 'value', message: `${quote(text)} is not a valid URL: ${urlProblem(text)}` }];
      }
      if (def === 'hostPattern') {
        return [{ code: 'invalid-host-pattern', pointer, target: 'value', message: `${quote(text)} is not a valid host pattern: ${hostPatternProblem(text)}` }];
      }
      if (last === 'purlNamespace') {
        return [{ code: 'invalid-purl-namespace', pointer, target: 'value', message: `${quote(text)} is not a valid package-URL namespace: use lowercase letters, digits, \`.\`, \`_\` or \`-\`, starting with a letter or digit (such as \`debian\`), or leave it empty` }];
      }
      return [{ code: 'invalid-value', pointer, target: 'value', message: `${quote(text)} is not valid here (${error.message})` }];
    }
    case 'format': {
      const format = String((error.params as { format: string }).format);
      const text = String(data);
      if (format === 'repository-pattern') {
        return [{ code: 'invalid-repository-pattern', pointer, target: 'value', message: `${quote(text)} is not a valid repository pattern: ${repositoryPatternProblem(text) ?? 'invalid'}` }];
      }
      if (format === 'ipv4-or-prefix' && text.includes(':') && isIpOrPrefix(text)) {
        return [{ code: 'ipv6-not-allowed', pointer, target: 'value', message: `${quote(text)} is IPv6: ${parsePointer(pointer).includes('icmp') ? 'icmp' : 'udp'} rules take IPv4 addresses and prefixes only (use a tls or tcp rule for IPv6)` }];
      }
      const problem = ipOrPrefixProblem(text, format === 'ipv4-or-prefix') ?? 'invalid';
      return [{ code: 'invalid-cidr', pointer, target: 'value', message: `${quote(text)} is not a valid ${format === 'ipv4-or-prefix' ? 'IPv4 address or prefix' : 'IP address or prefix'}: ${problem}` }];
    }
    case 'minimum':
    case 'maximum':
      return [{ code: 'invalid-port', pointer, target: 'value', message: `port ${String(data)} is outside 1 to 65535` }];
    case 'minItems':
      return [{ code: 'empty-array', pointer, target: 'value', message: `${where(pointer)} must not be empty: list at least one item${parsePointer(pointer).at(-1) === 'ports' ? ' (a tls rule needs its ports, such as [443])' : ''}` }];
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
