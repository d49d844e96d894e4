/** Which SBOM components an access fetched (docs/attribution.md). */
export { indexSbom, type SbomIndex, type IndexSbomOptions } from './index-sbom';
export { attributeNaive } from './naive';
export { componentAccesses, sbomAccesses } from './component-accesses';
export { readSbomComponents, purlKeys, urlKey, type SbomComponent, type PurlKeys } from './components';
export { claimsOfUrl, DEFAULT_REGISTRY_HOSTS, type RegistryHosts } from './url-forms';
export { repoKey, repoKeyOfUrl } from './repo-key';
export { MATCH_KINDS, type MatchKind, type ComponentMatch, type Claim, type Ecosystem } from './types';
export {
  ociPullOf, ociBlobPullOf, ociDigest, PullCollector, newestPublication, ownRepositories, provenanceEntry, provenanceCounts, CONTENT_DIGEST_MEMBERS, SEQUENCES_KEPT,
  type OciPull, type PulledArtifact, type ArtifactLookup, type PublicationSummary, type ProvenanceEntry, type ProvenanceCounts,
} from './provenance';
export { resultProvenance, ResultProvenanceIndex, BLOB_NOT_LOOKED_UP, type ResultArtifact, type ResultPublication, type ResultProvenance } from './result-provenance';
