/**
 * `indexSbom(sbom)`: an SBOM read once into maps, then `attribute(access)` per access: a parse
 * of the URL into claims (a handful per request) and one map look-up per claim, whatever the
 * number of components (explain runs it over hundreds of thousands of accesses). The reference,
 * a scan of every component per access, is `attributeNaive` (naive.ts).
 */
import type { Access } from '../eval/access';
import { readSbomComponents, type SbomComponent } from './components';
import { claimsOfAccess, finish, judge, registryHosts, UNATTRIBUTED, type AccessClaims } from './match';
import { pep503 } from './names';
import type { RegistryHosts } from './url-forms';
import type { Claim, ComponentMatch, Ecosystem, MatchKind } from './types';

/** An SBOM indexed once (`indexSbom`) to attribute many accesses to the components they fetched. */
export interface SbomIndex {
  /** The components read from the SBOM (those with a name). */
  readonly componentCount: number;
  /**
   * The components an access fetched, strongest match first; empty when unattributed.
   * `remoteUrl`: an SSH git command's original remote URL (the trace's `remote_url`), when known.
   * The array is shared when empty: do not change it.
   */
  attribute(access: Access, remoteUrl?: string): readonly ComponentMatch[];
}

function add<K>(map: Map<K, SbomComponent[]>, key: K, c: SbomComponent): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [c]);
  else if (list[list.length - 1] !== c) list.push(c);
}

function take(list: SbomComponent[] | undefined, into: SbomComponent[]): void {
  if (list === undefined) return;
  // Lists and results are a few components long: a scan dedupes without a Set.
  for (const c of list) if (!into.includes(c)) into.push(c);
}

class Index implements SbomIndex {
  readonly componentCount: number;
  private readonly hosts: RegistryHosts;
  /** Ecosystem, then name (purl keys; OCI by the repository's last segment). */
  private readonly packages = new Map<Ecosystem, Map<string, SbomComponent[]>>();
  /** Components with no purl, by `pep503(group/name)`: coarser than every ecosystem's name rule. */
  private readonly loose = new Map<string, SbomComponent[]>();
  /** Distribution URL keys. */
  private readonly urls = new Map<string, SbomComponent[]>();
  /** Repository keys of git purls and vcs references. */
  private readonly repos = new Map<string, SbomComponent[]>();

  constructor(components: SbomComponent[]) {
    this.componentCount = components.length;
    this.hosts = registryHosts(components);
    for (const c of components) {
      const k = c.keys;
      if (k !== undefined) {
        if (k.eco === 'git') add(this.repos, k.repo!, c);
        else {
          let names = this.packages.get(k.eco);
          if (names === undefined) this.packages.set(k.eco, (names = new Map()));
          add(names, k.name, c);
        }
      } else if (c.purl === undefined && c.version !== undefined) add(this.loose, pep503(c.fullName), c);
      for (const u of c.distribution) add(this.urls, u, c);
      for (const r of c.vcs) add(this.repos, r, c);
    }
  }

  private candidates(a: AccessClaims, into: SbomComponent[]): void {
    if (a.url !== undefined && this.urls.size > 0) take(this.urls.get(a.url), into);
    for (const claim of a.claims as Claim[]) {
      if (claim.kind === 'package') {
        take(this.packages.get(claim.eco)?.get(claim.name), into);
        if (claim.version !== undefined && this.loose.size > 0) take(this.loose.get(pep503(claim.name)), into);
      } else if (claim.kind === 'oci') take(this.packages.get('oci')?.get(claim.name), into);
      else take(this.repos.get(claim.repo), into);
    }
  }

  attribute(access: Access, remoteUrl?: string): readonly ComponentMatch[] {
    if (this.componentCount === 0 || access === null || typeof access !== 'object') return UNATTRIBUTED;
    const a = claimsOfAccess(access, this.hosts, remoteUrl);
    if (a.claims.length === 0 && a.url === undefined) return UNATTRIBUTED;
    const candidates: SbomComponent[] = [];
    this.candidates(a, candidates);
    if (candidates.length === 0) return UNATTRIBUTED;
    const found: { c: SbomComponent; kind: MatchKind }[] = [];
    for (const c of candidates) {
      const kind = judge(c, a);
      if (kind !== undefined) found.push({ c, kind });
    }
    return finish(found);
  }
}

/**
 * Reads a CycloneDX JSON SBOM (the parsed document, as `netpolicy fetch sbom` writes it) into an
 * index of its components. Never throws: a value that is no SBOM gives an empty index, a
 * component that does not read is skipped.
 */
export function indexSbom(sbom: unknown): SbomIndex {
  return new Index(readSbomComponents(sbom));
}
