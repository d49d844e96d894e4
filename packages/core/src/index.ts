/**
 * Policies as data: parse, validate, lint and fix policy files, presets, the trace reader, the
 * evaluator and explainer, suggestions and policy tests. Runs in Node and in browsers (no file or
 * process access).
 * @module @netpolicy/core
 */
export * from './policy/types';
export * from './formats/index';
export * from './presets/index';
export * from './validate/index';
export * from './edits/index';
export * from './files/index';
export * from './config/index';
export { lint, type LintOptions, type LintContext, type LintFinding, type LintRule } from './lint/index';
export * from './trace/index';
export * from './eval/index';
export * from './attribution/index';
/**
 * The policy JSON Schema as netpolicy reads it: schemas/network-policy.schema.json without the enum
 * of built-in preset names (`validate` checks names against the catalog in force: `unknown-preset`).
 */
export { policySchema } from './generated/data';
/** The precompiled (Ajv standalone) validator of the policy schema, for callers who want raw Ajv errors. */
export { policyValidator } from './generated/validators-policy';
export { escapeControl, escapeIcons, escapeMessage } from './text/escape';
