/** The typed client of the three GET operations (the service's interface; docs/client.md). */
import { ApiError, ConfigError, NetpolicyError } from './errors';
import { MIN_TOKEN_LENGTH, redact, redactValue } from './redact';
import { defaultSleep, get, isLoopbackHost, type RawResponse, type TransportOptions } from './http';
import { CALL_OPTION_NAMES, CLIENT_OPTION_NAMES, checkOptionNames, chosenSbomValidator, type CallOptions, type ClientOptions } from './options';
import { cyclonedxStrictValidator, type SbomValidator } from './sbom-validator';
import { artifactQuery, jobQuery, type ArtifactSelector, type JobSelector } from './selectors';
import { checkArtifactRecordShape, checkTraceShape } from './shapes';
import type { ArtifactRecord, CycloneDxBom, NetworkTraceDocument } from './types';
import { readTraceDocument, type Trace } from '@netpolicy/core';
import { MEDIA_TYPES, PATHS } from './wire';

/**
 * The largest timeout or delay the client takes (one day): Node's timers hold at most 2^31 - 1 ms
 * (about 24.8 days) and fire at once beyond it, so larger values are refused, not wrapped.
 * @public
 */
export const MAX_TIMEOUT_MS = 86_400_000;

export type { CallOptions, ClientOptions } from './options';

/**
 * A successful call: the parsed, shape-checked body and the exact bytes received, as text.
 * @public
 */
export interface ApiResult<T> {
  /** The parsed body. */
  data: T;
  /** The body exactly as received (write this to keep the service's bytes). */
  text: string;
  /** The response's Content-Type. */
  contentType: string;
  /** Attempts it took. */
  attempts: number;
}

/**
 * What `getSbom` returns: an `ApiResult` that also says whether the SBOM was validated.
 * @public
 */
export interface SbomResult extends ApiResult<CycloneDxBom> {
  /** Whether the SBOM was validated as CycloneDX 1.7. */
  validated: boolean;
}

/**
 * What `getTrace` returns: the service's document as `getNetworkTrace` gives it (`data`, `text`),
 * and the same trace normalised by core (`trace`).
 * @public
 */
export interface TraceResult extends ApiResult<NetworkTraceDocument> {
  /**
   * The trace as core's readers make it (`readTraceDocument(data)`): camelCase members whichever
   * spelling the service sent, unknown members under `extra`, each observation with its `index`.
   * What core's `explainTrace`, `PolicyDiffer` and `suggestPolicy` take.
   */
  trace: Trace;
}

/**
 * The typed client of the job provenance service's three GET operations: a job's SBOM and network
 * trace, and the artifact lookup. It retries what is worth retrying, bounds every wait and body, and
 * keeps the token out of every message; failures are `NetpolicyError`s with a `kind`.
 * @public
 */
export class NetpolicyClient {
  /** The service's base URL, ending in `/`. */
  readonly baseUrl: URL;
  readonly #token: string | undefined;
  readonly #options: ClientOptions;
  readonly #sbomValidator: SbomValidator | false;

  /** Refuses (`ConfigError`, nothing sent) an unusable base URL or token, a value out of range, and an unknown option. */
  constructor(options: ClientOptions) {
    checkOptionNames(options, CLIENT_OPTION_NAMES, 'option');
    let base: URL;
    try {
      base = new URL(options.baseUrl);
    } catch {
      throw new ConfigError(`base URL ${JSON.stringify(options.baseUrl)} is not a URL`);
    }
    if (base.protocol !== 'https:' && base.protocol !== 'http:') throw new ConfigError(`base URL must be https, got ${base.protocol}`);
    if (base.protocol === 'http:' && !isLoopbackHost(base.hostname)) {
      throw new ConfigError(`base URL ${base.origin} uses plain http to a non-loopback host; use https (http is allowed only for localhost, 127.0.0.0/8 and ::1)`);
    }
    if (base.username || base.password) throw new ConfigError('base URL must not contain credentials; pass the token instead');
    if (base.search || base.hash) throw new ConfigError('base URL must not have a query or fragment');
    if (options.token !== undefined && (options.token === '' || /[\s]/.test(options.token))) {
      throw new ConfigError('the token is empty or contains whitespace');
    }
    if (options.token !== undefined && /[^\x21-\x7e]/.test(options.token)) {
      // fetch would refuse it (or send something else) with an error that quotes the header.
      throw new ConfigError('the token contains a character that cannot be sent in an Authorization header (only visible ASCII characters can)');
    }
    if (options.token !== undefined && options.token.length < MIN_TOKEN_LENGTH) {
      throw new ConfigError(`the token is ${options.token.length} character${options.token.length === 1 ? '' : 's'} long; tokens shorter than ${MIN_TOKEN_LENGTH} characters are refused, as they cannot be kept out of messages safely`);
    }
    for (const [name, value] of [['timeoutMs', options.timeoutMs], ['totalTimeoutMs', options.totalTimeoutMs], ['retryBaseMs', options.retryBaseMs], ['retryMaxDelayMs', options.retryMaxDelayMs]] as const) {
      if (value === undefined) continue;
      if (typeof value !== 'number' || !(value >= 0)) throw new ConfigError(`${name} must be a number >= 0, got ${String(value)}`);
      if (value > MAX_TIMEOUT_MS) throw new ConfigError(`${name} must be at most ${MAX_TIMEOUT_MS} ms (one day), got ${value}`);
    }
    const sbomValidator = chosenSbomValidator(options);
    if (!base.pathname.endsWith('/')) base.pathname += '/';
    this.baseUrl = base;
    this.#token = options.token;
    this.#options = options;
    this.#sbomValidator = sbomValidator ?? cyclonedxStrictValidator;
  }

  /** The CycloneDX 1.7 SBOM of a terminal job. */
  getSbom(selector: JobSelector, call: CallOptions = {}): Promise<SbomResult> {
    return this.#guard(this.#getSbom(selector, call));
  }

  /**
   * The job metadata and every observed network access of a terminal job (its shape checked).
   * `data` is the service's document as sent (members in snake_case or camelCase), not core's
   * normalised `Trace`: core's `explain(policy, data)` and `readTraceDocument(data)` read it as they
   * read its `text`; `getTrace` gives both in one call.
   */
  getNetworkTrace(selector: JobSelector, call: CallOptions = {}): Promise<ApiResult<NetworkTraceDocument>> {
    return this.#guard(this.#getNetworkTrace(selector, call));
  }

  /**
   * The network trace of a terminal job, as `getNetworkTrace` gives it and normalised by core's
   * reader (`trace`: camelCase members whichever spelling the service sent). A document core cannot
   * read is an `ApiError` of kind `invalid-response`.
   */
  getTrace(selector: JobSelector, call: CallOptions = {}): Promise<TraceResult> {
    return this.#guard(this.#getTrace(selector, call));
  }

  /** Which jobs published an artifact: identity, direct contents, publications newest first (its shape checked). */
  findArtifact(selector: ArtifactSelector, call: CallOptions = {}): Promise<ApiResult<ArtifactRecord>> {
    return this.#guard(this.#findArtifact(selector, call));
  }

  /**
   * The one place every failure leaves the client: the token, and any piece of it 6 characters
   * or longer, is removed from the message, the reasons and the problem document (texts that
   * quote the service: bodies, media types, validator and shape reasons, redirect targets).
   */
  async #guard<T>(pending: Promise<T>): Promise<T> {
    try {
      return await pending;
    } catch (error) {
      const token = this.#token;
      if (!token || !(error instanceof NetpolicyError)) throw error;
      if (!(error instanceof ApiError)) {
        const message = redact(error.message, token);
        if (message !== error.message) error.message = message;
        throw error;
      }
      throw new ApiError(redact(error.message, token), {
        kind: error.kind, status: error.status, problem: error.problem && redactValue(error.problem, token),
        attempts: error.attempts, reasons: error.reasons.map((r) => redact(r, token)), cause: (error as { cause?: unknown }).cause,
      });
    }
  }

  async #getSbom(selector: JobSelector, call: CallOptions): Promise<SbomResult> {
    const raw = await this.#get(PATHS.sbom, jobQuery(selector), `${MEDIA_TYPES.sbom}, ${MEDIA_TYPES.problem}`, call);
    checkSbomMediaType(raw);
    const { data, text } = parseJson<CycloneDxBom>(raw, 'SBOM');
    const validator = this.#sbomValidator;
    if (validator !== false) {
      const reasons = await validator(text);
      if (reasons.length > 0) {
        throw new ApiError(`the SBOM is not valid CycloneDX 1.7: ${reasons[0]}${reasons.length > 1 ? ` (and ${reasons.length - 1} more)` : ''}`, { kind: 'invalid-response', status: raw.status, reasons, attempts: raw.attempts });
      }
    }
    return { data, text, contentType: raw.headers.get('content-type') ?? '', attempts: raw.attempts, validated: validator !== false };
  }

  async #getNetworkTrace(selector: JobSelector, call: CallOptions): Promise<ApiResult<NetworkTraceDocument>> {
    const raw = await this.#get(PATHS.networkTrace, jobQuery(selector), `${MEDIA_TYPES.json}, ${MEDIA_TYPES.problem}`, call);
    return this.#checkedJson<NetworkTraceDocument>(raw, 'network trace', checkTraceShape);
  }

  async #getTrace(selector: JobSelector, call: CallOptions): Promise<TraceResult> {
    const result = await this.#getNetworkTrace(selector, call);
    let trace: Trace;
    try {
      trace = readTraceDocument(result.data);
    } catch (error) {
      // A TraceError (by name: an ES module and a CommonJS copy of core are different classes).
      if (!(error instanceof Error && error.name === 'TraceError')) throw error;
      throw new ApiError(`the network trace cannot be read: ${error.message}`, { kind: 'invalid-response', status: 200, reasons: [error.message], attempts: result.attempts });
    }
    return { ...result, trace };
  }

  async #findArtifact(selector: ArtifactSelector, call: CallOptions): Promise<ApiResult<ArtifactRecord>> {
    const raw = await this.#get(PATHS.artifacts, artifactQuery(selector), `${MEDIA_TYPES.json}, ${MEDIA_TYPES.problem}`, call);
    return this.#checkedJson<ArtifactRecord>(raw, 'artifact record', checkArtifactRecordShape);
  }

  #checkedJson<T>(raw: RawResponse, what: string, check: (doc: unknown) => string[]): ApiResult<T> {
    const type = mediaType(raw.headers.get('content-type'));
    if (type.essence !== MEDIA_TYPES.json) {
      throw new ApiError(`expected the ${what} as ${MEDIA_TYPES.json}, got ${type.raw || 'no content type'}`, { kind: 'invalid-response', status: raw.status, attempts: raw.attempts });
    }
    const { data, text } = parseJson<T>(raw, what);
    const reasons = check(data);
    if (reasons.length > 0) {
      throw new ApiError(`the ${what} does not have the expected shape: ${reasons[0]}${reasons.length > 1 ? ` (and ${reasons.length - 1} more)` : ''}`, { kind: 'invalid-response', status: raw.status, reasons, attempts: raw.attempts });
    }
    return { data, text, contentType: type.raw, attempts: raw.attempts };
  }

  async #get(path: string, query: Record<string, string>, accept: string, call: CallOptions): Promise<RawResponse> {
    checkOptionNames(call, CALL_OPTION_NAMES, 'call option');
    const url = new URL(path.replace(/^\//, ''), this.baseUrl);
    for (const [k, v] of Object.entries(query)) url.searchParams.set(k, v);
    const o = this.#options;
    const fetchImpl = o.fetch ?? globalThis.fetch;
    if (typeof fetchImpl !== 'function') throw new ConfigError('no fetch implementation available');
    const transport: TransportOptions = {
      token: this.#token,
      fetch: fetchImpl.bind(globalThis) as typeof fetch,
      timeoutMs: o.timeoutMs ?? 30_000,
      maxAttempts: o.maxAttempts ?? 4,
      retryBaseMs: o.retryBaseMs ?? 500,
      retryMaxDelayMs: o.retryMaxDelayMs ?? 10_000,
      totalTimeoutMs: o.totalTimeoutMs ?? 120_000,
      maxResponseBytes: o.maxResponseBytes ?? 64 * 1024 * 1024,
      maxRedirects: o.maxRedirects ?? 3,
      signal: call.signal,
      random: o.random ?? Math.random,
      sleep: defaultSleep,
      onRetry: o.onRetry && ((info) => o.onRetry!({ ...info, reason: redact(info.reason, this.#token) })),
      onProgress: call.onProgress ?? o.onProgress,
    };
    const raw = await get(url, accept, transport);
    if (raw.status !== 200) {
      throw new ApiError(`expected HTTP 200, got ${raw.status}`, { kind: 'invalid-response', status: raw.status, attempts: raw.attempts });
    }
    return raw;
  }
}

/**
 * Content-Type split into its essence (lowercase type/subtype) and parameters.
 * @public
 */
export function mediaType(header: string | null): { essence: string; params: Record<string, string>; raw: string } {
  const raw = header ?? '';
  const [essence, ...rest] = raw.split(';');
  const params: Record<string, string> = {};
  for (const p of rest) {
    const eq = p.indexOf('=');
    if (eq < 0) continue;
    const value = p.slice(eq + 1).trim();
    params[p.slice(0, eq).trim().toLowerCase()] = value.startsWith('"') && value.endsWith('"') ? value.slice(1, -1) : value;
  }
  return { essence: essence.trim().toLowerCase(), params, raw: raw.trim() };
}

function checkSbomMediaType(raw: RawResponse): void {
  const type = mediaType(raw.headers.get('content-type'));
  if (type.essence !== 'application/vnd.cyclonedx+json' || type.params.version !== '1.7') {
    throw new ApiError(`expected the SBOM as ${MEDIA_TYPES.sbom}, got ${type.raw || 'no content type'}`, { kind: 'invalid-response', status: raw.status, attempts: raw.attempts });
  }
}

function parseJson<T>(raw: RawResponse, what: string): { data: T; text: string } {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(raw.body);
  } catch {
    throw new ApiError(`the ${what} is not valid UTF-8`, { kind: 'invalid-response', status: raw.status, attempts: raw.attempts });
  }
  try {
    return { data: JSON.parse(text) as T, text };
  } catch (error) {
    const why = text.trim() === '' ? 'the body is empty' : `${(error as Error).message} (${raw.body.byteLength} bytes received; truncated?)`;
    throw new ApiError(`the ${what} is not complete, valid JSON: ${why}`, { kind: 'invalid-response', status: raw.status, attempts: raw.attempts });
  }
}
