/**
 * The Maven 2 repository layout (maven.apache.org, "Maven Repository Layout"), read under a known
 * repository base:
 *
 *     BASE/GROUP/PATH/ARTIFACT/VERSION/ARTIFACT-VERSION[-CLASSIFIER].EXT[.sha1|.md5|.sha256|.sha512|.asc]
 *     BASE/GROUP/PATH/ARTIFACT/maven-metadata.xml[.sha1|...]
 *     BASE/GROUP/PATH/ARTIFACT/VERSION-SNAPSHOT/maven-metadata.xml[.sha1|...]
 *
 * The group's path has as many segments as the group has dots, so only a known base (Maven Central,
 * a base the SBOM or the policy names) says where it starts: the layout is never guessed on other
 * hosts. Metadata names the artifact, never a version (the version-level metadata of a snapshot
 * lists the snapshot's builds, not the version the build resolved).
 */
import { decodeSegment } from './names';
import { packageClaim, type Claim } from './types';

/** Bases of more than this many path segments are not looked for (a repository manager's are 1 to 4). */
export const MAX_BASE_SEGMENTS = 16;

/** Checksum and signature suffixes: the file they sign is the one named. */
const SIGNATURES = ['.sha1', '.md5', '.sha256', '.sha512', '.asc'];

function withoutSignatures(file: string): string {
  let f = file;
  // `x.jar.asc.sha1` is a checksum of a signature: two suffixes at most.
  for (let round = 0; round < 2; round++) {
    const sig = SIGNATURES.find((e) => f.endsWith(e));
    if (sig === undefined) break;
    f = f.slice(0, -sig.length);
  }
  return f;
}

const SNAPSHOT = '-SNAPSHOT';
/** A snapshot's build in a file name: `yyyyMMdd.HHmmss-N`. */
const TIMESTAMP = /^\d{8}\.\d{6}-\d+/;

/** The claims of the layout's segments after a base (`rest`: decoded segments, the file last). */
export function mavenPathClaims(rest: readonly string[], out: Claim[]): void {
  const m = rest.length;
  if (m < 3 || rest.some((x) => x === '' || x === '.' || x === '..')) return;
  const file = withoutSignatures(rest[m - 1]);
  if (file === 'maven-metadata.xml') {
    // Version-level metadata exists for snapshots only: `.../ARTIFACT/V-SNAPSHOT/maven-metadata.xml`.
    const at = m >= 4 && rest[m - 2].endsWith(SNAPSHOT) ? m - 3 : m - 2;
    out.push(packageClaim('maven', `${rest.slice(0, at).join('.')}/${rest[at]}`));
    return;
  }
  if (m < 4) return;
  const artifact = rest[m - 3];
  const version = rest[m - 2];
  if (!file.startsWith(`${artifact}-`)) return;
  const tail = file.slice(artifact.length + 1);
  let fileVersion: string | undefined;
  const ends = (v: string): boolean => tail.startsWith(v) && (tail.length === v.length || tail[v.length] === '.' || tail[v.length] === '-');
  if (ends(version)) fileVersion = version;
  else if (version.endsWith(SNAPSHOT)) {
    const stem = version.slice(0, -SNAPSHOT.length);
    const stamp = tail.startsWith(`${stem}-`) ? TIMESTAMP.exec(tail.slice(stem.length + 1)) : null;
    if (stamp !== null && ends(`${stem}-${stamp[0]}`)) fileVersion = `${stem}-${stamp[0]}`;
  }
  if (fileVersion === undefined) return;
  let after = tail.slice(fileVersion.length);
  let classifier: string | undefined;
  if (after.startsWith('-')) {
    const dot = after.indexOf('.');
    if (dot <= 1) return;
    classifier = after.slice(1, dot);
    after = after.slice(dot);
  }
  if (after.length < 2 || after[0] !== '.') return;
  const ext = after.slice(1);
  const name = `${rest.slice(0, m - 3).join('.')}/${artifact}`;
  // The POM and Gradle's module metadata describe every classifier's artifact of the version.
  const shared = classifier === undefined && (ext === 'pom' || ext === 'module');
  for (const v of fileVersion === version ? [version] : [version, fileVersion]) {
    const claim = packageClaim('maven', name, v);
    if (classifier !== undefined) claim.classifier = classifier;
    if (shared) claim.shared = true;
    out.push(claim);
  }
}

/** Per host, the paths of its bases (`''` for the host itself, else `/path`), fewest segments first; made once per set. */
const basePaths = new WeakMap<ReadonlySet<string>, Map<string, { path: string; segments: number }[]>>();

function pathsOf(bases: ReadonlySet<string>): Map<string, { path: string; segments: number }[]> {
  let hosts = basePaths.get(bases);
  if (hosts === undefined) {
    hosts = new Map();
    for (const b of bases) {
      const slash = b.indexOf('/');
      const host = slash >= 0 ? b.slice(0, slash) : b;
      const path = slash >= 0 ? b.slice(slash) : '';
      let list = hosts.get(host);
      if (list === undefined) hosts.set(host, (list = []));
      list.push({ path, segments: path.split('/').length - 1 });
    }
    for (const list of hosts.values()) list.sort((x, y) => x.segments - y.segments);
    basePaths.set(bases, hosts);
  }
  return hosts;
}

/**
 * The claims of a request path (`s`: its `/`-split segments, `s[0]` empty; `path`: their text,
 * when the caller has it) on `host`, under each base of `bases` (`host/path`) that is a prefix of
 * it at a segment boundary.
 */
export function mavenClaims(s: readonly string[], host: string, bases: ReadonlySet<string> | undefined, out: Claim[], path?: string): void {
  if (bases === undefined || bases.size === 0 || s.length < 4) return;
  // Most requests are to no repository's host: one look-up. On a base's host, each of its bases is
  // compared with the path (as the path's first segments joined, followed by a segment).
  const paths = pathsOf(bases).get(host);
  if (paths === undefined) return;
  const last = Math.min(s.length - 4, MAX_BASE_SEGMENTS);
  for (const base of paths) {
    if (base.segments > last) break;
    if (base.segments > 0) {
      path ??= s.join('/');
      if (!path.startsWith(base.path) || path.charCodeAt(base.path.length) !== 47) continue;
    }
    // Segments without escapes are their own decoding (most paths: no array made for it).
    const rest = s.slice(base.segments + 1);
    mavenPathClaims(path !== undefined && !path.includes('%') ? rest : rest.map(decodeSegment), out);
  }
}

/**
 * The repository base a Maven component's URL names: `host/path` without a trailing `/`, and
 * without the component's own layout when the URL is one of its files (`.../GROUP/PATH/ARTIFACT/...`).
 */
export function mavenBaseOf(host: string, path: string, group: string | undefined, artifact: string): string | undefined {
  if (host.length === 0) return undefined;
  let p = path;
  while (p.endsWith('/')) p = p.slice(0, -1);
  if (group !== undefined) {
    const own = `/${group.split('.').join('/')}/${artifact}`;
    const at = p.indexOf(`${own}/`) >= 0 ? p.indexOf(`${own}/`) : p.endsWith(own) ? p.length - own.length : -1;
    if (at >= 0) p = p.slice(0, at);
  }
  return `${host.toLowerCase()}${p}`;
}
