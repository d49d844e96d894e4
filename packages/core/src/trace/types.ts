/** The normalised (camelCase) shape of a network trace (decisions.md D1). */

interface ObservationBase {
  /** Zero-based position in the `observations` array. */
  index: number;
  observedAt?: string;
  /** The trace's ordering value; the index when the trace has none. */
  sequence: number;
  /** Members the reader does not know, kept as they were (never an error). */
  extra?: Record<string, unknown>;
}

/**
 * An HTTP request the job made (through the proxy), with the verdict recorded at the time (`denied`).
 * @public
 */
export interface HttpObservation extends ObservationBase {
  protocol: 'http';
  method?: string;
  url: string;
  remoteIp?: string;
  statusCode?: number;
  /** Decimal string: exact even beyond 2^53. */
  responseBodySize?: string;
  denied?: boolean;
  deniedReason?: string;
  matchedRule?: string;
}

/**
 * A DNS query and its answers: the trace reader learns from them which names an address had (`ResolvedNames`).
 * @public
 */
export interface DnsObservation extends ObservationBase {
  protocol: 'dns';
  resolverIp?: string;
  queryName?: string;
  queryType?: string;
  answers?: string[];
}

/**
 * A TCP connection; with a `serverName` or a non-empty `alpn` it is a TLS connection, otherwise
 * plain TCP. `allowed` is the verdict recorded at the time; `hostnames`, the names the address had.
 * @public
 */
export interface TcpObservation extends ObservationBase {
  protocol: 'tcp';
  allowed?: boolean;
  bytesReceived?: string;
  bytesSent?: string;
  deniedReason?: string;
  duration?: string;
  error?: string;
  matchedRule?: string;
  remotePort: number;
  remoteIp?: string;
  hostnames?: string[];
  alpn?: string[];
  serverName?: string;
}

/**
 * A Git operation over SSH (`gitService` such as `git-upload-pack`) on `host`:`port`, with the verdict recorded at the time (`allowed`).
 * @public
 */
export interface SshGitObservation extends ObservationBase {
  protocol: 'ssh_git';
  allowed?: boolean;
  bytesReceivedUpstream?: string;
  bytesSentUpstream?: string;
  deniedReason?: string;
  forcedShallow?: boolean;
  duration?: string;
  exitStatus?: number;
  host: string;
  port: number;
  user?: string;
  repositoryPath?: string;
  gitService?: string;
  remoteUrl?: string;
  matchedRule?: string;
}

/**
 * An observation of a protocol this version does not know: kept, never evaluated.
 * @public
 */
export interface OtherObservation extends ObservationBase {
  protocol: string & {};
}

/**
 * An observation of a protocol the evaluator knows (`isKnownObservation` tells them from the others).
 * @public
 */
export type Observation = HttpObservation | DnsObservation | TcpObservation | SshGitObservation;
/**
 * What the trace reader yields: a known observation, or one of a protocol this version does not know.
 * @public
 */
export type AnyObservation = Observation | OtherObservation;

/**
 * The CI job a trace was recorded in (the trace's `job`); members the reader does not know are kept in `extra`.
 * @public
 */
export interface TraceJob {
  provider?: string;
  repository?: string;
  jobId?: string;
  jobName?: string;
  runId?: string;
  runAttempt?: number;
  workflow?: string;
  branch?: string;
  commit?: string;
  status?: string;
  extra?: Record<string, unknown>;
}

/**
 * Everything in a trace document except the observations.
 * @public
 */
export interface TraceHeader {
  schemaVersion?: string;
  job?: TraceJob;
  extra?: Record<string, unknown>;
}

/**
 * A whole network trace (`parseTrace`): the header and every observation, in the trace's order.
 * @public
 */
export interface Trace extends TraceHeader {
  observations: AnyObservation[];
}

/**
 * Whether an observation is of a protocol the evaluator knows (http, dns, tcp, ssh_git).
 * @public
 */
export function isKnownObservation(o: AnyObservation): o is Observation {
  return o.protocol === 'http' || o.protocol === 'dns' || o.protocol === 'tcp' || o.protocol === 'ssh_git';
}
