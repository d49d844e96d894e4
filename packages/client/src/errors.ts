/** Typed errors of the client. Messages never contain the access token. */
import { classifyStatus, type ProblemCondition } from './wire';

/**
 * A problem document (the RFC 9457 subset the service's interface requires).
 * @public
 */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  [member: string]: unknown;
}

/**
 * What kind of failure this is:
 * - `selector`: a selector the interface rejects, refused before any request;
 * - `config`: an unusable base URL or token (e.g. plain http to a non-loopback host);
 * - the D2 conditions `malformed-selector` (400), `authentication` (401), `not-found` (404),
 *   `not-terminal` (409), `unavailable` (5xx, 429, timeouts and network errors once retries ran out);
 * - `invalid-response`: a 200 with the wrong media type or a body that is not what it should be;
 * - `redirect`: a redirect the client refused to follow (another origin, too many);
 * - `api`: any other HTTP error status;
 * - `aborted`: the caller's AbortSignal fired.
 * @public
 */
export type ErrorKind = 'selector' | 'config' | ProblemCondition | 'invalid-response' | 'redirect' | 'api' | 'aborted';

/**
 * Every error the client throws: `kind` says what went wrong, so callers branch on it rather than on the message.
 * @public
 */
export class NetpolicyError extends Error {
  constructor(readonly kind: ErrorKind, message: string) {
    super(message);
    this.name = 'NetpolicyError';
  }
}

/**
 * A selector that the interface would reject; no request was sent.
 * @public
 */
export class SelectorError extends NetpolicyError {
  constructor(readonly field: string, message: string) {
    super('selector', message);
    this.name = 'SelectorError';
  }
}

/**
 * Options the client refuses (a base URL that is not https to a remote host, a short token, a timeout out of range); no request was sent.
 * @public
 */
export class ConfigError extends NetpolicyError {
  constructor(message: string) {
    super('config', message);
    this.name = 'ConfigError';
  }
}

export interface ApiErrorInit {
  kind?: ErrorKind;
  status?: number;
  problem?: Problem;
  attempts?: number;
  reasons?: string[];
  cause?: unknown;
}

/**
 * The service answered with an error, an unusable response, or could not be reached.
 * @public
 */
export class ApiError extends NetpolicyError {
  /** HTTP status of the last response; undefined when none arrived (timeout, network error). */
  readonly status?: number;
  /** The problem document, when the error body was one. */
  readonly problem?: Problem;
  /** How many attempts were made. */
  readonly attempts: number;
  /** Details: validator reasons, the start of a non-problem body, ... */
  readonly reasons: string[];

  constructor(message: string, init: ApiErrorInit = {}) {
    super(init.kind ?? (init.status !== undefined ? classifyStatus(init.status) ?? 'api' : 'unavailable'), message);
    this.name = 'ApiError';
    this.status = init.status;
    this.problem = init.problem;
    this.attempts = init.attempts ?? 1;
    this.reasons = init.reasons ?? [];
    if (init.cause !== undefined) (this as { cause?: unknown }).cause = init.cause;
  }

  get type(): string | undefined { return this.problem?.type; }
  get title(): string | undefined { return this.problem?.title; }
  get detail(): string | undefined { return this.problem?.detail; }
}

/**
 * Whether a value is a problem document with the four required members.
 * @public
 */
export function isProblem(value: unknown): value is Problem {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const v = value as Record<string, unknown>;
  return typeof v.type === 'string' && typeof v.title === 'string' && typeof v.detail === 'string' &&
    typeof v.status === 'number' && Number.isInteger(v.status);
}
