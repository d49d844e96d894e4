/**
 * The service's client as commands make it (fetch, explain --repo/--job-id and --provenance): one
 * place for the base URL, the token rules (NETPOLICY_TOKEN or --token-file, never a plain option),
 * the retry settings and the exit code of each failure.
 */
import { resolve } from 'node:path';
import { ApiError, MAX_TIMEOUT_MS, NetpolicyClient, NetpolicyError } from '@netpolicy/client';
import { escapeControl } from './escape';
import { EXIT, UsageError, readTextFile, type Io } from './io';

/** Largest --attempts: more would only stretch a failure (the total budget bounds them anyway). */
export const MAX_ATTEMPTS = 100;

export const SERVICE_ENVIRONMENT: [string, string][] = [
  ['NETPOLICY_BASE_URL', 'Base URL when --base-url is not given.'],
  ['NETPOLICY_TOKEN', 'Access token when --token-file is not given (at least 8 visible ASCII characters).'],
  ['NETPOLICY_RETRY_BASE_MS', `First backoff delay in milliseconds (default 500, at most ${MAX_TIMEOUT_MS}, one day).`],
  ['NETPOLICY_TOTAL_TIMEOUT_MS', `Budget for all attempts and waits, in milliseconds (default 120000, at most ${MAX_TIMEOUT_MS}, one day).`],
];

export const TOKEN_REFUSED = 'tokens are not taken as a plain option (they would show in process lists and shell history); use NETPOLICY_TOKEN or --token-file FILE';

export interface ServiceValues {
  'base-url'?: string;
  'token-file'?: string;
  timeout?: string;
  attempts?: string;
  'no-validate'?: boolean;
}

/** The base URL (--base-url, else NETPOLICY_BASE_URL); a usage error naming `why` when there is none. */
export function baseUrlOf(io: Io, values: ServiceValues, why = ''): string {
  const baseUrl = values['base-url'] ?? io.env.NETPOLICY_BASE_URL;
  if (!baseUrl) throw new UsageError(`no service base URL${why}: pass --base-url URL or set NETPOLICY_BASE_URL`);
  return baseUrl;
}

/** The token: --token-file FILE, else NETPOLICY_TOKEN, else none. */
export function tokenOf(io: Io, values: ServiceValues): string | undefined {
  if (values['token-file'] !== undefined) {
    const token = readTextFile(resolve(io.cwd, values['token-file']), 64 * 1024).trim(); // a token, not a file of any size
    if (token === '') throw new UsageError(`token file ${values['token-file']} is empty`);
    return token;
  }
  return io.env.NETPOLICY_TOKEN ? io.env.NETPOLICY_TOKEN.trim() : undefined;
}

/**
 * The client, its settings checked (a bad one is a usage error, exit 2). Retries are announced on
 * stderr as `netpolicy COMMAND: attempt N failed (...)` unless `quiet`.
 */
export function makeClient(io: Io, command: string, baseUrl: string, token: string | undefined, values: ServiceValues, quiet: boolean): NetpolicyClient {
  // Node's timers hold 32-bit milliseconds: a larger delay fires at once. Values over a
  // documented maximum are refused (exit 2), naming the limit.
  const number = (name: string, text: string | undefined, min: number, max: number, unit: string, whole = false): number | undefined => {
    if (text === undefined || text === '') return undefined;
    const shown = escapeControl(text.length > 40 ? `${text.slice(0, 40)}…` : text);
    const form = whole ? /^\d+$/ : /^\d+(\.\d+)?$/;
    if (!form.test(text) || Number(text) < min) {
      throw new UsageError(`${name} must be ${whole ? 'a whole number' : 'a number'} from ${min} to ${max}${unit}${whole ? '' : ', such as 30 or 2.5'}, got ${shown}`);
    }
    if (Number(text) > max) throw new UsageError(`${name} must be at most ${max}${unit}, got ${shown}`);
    return Number(text);
  };
  const timeout = number('option --timeout', values.timeout, 0.001, MAX_TIMEOUT_MS / 1000, ' seconds (one day)');
  const attempts = number('option --attempts', values.attempts, 1, MAX_ATTEMPTS, '', true);
  try {
    return new NetpolicyClient({
      baseUrl,
      token,
      timeoutMs: timeout === undefined ? undefined : Math.round(timeout * 1000),
      maxAttempts: attempts,
      retryBaseMs: number('NETPOLICY_RETRY_BASE_MS', io.env.NETPOLICY_RETRY_BASE_MS, 0, MAX_TIMEOUT_MS, ' ms (one day)', true),
      totalTimeoutMs: number('NETPOLICY_TOTAL_TIMEOUT_MS', io.env.NETPOLICY_TOTAL_TIMEOUT_MS, 1, MAX_TIMEOUT_MS, ' ms (one day)', true),
      sbomValidator: values['no-validate'] ? false : undefined,
      onRetry: quiet ? undefined : ({ attempt, delayMs, reason }) =>
        io.stderr.write(`netpolicy ${command}: attempt ${attempt} failed (${escapeControl(reason)}); retrying in ${(delayMs / 1000).toFixed(1)} s\n`),
    });
  } catch (error) {
    if (error instanceof NetpolicyError) throw new UsageError(error.message);
    throw error;
  }
}

/** Exit code (docs/cli.md) for a client error. */
export function exitCodeFor(error: NetpolicyError): number {
  switch (error.kind) {
    case 'selector': case 'config': return EXIT.usage;
    case 'authentication': return EXIT.auth;
    case 'not-found': return EXIT.notFound;
    case 'not-terminal': return EXIT.notTerminal;
    case 'unavailable': return EXIT.unavailable;
    default: return EXIT.apiOther;
  }
}

/**
 * Prints a client error: its message, the problem type, and the first reasons; returns the exit
 * code. The client has already kept the token out of every text it hands over (redacted once, or
 * the text withheld); here each piece that may hold service text is escaped, so it stays on its
 * own line and cannot drive the terminal. Anything else is rethrown.
 */
export function reportServiceError(io: Io, command: string, error: unknown, what = ''): number {
  if (!(error instanceof NetpolicyError)) throw error;
  const lines = [`netpolicy ${command}: ${what}${escapeControl(error.message)}`];
  if (error instanceof ApiError) {
    if (error.problem && error.problem.type !== 'about:blank') lines.push(`  problem type: ${escapeControl(error.problem.type)}`);
    if (error.kind === 'invalid-response' || error.kind === 'api') for (const r of error.reasons.slice(0, 10)) lines.push(`  - ${escapeControl(r.slice(0, 300))}`);
  }
  io.stderr.write(`${lines.join('\n')}\n`);
  return exitCodeFor(error);
}
