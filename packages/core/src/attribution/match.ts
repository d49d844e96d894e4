/**
 * Does a component match what an access names, and how? One judge, used by the index (on the
 * candidates its maps give) and by the reference scan (on every component), so that a property
 * test holding one to the other tests exactly the index's choice of candidates.
 */
import type { Access } from '../eval/access';
import { parseUrl, type ParsedUrl } from '../eval/url';
import type { Policy } from '../policy/types';
import { keyPath, parsedUrlKey, refKey, type SbomComponent } from './components';
import { mavenBaseOf } from './maven';
import { isCommitLike, normaliseName, normaliseRef, normaliseVersion } from './names';
import { repoKeyOfUrl } from './repo-key';
import { claimsOfSsh, claimsOfUrl, claimsOfUrlEveryForm, DEFAULT_REGISTRY_HOSTS, type RegistryHosts } from './url-forms';
import type { Claim, ComponentMatch, Ecosystem, MatchKind } from './types';

const RANK: Readonly<Record<MatchKind, number>> = { 'purl': 0, 'oci-digest': 1, 'distribution-url': 2, 'vcs-url': 3, 'name-only': 4 };

export function stronger(a: MatchKind | undefined, b: MatchKind | undefined): MatchKind | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return RANK[b] < RANK[a] ? b : a;
}

/**
 * What an access names: its claims and, for a request, its URL as distribution references are
 * compared (`url` always present, `undefined` where there is none: one shape where it is read).
 */
export interface AccessClaims {
  claims: Claim[];
  url: string | undefined;
}

export const NO_CLAIMS: AccessClaims = { claims: [], url: undefined };

/** What the SBOM (and the policy) say once for all accesses: registry hosts, and the commits its references name. */
export interface SbomContext {
  hosts: RegistryHosts;
  commits: CommitTable;
  /** The hosts of the components' distribution URLs: a request to another host is compared with none (no URL key made). */
  distributionHosts: ReadonlySet<string>;
  /** Their paths (`urlKey`'s, after the port): a request of another path is compared with none either. */
  distributionPaths: ReadonlySet<string>;
}

/** Options read from outside the SBOM. */
export interface ContextOptions {
  /**
   * The policy in force: its sources' URLs are registries too (an `npm` source's hosts read npm's
   * generic forms; every source URL is a Maven repository base, as no source kind is Maven's).
   */
  policy?: Pick<Policy, 'sources'>;
}

const SOURCE_ECOSYSTEM: Readonly<Record<string, Ecosystem>> = { npm: 'npm', pypi: 'pypi', rubygems: 'gem', golang: 'golang', cargo: 'cargo' };

function own(o: unknown, key: string): unknown {
  return o !== null && typeof o === 'object' && Object.prototype.hasOwnProperty.call(o, key) ? (o as Record<string, unknown>)[key] : undefined;
}

/** Every URL a policy's sources list, with the ecosystem of its kind (read defensively: the policy may not be validated). */
function policyUrls(policy: Pick<Policy, 'sources'> | undefined): { eco?: Ecosystem; url: string }[] {
  const out: { eco?: Ecosystem; url: string }[] = [];
  const sources = own(policy, 'sources');
  if (!Array.isArray(sources)) return out;
  for (const source of sources.slice(0, 10_000)) {
    if (source === null || typeof source !== 'object') continue;
    for (const kind of Object.keys(source)) {
      const body = own(source, kind);
      const eco = Object.prototype.hasOwnProperty.call(SOURCE_ECOSYSTEM, kind) ? SOURCE_ECOSYSTEM[kind] : undefined;
      const push = (u: unknown): void => { if (typeof u === 'string' && u.length <= 8192) out.push({ eco, url: u }); };
      const urls = own(body, 'urls');
      if (Array.isArray(urls)) urls.slice(0, 1000).forEach(push);
      push(own(body, 'indexUrl'));
      push(own(body, 'downloadUrl'));
      const https = own(body, 'https');
      if (Array.isArray(https)) https.slice(0, 1000).forEach((h) => push(own(h, 'baseUrl')));
    }
  }
  return out;
}

/** The registry hosts for generic forms: the well-known ones and those the components (and the policy's sources) name. */
export function registryHosts(components: readonly SbomComponent[], options: ContextOptions = {}): RegistryHosts {
  const hosts = new Map<Ecosystem, Set<string>>();
  const add = (eco: Ecosystem, host: string): void => {
    let set = hosts.get(eco);
    if (!set) hosts.set(eco, (set = new Set()));
    set.add(host);
  };
  for (const [eco, list] of DEFAULT_REGISTRY_HOSTS) for (const h of list) add(eco, h);
  for (const c of components) {
    if (c.keys === undefined || c.registryHost === undefined) continue;
    add(c.keys.eco, c.registryHost);
  }
  for (const { eco, url } of policyUrls(options.policy)) {
    const u = parseUrl(url);
    if (!u) continue;
    if (eco !== undefined) add(eco, u.host);
    const base = mavenBaseOf(u.host, u.path, undefined, '');
    if (base !== undefined) add('maven', base);
  }
  return hosts;
}

/**
 * The commits the SBOM's references name (`vcsRefs`, git purl versions), by repository and first 7
 * digits: a URL naming a prefix of one, or a full commit one names by a prefix, is resolved here.
 */
export class CommitTable {
  /** Commits of one repository sharing their first 7 digits told apart at most (beyond, only equal text matches). */
  static readonly MAX_SHARED = 256;
  private readonly byPrefix = new Map<string, Set<string>>();
  private readonly overfull = new Set<string>();

  add(repo: string, ref: string): void {
    if (!isCommitLike(ref)) return;
    const k = refKey(repo, ref.slice(0, 7));
    let set = this.byPrefix.get(k);
    if (set === undefined) this.byPrefix.set(k, (set = new Set()));
    if (set.has(ref)) return;
    if (set.size >= CommitTable.MAX_SHARED) { this.overfull.add(k); return; }
    set.add(ref);
  }

  /**
   * The revisions of the SBOM a URL's revision names: itself, and when it is a commit, the SBOM's
   * commits it is a prefix of or that are a prefix of it, unless two of those differ (a prefix
   * shared by two commits names neither).
   */
  resolve(repo: string, ref: string): string[] {
    if (!isCommitLike(ref)) return [ref];
    const k = refKey(repo, ref.slice(0, 7));
    const set = this.byPrefix.get(k);
    if (set === undefined || this.overfull.has(k)) return [ref];
    let longest = '';
    const compatible: string[] = [];
    for (const c of set) {
      if (c.startsWith(ref) || ref.startsWith(c)) {
        compatible.push(c);
        if (c.length > longest.length) longest = c;
      }
    }
    if (compatible.some((c) => !longest.startsWith(c))) return [ref];
    if (!compatible.includes(ref)) compatible.unshift(ref);
    return compatible;
  }
}

/** What attribution reads of the SBOM as a whole, once, for every access. */
export function sbomContext(components: readonly SbomComponent[], options: ContextOptions = {}): SbomContext {
  const commits = new CommitTable();
  for (const c of components) {
    for (const r of c.vcsRefs) {
      const sep = r.indexOf('\u0000');
      commits.add(r.slice(0, sep), r.slice(sep + 1));
    }
    if (c.keys?.eco === 'git' && c.keys.version !== undefined) commits.add(c.keys.repo!, c.keys.version);
  }
  const distributionHosts = new Set<string>();
  const distributionPaths = new Set<string>();
  for (const c of components) {
    for (const d of c.distribution) {
      distributionHosts.add(hostOfUrlKey(d));
      distributionPaths.add(pathOfUrlKey(d));
    }
  }
  return { hosts: registryHosts(components, options), commits, distributionHosts, distributionPaths };
}

/** The path of a `urlKey` (from the first `/` after `://`: neither host nor port has one; `''` when none). */
function pathOfUrlKey(key: string): string {
  const slash = key.indexOf('/', key.indexOf('://') + 3);
  return slash < 0 ? '' : key.slice(slash);
}

/** The host of a `urlKey` (`SCHEME://HOST:PORT/PATH`; an IPv6 host has colons of its own, never a `/`). */
function hostOfUrlKey(key: string): string {
  const start = key.indexOf('://') + 3;
  let end = key.indexOf('/', start);
  if (end < 0) end = key.length;
  const colon = key.lastIndexOf(':', end - 1);
  return key.slice(start, colon >= start ? colon : end);
}

/**
 * The claims of an access (HTTP requests and SSH git commands; connections name no package).
 * `parsed`: the request's URL as `parseUrl(access.url)` gives it, when the caller has it (explain
 * parses each URL once). `reference`: the reference's reading (naive.ts), which the index is held
 * to: every URL form read, and the URL key made for every request to a distribution reference's
 * host (the index makes it only when one has its path too).
 */
export function claimsOfAccess(access: Access, ctx: SbomContext, remoteUrl?: string, parsed?: ParsedUrl | null, reference = false): AccessClaims {
  const a = rawClaimsOfAccess(access, ctx, remoteUrl, parsed, reference);
  for (const claim of a.claims) {
    if (claim.kind === 'git' && claim.version !== undefined) claim.refs = ctx.commits.resolve(claim.repo, normaliseRef(claim.version));
  }
  return a;
}

function rawClaimsOfAccess(access: Access, ctx: SbomContext, remoteUrl: string | undefined, parsed: ParsedUrl | null | undefined, reference: boolean): AccessClaims {
  if (access.kind === 'http') {
    if (typeof access.url !== 'string') return NO_CLAIMS;
    if (access.url.length > 8192) return NO_CLAIMS;
    const u = parsed === undefined ? parseUrl(access.url) : parsed;
    if (!u) return NO_CLAIMS;
    const claims = reference ? claimsOfUrlEveryForm(u, ctx.hosts) : claimsOfUrl(u, ctx.hosts);
    if (!ctx.distributionHosts.has(u.host)) return { claims, url: undefined };
    // Another path than every distribution reference's (`urlKey`'s, trailing `/`s dropped) is none of them: no key made.
    return reference || ctx.distributionPaths.has(keyPath(u.path)) ? { claims, url: parsedUrlKey(u) } : { claims, url: undefined };
  }
  if (access.kind === 'ssh') {
    if (typeof access.host !== 'string') return NO_CLAIMS;
    const remote = typeof remoteUrl === 'string' ? repoKeyOfUrl(remoteUrl) : undefined;
    return { claims: claimsOfSsh(access.host, typeof access.repositoryPath === 'string' ? access.repositoryPath : undefined, remote), url: undefined };
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
        if (normaliseVersion(claim.eco, claim.version) !== k.version) return undefined;
        // Maven: a component of a classifier is fetched by its classifier's file (or the shared POM).
        return k.classifier === undefined || claim.shared === true || claim.classifier === k.classifier ? 'purl' : undefined;
      }
      // No purl of a known ecosystem: the name and version members, both required.
      if (c.purl !== undefined || claim.version === undefined || c.version === undefined) return undefined;
      if (normaliseName(claim.eco, c.fullName) !== claim.name) return undefined;
      return normaliseVersion(claim.eco, c.version) === normaliseVersion(claim.eco, claim.version) ? 'name-only' : undefined;
    }
    case 'oci': {
      if (k === undefined || k.eco !== 'oci' || k.name !== claim.name) return undefined;
      const elsewhere = (k.ociHost !== undefined && k.ociHost !== claim.host) || (k.ociRepository !== undefined && k.ociRepository !== claim.repository);
      // A digest is a content address: equal digests are the same image wherever it is pulled from
      // (a mirror, the registry's storage host), said as such when it is not where the purl says.
      if (claim.digest !== undefined && k.version === claim.digest) return elsewhere ? 'oci-digest' : 'purl';
      if (elsewhere) return undefined;
      // Without `repository_url` only a digest says which image this is: a name alone may be any repository's.
      if (k.ociRepository === undefined) return undefined;
      if (claim.tag !== undefined && k.tag === claim.tag) return 'purl';
      return 'name-only';
    }
    case 'git': {
      // A clone names the repository; an archive names a revision too: only references naming it match.
      const refs = claim.version === undefined ? undefined : claim.refs ?? [normaliseRef(claim.version)];
      let kind: MatchKind | undefined;
      if (refs === undefined) kind = listed(c.vcs, claim.repo) ? 'vcs-url' : undefined;
      else if (c.vcsRefs.length > 0 && refs.some((r) => listed(c.vcsRefs, refKey(claim.repo, r)))) kind = 'vcs-url';
      if (k !== undefined && k.eco === 'git' && k.repo === claim.repo) {
        if (refs === undefined || k.version === undefined) kind = stronger(kind, 'name-only');
        else if (refs.includes(k.version)) kind = 'purl';
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
  return kept.map(({ c, kind }) => entryOf(c, kind));
}

/** A component's entry in an answer. */
export function entryOf(c: SbomComponent, kind: MatchKind): ComponentMatch {
  // Members in the documented order: { bomRef?, purl?, name, version?, match }.
  const m = {} as ComponentMatch;
  if (c.bomRef !== undefined) m.bomRef = c.bomRef;
  if (c.purl !== undefined) m.purl = c.purl;
  m.name = c.name;
  if (c.version !== undefined) m.version = c.version;
  m.match = kind;
  return m;
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
