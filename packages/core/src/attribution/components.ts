/**
 * An SBOM's components as attribution needs them. The SBOM is outside data: every member is read
 * as an own property and checked for its type, nested `components` are walked with an explicit
 * stack (no recursion: nesting may be deep), objects are visited once (a graph built in memory may
 * have cycles), and a component that does not read (a throwing getter, a purl that does not parse)
 * is skipped or read without the part that failed. Nothing here throws.
 */
import { PackageURL } from 'packageurl-js';
import { fastPurl, type FastPurl } from './fast-purl';
import { parseUrl, type ParsedUrl } from '../eval/url';
import { mavenBaseOf } from './maven';
import { normaliseName, normaliseRef, normaliseVersion, ociHost, ociRepositoryPath } from './names';
import { gitRefOfUrl, isGitRemote, repoKey, repoKeyOfUrl } from './repo-key';
import type { Ecosystem } from './types';

/**
 * What a purl says, normalised as the URL forms are (names.ts).
 * @public
 */
export interface PurlKeys {
  eco: Ecosystem;
  /** Normalised name: npm `@scope/name`, a Go module path, Maven `group/artifact`, an OCI repository's last segment. */
  name: string;
  version?: string;
  /** Maven: the `classifier` qualifier. */
  classifier?: string;
  /** OCI: the `tag` qualifier. */
  tag?: string;
  /** OCI: `repository_url` as host and repository path (compared when present). */
  ociHost?: string;
  ociRepository?: string;
  /** git hosts (`pkg:github`, `pkg:gitlab`, `pkg:bitbucket`): the repository key. */
  repo?: string;
}

/**
 * A component of a CycloneDX SBOM as attribution reads it: its identity, purl keys and distribution URLs.
 * @public
 */
export interface SbomComponent {
  /** Position in the SBOM (metadata.component first, then components depth-first): the order of results. */
  order: number;
  bomRef?: string;
  purl?: string;
  name: string;
  version?: string;
  /** `group/name` when the component has a group (npm scope, Maven group), else the name. */
  fullName: string;
  keys?: PurlKeys;
  /** Distribution URLs (external references, the purl's `download_url`), as `urlKey` gives them. */
  distribution: string[];
  /** Repository keys of `vcs` references, the purl's `vcs_url` and git URLs among distribution references. */
  vcs: string[];
  /**
   * The revisions those references name (a `#REF` fragment, a `vcs_url`'s `@REF`), as
   * `refKey(repository key, normaliseRef(REF))`.
   */
  vcsRefs: string[];
  /**
   * The registry this component names (`repository_url`, else its first distribution reference):
   * a host; for Maven a repository base, `host/path`.
   */
  registryHost?: string;
}

const GIT_PURL_HOSTS: ReadonlyMap<string, string> = new Map([['github', 'github.com'], ['gitlab', 'gitlab.com'], ['bitbucket', 'bitbucket.org']]);
const ECOSYSTEM_OF_TYPE: ReadonlyMap<string, Ecosystem> = new Map<string, Ecosystem>([
  ['npm', 'npm'], ['pypi', 'pypi'], ['cargo', 'cargo'], ['golang', 'golang'], ['gem', 'gem'], ['maven', 'maven'], ['oci', 'oci'], ['apk', 'apk'], ['deb', 'deb'],
  // Older syft wrote Alpine packages as `pkg:alpine/NAME@VERSION`.
  ['alpine', 'apk'],
]);

/** A repository key and a revision as one key (`vcsRefs`). */
export const refKey = (repo: string, ref: string): string => `${repo}\u0000${ref}`;
/** A purl longer than this is not read (it names nothing a URL form could). */
const MAX_PURL = 4096;

function own(o: unknown, key: string): unknown {
  return o !== null && typeof o === 'object' && Object.prototype.hasOwnProperty.call(o, key) ? (o as Record<string, unknown>)[key] : undefined;
}

function str(o: unknown, key: string): string | undefined {
  const v = own(o, key);
  return typeof v === 'string' && v.length > 0 ? v : undefined;
}

/** A URL as compared with a request's: scheme, host and port as parseUrl reads them, the path without a trailing `/`. */
export function urlKey(text: string): string | undefined {
  if (text.length > 8192) return undefined;
  const u = parseUrl(text.trim());
  return u ? parsedUrlKey(u) : undefined;
}

/** `urlKey` of a URL already parsed. */
export function parsedUrlKey(u: ParsedUrl): string | undefined {
  if (u.scheme !== 'https' && u.scheme !== 'http') return undefined;
  return `${u.scheme}://${u.host}:${u.port}${keyPath(u.path)}`;
}

/** A path as `urlKey` has it: without its trailing `/`s. */
export function keyPath(path: string): string {
  let p = path;
  while (p.length > 1 && p.charCodeAt(p.length - 1) === 47) p = p.slice(0, -1);
  return p;
}

function qualifier(p: { qualifiers?: unknown }, key: string): string | undefined {
  const q = p.qualifiers as Record<string, unknown> | undefined;
  if (!q || !Object.prototype.hasOwnProperty.call(q, key)) return undefined;
  const v = q[key];
  return typeof v === 'string' && v.length > 0 ? v : undefined;
}

/**
 * Keys in the one shape they all have here (each member present, `undefined` where it does not
 * apply): the judge reads every component's keys at the same places (see `claimOf`, types.ts).
 */
function purlKeysOf(eco: Ecosystem, name: string, version: string | undefined, repo: string | undefined): PurlKeys {
  return { eco, name, version, classifier: undefined, tag: undefined, ociHost: undefined, ociRepository: undefined, repo };
}

/** The purl read into keys; undefined when it does not parse or names no recognised ecosystem. */
export function purlKeys(purl: string): { keys?: PurlKeys; downloadUrl?: string; vcsUrl?: string; repositoryUrl?: string } | undefined {
  if (purl.length > MAX_PURL) return undefined;
  // The common spellings without packageurl-js (fast-purl.ts: held to it by a property test).
  let p: FastPurl | PackageURL | undefined = fastPurl(purl);
  if (p === undefined) {
    try {
      p = PackageURL.fromString(purl);
    } catch {
      return undefined;
    }
  }
  if (typeof p.name !== 'string' || p.name.length === 0) return undefined;
  const out: { keys?: PurlKeys; downloadUrl?: string; vcsUrl?: string; repositoryUrl?: string } = {
    downloadUrl: qualifier(p, 'download_url'), vcsUrl: qualifier(p, 'vcs_url'), repositoryUrl: qualifier(p, 'repository_url'),
  };
  const type = p.type;
  const version = typeof p.version === 'string' && p.version.length > 0 ? p.version : undefined;
  const gitHost = GIT_PURL_HOSTS.get(type);
  if (gitHost !== undefined) {
    const repo = p.namespace ? repoKey(gitHost, `${p.namespace}/${p.name}`) : undefined;
    if (repo !== undefined) out.keys = purlKeysOf('git', repo, version && normaliseVersion('git', version), repo);
    return out;
  }
  const eco = ECOSYSTEM_OF_TYPE.get(type);
  if (eco === undefined) return out;
  let name: string;
  if (eco === 'npm' || eco === 'golang' || eco === 'maven') name = p.namespace ? `${p.namespace}/${p.name}` : p.name;
  else name = p.name; // pypi, cargo, gem, oci, apk, deb: the namespace (a distribution) is not in the URL
  const keys = purlKeysOf(eco, normaliseName(eco, name), version !== undefined ? normaliseVersion(eco, version) : undefined, undefined);
  if (eco === 'maven') {
    const classifier = qualifier(p, 'classifier');
    if (classifier !== undefined) keys.classifier = classifier;
  }
  if (eco === 'oci') {
    keys.tag = qualifier(p, 'tag');
    const repositoryUrl = out.repositoryUrl;
    if (repositoryUrl !== undefined) {
      // `registry/path/to/repo`, sometimes with a scheme.
      const bare = repositoryUrl.replace(/^[a-z]+:\/\//i, '');
      const slash = bare.indexOf('/');
      if (slash > 0) {
        const host = ociHost(bare.slice(0, slash));
        keys.ociHost = host;
        keys.ociRepository = ociRepositoryPath(host, bare.slice(slash + 1).replace(/\/+$/, ''));
      } else keys.ociHost = ociHost(bare);
    }
  }
  out.keys = keys;
  return out;
}

const VCS_TYPES = new Set(['vcs']);

/** The group of a Maven key `group/artifact`. */
function mavenGroup(key: string): string | undefined {
  const slash = key.lastIndexOf('/');
  return slash > 0 ? key.slice(0, slash) : undefined;
}
const DISTRIBUTION_TYPES = new Set(['distribution', 'source-distribution']);

type PurlRead = ReturnType<typeof purlKeys>;

/** Sets of the reference lists longer than 16 (256 at most), made once such a list is reached. */
const refSets = new WeakMap<string[], Set<string>>();

/** A reference list's `push` that skips a key already listed: a scan while short, a set once long (256 references at most). */
function pushNew(list: string[], k: string): void {
  if (list.length < 16) {
    if (!list.includes(k)) list.push(k);
    return;
  }
  let set = refSets.get(list);
  if (set === undefined) refSets.set(list, (set = new Set(list)));
  if (!set.has(k)) { set.add(k); list.push(k); }
}

/** A distribution reference: its URL key. */
function addDistribution(out: SbomComponent, text: string | undefined): void {
  const k = text !== undefined ? urlKey(text) : undefined;
  if (k !== undefined) pushNew(out.distribution, k);
}

/** A vcs reference: its repository key, and the revision it names. */
function addVcs(out: SbomComponent, text: string | undefined): void {
  const k = text !== undefined ? repoKeyOfUrl(text) : undefined;
  if (k === undefined) return;
  pushNew(out.vcs, k);
  const ref = gitRefOfUrl(text!);
  if (ref !== undefined) pushNew(out.vcsRefs, refKey(k, normaliseRef(ref)));
}

/** A git URL as a distribution reference (npm's `git+ssh://...#COMMIT`) names a repository and a revision. */
function addDistributionOrVcs(out: SbomComponent, text: string | undefined): void {
  if (text === undefined) return;
  if (isGitRemote(text)) addVcs(out, text);
  else addDistribution(out, text);
}

/** A purl that does not read, in `purls` (one look-up per component tells read, unread and new apart). */
const UNREAD = null;

/** `purls`: the purls read so far (an SBOM lists one purl many times over: each is parsed once). */
function readComponent(c: object, order: number, purls: Map<string, PurlRead | typeof UNREAD>): SbomComponent | undefined {
  const name = str(c, 'name');
  if (name === undefined) return undefined;
  const purl = str(c, 'purl');
  let read: PurlRead = undefined;
  if (purl !== undefined) {
    const known = purls.get(purl);
    if (known === undefined) purls.set(purl, (read = purlKeys(purl)) ?? UNREAD);
    else read = known ?? undefined;
  }
  const version = str(c, 'version');
  const group = str(c, 'group');
  // Every member present (`undefined` where absent), in one order: the index and the judge read
  // components at the same places, which then see one shape.
  const out: SbomComponent = {
    order, bomRef: str(c, 'bom-ref'), purl, name, version, fullName: group !== undefined ? `${group}/${name}` : name,
    keys: read?.keys, distribution: [], vcs: [], vcsRefs: [], registryHost: undefined,
  };
  if (read !== undefined) {
    addDistributionOrVcs(out, read.downloadUrl);
    addVcs(out, read.vcsUrl);
  }
  const refs = own(c, 'externalReferences');
  if (Array.isArray(refs)) {
    // At most 256 references per component are read: more say nothing an access needs.
    for (let i = 0; i < refs.length && i < 256; i++) {
      const type = str(refs[i], 'type');
      const url = str(refs[i], 'url');
      if (type === undefined || url === undefined) continue;
      if (DISTRIBUTION_TYPES.has(type)) addDistributionOrVcs(out, url);
      else if (VCS_TYPES.has(type)) addVcs(out, url);
    }
  }
  const maven = read?.keys?.eco === 'maven';
  if (read?.repositoryUrl !== undefined) {
    const bare = read.repositoryUrl.replace(/^[a-z]+:\/\//i, '');
    const slash = bare.indexOf('/');
    const host = (slash >= 0 ? bare.slice(0, slash) : bare).toLowerCase();
    if (host.length > 0) out.registryHost = maven ? mavenBaseOf(host, slash >= 0 ? bare.slice(slash) : '', undefined, '') : host;
  } else if (out.distribution.length > 0) {
    const k = out.distribution[0];
    const u = parseUrl(k);
    if (u) {
      const key = maven ? read!.keys!.name : '';
      out.registryHost = maven ? mavenBaseOf(u.host, u.path, mavenGroup(key), key.slice(key.lastIndexOf('/') + 1)) : u.host;
    }
  }
  return out;
}

/**
 * Every component of a CycloneDX JSON document (as parsed): `metadata.component`, then
 * `components`, each followed by its nested `components`. Components without a string `name`
 * are skipped; a value that is not an object is no SBOM (no components).
 */
export function readSbomComponents(sbom: unknown): SbomComponent[] {
  const out: SbomComponent[] = [];
  if (sbom === null || typeof sbom !== 'object') return out;
  // A Set, not a WeakSet: the document is alive while it is read, and a Set is faster.
  const seen = new Set<object>();
  const purls = new Map<string, PurlRead | typeof UNREAD>();
  // Frames of arrays and positions: depth-first, in document order, without recursion.
  const frames: { list: readonly unknown[]; at: number }[] = [];
  const push = (list: unknown): void => {
    if (Array.isArray(list) && !seen.has(list)) { seen.add(list); frames.push({ list, at: 0 }); }
  };
  try {
    push(own(sbom, 'components'));
    frames.push({ list: [own(own(sbom, 'metadata'), 'component')], at: 0 });
  } catch {
    return out;
  }
  while (frames.length > 0) {
    const frame = frames[frames.length - 1];
    if (frame.at >= frame.list.length) { frames.pop(); continue; }
    const c = frame.list[frame.at++];
    if (c === null || typeof c !== 'object' || Array.isArray(c) || seen.has(c)) continue;
    seen.add(c);
    try {
      const read = readComponent(c, out.length, purls);
      if (read) out.push(read);
      // Its children come next (pushed on top of its remaining siblings).
      push(own(c, 'components'));
    } catch {
      // A component that cannot be read (a throwing getter in a built object) is skipped.
    }
  }
  return out;
}
