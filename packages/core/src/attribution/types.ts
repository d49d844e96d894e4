/** Attribution of accesses to SBOM components: the shapes shared by the index and its reference. */

/**
 * How a component was matched, strongest first:
 * - `purl`: the access names the ecosystem, name and version of the component's purl (a download
 *   or metadata request of that exact version; an OCI manifest by its digest or tag).
 * - `distribution-url`: the access URL is one of the component's `distribution` (or
 *   `source-distribution`) external references, or its purl's `download_url` qualifier.
 * - `vcs-url`: the access fetched the repository named by the component's `vcs` external
 *   reference or its purl's `vcs_url` qualifier.
 * - `name-only`: the ecosystem and name agree but the access names no version (an index page, a
 *   packument, an OCI blob, a clone of a `pkg:github` repository); or the component has no purl
 *   and its `name` and `version` members equal those the access names (ecosystem unconfirmed).
 */
export type MatchKind = 'purl' | 'distribution-url' | 'vcs-url' | 'name-only';

/** Every match kind, strongest first. */
export const MATCH_KINDS: readonly MatchKind[] = ['purl', 'distribution-url', 'vcs-url', 'name-only'];

/** One SBOM component an access is attributed to. Strings are the SBOM's own (outside text). */
export interface ComponentMatch {
  bomRef?: string;
  purl?: string;
  name: string;
  version?: string;
  match: MatchKind;
}

/** Ecosystems whose download URL forms are recognised (purl types, git hosts folded into `git`). */
export type Ecosystem = 'npm' | 'pypi' | 'cargo' | 'golang' | 'gem' | 'oci' | 'apk' | 'deb' | 'git';

/**
 * What an access names, read from its URL form: an ecosystem package (name normalised as the
 * ecosystem compares names; version when the form carries one), an OCI repository, or a git
 * repository (`host/path`, lower case, no `.git`).
 */
export type Claim =
  | { kind: 'package'; eco: Exclude<Ecosystem, 'oci' | 'git'>; name: string; version?: string }
  | { kind: 'oci'; host: string; repository: string; name: string; digest?: string; tag?: string }
  | { kind: 'git'; repo: string; version?: string };
