/**
 * The readers of container images and git repositories: OCI distribution's `/v2/` paths on any
 * host, git's smart HTTP, the forges' archives of a revision and GitHub's release assets, and the
 * repository an SSH git command names. Each adds the claims it reads to `out`; url-forms.ts chooses
 * which of them a request needs.
 */
import { ociRepository, gitRepository } from '../eval/rules';
import { isGitSmartHttpPath } from '../eval/recognise';
import type { ParsedUrl } from '../eval/url';
import { decodeSegment, ociHost, ociRepositoryPath } from './names';
import { repoKey } from './repo-key';
import { gitClaim, ociClaim, type Claim } from './types';

/** OCI distribution: `/v2/REPO/(manifests|blobs|tags|referrers)/...`. */
export function oci(u: ParsedUrl, s: string[], out: Claim[]): void {
  const repository = ociRepository(u.path);
  if (repository === undefined || repository === '') return;
  const host = ociHost(u.host);
  const repo = ociRepositoryPath(host, decodeSegment(repository));
  const name = repo.slice(repo.lastIndexOf('/') + 1);
  const rest = s.slice(2 + repository.split('/').length);
  const claim = ociClaim(host, repo, name);
  if (rest[0] === 'manifests' && rest.length === 2 && rest[1] !== '') {
    const ref = decodeSegment(rest[1]);
    if (/^[a-z0-9]+(?:[.+_-][a-z0-9]+)*:[a-zA-Z0-9=_-]+$/.test(ref)) claim.digest = ref.toLowerCase();
    else claim.tag = ref;
  }
  out.push(claim);
}

/** Archive file extensions of the forges' archive downloads. */
const ARCHIVE_EXT = ['.tar.gz', '.tar.bz2', '.tar.xz', '.tgz', '.zip', '.tar'];

/** A file name without its archive extension; undefined when it has none. */
function archiveBase(file: string): string | undefined {
  const ext = ARCHIVE_EXT.find((e) => file.endsWith(e));
  return ext === undefined ? undefined : file.slice(0, -ext.length);
}

/** Hosts with GitHub's archive form `/O/R/archive/REF.EXT` (Gitea and Forgejo use it too). */
export const ARCHIVE_HOSTS = new Set(['github.com', 'codeberg.org', 'gitea.com']);

function gitArchive(out: Claim[], host: string, path: string, ref: string | undefined): void {
  const repo = repoKey(host, path);
  if (repo !== undefined && ref !== undefined && ref.length > 0) out.push(gitClaim(repo, ref));
}

/**
 * Git smart HTTP (`.../REPO(.git)/info/refs`, `/git-upload-pack`, `/git-receive-pack`), the forges'
 * archives of a revision (a commit, tag or branch) and GitHub release assets.
 */
export function git(u: ParsedUrl, s: string[], out: Claim[]): void {
  if (isGitSmartHttpPath(u.path)) {
    const repo = repoKey(u.host, gitRepository('/', u.path));
    if (repo !== undefined) out.push(gitClaim(repo));
    return;
  }
  const n = s.length;
  const host = u.host;
  const file = decodeSegment(s[n - 1]);
  // GitLab, any host: `/GROUP[/SUB...]/PROJECT/-/archive/REF/PROJECT-REF.EXT`.
  const dash = s.indexOf('-');
  if (dash >= 3 && s[dash + 1] === 'archive' && n >= dash + 4) {
    if (archiveBase(file) !== undefined) gitArchive(out, host, s.slice(1, dash).join('/'), s.slice(dash + 2, n - 1).map(decodeSegment).join('/'));
    return;
  }
  if (n < 5) return;
  const ownerRepo = `${s[1]}/${s[2]}`;
  if (ARCHIVE_HOSTS.has(host) && s[3] === 'archive') {
    // `/O/R/archive/REF.EXT`, `/O/R/archive/refs/tags/TAG.EXT`, `/O/R/archive/refs/heads/BRANCH.EXT`.
    const base = archiveBase(decodeSegment(s.slice(n === 5 ? 4 : 6).join('/')));
    if (n === 5 || (n >= 7 && s[4] === 'refs' && (s[5] === 'tags' || s[5] === 'heads'))) gitArchive(out, host, ownerRepo, base);
    return;
  }
  if (host === 'github.com' && s[3] === 'releases' && s[4] === 'download' && n === 7) { gitArchive(out, host, ownerRepo, decodeSegment(s[5])); return; }
  // Bitbucket: `/O/R/get/REF.EXT`.
  if (host === 'bitbucket.org' && s[3] === 'get' && n === 5) { gitArchive(out, host, ownerRepo, archiveBase(file)); return; }
  // codeload: `/O/R/(tar.gz|zip|legacy.tar.gz|legacy.zip)/REF`, `.../refs/(tags|heads)/REF`.
  if (host === 'codeload.github.com' && (s[3] === 'tar.gz' || s[3] === 'zip' || s[3] === 'legacy.tar.gz' || s[3] === 'legacy.zip')) {
    const ref = n === 5 ? decodeSegment(s[4]) : n >= 7 && s[4] === 'refs' && (s[5] === 'tags' || s[5] === 'heads') ? s.slice(6).map(decodeSegment).join('/') : undefined;
    gitArchive(out, 'github.com', ownerRepo, ref);
    return;
  }
  // GitHub's API: `/repos/O/R/(tarball|zipball)/REF` (without a REF it names no revision: no claim).
  if (host === 'api.github.com' && s[1] === 'repos' && n === 6 && (s[4] === 'tarball' || s[4] === 'zipball')) gitArchive(out, 'github.com', `${s[2]}/${s[3]}`, decodeSegment(s[5]));
}

/** The claim of an SSH git command: the server's host and the repository path it was sent (or the remote URL's). */
export function claimsOfSsh(host: string, repositoryPath: string | undefined, remoteUrlKey: string | undefined): Claim[] {
  const out: Claim[] = [];
  const fromPath = repositoryPath !== undefined ? repoKey(host, repositoryPath) : undefined;
  if (fromPath !== undefined) out.push(gitClaim(fromPath));
  if (remoteUrlKey !== undefined && remoteUrlKey !== fromPath) out.push(gitClaim(remoteUrlKey));
  return out;
}
