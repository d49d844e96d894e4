/**
 * An SBOM's components as attribution needs them. The SBOM is outside data: every member is read
 * as an own property and checked for its type, nested `components` are walked with an explicit
 * stack (no recursion: nesting may be deep), objects are visited once (a graph built in memory may
 * have cycles), and a component that does not read (a throwing getter, a purl that does not parse)
 * is skipped or read without the part that failed. Nothing here throws.
 */
import { PackageURL } from 'packageurl-js';
import { parseUrl, type ParsedUrl } from '../eval/url';
import { normaliseName, normaliseVersion, ociHost, ociRepositoryPath } from './names';
import { repoKey, repoKeyOfUrl } from './repo-key';
import type { Ecosystem } from './types';

/** What a purl says, normalised as the URL forms are (names.ts). */
export interface PurlKeys {
  eco: Ecosystem;
  /** Normalised name: npm `@scope/name`, a Go module path, an OCI repository's last segment. */
  name: string;
  version?: string;
  /** OCI: the `tag` qualifier. */
  tag?: string;
  /** OCI: `repository_url` as host and repository path (compared when present). */
  ociHost?: string;
  ociRepository?: string;
  /** git hosts (`pkg:github`, `pkg:gitlab`, `pkg:bitbucket`): the repository key. */
  repo?: string;
}

/** A component of a CycloneDX SBOM as attribution reads it: its identity, purl keys and distribution URLs. */
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
  /** Repository keys of `vcs` references and the purl's `vcs_url`. */
  vcs: string[];
  /** Registry hosts this component names (`repository_url`, distribution references), by ecosystem. */
  registryHost?: string;
}

const GIT_PURL_HOSTS: ReadonlyMap<string, string> = new Map([['github', 'github.com'], ['gitlab', 'gitlab.com'], ['bitbucket', 'bitbucket.org']]);
const ECOSYSTEM_OF_TYPE: ReadonlyMap<string, Ecosystem> = new Map<string, Ecosystem>([
  ['npm', 'npm'], ['pypi', 'pypi'], ['cargo', 'cargo'], ['golang', 'golang'], ['gem', 'gem'], ['oci', 'oci'], ['apk', 'apk'], ['deb', 'deb'],
]);
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
  let path = u.path;
  while (path.length > 1 && path.charCodeAt(path.length - 1) === 47) path = path.slice(0, -1);
  return `${u.scheme}://${u.host}:${u.port}${path}`;
}

function qualifier(p: PackageURL, key: string): string | undefined {
  const q = p.qualifiers as Record<string, unknown> | undefined;
  if (!q || !Object.prototype.hasOwnProperty.call(q, key)) return undefined;
  const v = q[key];
  return typeof v === 'string' && v.length > 0 ? v : undefined;
}

/** The purl read into keys; undefined when it does not parse or names no recognised ecosystem. */
export function purlKeys(purl: string): { keys?: PurlKeys; downloadUrl?: string; vcsUrl?: string; repositoryUrl?: string } | undefined {
  if (purl.length > MAX_PURL) return undefined;
  let p: PackageURL;
  try {
    p = PackageURL.fromString(purl);
  } catch {
    return undefined;
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
    if (repo !== undefined) out.keys = { eco: 'git', name: repo, repo, version: version && normaliseVersion('git', version) };
    return out;
  }
  const eco = ECOSYSTEM_OF_TYPE.get(type);
  if (eco === undefined) return out;
  let name: string;
  if (eco === 'npm' || eco === 'golang') name = p.namespace ? `${p.namespace}/${p.name}` : p.name;
  else name = p.name; // pypi, cargo, gem, oci, apk, deb: the namespace (a distribution) is not in the URL
  const keys: PurlKeys = { eco, name: normaliseName(eco, name) };
  if (version !== undefined) keys.version = normaliseVersion(eco, version);
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
const DISTRIBUTION_TYPES = new Set(['distribution', 'source-distribution']);

type PurlRead = ReturnType<typeof purlKeys>;

/** A reference list's `push` that skips a key already listed: a scan while short, a set once long (256 references at most). */
function pushNew(list: string[], sets: Map<string[], Set<string>>, k: string): void {
  if (list.length < 16) {
    if (!list.includes(k)) list.push(k);
    return;
  }
  let set = sets.get(list);
  if (set === undefined) sets.set(list, (set = new Set(list)));
  if (!set.has(k)) { set.add(k); list.push(k); }
}

/** `purls`: the purls read so far (an SBOM lists one purl many times over: each is parsed once). */
function readComponent(c: object, order: number, purls: Map<string, PurlRead>): SbomComponent | undefined {
  const purl = str(c, 'purl');
  let read: PurlRead = undefined;
  if (purl !== undefined) {
    read = purls.get(purl);
    if (read === undefined && !purls.has(purl)) purls.set(purl, (read = purlKeys(purl)));
  }
  let name = str(c, 'name');
  const version = str(c, 'version');
  if (name === undefined) return undefined;
  const group = str(c, 'group');
  const out: SbomComponent = { order, name, fullName: group !== undefined ? `${group}/${name}` : name, distribution: [], vcs: [] };
  const bomRef = str(c, 'bom-ref');
  if (bomRef !== undefined) out.bomRef = bomRef;
  if (purl !== undefined) out.purl = purl;
  if (version !== undefined) out.version = version;
  if (read?.keys) out.keys = read.keys;
  let sets: Map<string[], Set<string>> | undefined;
  const dist = (text: string | undefined): void => {
    const k = text !== undefined ? urlKey(text) : undefined;
    if (k !== undefined) pushNew(out.distribution, (sets ??= new Map()), k);
  };
  const vcs = (text: string | undefined): void => {
    const k = text !== undefined ? repoKeyOfUrl(text) : undefined;
    if (k !== undefined) pushNew(out.vcs, (sets ??= new Map()), k);
  };
  dist(read?.downloadUrl);
  vcs(read?.vcsUrl);
  const refs = own(c, 'externalReferences');
  if (Array.isArray(refs)) {
    // At most 256 references per component are read: more say nothing an access needs.
    for (let i = 0; i < refs.length && i < 256; i++) {
      const type = str(refs[i], 'type');
      const url = str(refs[i], 'url');
      if (type === undefined || url === undefined) continue;
      if (DISTRIBUTION_TYPES.has(type)) dist(url);
      else if (VCS_TYPES.has(type)) vcs(url);
    }
  }
  if (read?.repositoryUrl !== undefined) {
    const bare = read.repositoryUrl.replace(/^[a-z]+:\/\//i, '');
    const host = bare.split('/')[0].toLowerCase();
    if (host.length > 0) out.registryHost = host;
  } else if (out.distribution.length > 0) {
    const k = out.distribution[0];
    const u = parseUrl(k);
    if (u) out.registryHost = u.host;
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
  const purls = new Map<string, PurlRead>();
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
