export { POLICY_FILE_GLOBS, isPolicyFile } from './policy-files';
export { globMatcher } from './glob';
