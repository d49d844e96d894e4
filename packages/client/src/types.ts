/** Response types. Unknown members are kept (index signatures): the service may add members. */

/**
 * A CycloneDX 1.7 BOM (validated by the CycloneDX library; only the top level is typed here).
 * @public
 */
export interface CycloneDxBom {
  bomFormat: 'CycloneDX';
  specVersion: string;
  serialNumber?: string;
  version?: number;
  metadata?: Record<string, unknown>;
  components?: Record<string, unknown>[];
  [member: string]: unknown;
}

/**
 * The `job` of a network trace document as the service sends it. Each member may come in either
 * spelling: snake_case (the service's documented names) or camelCase (`jobId`, `runId`: the
 * bundled `netpolicy serve` sends some traces so, and core's reader accepts both). Read the job
 * normalised instead through `getTrace()`'s `trace.job` (core's `TraceJob`).
 * @public
 */
export interface NetworkTraceJob {
  provider?: string;
  repository?: string;
  /** Decimal string, 0 to 18446744073709551615. */
  job_id?: string;
  /** `job_id` in camelCase. */
  jobId?: string;
  job_name?: string;
  /** `job_name` in camelCase. */
  jobName?: string;
  /** Decimal string, 0 to 18446744073709551615. */
  run_id?: string;
  /** `run_id` in camelCase. */
  runId?: string;
  run_attempt?: number;
  /** `run_attempt` in camelCase. */
  runAttempt?: number;
  workflow?: string;
  branch?: string;
  commit?: string;
  status?: string;
  [member: string]: unknown;
}

/**
 * The old name of `NetworkTraceJob`, the job as sent (in either spelling).
 * @deprecated Use `NetworkTraceJob`; core's `TraceJob` is the normalised job. This alias goes in
 * the next release.
 * @public
 */
export type TraceJob = NetworkTraceJob;

/**
 * One observation as received: `protocol` and `sequence`, and every other member in snake_case or
 * camelCase (`remote_ip` or `remoteIp`); core's trace reader normalises (`getTrace()`'s `trace`).
 * @public
 */
export interface TraceObservation {
  protocol: string;
  sequence: number;
  /** RFC 3339 time. */
  observed_at?: string;
  /** `observed_at` in camelCase. */
  observedAt?: string;
  [member: string]: unknown;
}

/**
 * The network trace document as the service sends it (its members in snake_case or camelCase,
 * unknown members kept). Core's `explain`, `explainTrace` and `readTraceDocument` take it as it is.
 * @public
 */
export interface NetworkTraceDocument {
  schema_version?: string;
  /** `schema_version` in camelCase. */
  schemaVersion?: string;
  job: NetworkTraceJob;
  observations: TraceObservation[];
  [member: string]: unknown;
}

/**
 * The CI provider's own identity of the job that made a publication: provider, job id and repository.
 * @public
 */
export interface ProviderJob {
  provider: string;
  job_id: string;
  repository: string;
  [member: string]: unknown;
}

/**
 * What a publication put where: an OCI push (registry, repository, reference) or a CI cache entry; other kinds are kept as received.
 * @public
 */
export type PublicationMetadata =
  | { kind: 'oci'; media_type: string; reference: string; registry: string; repository: string; [member: string]: unknown }
  | { kind: 'ci_cache'; key: string; size: number; version: string; [member: string]: unknown }
  | { kind: string; [member: string]: unknown };

/**
 * One publication of an artifact: when it was accepted, by which job, and what was put where.
 * @public
 */
export interface Publication {
  id: string;
  accepted_at: string;
  purl?: string;
  job: { id: string; provider: ProviderJob; [member: string]: unknown };
  metadata: PublicationMetadata;
  [member: string]: unknown;
}

/**
 * An artifact's identity (digest and kind) and its publications, newest first.
 * @public
 */
export interface ArtifactIdentity {
  id: string;
  digest_algorithm: 'sha256' | 'sha512';
  digest_value: string;
  kind: 'oci_manifest' | 'oci_index' | 'ci_cache';
  publications: Publication[];
  [member: string]: unknown;
}

/**
 * An artifact directly contained in another (an image of an index): its identity plus what the parent declares.
 * @public
 */
export interface ContainedArtifact extends ArtifactIdentity {
  media_type: string;
  index: number;
  size: number;
}

/**
 * What the artifact lookup returns: the artifact's identity, its publications and its direct contents.
 * @public
 */
export interface ArtifactRecord extends ArtifactIdentity {
  contents: ContainedArtifact[];
}
