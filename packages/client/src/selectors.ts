/** Local validation of selectors, with the service's rules (docs/client.md), before any request is sent. */
import { SelectorError } from './errors';
import { PROVIDER } from './wire';

/**
 * Which job's SBOM or trace to fetch: checked locally (`jobQuery`) before any request.
 * @public
 */
export interface JobSelector {
  /** Defaults to `ciprovider`, the only supported value. */
  provider?: string;
  /** `OWNER/REPOSITORY`. */
  repo: string;
  /** Decimal string, 0 to 18446744073709551615, no leading zeros (64-bit ids are strings). */
  jobId: string;
}

/**
 * What an artifact is: an OCI image manifest, an OCI image index, or a CI cache entry.
 * @public
 */
export type ArtifactKind = 'oci_manifest' | 'oci_index' | 'ci_cache';
/**
 * The digest algorithms the service takes.
 * @public
 */
export type DigestAlgorithm = 'sha256' | 'sha512';

/**
 * Which artifact to look up, by kind and digest: checked locally (`artifactQuery`) before any request.
 * @public
 */
export interface ArtifactSelector {
  kind: ArtifactKind;
  digestAlgorithm: DigestAlgorithm;
  /** Hexadecimal digest without the algorithm prefix: 64 characters for sha256, 128 for sha512. */
  digestValue: string;
  /** `OWNER/REPOSITORY`; required for `ci_cache`, not allowed otherwise. */
  repository?: string;
}

/**
 * Every artifact kind, for validating input.
 * @public
 */
export const ARTIFACT_KINDS: readonly ArtifactKind[] = ['oci_manifest', 'oci_index', 'ci_cache'];
/**
 * The length in hexadecimal digits of a digest of each algorithm.
 * @public
 */
export const DIGEST_LENGTHS: Readonly<Record<DigestAlgorithm, number>> = { sha256: 64, sha512: 128 };
const MAX_U64 = 18446744073709551615n;

const SEGMENT = /^[A-Za-z0-9_.-]+$/;

/**
 * Error message for an `OWNER/REPOSITORY` value, or undefined when it is well formed.
 * @public
 */
export function repositoryProblem(value: unknown): string | undefined {
  if (typeof value !== 'string' || value === '') return 'must be OWNER/REPOSITORY';
  const parts = value.split('/');
  if (parts.length !== 2) return `must be OWNER/REPOSITORY (exactly one "/"), got ${JSON.stringify(value)}`;
  for (const part of parts) {
    if (!SEGMENT.test(part) || /^\.+$/.test(part)) {
      return `must be OWNER/REPOSITORY with letters, digits, ".", "_" or "-" in each part, got ${JSON.stringify(value)}`;
    }
  }
  return undefined;
}

/**
 * Error message for a 64-bit decimal id string, or undefined when it is well formed.
 * @public
 */
export function decimalIdProblem(value: unknown): string | undefined {
  if (typeof value !== 'string') return 'must be a decimal string';
  if (!/^(0|[1-9][0-9]*)$/.test(value)) {
    return `must be a decimal number without sign or leading zeros, got ${JSON.stringify(value)}`;
  }
  if (value.length > 20 || BigInt(value) > MAX_U64) return `must be at most 18446744073709551615, got ${value}`;
  return undefined;
}

/**
 * Checks a job selector and returns the query parameters to send.
 * @public
 */
export function jobQuery(selector: JobSelector): Record<string, string> {
  const provider = selector.provider ?? PROVIDER;
  if (provider !== PROVIDER) throw new SelectorError('provider', `provider must be "${PROVIDER}", got ${JSON.stringify(provider)}`);
  const repoProblem = repositoryProblem(selector.repo);
  if (repoProblem) throw new SelectorError('repo', `repo ${repoProblem}`);
  const idProblem = decimalIdProblem(selector.jobId);
  if (idProblem) throw new SelectorError('job_id', `job id ${idProblem}`);
  return { provider, repo: selector.repo, job_id: selector.jobId };
}

/**
 * Checks an artifact selector and returns the query parameters to send (digest in lowercase).
 * @public
 */
export function artifactQuery(selector: ArtifactSelector): Record<string, string> {
  const { kind, digestAlgorithm, digestValue, repository } = selector;
  if (!ARTIFACT_KINDS.includes(kind)) {
    throw new SelectorError('kind', `kind must be one of ${ARTIFACT_KINDS.join(', ')}, got ${JSON.stringify(kind)}`);
  }
  if (!(digestAlgorithm in DIGEST_LENGTHS) || !Object.hasOwn(DIGEST_LENGTHS, digestAlgorithm)) {
    throw new SelectorError('digest_algorithm', `digest algorithm must be sha256 or sha512, got ${JSON.stringify(digestAlgorithm)}`);
  }
  const length = DIGEST_LENGTHS[digestAlgorithm];
  if (typeof digestValue !== 'string' || !/^[0-9a-fA-F]*$/.test(digestValue)) {
    throw new SelectorError('digest_value', 'digest value must be hexadecimal, without an algorithm prefix');
  }
  if (digestValue.length !== length) {
    throw new SelectorError('digest_value', `a ${digestAlgorithm} digest has ${length} hexadecimal characters, got ${digestValue.length}`);
  }
  const query: Record<string, string> = { kind, digest_algorithm: digestAlgorithm, digest_value: digestValue.toLowerCase() };
  if (kind === 'ci_cache') {
    if (digestAlgorithm !== 'sha256') throw new SelectorError('digest_algorithm', 'a ci_cache artifact requires the sha256 digest algorithm');
    if (repository === undefined) throw new SelectorError('repository', 'a ci_cache artifact requires a repository (OWNER/REPOSITORY)');
    const problem = repositoryProblem(repository);
    if (problem) throw new SelectorError('repository', `repository ${problem}`);
    query.repository = repository;
  } else if (repository !== undefined) {
    throw new SelectorError('repository', `repository applies only to ci_cache artifacts, not ${kind}`);
  }
  return query;
}

/**
 * Parses `ALG:HEX` (as the CLI takes it).
 * @public
 */
export function parseDigest(text: string): { digestAlgorithm: DigestAlgorithm; digestValue: string } {
  const colon = text.indexOf(':');
  if (colon < 0) throw new SelectorError('digest', `digest must be ALG:HEX (e.g. sha256:${'0'.repeat(8)}...), got ${JSON.stringify(text)}`);
  const alg = text.slice(0, colon);
  if (alg !== 'sha256' && alg !== 'sha512') throw new SelectorError('digest_algorithm', `digest algorithm must be sha256 or sha512, got ${JSON.stringify(alg)}`);
  return { digestAlgorithm: alg, digestValue: text.slice(colon + 1) };
}
