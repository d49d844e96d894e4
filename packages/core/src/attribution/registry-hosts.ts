/**
 * Which hosts are an ecosystem's registries, for the URL forms too generic to read on any host (an
 * npm packument `/NAME`, a crates sparse index entry, RubyGems' `/info/NAME`, Maven's layout under
 * a base): the well-known ones here, and those the SBOM's own purls and distribution references
 * name (added by the caller). The readers of url-forms.ts and its modules ask `onHost`.
 */
import type { Ecosystem } from './types';

/**
 * Registry hosts per ecosystem, for the generic forms.
 * @public
 */
export type RegistryHosts = ReadonlyMap<Ecosystem, ReadonlySet<string>>;

/**
 * The well-known registry hosts of the ecosystems whose metadata forms are generic paths. Maven's
 * are repository bases, `host/path` (no trailing `/`): its layout starts with the group's path,
 * which only a known base tells apart from the repository's own path.
 */
export const DEFAULT_REGISTRY_HOSTS: ReadonlyMap<Ecosystem, readonly string[]> = new Map<Ecosystem, readonly string[]>([
  ['npm', ['registry.npmjs.org', 'registry.yarnpkg.com']],
  ['cargo', ['index.crates.io']],
  ['gem', ['rubygems.org', 'index.rubygems.org']],
  ['golang', ['sum.golang.org']],
  ['maven', ['repo1.maven.org/maven2', 'repo.maven.apache.org/maven2', 'maven.google.com', 'dl.google.com/dl/android/maven2', 'plugins.gradle.org/m2']],
]);

/** Whether `host` is one of `eco`'s registry hosts. */
export function onHost(hosts: RegistryHosts, eco: Ecosystem, host: string): boolean {
  return hosts.get(eco)?.has(host) ?? false;
}
