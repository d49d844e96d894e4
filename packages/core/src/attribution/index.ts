/** Which SBOM components an access fetched (docs/attribution.md). */
export { indexSbom, type SbomIndex, type IndexSbomOptions } from './index-sbom';
export { sbomAccesses } from './component-accesses';
export type { SbomComponent, PurlKeys } from './components';
export type { RegistryHosts } from './url-forms';
export { MATCH_KINDS, type MatchKind, type ComponentMatch, type Claim, type Ecosystem } from './types';
export {
  PullCollector, newestPublication, ownRepositories, provenanceEntry, provenanceCounts,
  type OciPull, type PulledArtifact, type ArtifactLookup, type PublicationSummary, type ProvenanceEntry, type ProvenanceCounts,
} from './provenance';
export { ResultProvenanceIndex, type ResultArtifact, type ResultPublication, type ResultProvenance } from './result-provenance';
