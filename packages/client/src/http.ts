/**
 * One GET with the client's safety rules: bearer token only to the base URL's origin, manual
 * redirects, a timeout per attempt, retries with backoff and jitter (honouring Retry-After)
 * bounded in attempts and total time, and a cap on the response size.
 */
import { ApiError, isProblem, type Problem } from './errors';
import { redact, redactBody, redactValue } from './redact';
import { RETRYABLE_STATUSES } from './wire';

export interface TransportOptions {
  token?: string;
  fetch: typeof fetch;
  timeoutMs: number;
  maxAttempts: number;
  retryBaseMs: number;
  retryMaxDelayMs: number;
  totalTimeoutMs: number;
  maxResponseBytes: number;
  maxRedirects: number;
  signal?: AbortSignal;
  random: () => number;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  onRetry?: (info: RetryInfo) => void;
  onProgress?: (progress: { received: number; total?: number }) => void;
}

/**
 * What `ClientOptions.onRetry` is told before the client waits to try again.
 * @public
 */
export interface RetryInfo {
  /** The attempt that failed (1 for the first). */
  attempt: number;
  /** How long the client waits before the next attempt. */
  delayMs: number;
  /** Why the attempt failed, such as `HTTP 503`. */
  reason: string;
}

export interface RawResponse {
  status: number;
  headers: Headers;
  body: Uint8Array;
  url: string;
  attempts: number;
}

/** A failure of one attempt that may succeed when tried again. */
class Retryable extends Error {
  constructor(readonly reason: string, readonly status?: number, readonly retryAfterMs?: number, readonly problem?: Problem, override readonly cause?: unknown) {
    super(reason);
  }
}

const ERROR_BODY_LIMIT = 64 * 1024;

/** The longest delay a timer can hold (2^31 - 1 ms, about 24.8 days); longer ones fire at once. */
const TIMER_MAX_MS = 2 ** 31 - 1;

export function defaultSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => { signal?.removeEventListener('abort', onAbort); resolve(); }, Math.min(ms, TIMER_MAX_MS));
    const onAbort = () => { clearTimeout(timer); reject(signal!.reason); };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

const DAY_NAMES = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const LONG_DAY_NAMES = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
// RFC 9110 5.6.7 HTTP-date: IMF-fixdate, and the obsolete RFC 850 and asctime forms recipients accept.
const IMF_FIXDATE = /^([A-Z][a-z]{2}), (\d{2}) ([A-Z][a-z]{2}) (\d{4}) (\d{2}):(\d{2}):(\d{2}) GMT$/;
const RFC850_DATE = /^([A-Z][a-z]{5,8}), (\d{2})-([A-Z][a-z]{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2}) GMT$/;
const ASCTIME_DATE = /^([A-Z][a-z]{2}) ([A-Z][a-z]{2}) ([ \d]\d) (\d{2}):(\d{2}):(\d{2}) (\d{4})$/;

/**
 * An HTTP-date (RFC 9110 5.6.7) as milliseconds since the epoch; undefined for anything else.
 * @public
 */
export function parseHttpDate(text: string, now = Date.now()): number | undefined {
  let day: string, date: string, month: string, year: number, h: string, m: string, s: string;
  let match: RegExpExecArray | null;
  if ((match = IMF_FIXDATE.exec(text))) {
    [, day, date, month, , h, m, s] = match;
    year = Number(match[4]);
    if (!DAY_NAMES.includes(day)) return undefined;
  } else if ((match = RFC850_DATE.exec(text))) {
    [, day, date, month, , h, m, s] = match;
    if (!LONG_DAY_NAMES.includes(day)) return undefined;
    // Two-digit years: the one not more than 50 years in the future (RFC 9110 5.6.7).
    const nowYear = new Date(now).getUTCFullYear();
    year = Math.floor(nowYear / 100) * 100 + Number(match[4]);
    if (year > nowYear + 50) year -= 100;
  } else if ((match = ASCTIME_DATE.exec(text))) {
    [, day, month, date, h, m, s] = match;
    year = Number(match[7]);
    if (!DAY_NAMES.includes(day)) return undefined;
  } else {
    return undefined;
  }
  const monthIndex = MONTHS.indexOf(month);
  const [dd, hh, mm, ss] = [Number(date.trim()), Number(h), Number(m), Number(s)];
  if (monthIndex < 0 || dd < 1 || dd > 31 || hh > 23 || mm > 59 || ss > 60) return undefined;
  const ms = Date.UTC(year, monthIndex, dd, hh, mm, Math.min(ss, 59));
  // 31 Feb and the like roll over in Date.UTC: refuse them.
  return new Date(ms).getUTCDate() === dd ? ms : undefined;
}

/**
 * Parses Retry-After into milliseconds from now: only the RFC 9110 10.2.3 forms, delta-seconds
 * (one or more digits) or an HTTP-date. Anything else (`-5`, `1.5`, `soon`) is undefined, and the
 * caller falls back to its normal backoff.
 * @public
 */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const date = parseHttpDate(text, now);
  return date === undefined ? undefined : Math.max(0, date - now);
}

/**
 * Whether a URL's host names this machine (`localhost`, `*.localhost`, 127.0.0.0/8, `::1`): the only hosts plain http may reach.
 * @public
 */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (host === '::1' || host === '0:0:0:0:0:0:0:1') return true;
  const m = /^127\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  return m !== null && m.slice(1).every((o) => Number(o) <= 255);
}

export { redact } from './redact';

function describeNetworkError(error: unknown): string {
  const e = error as { message?: string; cause?: { code?: string; message?: string } };
  const code = e?.cause?.code;
  const detail = code ? `${code}${e.cause?.message && !e.cause.message.includes(code) ? ` ${e.cause.message}` : ''}` : e?.cause?.message ?? e?.message ?? String(error);
  return `network error (${detail})`;
}

/**
 * One read of a body that ends when `signal` aborts, whatever the stream does: a platform fetch
 * can leave a read pending for ever after the abort (Node 20's, when a body labelled gzip is not
 * gzip), and nothing would then be left to wake the caller.
 */
function readOrAbort(reader: ReadableStreamDefaultReader<Uint8Array>, signal: AbortSignal | undefined): Promise<ReadableStreamReadResult<Uint8Array>> {
  if (!signal) return reader.read();
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      reader.cancel().catch(() => {});
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    reader.read().then(
      (result) => { signal.removeEventListener('abort', onAbort); resolve(result); },
      (error: unknown) => { signal.removeEventListener('abort', onAbort); reject(error); },
    );
  });
}

/** Reads the body, stopping (and failing) past `limit` bytes, or when `signal` aborts. */
async function readBody(response: Response, limit: number, hardLimit: boolean, signal: AbortSignal, onProgress?: TransportOptions['onProgress']): Promise<Uint8Array> {
  const lengthHeader = response.headers.get('content-length');
  const total = lengthHeader !== null && /^\d+$/.test(lengthHeader) ? Number(lengthHeader) : undefined;
  if (hardLimit && total !== undefined && total > limit) {
    await response.body?.cancel().catch(() => {});
    throw new ApiError(`the response is ${total} bytes, over the limit of ${limit} bytes`, { kind: 'invalid-response', status: response.status });
  }
  if (!response.body) return new Uint8Array(0);
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let received = 0;
  for (;;) {
    const { done, value } = await readOrAbort(reader, signal);
    if (done) break;
    received += value.byteLength;
    if (received > limit) {
      await reader.cancel().catch(() => {});
      if (hardLimit) throw new ApiError(`the response is over the limit of ${limit} bytes`, { kind: 'invalid-response', status: response.status });
      chunks.push(value.subarray(0, value.byteLength - (received - limit)));
      received = limit;
      break;
    }
    chunks.push(value);
    onProgress?.({ received, total });
  }
  const body = new Uint8Array(received);
  let offset = 0;
  for (const chunk of chunks) { body.set(chunk, offset); offset += chunk.byteLength; }
  return body;
}

function mediaTypeOf(headers: Headers): string {
  return (headers.get('content-type') ?? '').split(';')[0].trim().toLowerCase();
}

/** Turns an error response into an ApiError (problem document or not). */
export function errorFromResponse(status: number, headers: Headers, body: Uint8Array, token: string | undefined, attempts: number): ApiError {
  const raw = new TextDecoder('utf-8', { fatal: false }).decode(body);
  let problem: Problem | undefined;
  if (/json$/.test(mediaTypeOf(headers))) {
    try {
      // Parsed first, then redacted: a token written with JSON escapes is found too.
      const parsed: unknown = JSON.parse(raw);
      if (isProblem(parsed)) problem = redactValue(parsed, token);
    } catch { /* not JSON after all: described below */ }
  }
  // Redacted before it is cut short, so no cut leaves a piece of the token behind.
  const text = redactBody(raw, token);
  if (problem) {
    const message = `HTTP ${status}: ${problem.title}${problem.detail ? `: ${problem.detail}` : ''}`;
    return new ApiError(message, { status, problem, attempts });
  }
  const mediaType = redact(mediaTypeOf(headers), token) || 'no content type';
  const trimmed = text.trim();
  const summary =
    trimmed === '' ? 'with an empty body' :
    /html/.test(mediaType) || /^<(!doctype|html)/i.test(trimmed) ? `with an HTML page (${mediaType}), not a problem document${htmlTitle(trimmed)}` :
    `with a ${mediaType} body that is not a problem document: ${JSON.stringify(trimmed.slice(0, 120))}`;
  return new ApiError(`HTTP ${status} ${summary}`, { status, attempts, reasons: trimmed ? [trimmed.slice(0, 500)] : [] });
}

function htmlTitle(html: string): string {
  // Only the head of the page: a hostile body must not make the search quadratic.
  const m = /<title[^>]*>([^<]{1,100})<\/title>/i.exec(html.slice(0, 4096));
  return m ? ` titled ${JSON.stringify(m[1].trim())}` : '';
}

/** GET `url` with the transport rules; returns the 2xx response or throws an ApiError. */
export async function get(url: URL, accept: string, opts: TransportOptions): Promise<RawResponse> {
  const started = Date.now();
  const deadline = started + opts.totalTimeoutMs;
  const origin = url.origin;
  let lastFailure: Retryable | undefined;
  let attempts = 0;
  const maxAttempts = Math.max(1, opts.maxAttempts);
  for (let attempt = 1; attempt <= maxAttempts; attempt++) {
    if (opts.signal?.aborted) throw new ApiError('the request was aborted', { kind: 'aborted', attempts });
    attempts = attempt;
    try {
      const response = await attemptOnce(url, origin, accept, opts, Math.min(opts.timeoutMs, Math.max(1, deadline - Date.now())));
      return { ...response, attempts };
    } catch (error) {
      if (!(error instanceof Retryable)) {
        if (error instanceof ApiError) (error as { attempts: number }).attempts = attempts;
        throw error;
      }
      lastFailure = error;
      if (attempt >= maxAttempts) break;
      const backoff = Math.min(opts.retryMaxDelayMs, opts.retryBaseMs * 2 ** (attempt - 1));
      const jittered = backoff / 2 + opts.random() * (backoff / 2);
      const delayMs = Math.round(error.retryAfterMs !== undefined ? error.retryAfterMs : jittered);
      // A Retry-After past our total time budget means waiting would not help: give up now.
      if (Date.now() + delayMs >= deadline) break;
      opts.onRetry?.({ attempt, delayMs, reason: error.reason });
      try {
        await opts.sleep(delayMs, opts.signal);
      } catch {
        throw new ApiError('the request was aborted', { kind: 'aborted', attempts });
      }
    }
  }
  const f = lastFailure!;
  const tries = `after ${attempts} attempt${attempts === 1 ? '' : 's'} in ${((Date.now() - started) / 1000).toFixed(1)} s`;
  const base = f.problem ? `HTTP ${f.status}: ${f.problem.title}${f.problem.detail ? `: ${f.problem.detail}` : ''}` : f.reason;
  throw new ApiError(`service unavailable ${tries}: ${base}`, { kind: 'unavailable', status: f.status, problem: f.problem, attempts, cause: f.cause });
}

function sameOrigin(a: URL, origin: string): boolean {
  return a.origin === origin;
}

async function attemptOnce(url: URL, origin: string, accept: string, opts: TransportOptions, timeoutMs: number): Promise<Omit<RawResponse, 'attempts'>> {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => { timedOut = true; controller.abort(); }, Math.min(timeoutMs, TIMER_MAX_MS));
  const onAbort = () => controller.abort();
  opts.signal?.addEventListener('abort', onAbort, { once: true });
  let current = url;
  try {
    for (let redirects = 0; ; redirects++) {
      const headers: Record<string, string> = { accept };
      // The token goes only to the base URL's origin (checked again after every redirect).
      if (opts.token && sameOrigin(current, origin)) headers.authorization = `Bearer ${opts.token}`;
      const response = await opts.fetch(current.href, { method: 'GET', headers, redirect: 'manual', signal: controller.signal, credentials: 'omit', cache: 'no-store' });
      if (response.type === 'opaqueredirect') {
        throw new ApiError('the service answered with a redirect, which the client does not follow in this environment', { kind: 'redirect', status: 0 });
      }
      if (response.status >= 300 && response.status < 400 && response.status !== 304) {
        await response.body?.cancel().catch(() => {});
        const location = response.headers.get('location');
        if (!location) throw new ApiError(`HTTP ${response.status} redirect without a Location header`, { kind: 'redirect', status: response.status });
        let next: URL;
        try {
          next = new URL(location, current);
        } catch {
          throw new ApiError(`HTTP ${response.status} redirect to ${JSON.stringify(redact(location.slice(0, 200), opts.token))}, which is not a URL`, { kind: 'redirect', status: response.status });
        }
        if (!sameOrigin(next, origin)) {
          throw new ApiError(`the service redirected to another origin (${redact(next.origin, opts.token)}); not following it, so the token stays with ${origin}`, { kind: 'redirect', status: response.status });
        }
        if (redirects >= opts.maxRedirects) throw new ApiError(`more than ${opts.maxRedirects} redirects`, { kind: 'redirect', status: response.status });
        current = next;
        continue;
      }
      if (response.status >= 200 && response.status < 300) {
        const body = await readBody(response, opts.maxResponseBytes, true, controller.signal, opts.onProgress);
        return { status: response.status, headers: response.headers, body, url: current.href };
      }
      const body = await readBody(response, ERROR_BODY_LIMIT, false, controller.signal);
      const error = errorFromResponse(response.status, response.headers, body, opts.token, 1);
      if (RETRYABLE_STATUSES.has(response.status)) {
        throw new Retryable(error.message, response.status, parseRetryAfter(response.headers.get('retry-after')), error.problem);
      }
      throw error;
    }
  } catch (error) {
    if (error instanceof ApiError || error instanceof Retryable) throw error;
    if (opts.signal?.aborted) throw new ApiError('the request was aborted', { kind: 'aborted' });
    if (timedOut) throw new Retryable(`no complete response within ${(timeoutMs / 1000).toFixed(1)} s`);
    throw new Retryable(redact(describeNetworkError(error), opts.token), undefined, undefined, undefined, error);
  } finally {
    clearTimeout(timer);
    opts.signal?.removeEventListener('abort', onAbort);
  }
}
