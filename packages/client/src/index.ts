/**
 * @netpolicy/client: typed client of the job provenance service (SBOM, network trace,
 * artifact lookup). Runs in Node and in browsers: platform fetch, AbortController, TextDecoder.
 * @module @netpolicy/client
 */
export { MAX_TIMEOUT_MS, NetpolicyClient, mediaType, type ClientOptions, type CallOptions, type ApiResult, type SbomResult, type TraceResult } from './client';
export { ApiError, ConfigError, NetpolicyError, SelectorError, isProblem, type ErrorKind, type Problem } from './errors';
export { isLoopbackHost, parseHttpDate, parseRetryAfter, type RetryInfo } from './http';
export { FRAGMENT_LENGTH, MIN_TOKEN_LENGTH, redact } from './redact';
export { cyclonedxStrictValidator, type SbomValidator } from './sbom-validator';
export {
  ARTIFACT_KINDS, DIGEST_LENGTHS, artifactQuery, decimalIdProblem, jobQuery, parseDigest, repositoryProblem,
  type ArtifactKind, type ArtifactSelector, type DigestAlgorithm, type JobSelector,
} from './selectors';
export { checkArtifactRecordShape, checkTraceShape } from './shapes';
export type * from './types';
export * from './wire';
