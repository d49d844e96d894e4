/**
 * `validate(text, {fileName})`: parse (strict JSON or JSONC per D6), duplicate keys, the policy
 * schema (precompiled Ajv), then lint rules; one diagnostic per problem with a stable code, a
 * JSON Pointer and an offset range. Pure: text in, data out.
 */
import { policyValidator } from '../generated/validators';
import { defaultPresetCatalog, type PresetCatalog } from '../presets/catalog';
import { lint } from '../lint/index';
import { parseDocument, isJsoncFile } from './parse';
import { Locator } from './locate';
import { translateSchemaErrors } from './schema-errors';
import { LINT_CODES, type Diagnostic, type LintCode, type Severity } from './types';

export interface ValidateOptions {
  /** Decides strict JSON (`.json`, the default) or JSONC (`.jsonc`). */
  fileName?: string;
  /** Force JSONC (comments and trailing commas allowed) whatever the file name. */
  jsonc?: boolean;
  /** Preset catalog for lint rules that look at presets; the built-in one by default. */
  catalog?: PresetCatalog;
  /** Run lint rules (default true). */
  lint?: boolean;
  /** Severity per lint code; schema and syntax problems stay errors. */
  severity?: Partial<Record<string, Severity>>;
}

export interface ValidateResult {
  /** The parsed document (undefined when the text is not JSON). */
  value: unknown;
  /** True when there is no error-severity diagnostic: the value is a valid policy. */
  valid: boolean;
  diagnostics: Diagnostic[];
}

const lintCodes = new Set<string>(LINT_CODES);

export function validate(text: string, options: ValidateOptions = {}): ValidateResult {
  const source = text.charCodeAt(0) === 0xfeff ? ' ' + text.slice(1) : text;
  const jsonc = options.jsonc ?? isJsoncFile(options.fileName);
  const parsed = parseDocument(source, jsonc);
  const diagnostics = parsed.diagnostics;
  if (parsed.syntaxFailed) return finish(parsed.value, diagnostics);

  let locator: Locator | undefined;
  const locate = () => (locator ??= new Locator(source));

  if (!policyValidator(parsed.value)) {
    for (const f of translateSchemaErrors(policyValidator.errors ?? [], parsed.value)) {
      const range = locate().range(f.pointer, f.target);
      diagnostics.push({ code: f.code, severity: 'error', message: f.message, pointer: f.pointer, ...range, ...(f.data ? { data: f.data } : {}) });
    }
  }

  if (options.lint !== false) {
    for (const f of lint(parsed.value, { catalog: options.catalog ?? defaultPresetCatalog })) {
      const range = locate().range(f.pointer, f.target ?? 'value');
      const severity = lintCodes.has(f.code) ? (options.severity?.[f.code as LintCode] ?? 'warning') : 'warning';
      diagnostics.push({ code: f.code, severity, message: f.message, pointer: f.pointer, ...range, ...(f.data ? { data: f.data } : {}) });
    }
  }
  return finish(parsed.value, diagnostics);
}

function finish(value: unknown, diagnostics: Diagnostic[]): ValidateResult {
  diagnostics.sort((a, b) => a.offset - b.offset || a.code.localeCompare(b.code));
  return { value, valid: !diagnostics.some((d) => d.severity === 'error'), diagnostics };
}

export { isJsoncFile };
