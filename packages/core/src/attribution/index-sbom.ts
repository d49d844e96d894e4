/**
 * `indexSbom(sbom)`: an SBOM read once into maps, then `attribute(access)` per access: a parse
 * of the URL into claims (a handful per request) and a few map look-ups per claim, whatever the
 * number of components (explain runs it over hundreds of thousands of accesses). The reference,
 * a scan of every component per access, is `attributeNaive` (naive.ts).
 *
 * Linear in components plus accesses, whatever the SBOM (security issue 28): components alike in
 * everything attribution reads are indexed once (300,000 copies of one purl are one candidate);
 * lists are keyed down to the version, digest or tag, so that an access finds the components of
 * its version among thousands of one name; and an access judges at most `maxCandidates`
 * components (lists whose components all match strongly first), which only a hostile SBOM
 * reaches: the answer is then part of the full one, never an entry the full one lacks.
 */
import type { Access } from '../eval/access';
import type { ParsedUrl } from '../eval/url';
import { readSbomComponents, refKey, type SbomComponent } from './components';
import { claimsOfAccess, entryOf, finish, judge, sbomContext, UNATTRIBUTED, type AccessClaims, type ContextOptions, type SbomContext } from './match';
import { normaliseVersion, pep503 } from './names';
import { MATCH_KINDS, type ComponentMatch, type Ecosystem, type MatchKind } from './types';
import { Gathered } from './index-gathered';
import { add, foldVersion, identity, key2, key3, OciImages, Versions, type Held, type List } from './index-maps';

export { foldVersion } from './index-maps';

/**
 * An SBOM indexed once (`indexSbom`) to attribute many accesses to the components they fetched.
 * @public
 */
export interface SbomIndex {
  /** The components read from the SBOM (those with a name). */
  readonly componentCount: number;
  /**
   * The components an access fetched, strongest match first; empty when unattributed.
   * `remoteUrl`: an SSH git command's original remote URL (the trace's `remote_url`), when known.
   * The answer is shared, do not change it: the empty array, and the answer naming one component
   * alone (frozen, with its entry), which is given again to each access it answers.
   */
  attribute(access: Access, remoteUrl?: string): readonly ComponentMatch[];
}

/**
 * Options of `indexSbom`.
 * @public
 */
export interface IndexSbomOptions extends ContextOptions {}

/** Options of `indexSbomWith`. */
export interface SbomIndexOptions extends IndexSbomOptions {
  /**
   * Components judged for one access at most (default `MAX_CANDIDATES`). Beyond it, an access
   * could match more components than a report can show: the strongest found first are kept.
   */
  maxCandidates?: number;
}

/**
 * The default `maxCandidates`: far above what an access of a real SBOM meets (every version of
 * one name, every package of one monorepo's repository), low enough that a trace of a million
 * accesses stays linear.
 */
export const MAX_CANDIDATES = 1000;

class Index implements SbomIndex {
  readonly componentCount: number;
  private readonly context: SbomContext;
  private readonly max: number;
  /** Ecosystem, then name (purl keys), then version. */
  private readonly packages = new Map<Ecosystem, Map<string, Versions>>();
  /** OCI purls by name (the repository's last segment). */
  private readonly oci = new Map<string, OciImages>();
  /** git purls (`pkg:github` and the like) by repository key. */
  private readonly gitPurls = new Map<string, Versions>();
  /** Components with no purl, by `pep503(group/name)` (coarser than every ecosystem's name rule), then `foldVersion`. */
  private readonly loose = new Map<string, Versions>();
  /** Their folded versions: a claim of another version finds none of them (no name normalised for it). */
  private readonly looseVersions = new Set<string>();
  /** Distribution URL keys. */
  private readonly urls = new Map<string, List>();
  /** Repository keys of vcs references. */
  private readonly vcs = new Map<string, List>();
  /** Repository keys and revisions of vcs references (`refKey`). */
  private readonly vcsRefs = new Map<string, List>();
  private readonly gathered: Gathered;
  /**
   * `candidates`' package claims' names by the claim's position (one array for every access:
   * attribution is synchronous); made long enough before it is written (a store past its end
   * deoptimised `candidates`).
   */
  private readonly names: (Versions | undefined)[] = new Array<Versions | undefined>(16).fill(undefined);

  constructor(components: SbomComponent[], options: SbomIndexOptions) {
    this.componentCount = components.length;
    this.max = Math.max(1, options.maxCandidates ?? MAX_CANDIDATES);
    this.gathered = new Gathered(this.max);
    this.context = sbomContext(components, options);
    // A component alike in everything attribution reads to an earlier one gives the same entry
    // after it: the earlier one answers for both. Its `identity` is made only when an earlier one
    // has the same purl (or, without one, the same name): components alike have.
    const seen = new Set<string>();
    const first = [new Map<string, SbomComponent | null>(), new Map<string, SbomComponent | null>()];
    for (const c of components) {
      const byKey = c.purl !== undefined ? first[0] : first[1];
      const k = c.purl ?? c.fullName;
      const earlier = byKey.get(k);
      if (earlier === undefined) {
        byKey.set(k, c);
        this.index(c);
        continue;
      }
      // The first of its key gets its identity now (`null`: already given).
      if (earlier !== null) {
        seen.add(identity(earlier));
        byKey.set(k, null);
      }
      const id = identity(c);
      if (seen.has(id)) continue;
      seen.add(id);
      this.index(c);
    }
  }

  private index(component: SbomComponent): void {
    const c: Held = { c: component, alone: undefined };
    const k = component.keys;
    if (k !== undefined) {
      if (k.eco === 'git') this.versions(this.gitPurls, k.repo!).add(c, k.version);
      else if (k.eco === 'oci') {
        let images = this.oci.get(k.name);
        if (images === undefined) this.oci.set(k.name, (images = new OciImages()));
        if (k.version !== undefined) {
          add((images.byDigest ??= new Map()), key3(k.version, k.ociHost ?? '', k.ociRepository ?? ''), c);
          add((images.byDigestAnywhere ??= new Map()), k.version, c);
        }
        if (k.ociRepository !== undefined) {
          add((images.byRepository ??= new Map()), key2(k.ociHost!, k.ociRepository), c);
          if (k.tag !== undefined) add((images.byTag ??= new Map()), key3(k.ociHost!, k.ociRepository, k.tag), c);
        }
      } else {
        let names = this.packages.get(k.eco);
        if (names === undefined) this.packages.set(k.eco, (names = new Map()));
        this.versions(names, k.name).add(c, k.version);
      }
    } else if (component.purl === undefined && component.version !== undefined) {
      const version = foldVersion(component.version);
      this.versions(this.loose, pep503(component.fullName)).add(c, version);
      this.looseVersions.add(version);
    }
    for (const u of component.distribution) add(this.urls, u, c);
    for (const r of component.vcs) add(this.vcs, r, c);
    for (const r of component.vcsRefs) add(this.vcsRefs, r, c);
  }

  private versions(map: Map<string, Versions>, name: string): Versions {
    let v = map.get(name);
    if (v === undefined) map.set(name, (v = new Versions()));
    return v;
  }

  /**
   * The components that may match, in lists whose every component matches: `purl` lists first,
   * then `distribution-url`, `vcs-url`, then `name-only` and those the judge decides (no purl).
   * A component that matches is in one of them; one that does not is rarely.
   */
  private candidates(a: AccessClaims, into: Gathered): void {
    const claims = a.claims;
    // A package claim's name, looked up once for both of its look-ups (its version's list, then the others).
    const names = this.names;
    while (names.length < claims.length) names.push(undefined);
    for (let i = 0; i < claims.length; i++) {
      const claim = claims[i];
      if (claim.kind === 'package') {
        const v = (names[i] = this.packages.get(claim.eco)?.get(claim.name));
        if (claim.version !== undefined && v !== undefined) into.want(v.byVersion(normaliseVersion(claim.eco, claim.version)));
      } else if (claim.kind === 'oci') {
        const images = this.oci.get(claim.name);
        if (images === undefined) continue;
        if (claim.digest !== undefined) {
          into.want(images.byDigest?.get(key3(claim.digest, claim.host, claim.repository)));
          into.want(images.byDigest?.get(key3(claim.digest, claim.host, '')));
          into.want(images.byDigest?.get(key3(claim.digest, '', '')));
        }
        if (claim.tag !== undefined) into.want(images.byTag?.get(key3(claim.host, claim.repository, claim.tag)));
      } else if (claim.refs !== undefined) for (const r of claim.refs) into.want(this.gitPurls.get(claim.repo)?.byVersion(r));
    }
    for (const claim of a.claims) if (claim.kind === 'oci' && claim.digest !== undefined) into.want(this.oci.get(claim.name)?.byDigestAnywhere?.get(claim.digest));
    if (a.url !== undefined) into.want(this.urls.get(a.url));
    for (const claim of a.claims) {
      if (claim.kind !== 'git') continue;
      if (claim.refs === undefined) into.want(this.vcs.get(claim.repo));
      else for (const r of claim.refs) into.want(this.vcsRefs.get(refKey(claim.repo, r)));
    }
    for (let i = 0; i < claims.length; i++) {
      const claim = claims[i];
      if (claim.kind === 'package') {
        const v = names[i];
        into.want(claim.version !== undefined ? v?.unversioned : v?.all);
        // Components without a purl, by name and version (few in most SBOMs, their own metadata
        // component: its name is normalised only for a claim of a version one of them has).
        if (claim.version !== undefined && this.loose.size > 0) {
          const version = foldVersion(claim.version);
          if (this.looseVersions.has(version)) into.want(this.loose.get(pep503(claim.name))?.byVersion(version));
        }
      } else if (claim.kind === 'oci') into.want(this.oci.get(claim.name)?.byRepository?.get(key2(claim.host, claim.repository)));
      else {
        const v = this.gitPurls.get(claim.repo);
        into.want(claim.version !== undefined ? v?.unversioned : v?.all);
      }
    }
    into.takeWanted();
  }

  attribute(access: Access, remoteUrl?: string): readonly ComponentMatch[] {
    return this.attributeParsed(access, undefined, remoteUrl);
  }

  /** `attribute` of an HTTP request whose URL the caller parsed already (`parseUrl(access.url)`, null when it does not parse). */
  attributeParsed(access: Access, parsed: ParsedUrl | null | undefined, remoteUrl?: string): readonly ComponentMatch[] {
    if (this.componentCount === 0 || access === null || typeof access !== 'object') return UNATTRIBUTED;
    const a = claimsOfAccess(access, this.context, remoteUrl, parsed);
    if (a.claims.length === 0 && a.url === undefined) return UNATTRIBUTED;
    const candidates = this.gathered;
    candidates.reset();
    this.candidates(a, candidates);
    const list = candidates.list;
    if (list.length === 0) return UNATTRIBUTED;
    // One candidate (most accesses): its answer of that kind, made once.
    if (list.length === 1) {
      const kind = judge(list[0].c, a);
      return kind === undefined ? UNATTRIBUTED : this.alone(list[0], kind);
    }
    const found: { c: SbomComponent; kind: MatchKind }[] = [];
    for (const h of list) {
      const kind = judge(h.c, a);
      if (kind !== undefined) found.push({ c: h.c, kind });
    }
    return finish(found);
  }

  /** The answer naming one component alone, matched by `kind`: `finish` of it, kept for the next access it answers. */
  private alone(h: Held, kind: MatchKind): readonly ComponentMatch[] {
    const rank = MATCH_KINDS.indexOf(kind);
    const answers = (h.alone ??= [undefined, undefined, undefined, undefined, undefined]);
    return (answers[rank] ??= Object.freeze([entryOf(h.c, kind)]));
  }
}

/**
 * Reads a CycloneDX JSON SBOM (the parsed document, as `netpolicy fetch sbom` writes it) into an
 * index of its components. Never throws: a value that is no SBOM gives an empty index, a
 * component that does not read is skipped.
 * @public
 */
export function indexSbom(sbom: unknown, options: IndexSbomOptions = {}): SbomIndex {
  return new Index(readSbomComponents(sbom), options);
}

/**
 * `index.attribute(access, remoteUrl)` of an HTTP request whose URL the caller parsed already
 * (`parseUrl(access.url)`, null when it does not parse): explain parses each URL once.
 * @internal
 */
export function attributeParsed(index: SbomIndex, access: Access, parsed: ParsedUrl | null | undefined, remoteUrl?: string): readonly ComponentMatch[] {
  return index instanceof Index ? index.attributeParsed(access, parsed, remoteUrl) : index.attribute(access, remoteUrl);
}

/** `indexSbom` with options (tests: a small `maxCandidates`). Not part of the package's API. */
export function indexSbomWith(sbom: unknown, options: SbomIndexOptions): SbomIndex {
  return new Index(readSbomComponents(sbom), options);
}
