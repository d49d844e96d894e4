/** Attribution of accesses to SBOM components: the shapes shared by the index and its reference. */

/**
 * How a component was matched, strongest first:
 * - `purl`: the access names the ecosystem, name and version of the component's purl (a download
 *   or metadata request of that exact version; an OCI manifest by its digest or tag).
 * - `oci-digest`: an OCI manifest pulled by the digest of the component's purl from another registry
 *   host or repository than its `repository_url` names (a mirror, a registry's storage host): the
 *   same content, not the same place.
 * - `distribution-url`: the access URL is one of the component's `distribution` (or
 *   `source-distribution`) external references, or its purl's `download_url` qualifier.
 * - `vcs-url`: the access fetched the repository named by the component's `vcs` external
 *   reference or its purl's `vcs_url` qualifier (or a git URL among its distribution references);
 *   an archive of a commit, tag or branch only when such a reference names that revision.
 * - `name-only`: the ecosystem and name agree but the access names no version (an index page, a
 *   packument, an OCI blob, a clone of a `pkg:github` repository); or the component has no purl
 *   and its `name` and `version` members equal those the access names (ecosystem unconfirmed).
 * @public
 */
export type MatchKind = 'purl' | 'oci-digest' | 'distribution-url' | 'vcs-url' | 'name-only';

/**
 * Every match kind, strongest first.
 * @public
 */
export const MATCH_KINDS: readonly MatchKind[] = ['purl', 'oci-digest', 'distribution-url', 'vcs-url', 'name-only'];

/**
 * One SBOM component an access is attributed to. Strings are the SBOM's own (outside text).
 * @public
 */
export interface ComponentMatch {
  bomRef?: string;
  purl?: string;
  name: string;
  version?: string;
  match: MatchKind;
}

/**
 * Ecosystems whose download URL forms are recognised (purl types, git hosts folded into `git`).
 * @public
 */
export type Ecosystem = 'npm' | 'pypi' | 'cargo' | 'golang' | 'gem' | 'maven' | 'oci' | 'apk' | 'deb' | 'git';

/**
 * What an access names, read from its URL form: an ecosystem package (name normalised as the
 * ecosystem compares names; version when the form carries one), an OCI repository, or a git
 * repository (`host/path`, lower case, no `.git`).
 *
 * Maven (`name` is `GROUP/ARTIFACT`): `classifier` is the file's classifier; `shared` says the
 * file belongs to every classifier of the version (the `.pom`, the Gradle `.module`).
 * git: `version` is the revision the URL names (a commit, tag or branch); `refs`, filled in for
 * the SBOM at hand (match.ts), the revisions of the SBOM's references it names (a commit prefix
 * resolved to the SBOM's full commit).
 * @public
 */
export type Claim =
  | { kind: 'package'; eco: Exclude<Ecosystem, 'oci' | 'git'>; name: string; version?: string; classifier?: string; shared?: boolean }
  | { kind: 'oci'; host: string; repository: string; name: string; digest?: string; tag?: string }
  | { kind: 'git'; repo: string; version?: string; refs?: readonly string[] };

/**
 * A claim in the one shape every claim has here (each member present, `undefined` where it does not
 * apply, in one order): the index and the judge read claims of every kind at the same places, which
 * then see one shape. Claims of a dozen shapes made each read there a megamorphic look-up (issue 32).
 */
function claimOf(kind: Claim['kind'], eco: Ecosystem | undefined, name: string | undefined, version: string | undefined, host: string | undefined, repository: string | undefined, repo: string | undefined): Claim {
  return { kind, eco, name, version, classifier: undefined, shared: undefined, host, repository, digest: undefined, tag: undefined, repo, refs: undefined } as unknown as Claim;
}

/** A package claim (`version` left out when empty). */
export function packageClaim(eco: Exclude<Ecosystem, 'oci' | 'git'>, name: string, version?: string): Extract<Claim, { kind: 'package' }> {
  return claimOf('package', eco, name, version === '' ? undefined : version, undefined, undefined, undefined) as Extract<Claim, { kind: 'package' }>;
}

/** An OCI claim (its `digest` or `tag` set after). */
export function ociClaim(host: string, repository: string, name: string): Extract<Claim, { kind: 'oci' }> {
  return claimOf('oci', undefined, name, undefined, host, repository, undefined) as Extract<Claim, { kind: 'oci' }>;
}

/** A git claim: a repository, and the revision a URL names. */
export function gitClaim(repo: string, version?: string): Extract<Claim, { kind: 'git' }> {
  return claimOf('git', undefined, undefined, version, undefined, undefined, repo) as Extract<Claim, { kind: 'git' }>;
}
