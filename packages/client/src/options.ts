/**
 * The options of the client and of each call, and the one list of their names: the check of
 * unknown options reads it, and so does the test that holds the docs to it (test/options-docs.test.ts).
 */
import { closeMatches } from '@netpolicy/core/internal';
import { ConfigError } from './errors';
import type { RetryInfo } from './http';
import type { SbomValidator } from './sbom-validator';

/**
 * Where the service is, the token, and the limits of every call (timeouts, retries, body size, redirects).
 * @public
 */
export interface ClientOptions {
  /** Base URL of the service, e.g. `https://provenance.example`; `http` only for loopback hosts. */
  baseUrl: string;
  /**
   * Access token, sent as `Authorization: Bearer <token>` to the base URL's origin only. At least
   * 8 characters (MIN_TOKEN_LENGTH), without whitespace: the client removes it, and any piece of it
   * 6 characters or longer, from every text it hands over, which a shorter token would make
   * meaningless.
   */
  token?: string | undefined;
  /** The fetch to use (default: the platform's `fetch`). */
  fetch?: typeof fetch;
  /** Timeout of one attempt, headers and body (default 30 000 ms). */
  timeoutMs?: number;
  /** Attempts in all, first one included (default 4). */
  maxAttempts?: number;
  /** First backoff delay; doubled per retry, with jitter (default 500 ms). */
  retryBaseMs?: number;
  /** Largest backoff delay (default 10 000 ms). */
  retryMaxDelayMs?: number;
  /** Budget for all attempts and waits of one call (default 120 000 ms). */
  totalTimeoutMs?: number;
  /** Cap on a response body (default 64 MiB). */
  maxResponseBytes?: number;
  /** Same-origin redirects followed (default 3); other origins are never followed. */
  maxRedirects?: number;
  /** CycloneDX validation of SBOMs: default the library's strict 1.7 validator (Node); `false` skips. */
  sbomValidator?: SbomValidator | false;
  /**
   * `false` skips SBOM validation, as `sbomValidator: false` does; `true` changes nothing.
   * @deprecated Use `sbomValidator: false`. Earlier docs named this option, which the client
   * ignored; it is accepted for one release.
   */
  validateSbom?: boolean;
  /** Called before each retry (e.g. to log "retrying in 2 s: HTTP 503"). */
  onRetry?: (info: RetryInfo) => void;
  /** Called as body bytes arrive. */
  onProgress?: (progress: { received: number; total?: number }) => void;
  /** Source of jitter (default Math.random); tests pass a fixed one. */
  random?: () => number;
}

/**
 * Per call: a signal to cancel it, and a progress callback for this call's body.
 * @public
 */
export interface CallOptions {
  /** Aborting it ends the call with an `ApiError` of kind `aborted`. */
  signal?: AbortSignal;
  /** Called as body bytes arrive (instead of `ClientOptions.onProgress`). */
  onProgress?: (progress: { received: number; total?: number }) => void;
}

/** Every key of `ClientOptions`: a key missing here, or one the type lacks, does not compile. */
export const CLIENT_OPTION_NAMES = {
  baseUrl: true, token: true, fetch: true, timeoutMs: true, maxAttempts: true, retryBaseMs: true,
  retryMaxDelayMs: true, totalTimeoutMs: true, maxResponseBytes: true, maxRedirects: true,
  sbomValidator: true, validateSbom: true, onRetry: true, onProgress: true, random: true,
} as const satisfies Record<keyof ClientOptions, true>;

/** Every key of `CallOptions`, held to the type as `CLIENT_OPTION_NAMES` is. */
export const CALL_OPTION_NAMES = { signal: true, onProgress: true } as const satisfies Record<keyof CallOptions, true>;

/**
 * Refuses anything but an object whose own keys are all `known` (ajv's strict mode, for options):
 * a JavaScript caller's misspelt option would otherwise be ignored without a word.
 */
export function checkOptionNames(value: unknown, known: Readonly<Record<string, true>>, what: string): void {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ConfigError(`the ${what}s must be an object, got ${value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value}`);
  }
  const names = Object.keys(known);
  const unknown = Object.keys(value).filter((key) => !Object.hasOwn(known, key));
  if (unknown.length === 0) return;
  const described = unknown.map((key) => {
    const near = nearestName(key, names);
    return { key: quote(key), hint: near === undefined ? '' : `did you mean \`${near}\`?` };
  });
  if (described.length === 1) {
    const [{ key, hint }] = described;
    throw new ConfigError(`unknown ${what} ${key}; ${hint || `the ${what}s are ${names.map((n) => `\`${n}\``).join(', ')}`}`);
  }
  throw new ConfigError(`unknown ${what}s ${described.map(({ key, hint }) => (hint ? `${key} (${hint})` : key)).join(', ')}`);
}

/**
 * What `validateSbom` and `sbomValidator` ask for: a validator, `false` to skip, or undefined for
 * the default. A value of the wrong type, or the two contradicting each other, is a `ConfigError`.
 */
export function chosenSbomValidator(options: Pick<ClientOptions, 'sbomValidator' | 'validateSbom'>): SbomValidator | false | undefined {
  const { sbomValidator, validateSbom } = options;
  if (sbomValidator !== undefined && sbomValidator !== false && typeof sbomValidator !== 'function') {
    throw new ConfigError(`sbomValidator must be a function (text) => Promise<string[]> or false, got ${typeof sbomValidator}`);
  }
  if (validateSbom === undefined) return sbomValidator;
  if (typeof validateSbom !== 'boolean') throw new ConfigError(`validateSbom must be a boolean, got ${typeof validateSbom}`);
  if (sbomValidator !== undefined && (sbomValidator === false) !== !validateSbom) {
    throw new ConfigError(`validateSbom: ${validateSbom} contradicts sbomValidator: ${sbomValidator === false ? 'false' : 'a function'}; pass only sbomValidator`);
  }
  return validateSbom ? sbomValidator : false;
}

/**
 * The known name a typo most likely meant: core's "did you mean" rule (`closeMatches`: the nearest
 * by optimal string alignment distance, ignoring case, within a third of the name's length).
 */
export function nearestName(name: string, known: readonly string[]): string | undefined {
  return closeMatches(name, known)[0];
}

/** A caller's key in a message: cut short, control characters and backquotes escaped. */
function quote(key: string): string {
  const clipped = key.length > 60 ? `${key.slice(0, 60)}…` : key;
  return '`' + clipped.replace(/[\u0000-\u001f\u007f`]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`) + '`';
}
