/**
 * The lists and maps `indexSbom` (index-sbom.ts) keeps an SBOM's components in: a component as
 * the index holds it, its components of one name by version (`Versions`), an OCI name's images by
 * digest, tag and repository (`OciImages`), the keys of those maps, and the strings that tell
 * components alike (`identity`) or versions alike (`foldVersion`). Reading components into maps
 * only: answering an access is index-sbom.ts's.
 */
import type { SbomComponent } from './components';
import type { ComponentMatch } from './types';

/** A component as the index holds it: with its answers when it alone matches, made once (see `Index.alone`, index-sbom.ts). */
export interface Held {
  readonly c: SbomComponent;
  /** By match kind's rank: `[entry]`, frozen (shared by every access it answers). */
  alone: (readonly ComponentMatch[] | undefined)[] | undefined;
}

export type List = Held[];

export function add<K>(map: Map<K, List>, key: K, c: Held): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [c]);
  else if (list[list.length - 1] !== c) list.push(c);
}

/**
 * Components of one name (or git repository): all of them, by version, and those without one.
 * Most names have one version in an SBOM: its list is kept beside the others' map, which is made
 * only for a second version (a map per name was a third of the index's memory, 10,000 names).
 */
export class Versions {
  readonly all: List = [];
  /** Those that name no version: `name-only` for an access of any version. */
  unversioned: List | undefined;
  private version0: string | undefined;
  private list0: List | undefined;
  private others: Map<string, List> | undefined;

  add(c: Held, version: string | undefined): void {
    this.all.push(c);
    if (version === undefined) (this.unversioned ??= []).push(c);
    else if (this.list0 === undefined) { this.version0 = version; this.list0 = [c]; }
    else if (version === this.version0) { if (this.list0[this.list0.length - 1] !== c) this.list0.push(c); }
    else add((this.others ??= new Map()), version, c);
  }

  /** The components of one version. */
  byVersion(version: string): List | undefined {
    return version === this.version0 ? this.list0 : this.others?.get(version);
  }
}

/** OCI components of one name (the repository's last segment), as an OCI claim looks them up; each map made when needed. */
export class OciImages {
  /** By `digest`, host and repository (`''` for those the purl does not give). */
  byDigest: Map<string, List> | undefined;
  /** By `digest` alone: a pull of that digest from elsewhere (`oci-digest`). */
  byDigestAnywhere: Map<string, List> | undefined;
  /** By host, repository and tag: those with a `repository_url` and a `tag`. */
  byTag: Map<string, List> | undefined;
  /** By host and repository: those with a `repository_url`. */
  byRepository: Map<string, List> | undefined;
}

export const key2 = (a: string, b: string): string => `${a}\u0000${b}`;
export const key3 = (a: string, b: string, c: string): string => `${a}\u0000${b}\u0000${c}`;

/**
 * A version folded coarser than every ecosystem's `normaliseVersion` (lower case, leading `v`s and
 * epochs `N:` dropped), for components without a purl, whose ecosystem is not known: versions
 * equal for an ecosystem fold equal.
 */
export function foldVersion(version: string): string {
  const v = version.toLowerCase();
  let i = 0;
  // No read past the end (a version of digits alone): one deoptimised the index's look-ups.
  for (;;) {
    if (i < v.length && v.charCodeAt(i) === 118) { i++; continue; } // `v`
    let j = i;
    while (j < v.length && v.charCodeAt(j) >= 48 && v.charCodeAt(j) <= 57) j++;
    if (j > i && j < v.length && v.charCodeAt(j) === 58) { i = j + 1; continue; } // `N:`
    return v.slice(i);
  }
}

/** One string per component for what attribution reads of it (all but its position): equal strings, equal answers. */
export function identity(c: SbomComponent): string {
  const part = (s: string | undefined): string => (s === undefined ? '-' : `${s.length}:${s}`);
  let id = `${part(c.bomRef)}${part(c.purl)}${part(c.name)}${part(c.version)}${part(c.fullName)}${c.distribution.length}|`;
  for (const d of c.distribution) id += part(d);
  id += `${c.vcs.length}|`;
  for (const r of c.vcs) id += part(r);
  id += `${c.vcsRefs.length}|`;
  for (const r of c.vcsRefs) id += part(r);
  return id;
}
