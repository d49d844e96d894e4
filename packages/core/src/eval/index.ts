export { accessOf, describeAccess, type Access, type Verdict, type Decision } from './access';
export type { ParsedUrl } from './url';
export type { RuleRef, PolicyRules, EvalOptions } from './rules';
export { CompiledPolicy, compilePolicy, evaluate } from './evaluate';
export * from './explain';
export { nearMiss, type NearMiss, type MissReason, type MissCode, type Widening } from './near-miss';
export { fixFor, applyFix, isPolicyFix, type Fix, type JobFix, type DenialFix } from './fix';
export { Suggester, suggestPolicy, suggestFromAccesses, type SuggestOptions, type LeftOut } from './suggest';
export { checkPolicyTestFile, runPolicyTests, PolicyTestFileError, type PolicyTest, type PolicyTestFile, type PolicyTestResult } from './policy-tests';
export { policyTestFileDiagnostics } from './policy-test-diagnostics';
export {
  diffRules, diffFindings, PolicyDiffer,
  type ChangeKind, type VerdictChange, type RuleKind, type RuleChange, type RuleDiff, type RuleUsage, type FindingLike,
} from './diff';
