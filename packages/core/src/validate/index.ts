export { fixesOf, docsUrl, SCHEMA_CODES, LINT_CODES, SEVERITY_SETTINGS } from './types';
export type {
  SchemaCode, LintCode, DiagnosticCode, Severity, RangeTarget, Diagnostic, RelatedInformation, DiagnosticTag, FixData, DiagnosticData, SeveritySetting, SeverityOptions,
} from './types';
export { validate, validateDocument, type ValidateOptions, type ValidPolicyResult, type InvalidPolicyResult, type ValidateResult } from './validate';
export { InputError } from './input-error';
export { parsePolicyDocument, reparsePolicyDocument, type PolicyDocument, type ParseOptions, type TextChange } from './document';
export { validateChunked, type ChunkedOptions, type ChunkedResult } from './chunked';
export * from './positions';
export * from './codes';
