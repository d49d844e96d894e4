export * from './access';
export * from './url';
export {
  policyRules, enabledPresets, ociRepository, ociOperation, gitRepository,
  type RuleRef, type PolicyRules, type EvalOptions,
} from './rules';
export { CompiledPolicy, compilePolicy, evaluate } from './evaluate';
export { evaluateNaive } from './naive';
export * from './explain';
export { nearMiss, widening, type NearMiss, type MissReason, type MissCode, type Widening } from './near-miss';
export { fixFor, applyFix, presetsPermitting, isPolicyFix, type Fix, type JobFix, type DenialFix } from './fix';
export { connectionFor, sourceForRequest, sourceForSsh, ecosystemOf, literalRepositoryPattern } from './recognise';
export { Suggester, suggestPolicy, suggestFromAccesses, httpsForm, type SuggestOptions, type LeftOut } from './suggest';
export * from './policy-tests';
export { policyTestFileDiagnostics } from './policy-test-diagnostics';
export * from './diff';
export { ResolvedNames } from './resolved-names';
export { BoundedCache } from './bounded-cache';
