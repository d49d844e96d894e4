/**
 * The reference for `indexSbom(...).attribute`: every component judged for every access, no maps.
 * Written for clarity; attribution.property.test.ts and linear.property.test.ts hold the index to it.
 */
import type { Access } from '../eval/access';
import { readSbomComponents, type SbomComponent } from './components';
import type { IndexSbomOptions } from './index-sbom';
import { claimsOfAccess, entries, judge, sbomContext, UNATTRIBUTED } from './match';
import type { ComponentMatch, MatchKind } from './types';

/** The components an access fetched, judged one by one: slow, for tests that hold `indexSbom` to it. */
export function attributeNaive(sbom: unknown, access: Access, remoteUrl?: string, options: IndexSbomOptions = {}): readonly ComponentMatch[] {
  const components = readSbomComponents(sbom);
  // Every URL form read, the URL key of every request to a distribution host (the index reads
  // those the URL may have, and makes the key for a distribution path only: held to this).
  const a = claimsOfAccess(access, sbomContext(components, options), remoteUrl, undefined, true);
  const found: { c: SbomComponent; kind: MatchKind }[] = [];
  for (const c of components) {
    const kind = judge(c, a);
    if (kind !== undefined) found.push({ c, kind });
  }
  // Each entry once, where it first comes: compared with every entry kept before it.
  const kept: ComponentMatch[] = [];
  for (const m of entries(found)) {
    if (!kept.some((k) => k.match === m.match && k.bomRef === m.bomRef && k.purl === m.purl && k.name === m.name && k.version === m.version)) kept.push(m);
  }
  return kept.length === 0 ? UNATTRIBUTED : kept;
}
