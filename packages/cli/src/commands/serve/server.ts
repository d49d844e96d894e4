/** `netpolicy serve`: the service's whole interface (with docs/decisions.md D1/D2) over a directory of records. */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { STATUS_CODES } from 'node:http';
import {
  MEDIA_TYPES, PATHS, PROBLEM_TYPES, ARTIFACT_KINDS, CONDITION_STATUS, DIGEST_LENGTHS, PROVIDER,
  checkArtifactRecordShape, decimalIdProblem, repositoryProblem, type Problem,
} from '@netpolicy/client';
import { isObject, Store, type JobRecord, type Operation } from './store';
import { escapeControl } from '../../escape';
import { internalError } from '../../io';

export interface ServeOptions {
  data: string;
  port?: number;
  host?: string;
  /** Called once per request, after the response (method, path, status); never sees the token. */
  log?: (line: string) => void;
}

export interface RunningService {
  url: string;
  server: Server;
  close(): Promise<void>;
}

class ProblemResponse extends Error {
  constructor(readonly problem: Problem, readonly headers: Record<string, string> = {}) {
    super(problem.title);
  }
}

function problem(status: number, type: string, title: string, detail: string, headers?: Record<string, string>): ProblemResponse {
  return new ProblemResponse({ type, title, status, detail }, headers);
}

const malformed = (detail: string) => problem(CONDITION_STATUS['malformed-selector'], PROBLEM_TYPES.malformedSelector, 'Malformed selector', detail);
const unavailable = (detail: string, retryAfter?: number) =>
  problem(CONDITION_STATUS.unavailable, PROBLEM_TYPES.dependencyUnavailable, 'Internal dependency unavailable', detail,
    retryAfter !== undefined ? { 'retry-after': String(retryAfter) } : {});

const AUTH_DETAIL = {
  missing: 'The request has no Authorization header; send `Authorization: Bearer <token>`.',
  malformed: 'The Authorization header is not `Bearer <token>`.',
  unknown: 'The access token is not valid.',
  expired: 'The access token has expired.',
  revoked: 'The access token has been revoked.',
} as const;

/** The request handler, usable without listening (tests, embedding). */
export function createHandler(options: ServeOptions): (req: IncomingMessage, res: ServerResponse) => void {
  const store = new Store(options.data);
  return (req, res) => {
    handle(store, req)
      .then(({ status, type, body }) => send(res, status, { 'content-type': type }, body))
      .catch((error) => {
        if (error instanceof ProblemResponse) {
          send(res, error.problem.status, { 'content-type': MEDIA_TYPES.problem, ...error.headers }, JSON.stringify(error.problem));
        } else {
          const p = { type: 'about:blank', title: 'Internal Server Error', status: 500, detail: 'The local service failed; see its standard error.' };
          // One line, no stack trace (NETPOLICY_DEBUG=1 adds it).
          process.stderr.write(internalError(`netpolicy serve: ${escapeControl(req.method ?? '')} ${escapeControl((req.url ?? '').split('?')[0].slice(0, 200))}`, error, process.env));
          send(res, 500, { 'content-type': MEDIA_TYPES.problem }, JSON.stringify(p));
        }
      })
      // Method and target are whatever the client sent: escaped, so a request cannot write to the terminal.
      .finally(() => options.log?.(`${escapeControl(req.method ?? '')} ${escapeControl((req.url ?? '').split('?')[0].slice(0, 2048))} ${res.statusCode}`));
  };
}

function send(res: ServerResponse, status: number, headers: Record<string, string>, body: string): void {
  const bytes = Buffer.from(body, 'utf8');
  res.writeHead(status, { ...headers, 'content-length': String(bytes.byteLength), 'cache-control': 'no-store' });
  res.end(bytes);
}

const OPERATIONS: Record<string, Operation> = {
  [PATHS.sbom]: 'sbom',
  [PATHS.networkTrace]: 'network-trace',
  [PATHS.artifacts]: 'artifacts',
};

/**
 * The path and query of a request target exactly as sent (RFC 9112 3.2): origin-form `/path?query`,
 * or absolute-form `http://host/path?query`. Only the path routes: `//other/v1preview1/sbom` is the
 * path `//other/v1preview1/sbom`, not an authority followed by an operation.
 */
function splitTarget(target: string): { path: string; query: URLSearchParams } {
  let pathAndQuery = target;
  if (!target.startsWith('/')) {
    let url: URL | undefined;
    try {
      url = /^https?:\/\//i.test(target) ? new URL(target) : undefined;
    } catch { /* refused below */ }
    if (!url) throw problem(400, 'about:blank', 'Bad Request', 'The request target is neither a path (/...) nor an absolute http URL.');
    pathAndQuery = `${url.pathname}${url.search}`;
  }
  const q = pathAndQuery.indexOf('?');
  return q < 0
    ? { path: pathAndQuery, query: new URLSearchParams() }
    : { path: pathAndQuery.slice(0, q), query: new URLSearchParams(pathAndQuery.slice(q + 1)) };
}

async function handle(store: Store, req: IncomingMessage): Promise<{ status: number; type: string; body: string }> {
  // RFC 9112 3.2: an HTTP/1.1 request without Host is a 400. Node would answer it itself with an
  // empty body (requireHostHeader); here it is a problem document like every other error.
  if (req.httpVersion === '1.1' && req.headers.host === undefined) {
    throw problem(400, 'about:blank', 'Bad Request', 'An HTTP/1.1 request needs a Host header (RFC 9112 3.2).');
  }
  const { path, query } = splitTarget(req.url ?? '/');
  const operation = Object.hasOwn(OPERATIONS, path) ? OPERATIONS[path] : undefined;
  if (!operation) throw problem(404, 'about:blank', 'Not Found', `No operation at ${JSON.stringify(path.slice(0, 200))}; the operations are ${Object.keys(OPERATIONS).join(', ')}.`);
  // HEAD wherever GET works (RFC 9110 9.3.2): the same status and headers, no body (Node drops it).
  if (req.method !== 'GET' && req.method !== 'HEAD') throw problem(405, 'about:blank', 'Method Not Allowed', `${path} takes GET (and HEAD) only.`, { allow: 'GET, HEAD' });

  const auth = await store.checkToken(req.headers.authorization);
  if (!auth.ok && auth.reason === 'store') {
    throw unavailable(`The token store could not be read (${auth.message}); no token can be checked.`);
  }
  if (!auth.ok) {
    throw problem(CONDITION_STATUS.authentication, PROBLEM_TYPES.authentication, 'Authentication failed', AUTH_DETAIL[auth.reason], { 'www-authenticate': 'Bearer realm="netpolicy"' });
  }
  const down = await store.outage(operation);
  if (down) throw unavailable(`The ${operation} store is unavailable; try again later.`, down.retryAfter);

  return operation === 'artifacts' ? artifacts(store, query) : job(store, operation, query);
}

function single(params: URLSearchParams, name: string, required: boolean): string | undefined {
  const values = params.getAll(name);
  if (values.length > 1) throw malformed(`Query parameter ${name} is given ${values.length} times.`);
  if (values.length === 0 && required) throw malformed(`Query parameter ${name} is required.`);
  return values[0];
}

async function job(store: Store, operation: Operation, params: URLSearchParams): Promise<{ status: number; type: string; body: string }> {
  const provider = single(params, 'provider', true)!;
  const repo = single(params, 'repo', true)!;
  const jobId = single(params, 'job_id', true)!;
  if (provider !== PROVIDER) throw malformed(`provider must be "${PROVIDER}".`);
  const repoProblem = repositoryProblem(repo);
  if (repoProblem) throw malformed(`repo ${repoProblem}.`);
  const idProblem = decimalIdProblem(jobId);
  if (idProblem) throw malformed(`job_id ${idProblem}.`);

  const [owner, name] = repo.split('/');
  const dir = ['jobs', provider, owner, name, jobId];
  const record = await store.readJson<JobRecord>(...dir, 'job.json');
  if (record.state === 'absent') {
    throw problem(CONDITION_STATUS['not-found'], PROBLEM_TYPES.unknownJob, 'Unknown job', `No job ${jobId} of ${repo} on ${provider}.`);
  }
  if (record.state === 'error') throw unavailable(`The job store could not be read (${record.message}).`);
  if (!isObject(record.value)) throw unavailable(`The job store could not be read (${[...dir, 'job.json'].join('/')} is not a JSON object).`);
  if (record.value.terminal !== true) {
    throw problem(CONDITION_STATUS['not-terminal'], PROBLEM_TYPES.notTerminal, 'Job is not terminal',
      `Job ${jobId} of ${repo} is ${typeof record.value.status === 'string' ? record.value.status : 'still running'}; its ${operation === 'sbom' ? 'SBOM' : 'network trace'} is available once it has finished.`);
  }
  const file = operation === 'sbom' ? 'sbom.cdx.json' : 'trace.json';
  const stored = await store.read(...dir, file);
  if (stored.state !== 'ok') {
    throw unavailable(`The ${operation === 'sbom' ? 'SBOM' : 'trace'} store did not return the record of job ${jobId} of ${repo}.`);
  }
  return { status: 200, type: operation === 'sbom' ? MEDIA_TYPES.sbom : MEDIA_TYPES.json, body: stored.text };
}

async function artifacts(store: Store, params: URLSearchParams): Promise<{ status: number; type: string; body: string }> {
  const kind = single(params, 'kind', true)!;
  const alg = single(params, 'digest_algorithm', true)!;
  const value = single(params, 'digest_value', true)!;
  const repository = single(params, 'repository', false);
  if (!(ARTIFACT_KINDS as readonly string[]).includes(kind)) throw malformed(`kind must be one of ${ARTIFACT_KINDS.join(', ')}.`);
  if (alg !== 'sha256' && alg !== 'sha512') throw malformed('digest_algorithm must be sha256 or sha512.');
  const length = DIGEST_LENGTHS[alg];
  if (!new RegExp(`^[0-9a-fA-F]{${length}}$`).test(value)) throw malformed(`digest_value must be ${length} hexadecimal characters for ${alg}.`);
  let path: string[];
  if (kind === 'ci_cache') {
    if (alg !== 'sha256') throw malformed('A ci_cache artifact requires digest_algorithm sha256.');
    if (repository === undefined) throw malformed('A ci_cache artifact requires the repository parameter.');
    const p = repositoryProblem(repository);
    if (p) throw malformed(`repository ${p}.`);
    const [owner, name] = repository.split('/');
    path = ['artifacts', 'ci_cache', owner, name, `${alg}-${value.toLowerCase()}.json`];
  } else {
    if (repository !== undefined) throw malformed(`The repository parameter applies only to ci_cache artifacts, not ${kind}.`);
    path = ['artifacts', kind, `${alg}-${value.toLowerCase()}.json`];
  }
  const stored = await store.readJson<Record<string, unknown>>(...path);
  if (stored.state === 'absent') {
    throw problem(CONDITION_STATUS['not-found'], PROBLEM_TYPES.unknownArtifact, 'Unknown artifact',
      `No ${kind} artifact with ${alg} digest ${value.toLowerCase()}${repository ? ` in ${repository}` : ''}.`);
  }
  const invalid = () => problem(CONDITION_STATUS.unavailable, PROBLEM_TYPES.storedArtifactInvalid, 'Stored artifact invalid',
    `The stored record of this ${kind} artifact is invalid; it cannot be returned.`);
  if (stored.state === 'error') throw invalid();
  const record = stored.value;
  const order = (items: unknown) => Array.isArray(items)
    ? [...items].sort((a, b) => Date.parse((b as { accepted_at: string })?.accepted_at) - Date.parse((a as { accepted_at: string })?.accepted_at))
    : items;
  if (record && typeof record === 'object') {
    record.publications = order(record.publications);
    if (Array.isArray(record.contents)) {
      record.contents = [...record.contents]
        .map((c) => (c && typeof c === 'object' ? { ...c, publications: order((c as Record<string, unknown>).publications) } : c))
        .sort((a, b) => ((a as { index: number })?.index ?? 0) - ((b as { index: number })?.index ?? 0));
    }
  }
  const identityMatches = record?.kind === kind && record?.digest_algorithm === alg && String(record?.digest_value).toLowerCase() === value.toLowerCase();
  if (checkArtifactRecordShape(record).length > 0 || !identityMatches) throw invalid();
  return { status: 200, type: MEDIA_TYPES.json, body: `${JSON.stringify(record, null, 2)}\n` };
}

/**
 * Answers what Node's HTTP parser refuses before any handler runs (headers over 16 KB: 431; a
 * garbage request line, Content-Length with chunked, a NUL in the target: 400; a request too slow
 * to arrive: 408) with a problem document like every other error, instead of Node's empty body.
 */
export function answerClientErrors(server: Server, log?: (line: string) => void): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (error.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
      socket.destroy();
      return;
    }
    const status =
      error.code === 'HPE_HEADER_OVERFLOW' ? 431 :
      error.code === 'ERR_HTTP_REQUEST_TIMEOUT' || error.code === 'ERR_HTTP_HEADERS_TIMEOUT' ? 408 :
      400;
    const detail =
      status === 431 ? 'The request headers are larger than this service accepts (16 KB in all).' :
      status === 408 ? 'The request did not arrive in time.' :
      'The request is not valid HTTP/1.1 (request line, headers, or message framing).';
    answerRaw(socket, status, detail);
    log?.(`- (unparsable request: ${escapeControl(String(error.code ?? 'error'))}) ${status}`);
  });
  // CONNECT never reaches the request handler; without a listener Node closes the connection unanswered.
  server.on('connect', (req: IncomingMessage, socket: Socket) => {
    socket.on('error', () => socket.destroy());
    answerRaw(socket, 405, 'This service is not a proxy; its operations take GET (and HEAD) only.', { allow: 'GET, HEAD' });
    log?.(`CONNECT ${escapeControl((req.url ?? '').slice(0, 2048))} 405`);
  });
}

/** A problem document written straight to a socket (no ServerResponse there), then the connection closed. */
function answerRaw(socket: Socket, status: number, detail: string, headers: Record<string, string> = {}): void {
  const title = STATUS_CODES[status] ?? 'Bad Request';
  const body = JSON.stringify({ type: 'about:blank', title, status, detail });
  const extra = Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('');
  socket.end(
    `HTTP/1.1 ${status} ${title}\r\ncontent-type: ${MEDIA_TYPES.problem}\r\ncontent-length: ${Buffer.byteLength(body)}\r\n` +
    `cache-control: no-store\r\n${extra}connection: close\r\n\r\n${body}`,
    () => socket.destroy(), // the server keeps sockets half-open: close it once the answer is out
  );
}

/** Starts listening; resolves once the port is bound. */
export function startService(options: ServeOptions): Promise<RunningService> {
  const server = createServer({ requireHostHeader: false }, createHandler(options));
  answerClientErrors(server, options.log);
  server.keepAliveTimeout = 1000;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 8080, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      const address = server.address() as AddressInfo;
      const host = address.family === 'IPv6' || address.address.includes(':') ? `[${address.address}]` : address.address;
      resolve({
        url: `http://${host}:${address.port}`,
        server,
        close: () => new Promise<void>((done) => {
          server.close(() => done());
          server.closeAllConnections();
        }),
      });
    });
  });
}
