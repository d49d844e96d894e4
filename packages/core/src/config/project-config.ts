/**
 * The project file `netpolicy.config.json` (schemas/netpolicy-config.schema.json): read alike by
 * `netpolicy check` and the language server, so an editor and CI agree. Pure: the caller reads
 * the file; paths in it are resolved against the file's folder here. A bad member is an error
 * diagnostic with its position (and the member is left out), never silently ignored.
 */
import type { ErrorObject } from 'ajv';
import { configSchema } from '../generated/data';
import { netpolicyConfigValidator } from '../generated/validators-config';
import { usableGlobPatterns } from '../files/glob';
import { parsePolicyDocument, type PolicyDocument } from '../validate/document';
import { Locator } from '../validate/locate';
import { escapeSegment, parsePointer, valueAt } from '../validate/pointer';
import { closeMatches, nearestFirst, quote } from '../validate/suggest-names';
import type { Diagnostic, DiagnosticCode, SeverityOptions } from '../validate/types';

/**
 * The file name `check` looks for upward from each policy file, and the server at the workspace root.
 * @public
 */
export const PROJECT_CONFIG_FILE = 'netpolicy.config.json';

/**
 * A project's `netpolicy.config.json` as read: its paths resolved against its folder.
 * @public
 */
export interface ProjectConfig {
  /** The folder of the config file: `filePatterns` match paths relative to it. */
  root: string;
  /** The preset catalog file, resolved against `root`. */
  presetCatalog?: string;
  /** More policy file globs (for `isPolicyFile(relativePath, filePatterns)`). */
  filePatterns?: string[];
  /** Trace files or folders, resolved against `root`. */
  traces?: string[];
  /** Severity per lint code, or `off`. */
  severity?: SeverityOptions;
}

/**
 * What `parseProjectConfig` returns: what could be read of the file, and its problems (the rest is still usable).
 * @public
 */
export interface ProjectConfigResult {
  config: ProjectConfig;
  /** Errors in the file (syntax, unknown members, wrong types, bad values), with offsets into `text`. */
  diagnostics: Diagnostic[];
}

/**
 * Parses a config file. JSONC is accepted (comments and trailing commas), as in editor settings files.
 * @public
 */
export function parseProjectConfig(text: string, fileName: string): ProjectConfigResult {
  const root = dirname(fileName);
  const doc = parsePolicyDocument(text, { fileName, jsonc: true });
  const diagnostics: Diagnostic[] = [...doc.syntaxDiagnostics];
  const config: ProjectConfig = { root };
  if (doc.syntaxFailed) return { config, diagnostics };
  if (doc.value === null || typeof doc.value !== 'object' || Array.isArray(doc.value)) {
    diagnostics.push({ code: 'wrong-type', severity: 'error', message: 'a netpolicy config is a JSON object such as {"severity": {"broad-cidr": "error"}}', pointer: '', offset: doc.root?.offset ?? 0, length: doc.root?.length ?? 0 });
    return { config, diagnostics };
  }
  const bad = new Set<string>();
  if (!netpolicyConfigValidator(doc.value)) {
    const locator = new Locator(doc);
    for (const e of netpolicyConfigValidator.errors ?? []) {
      const d = translate(e, doc.value);
      if (!d) continue;
      bad.add(parsePointer(d.pointer)[0] ?? '');
      const range = locator.range(d.pointer, d.code === 'unknown-property' ? 'key' : 'value');
      if (diagnostics.some((x) => x.code === d.code && x.pointer === d.pointer)) continue;
      diagnostics.push({ ...d, severity: 'error', ...range });
    }
  }
  const value = doc.value as Record<string, unknown>;
  const take = (key: string) => (bad.has(key) || value[key] === null ? undefined : value[key]);
  const catalog = take('presetCatalog');
  if (typeof catalog === 'string') config.presetCatalog = resolvePath(root, catalog);
  const patterns = take('filePatterns');
  if (Array.isArray(patterns)) config.filePatterns = usablePatterns(patterns as string[], doc, diagnostics);
  const traces = take('traces');
  if (Array.isArray(traces)) config.traces = (traces as string[]).map((t) => resolvePath(root, t));
  const severity = take('severity');
  if (severity && typeof severity === 'object') config.severity = { ...(severity as SeverityOptions) };
  diagnostics.sort((a, b) => a.offset - b.offset);
  return { config, diagnostics };
}

/**
 * The patterns a glob can match; one with too many `{}` alternatives is an error on it (and left
 * out), and so are all of them past the total bound (an error on `filePatterns`).
 */
function usablePatterns(patterns: string[], doc: PolicyDocument, diagnostics: Diagnostic[]): string[] {
  const { usable, problems } = usableGlobPatterns(patterns);
  let locator: Locator | undefined;
  for (const p of problems) {
    const pointer = p.pattern === undefined ? '/filePatterns' : `/filePatterns/${p.pattern}`;
    const at = p.pattern === undefined ? 'filePatterns' : `filePatterns.${p.pattern}`;
    diagnostics.push({ code: 'invalid-value', severity: 'error', message: `\`${at}\`: ${p.message}`, pointer, ...(locator ??= new Locator(doc)).range(pointer, 'value') });
  }
  return usable;
}

/** One diagnostic per Ajv error, its message from the schema (allowed names and values, descriptions). */
function translate(e: ErrorObject, value: unknown): Omit<Diagnostic, 'severity' | 'offset' | 'length'> | undefined {
  const pointer = e.instancePath;
  const schema = schemaOf(pointer);
  const at = pointer === '' ? 'the config' : `\`${parsePointer(pointer).join('.')}\``;
  const code = (c: DiagnosticCode) => c;
  switch (e.keyword) {
    case 'additionalProperties': {
      const name = String(e.params.additionalProperty);
      const allowed = Object.keys(schema?.properties ?? {}).filter((k) => k !== '$schema');
      const close = closeMatches(name, allowed);
      const present = (k: string) => Object.prototype.hasOwnProperty.call(valueAt(value, pointer) ?? {}, k);
      const free = close.filter((k) => !present(k));
      const what = pointer === '/severity' ? 'a lint code' : `a member of ${at}`;
      return {
        code: code('unknown-property'), pointer: `${pointer}/${escapeSegment(name)}`,
        message: `${quote(name)} is not ${what}.${close.length > 0 ? ` Did you mean \`${close[0]}\`?` : ''} Allowed: ${nearestFirst(name, allowed).map((n) => `\`${n}\``).join(', ')}.`,
        ...(free.length > 0 ? { data: { kind: 'rename-key' as const, candidates: free } } : {}),
      };
    }
    case 'type':
      return { code: code('wrong-type'), pointer, message: `${at} must be ${[e.params.type].flat().filter((t) => t !== 'null').join(' or ')}${schema?.description ? `: ${schema.description}` : ''}` };
    case 'enum': {
      const allowed = (e.params.allowedValues as unknown[]).map(String);
      const got = valueAt(value, pointer);
      const close = typeof got === 'string' ? closeMatches(got, allowed) : [];
      return {
        code: code('invalid-value'), pointer,
        message: `${quote(typeof got === 'string' ? got : JSON.stringify(got) ?? '')} is not allowed for ${at}.${close.length > 0 ? ` Did you mean \`${close[0]}\`?` : ''} Allowed: ${allowed.map((n) => `\`${n}\``).join(', ')}.`,
        ...(close.length > 0 ? { data: { kind: 'replace' as const, value: close[0], title: `Change to ${close[0]}` } } : {}),
      };
    }
    case 'minLength':
      return { code: code('invalid-value'), pointer, message: `${at} must not be an empty string` };
    default:
      return { code: code('invalid-value'), pointer, message: `${at}: ${e.message ?? 'invalid'}` };
  }
}

function schemaOf(pointer: string): Record<string, any> | undefined {
  let node: Record<string, any> | undefined = configSchema;
  for (const s of parsePointer(pointer)) {
    if (!node) return undefined;
    node = node.type === 'array' || (Array.isArray(node.type) && node.type.includes('array')) ? node.items : node.properties?.[s];
    if (node && typeof node.$ref === 'string') node = configSchema.$defs?.[node.$ref.replace('#/$defs/', '')];
  }
  return node;
}

function isAbsolute(path: string): boolean {
  return path.startsWith('/') || path.startsWith('\\') || /^[A-Za-z]:[\\/]/.test(path);
}

/** The folder of a file path (`.` for a bare name). */
function dirname(path: string): string {
  const cut = Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\'));
  if (cut < 0) return '.';
  return cut === 0 ? path[0] : path.slice(0, cut);
}

/** `path` relative to `base` (absolute paths kept), with `.` and `..` segments resolved; `/` separators. */
export function resolvePath(base: string, path: string): string {
  if (isAbsolute(path)) return path;
  const joined = `${base}/${path}`.replace(/\\/g, '/');
  const absolute = joined.startsWith('/');
  const out: string[] = [];
  for (const seg of joined.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..' && out.length > 0 && out[out.length - 1] !== '..') out.pop();
    else if (seg === '..' && absolute) continue;
    else out.push(seg);
  }
  const body = out.join('/');
  return absolute ? `/${body}` : body === '' ? '.' : body;
}
