export { POLICY_FILE_GLOBS, isPolicyFile } from './policy-files';
export { globMatcher, globPatternProblem, MAX_BRACE_EXPANSION, MAX_TOTAL_EXPANSION, usableGlobPatterns, type GlobPatternProblem } from './glob';
export { POLICY_TEST_FILE_GLOBS, isPolicyTestFile, bindPolicyTests, unboundProblem, type PolicyTestBinding } from './policy-test-files';
