/** @netpolicy/core: runs in Node and in browsers (no file or process access). */
export * from './policy/types';
export * from './formats/index';
export * from './presets/index';
export * from './validate/index';
export * from './edits/index';
export * from './files/index';
export * from './config/index';
export * from './lint/index';
export * from './trace/index';
export * from './eval/index';
export * from './attribution/index';
export { policySchema } from './generated/data';
/** The precompiled (Ajv standalone) validator of the policy schema, for callers who want raw Ajv errors. */
export { policyValidator } from './generated/validators-policy';
export { clipped, escapeControl, escapeIcons } from './text/escape';
