/**
 * The `provenance` member of each explain result (contracts.md: `--provenance` adds
 * `"provenance":{"artifact":{...},"publication":{...}}|{"error":"..."}` to OCI pulls by digest).
 * The report's entries (`provenanceEntry`, one per pulled digest) say what the lookups gave; this
 * hands each result whose observation is such a pull the part of its digest's entry that concerns
 * it. Pure: the caller looks the digests up first (a first pass over the trace with a PullCollector).
 */
import type { AnyObservation } from '../trace/types';
import { ociBlobPullOf, ociPullOf, type ProvenanceEntry, type PublicationSummary } from './provenance';

/**
 * The artifact a result pulled, as the service records it.
 * @beta
 */
export interface ResultArtifact {
  /** `ALG:HEX`, lower case. */
  digest: string;
  /** `oci_manifest` or `oci_index`. */
  kind: string;
  id: string;
  /** How many publications the record lists. */
  publications: number;
}

/**
 * The newest publication, with whether its job ran in one of the user's repositories.
 * @beta
 */
export type ResultPublication = PublicationSummary & { own: boolean };

/**
 * A result's provenance: the artifact and its newest publication (null when the record lists
 * none), or why there is none (the service has no record, the lookup failed, it was not looked up).
 * @beta
 */
export type ResultProvenance =
  | { artifact: ResultArtifact; publication: ResultPublication | null }
  | { error: string };

/** A blob's error: the service's kinds are manifests, indexes and CI caches (interface.md). */
export const BLOB_NOT_LOOKED_UP = 'not looked up: a blob (a layer or image config); the service records manifests and indexes';

/** The result member of a report entry (a `found` entry's artifact and newest publication, else its error). */
export function resultProvenance(entry: ProvenanceEntry): ResultProvenance {
  if (entry.status === 'found') {
    const a = entry.artifact ?? { kind: '', id: '', publications: 0 };
    const artifact: ResultArtifact = { digest: entry.digest, kind: a.kind, id: a.id, publications: a.publications };
    const p = entry.publication;
    return { artifact, publication: p ? { ...p, own: entry.own === true } : null };
  }
  const why = entry.error ?? '';
  return { error: entry.status === 'error' ? `lookup failed: ${why}` : why };
}

/**
 * Each result's provenance from a report's entries: `of(observation)` is the member for a manifest
 * or index pulled by digest (or by a tag whose digest the trace records), an error for a blob
 * pulled by digest, undefined for anything else (a tag pull without a recorded digest, a denied
 * or failed request, any other access). The same object for every pull of a digest.
 * @beta
 */
export class ResultProvenanceIndex {
  private readonly byDigest = new Map<string, ResultProvenance>();
  private readonly blob: ResultProvenance = { error: BLOB_NOT_LOOKED_UP };
  private readonly beyond: ResultProvenance;

  /** `kept`: how many artifacts the collector kept (a digest beyond them has no entry). */
  constructor(entries: readonly ProvenanceEntry[], kept: number) {
    for (const e of entries) this.byDigest.set(e.digest, resultProvenance(e));
    this.beyond = { error: `not looked up: the report keeps the first ${kept} artifacts pulled` };
  }

  of(o: AnyObservation): ResultProvenance | undefined {
    if (o.protocol !== 'http') return undefined;
    const pull = ociPullOf(o);
    if (pull !== undefined) return pull.digest === undefined ? undefined : (this.byDigest.get(pull.digest) ?? this.beyond);
    return ociBlobPullOf(o) !== undefined ? this.blob : undefined;
  }
}
