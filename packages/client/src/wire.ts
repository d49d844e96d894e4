/**
 * Our model of what the service's interface leaves "not shown" (docs/decisions.md D1 and D2): media types,
 * HTTP status per error condition, problem type URIs. The one place to adjust when the
 * real service differs; the client and `netpolicy serve` both read it from here.
 * @public
 */

export const API_PREFIX = '/v1preview1';

/**
 * The paths of the three operations, under the base URL.
 * @public
 */
export const PATHS = {
  sbom: `${API_PREFIX}/sbom`,
  networkTrace: `${API_PREFIX}/network-trace`,
  artifacts: `${API_PREFIX}/artifacts`,
} as const;

/**
 * The media types the client asks for (Accept) and the service answers with.
 * @public
 */
export const MEDIA_TYPES = {
  sbom: 'application/vnd.cyclonedx+json; version=1.7',
  json: 'application/json',
  problem: 'application/problem+json',
} as const;

/**
 * The only supported provider value (the service's interface, job selector).
 * @public
 */
export const PROVIDER = 'ciprovider';

/**
 * What went wrong, as the client classifies it.
 * @public
 */
export type ProblemCondition =
  | 'malformed-selector'
  | 'authentication'
  | 'not-found'
  | 'not-terminal'
  | 'unavailable';

/**
 * D2: HTTP status of each error condition of the service's interface. Success is 200.
 * @public
 */
export const CONDITION_STATUS: Record<ProblemCondition, number> = {
  'malformed-selector': 400,
  authentication: 401,
  'not-found': 404,
  'not-terminal': 409,
  unavailable: 503,
};

/**
 * Problem `type` URIs that `netpolicy serve` sends (the real service's values are not shown).
 * @public
 */
export const PROBLEM_TYPES = {
  malformedSelector: 'https://netpolicy.dev/problems/malformed-selector',
  authentication: 'https://netpolicy.dev/problems/authentication',
  unknownJob: 'https://netpolicy.dev/problems/unknown-job',
  unknownArtifact: 'https://netpolicy.dev/problems/unknown-artifact',
  notTerminal: 'https://netpolicy.dev/problems/job-not-terminal',
  dependencyUnavailable: 'https://netpolicy.dev/problems/dependency-unavailable',
  storedArtifactInvalid: 'https://netpolicy.dev/problems/stored-artifact-invalid',
} as const;

/**
 * Statuses the client retries (with backoff, honouring Retry-After).
 * @public
 */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([429, 502, 503, 504]);

/**
 * Classifies an error status per D2; `undefined` for a status D2 does not name.
 * @public
 */
export function classifyStatus(status: number): ProblemCondition | undefined {
  for (const [condition, s] of Object.entries(CONDITION_STATUS)) if (s === status) return condition as ProblemCondition;
  if (RETRYABLE_STATUSES.has(status) || (status >= 500 && status <= 599)) return 'unavailable';
  return undefined;
}
