/** Response types. Unknown members are kept (index signatures): the service may add members. */

/** A CycloneDX 1.7 BOM (validated by the CycloneDX library; only the top level is typed here). */
export interface CycloneDxBom {
  bomFormat: 'CycloneDX';
  specVersion: string;
  serialNumber?: string;
  version?: number;
  metadata?: Record<string, unknown>;
  components?: Record<string, unknown>[];
  [member: string]: unknown;
}

/** D1 job metadata. */
export interface TraceJob {
  provider?: string;
  repository?: string;
  job_id?: string;
  job_name?: string;
  run_id?: string;
  run_attempt?: number;
  workflow?: string;
  branch?: string;
  commit?: string;
  status?: string;
  [member: string]: unknown;
}

/** One observation as received (snake_case per D1, or camelCase; core's trace reader normalises). */
export interface TraceObservation {
  protocol: string;
  sequence: number;
  [member: string]: unknown;
}

/** D1 network trace document. */
export interface NetworkTraceDocument {
  schema_version?: string;
  job: TraceJob;
  observations: TraceObservation[];
  [member: string]: unknown;
}

/** The CI provider's own identity of the job that made a publication: provider, job id and repository. */
export interface ProviderJob {
  provider: string;
  job_id: string;
  repository: string;
  [member: string]: unknown;
}

/** What a publication put where: an OCI push (registry, repository, reference) or a CI cache entry; other kinds are kept as received. */
export type PublicationMetadata =
  | { kind: 'oci'; media_type: string; reference: string; registry: string; repository: string; [member: string]: unknown }
  | { kind: 'ci_cache'; key: string; size: number; version: string; [member: string]: unknown }
  | { kind: string; [member: string]: unknown };

/** D2 publication. */
export interface Publication {
  id: string;
  accepted_at: string;
  purl?: string;
  job: { id: string; provider: ProviderJob; [member: string]: unknown };
  metadata: PublicationMetadata;
  [member: string]: unknown;
}

/** D2 artifact identity. */
export interface ArtifactIdentity {
  id: string;
  digest_algorithm: 'sha256' | 'sha512';
  digest_value: string;
  kind: 'oci_manifest' | 'oci_index' | 'ci_cache';
  publications: Publication[];
  [member: string]: unknown;
}

/** D2 contained artifact: the identity plus what the parent declares. */
export interface ContainedArtifact extends ArtifactIdentity {
  media_type: string;
  index: number;
  size: number;
}

/** D2 artifact record. */
export interface ArtifactRecord extends ArtifactIdentity {
  contents: ContainedArtifact[];
}
