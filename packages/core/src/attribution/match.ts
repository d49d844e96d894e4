/**
 * Does a component match what an access names, and how? One judge, used by the index (on the
 * candidates its maps give) and by the reference scan (on every component), so that a property
 * test holding one to the other tests exactly the index's choice of candidates.
 */
import type { Access } from '../eval/access';
import { parseUrl } from '../eval/url';
import { parsedUrlKey, type SbomComponent } from './components';
import { normaliseName, normaliseVersion } from './names';
import { repoKeyOfUrl } from './repo-key';
import { claimsOfSsh, claimsOfUrl, DEFAULT_REGISTRY_HOSTS, type RegistryHosts } from './url-forms';
import type { Claim, ComponentMatch, Ecosystem, MatchKind } from './types';

const RANK: Readonly<Record<MatchKind, number>> = { 'purl': 0, 'distribution-url': 1, 'vcs-url': 2, 'name-only': 3 };

export function stronger(a: MatchKind | undefined, b: MatchKind | undefined): MatchKind | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return RANK[b] < RANK[a] ? b : a;
}

/** What an access names: its claims and, for a request, its URL as distribution references are compared. */
export interface AccessClaims {
  claims: Claim[];
  url?: string;
}

export const NO_CLAIMS: AccessClaims = { claims: [] };

/** The registry hosts for generic forms: the well-known ones and those the components name. */
export function registryHosts(components: readonly SbomComponent[]): RegistryHosts {
  const hosts = new Map<Ecosystem, Set<string>>();
  for (const [eco, list] of DEFAULT_REGISTRY_HOSTS) hosts.set(eco, new Set(list));
  for (const c of components) {
    if (c.keys === undefined || c.registryHost === undefined) continue;
    let set = hosts.get(c.keys.eco);
    if (!set) hosts.set(c.keys.eco, (set = new Set()));
    set.add(c.registryHost);
  }
  return hosts;
}

/** The claims of an access (HTTP requests and SSH git commands; connections name no package). */
export function claimsOfAccess(access: Access, hosts: RegistryHosts, remoteUrl?: string): AccessClaims {
  if (access.kind === 'http') {
    if (typeof access.url !== 'string') return NO_CLAIMS;
    if (access.url.length > 8192) return NO_CLAIMS;
    const u = parseUrl(access.url);
    if (!u) return NO_CLAIMS;
    return { claims: claimsOfUrl(u, hosts), url: parsedUrlKey(u) };
  }
  if (access.kind === 'ssh') {
    if (typeof access.host !== 'string') return NO_CLAIMS;
    const remote = typeof remoteUrl === 'string' ? repoKeyOfUrl(remoteUrl) : undefined;
    return { claims: claimsOfSsh(access.host, typeof access.repositoryPath === 'string' ? access.repositoryPath : undefined, remote) };
  }
  return NO_CLAIMS;
}

/** Sets of long reference lists, made once per list (a component may list 256 references). */
const listSets = new WeakMap<readonly string[], Set<string>>();

/** `list.includes(x)`, by a set for a long list: judging stays linear however many references a component lists. */
function listed(list: readonly string[], x: string): boolean {
  if (list.length <= 16) return list.includes(x);
  let set = listSets.get(list);
  if (set === undefined) listSets.set(list, (set = new Set(list)));
  return set.has(x);
}

function judgeClaim(c: SbomComponent, claim: Claim): MatchKind | undefined {
  const k = c.keys;
  switch (claim.kind) {
    case 'package': {
      if (k !== undefined) {
        if (k.eco !== claim.eco || k.name !== claim.name) return undefined;
        if (claim.version === undefined || k.version === undefined) return 'name-only';
        return normaliseVersion(claim.eco, claim.version) === k.version ? 'purl' : undefined;
      }
      // No purl of a known ecosystem: the name and version members, both required.
      if (c.purl !== undefined || claim.version === undefined || c.version === undefined) return undefined;
      if (normaliseName(claim.eco, c.fullName) !== claim.name) return undefined;
      return normaliseVersion(claim.eco, c.version) === normaliseVersion(claim.eco, claim.version) ? 'name-only' : undefined;
    }
    case 'oci': {
      if (k === undefined || k.eco !== 'oci' || k.name !== claim.name) return undefined;
      if (k.ociHost !== undefined && k.ociHost !== claim.host) return undefined;
      if (k.ociRepository !== undefined && k.ociRepository !== claim.repository) return undefined;
      // A digest is a content address: equal digests are the same image wherever it is pulled from.
      if (claim.digest !== undefined && k.version === claim.digest) return 'purl';
      // Without `repository_url` only a digest says which image this is: a name alone may be any repository's.
      if (k.ociRepository === undefined) return undefined;
      if (claim.tag !== undefined && k.tag === claim.tag) return 'purl';
      return 'name-only';
    }
    case 'git': {
      let kind: MatchKind | undefined = listed(c.vcs, claim.repo) ? 'vcs-url' : undefined;
      if (k !== undefined && k.eco === 'git' && k.repo === claim.repo) {
        if (claim.version === undefined || k.version === undefined) kind = stronger(kind, 'name-only');
        else if (normaliseVersion('git', claim.version) === k.version) kind = 'purl';
      }
      return kind;
    }
  }
}

/** How a component matches an access's claims, if it does. */
export function judge(c: SbomComponent, a: AccessClaims): MatchKind | undefined {
  let kind: MatchKind | undefined = a.url !== undefined && listed(c.distribution, a.url) ? 'distribution-url' : undefined;
  for (const claim of a.claims) {
    kind = stronger(kind, judgeClaim(c, claim));
    if (kind === 'purl') break;
  }
  return kind;
}

/** The empty answer, shared: most accesses of a trace name no component. */
export const UNATTRIBUTED: readonly ComponentMatch[] = Object.freeze([]);

/**
 * The entries of the judged components: one per component, strongest kind first, SBOM order
 * within a kind; `name-only` entries are left out when a stronger match exists (precision).
 */
export function entries(found: readonly { c: SbomComponent; kind: MatchKind }[]): ComponentMatch[] {
  const strong = found.some((f) => f.kind !== 'name-only');
  const kept = (strong ? found.filter((f) => f.kind !== 'name-only') : found.slice()).sort((x, y) => RANK[x.kind] - RANK[y.kind] || x.c.order - y.c.order);
  return kept.map(({ c, kind }) => {
    // Members in the documented order: { bomRef?, purl?, name, version?, match }.
    const m = {} as ComponentMatch;
    if (c.bomRef !== undefined) m.bomRef = c.bomRef;
    if (c.purl !== undefined) m.purl = c.purl;
    m.name = c.name;
    if (c.version !== undefined) m.version = c.version;
    m.match = kind;
    return m;
  });
}

/** Equal entries, equal strings (members length-prefixed: no separator to forge). */
function entryKey(m: ComponentMatch): string {
  const part = (s: string | undefined): string => (s === undefined ? '-' : `${s.length}:${s}`);
  return `${m.match}${part(m.bomRef)}${part(m.purl)}${part(m.name)}${part(m.version)}`;
}

/**
 * The answer from the judged components: `entries`, each entry once (a component the SBOM lists
 * twice, or 300,000 times, is one entry, where it first comes). By a set: the reference
 * (naive.ts) compares entries pairwise.
 */
export function finish(found: readonly { c: SbomComponent; kind: MatchKind }[]): readonly ComponentMatch[] {
  if (found.length === 0) return UNATTRIBUTED;
  const list = entries(found);
  if (list.length === 1) return list;
  const seen = new Set<string>();
  return list.filter((m) => {
    const k = entryKey(m);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}
