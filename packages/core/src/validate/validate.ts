/**
 * `validateDocument(doc, options)`: the syntax diagnostics of a parsed document, the policy schema
 * (precompiled Ajv; preset names from the catalog in force), then lint rules; one diagnostic per
 * problem with a stable code, a JSON Pointer and an offset range. `validate(text, options)` parses
 * and validates in one call. Pure: text in, data out.
 */
import { policyValidator } from '../generated/validators-policy';
import { defaultPresetCatalog, type PresetCatalog } from '../presets/catalog';
import { lint } from '../lint/index';
import { parsedText, parsePolicyDocument, type PolicyDocument } from './document';
import { locateMany, type RangeRequest } from './locate-many';
import { presetNameFindings, translateSchemaErrors, type SchemaFinding } from './schema-errors';
import type { LintFinding } from '../lint/types';
import type { Policy } from '../policy/types';
import { expectOptions, expectString } from './input-error';
import { noteSchemaChecked } from './policy-check';
import type { Diagnostic, LintCode, SeverityOptions } from './types';

/**
 * How `validate` and `validateDocument` read a policy: JSON or JSONC, the preset catalog, lint and its severities.
 * @public
 */
export interface ValidateOptions {
  /** Decides strict JSON (`.json`, the default) or JSONC (`.jsonc`). Used by `validate` only. */
  fileName?: string;
  /** Force JSONC (comments and trailing commas allowed) whatever the file name. Used by `validate` only. */
  jsonc?: boolean;
  /** The preset catalog in force: the preset names a document may use, and the presets lint looks at. The built-in one by default. */
  catalog?: PresetCatalog;
  /** Run lint rules (default true). */
  lint?: boolean;
  /** Severity per lint code, or `off` (that rule does not run); schema and syntax problems stay errors. Default `warning`. */
  severity?: SeverityOptions;
}

/**
 * What `validate` returns when the text is a valid policy (no error-severity diagnostic):
 * `value` is the `Policy`. Narrow on `valid`: `if (result.valid) explainTrace(result.value, ...)`.
 * @public
 */
export interface ValidPolicyResult {
  /** The parsed policy: it meets the schema, names only presets of the catalog, and no lint finding is an error. */
  value: Policy;
  /** Always true here: there is no error-severity diagnostic. */
  valid: true;
  /** Every diagnostic (warnings, information and hints; none is an error). */
  diagnostics: Diagnostic[];
}

/**
 * What `validate` returns when the text is not a valid policy: the value as parsed, and at least one error diagnostic.
 * @public
 */
export interface InvalidPolicyResult {
  /** The parsed document, whatever it is (undefined when the text is not JSON). */
  value: unknown;
  /** Always false here: at least one diagnostic is an error. */
  valid: false;
  /** Every diagnostic, sorted by offset. */
  diagnostics: Diagnostic[];
}

/**
 * What `validate` returns: the parsed value, whether it is a valid policy, and every diagnostic.
 * A discriminated union on `valid`: when it is true, `value` is typed `Policy`.
 * @public
 */
export type ValidateResult = ValidPolicyResult | InvalidPolicyResult;

/**
 * Every diagnostic of a parsed document, sorted by offset then code.
 * @public
 */
export function validateDocument(doc: PolicyDocument, options: ValidateOptions = {}): Diagnostic[] {
  const diagnostics: Diagnostic[] = doc.syntaxDiagnostics.slice();
  if (doc.syntaxFailed) return sortDiagnostics(diagnostics);

  const catalog = options.catalog ?? defaultPresetCatalog;
  // Findings first, ranges after: every pointer is located in one scan of the text (locate-many.ts),
  // and none at all when there is nothing to report.
  const found: Diagnostic[] = [];
  const requests: RangeRequest[] = [];

  const schemaValid = policyValidator(doc.value);
  // The evaluator checks the policy it is handed (policy-check.ts); this object passed already.
  if (schemaValid) noteSchemaChecked(doc.value);
  const schemaFindings = schemaValid ? [] : translateSchemaErrors(policyValidator.errors ?? [], doc.value);
  schemaFindings.push(...presetNameFindings(doc.value, catalog));
  for (const f of schemaFindings) {
    requests.push({ pointer: f.pointer, target: f.target });
    found.push(schemaDiagnostic(f));
  }

  if (options.lint !== false) {
    const severity = options.severity ?? {};
    const enabled = (code: LintCode) => severity[code] !== 'off';
    for (const f of lint(doc.value, { catalog, enabled })) {
      const d = lintDiagnostic(f, severity);
      if (d === undefined) continue;
      requests.push({ pointer: f.pointer, target: f.target ?? 'value' });
      found.push(d);
    }
  }
  if (found.length > 0) {
    const ranges = locateMany(parsedText(doc.text), requests);
    for (let i = 0; i < found.length; i++) {
      found[i].offset = ranges[i].offset;
      found[i].length = ranges[i].length;
      diagnostics.push(found[i]);
    }
  }
  return sortDiagnostics(diagnostics);
}

/** The diagnostic of a schema finding (an error), placed later (offset and length 0 until then). */
export function schemaDiagnostic(f: SchemaFinding): Diagnostic {
  return { code: f.code, severity: 'error', message: f.message, pointer: f.pointer, offset: 0, length: 0, ...(f.data ? { data: f.data } : {}) };
}

/** The diagnostic of a lint finding at its configured severity (undefined when its code is off), placed later. */
export function lintDiagnostic(f: LintFinding, severity: SeverityOptions): Diagnostic | undefined {
  const setting = severity[f.code];
  if (setting === 'off') return undefined;
  return {
    code: f.code, severity: setting ?? 'warning', message: f.message, pointer: f.pointer, offset: 0, length: 0,
    ...(f.data ? { data: f.data } : {}),
    ...(f.related && f.related.length > 0 ? { related: f.related } : {}),
    ...(f.tags && f.tags.length > 0 ? { tags: f.tags } : {}),
  };
}

/**
 * Parses and validates a policy's text: strict JSON, or JSONC (comments and trailing commas) for a
 * `fileName` ending in `.jsonc` or with `jsonc: true`. Synchronous. A `text` that is not a string
 * is an `InputError` (to check an object, pass `JSON.stringify(value)`).
 * @public
 */
export function validate(text: string, options: ValidateOptions = {}): ValidateResult {
  expectString(text, 'validate', 'text', ' (the policy file\'s text; for an object, pass JSON.stringify(value))');
  expectOptions(options, 'validate');
  const doc = parsePolicyDocument(text, { fileName: options.fileName, jsonc: options.jsonc });
  const diagnostics = validateDocument(doc, options);
  return diagnostics.some((d) => d.severity === 'error')
    ? { value: doc.value, valid: false, diagnostics }
    : { value: doc.value as Policy, valid: true, diagnostics };
}

function sortDiagnostics(diagnostics: Diagnostic[]): Diagnostic[] {
  return diagnostics.sort((a, b) => a.offset - b.offset || a.code.localeCompare(b.code));
}

