/**
 * The reference for `indexSbom(...).attribute`: every component judged for every access, no maps.
 * Written for clarity; attribution.property.test.ts holds the index to it.
 */
import type { Access } from '../eval/access';
import { readSbomComponents, type SbomComponent } from './components';
import { claimsOfAccess, finish, judge, registryHosts } from './match';
import type { ComponentMatch, MatchKind } from './types';

/** The components an access fetched, judged one by one: slow, for tests that hold `indexSbom` to it. */
export function attributeNaive(sbom: unknown, access: Access, remoteUrl?: string): readonly ComponentMatch[] {
  const components = readSbomComponents(sbom);
  const a = claimsOfAccess(access, registryHosts(components), remoteUrl);
  const found: { c: SbomComponent; kind: MatchKind }[] = [];
  for (const c of components) {
    const kind = judge(c, a);
    if (kind !== undefined) found.push({ c, kind });
  }
  return finish(found);
}
