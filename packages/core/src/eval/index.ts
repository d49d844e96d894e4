export * from './access';
export * from './url';
export {
  policyRules, enabledPresets, ociRepository, ociOperation, gitRepository,
  type RuleRef, type PolicyRules, type EvalOptions,
} from './rules';
export { CompiledPolicy, compilePolicy, evaluate } from './evaluate';
export { evaluateNaive } from './naive';
