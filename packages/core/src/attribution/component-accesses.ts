/**
 * The requests a job makes to fetch an SBOM's components: for each component, its canonical
 * download and index URLs (the forms of docs/attribution.md, on the registry its purl's
 * `repository_url` names, else the ecosystem's public registry), its distribution references, and
 * its git repository. `netpolicy init --sbom` hands them to `suggestFromAccesses` to choose
 * presets and sources. Every access made here is attributed back to its component (tested).
 */
import type { Access } from '../eval/access';
import { parseUrl } from '../eval/url';
import { readSbomComponents, type SbomComponent } from './components';
import { escapeGoPath } from './names';

function sparseIndexPath(name: string): string {
  return name.length === 1 ? `1/${name}` : name.length === 2 ? `2/${name}` : name.length === 3 ? `3/${name[0]}/${name}` : `${name.slice(0, 2)}/${name.slice(2, 4)}/${name}`;
}

const http = (url: string): Access => ({ kind: 'http', method: 'GET', url });

/** A git repository key (`host/path`) as the request a clone over HTTPS makes. */
function gitAccess(key: string): Access {
  return http(`https://${key}.git/info/refs`);
}

function registryAccesses(c: SbomComponent): Access[] {
  const k = c.keys;
  if (k === undefined) return [];
  const host = c.registryHost;
  const v = k.version;
  switch (k.eco) {
    case 'npm': {
      const base = `https://${host ?? 'registry.npmjs.org'}`;
      const short = k.name.slice(k.name.lastIndexOf('/') + 1);
      return v !== undefined ? [http(`${base}/${k.name}/-/${short}-${v}.tgz`)] : [http(`${base}/${k.name.replace('/', '%2f')}`)];
    }
    case 'pypi':
      return host !== undefined ? [http(`https://${host}/simple/${k.name}/`)]
        : [http(`https://pypi.org/simple/${k.name}/`), ...(v !== undefined ? [http(`https://files.pythonhosted.org/packages/${k.name}-${v}.tar.gz`)] : [])];
    case 'cargo':
      return host !== undefined ? [http(`https://${host}/${sparseIndexPath(k.name)}`)]
        : [http(`https://index.crates.io/${sparseIndexPath(k.name)}`), ...(v !== undefined ? [http(`https://static.crates.io/crates/${k.name}/${k.name}-${v}.crate`)] : [])];
    case 'golang':
      return [http(`https://${host ?? 'proxy.golang.org'}/${escapeGoPath(k.name)}/@v/${v !== undefined ? `${escapeGoPath(v)}.zip` : 'list'}`)];
    case 'gem':
      return [http(`https://${host ?? 'rubygems.org'}/${v !== undefined ? `gems/${k.name}-${v}.gem` : `info/${k.name}`}`)];
    case 'oci': {
      if (k.ociHost === undefined || k.ociRepository === undefined) return [];
      const registry = k.ociHost === 'docker.io' ? 'registry-1.docker.io' : k.ociHost;
      const ref = v ?? k.tag;
      return ref !== undefined ? [http(`https://${registry}/v2/${k.ociRepository}/manifests/${ref}`)] : [];
    }
    case 'maven': {
      // `group/artifact`: the POM of the version (every classifier's), else the artifact's metadata.
      const slash = k.name.lastIndexOf('/');
      if (slash <= 0) return [];
      const artifact = k.name.slice(slash + 1);
      const base = `https://${host ?? 'repo1.maven.org/maven2'}/${k.name.slice(0, slash).split('.').join('/')}/${artifact}`;
      return [http(v !== undefined ? `${base}/${v}/${artifact}-${v}.pom` : `${base}/maven-metadata.xml`)];
    }
    case 'apk':
      return v !== undefined ? [http(`https://dl-cdn.alpinelinux.org/alpine/latest-stable/main/x86_64/${k.name}-${v}.apk`)] : [];
    case 'deb': {
      if (v === undefined) return [];
      const ubuntu = c.purl?.startsWith('pkg:deb/ubuntu/') ?? false;
      const prefix = k.name.startsWith('lib') ? k.name.slice(0, 4) : k.name[0];
      const arch = /[?&]arch=([a-z0-9_-]+)/.exec(c.purl ?? '')?.[1] ?? 'amd64';
      return [http(`${ubuntu ? 'https://archive.ubuntu.com/ubuntu' : 'https://deb.debian.org/debian'}/pool/main/${prefix}/${k.name}/${k.name}_${v}_${arch}.deb`)];
    }
    case 'git':
      return [gitAccess(k.repo!)];
  }
}

/** The accesses one component's download takes (none when nothing says where it comes from). */
export function componentAccesses(c: SbomComponent): Access[] {
  const out = registryAccesses(c);
  for (const d of c.distribution) {
    // A distribution key is `scheme://host:port/path`: back to a URL without the default port.
    const u = parseUrl(d);
    if (u) out.push(http(`${u.scheme}://${u.host.includes(':') ? `[${u.host}]` : u.host}${(u.scheme === 'https' && u.port === 443) || (u.scheme === 'http' && u.port === 80) ? '' : `:${u.port}`}${u.path}`));
  }
  for (const key of c.vcs) out.push(gitAccess(key));
  return out;
}

/**
 * Every component of an SBOM with the accesses its download takes.
 * @beta
 */
export function sbomAccesses(sbom: unknown): { component: SbomComponent; accesses: Access[] }[] {
  return readSbomComponents(sbom).map((component) => ({ component, accesses: componentAccesses(component) })).filter((x) => x.accesses.length > 0);
}
