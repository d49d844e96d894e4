export { POLICY_FILE_GLOBS, isPolicyFile } from './policy-files';
export { POLICY_TEST_FILE_GLOBS, isPolicyTestFile, bindPolicyTests, unboundProblem, type PolicyTestBinding } from './policy-test-files';
