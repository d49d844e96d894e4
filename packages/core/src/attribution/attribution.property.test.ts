/**
 * Properties of attribution:
 * 1. A purl printed into its ecosystem's URL forms (written here from each registry's documented
 *    layout, independently of url-forms.ts) is matched back to that component, as `purl` for a
 *    form that names the version and `name-only` for one that does not; and nothing with another
 *    name is returned.
 * 2. The index answers as the full scan (`attributeNaive`) on random SBOMs and accesses (printed
 *    forms of the SBOM's components, of near misses, and noise).
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { PackageURL } from 'packageurl-js';
import type { Access } from '../eval/access';
import { indexSbom } from './index-sbom';
import { attributeNaive } from './naive';
import type { MatchKind } from './types';

interface Printed { url?: string; ssh?: { host: string; repositoryPath: string }; kind: MatchKind }
interface Generated { eco: string; purl: string; name: string; version: string; key: string; forms: Printed[]; group?: string }

const lower = 'abcdefghijklmnopqrstuvwxyz';
const word = (chars: string, min = 1, max = 8) => fc.string({ unit: fc.constantFrom(...chars), minLength: min, maxLength: max });
const semver = fc.tuple(fc.nat(20), fc.nat(20), fc.nat(20), fc.option(fc.nat(9), { nil: undefined }))
  .map(([a, b, c, pre]) => `${a}.${b}.${c}${pre !== undefined ? `-beta.${pre}` : ''}`);
const hex64 = fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: 64, maxLength: 64 });
const purlOf = (type: string, namespace: string | undefined, name: string, version: string, qualifiers?: Record<string, string>) =>
  new PackageURL(type, namespace, name, version, qualifiers, undefined).toString();
const pep503 = (n: string) => n.replace(/[-_.]+/g, '-').toLowerCase();
const goEscape = (t: string) => t.replace(/[A-Z]/g, (c) => `!${c.toLowerCase()}`);

const npm = fc.tuple(fc.option(word(lower + '0123456789'), { nil: undefined }), word(lower + '0123456789-', 1, 10).filter((n) => /^[a-z0-9]/.test(n)), semver)
  .map(([scope, base, v]): Generated => {
    const name = scope ? `@${scope}/${base}` : base;
    const packument = scope ? `@${scope}%2f${base}` : base;
    return {
      eco: 'npm', purl: purlOf('npm', scope ? `@${scope}` : undefined, base, v), name: base, version: v, key: name,
      forms: [
        { url: `https://registry.npmjs.org/${name}/-/${base}-${v}.tgz`, kind: 'purl' },
        { url: `https://mirror.example.com/npm/${name}/-/${base}-${v}.tgz`, kind: 'purl' },
        { url: `https://registry.npmjs.org/${packument}`, kind: 'name-only' },
      ],
    };
  });

const pypiName = fc.tuple(word(lower + 'ABC0123456789', 1, 6), fc.array(fc.tuple(fc.constantFrom('-', '_', '.'), word(lower + '0123456789', 1, 5)), { maxLength: 2 }))
  .map(([h, rest]) => h + rest.map(([s, w]) => s + w).join(''))
  .filter((n) => /^[A-Za-z0-9]/.test(n) && /[A-Za-z0-9]$/.test(n));
const pypi = fc.tuple(pypiName, fc.tuple(fc.nat(30), fc.nat(30)).map(([a, b]) => `${a}.${b}`)).map(([name, v]): Generated => ({
  eco: 'pypi', purl: purlOf('pypi', undefined, name, v), name, version: v, key: pep503(name),
  forms: [
    { url: `https://files.pythonhosted.org/packages/ab/cd/ef/${name.replace(/[-_.]+/g, '_')}-${v}-py3-none-any.whl`, kind: 'purl' },
    { url: `https://files.pythonhosted.org/packages/source/x/${name}/${name}-${v}.tar.gz`, kind: 'purl' },
    { url: `https://pypi.org/simple/${pep503(name)}/`, kind: 'name-only' },
    { url: `https://pypi.org/pypi/${name}/${v}/json`, kind: 'purl' },
  ],
}));

const crateName = word(lower + '0123456789_-', 1, 10).filter((n) => /^[a-z]/.test(n));
const sparse = (n: string) => n.length === 1 ? `1/${n}` : n.length === 2 ? `2/${n}` : n.length === 3 ? `3/${n[0]}/${n}` : `${n.slice(0, 2)}/${n.slice(2, 4)}/${n}`;
const cargo = fc.tuple(crateName, semver).map(([name, v]): Generated => ({
  eco: 'cargo', purl: purlOf('cargo', undefined, name, v), name, version: v, key: name.replace(/_/g, '-'),
  forms: [
    { url: `https://crates.io/api/v1/crates/${name}/${v}/download`, kind: 'purl' },
    { url: `https://static.crates.io/crates/${name}/${name}-${v}.crate`, kind: 'purl' },
    { url: `https://index.crates.io/${sparse(name)}`, kind: 'name-only' },
  ],
}));

const goSegment = word(lower + 'ABCXYZ0123456789-', 1, 8).filter((s) => /^[A-Za-z]/.test(s));
const golang = fc.tuple(fc.constantFrom('github.com', 'example.org', 'go.example.io'), fc.array(goSegment, { minLength: 1, maxLength: 3 }), semver)
  .map(([host, segs, v0]): Generated => {
    const module = [host, ...segs].join('/');
    const v = `v${v0}`;
    const slash = module.lastIndexOf('/');
    return {
      eco: 'golang', purl: purlOf('golang', module.slice(0, slash), module.slice(slash + 1), v), name: module, version: v, key: module,
      forms: [
        { url: `https://proxy.golang.org/${goEscape(module)}/@v/${goEscape(v)}.zip`, kind: 'purl' },
        { url: `https://proxy.golang.org/${goEscape(module)}/@v/${goEscape(v)}.mod`, kind: 'purl' },
        { url: `https://goproxy.example.com/base/${goEscape(module)}/@v/${goEscape(v)}.info`, kind: 'purl' },
        { url: `https://proxy.golang.org/${goEscape(module)}/@v/list`, kind: 'name-only' },
      ],
    };
  });

const gem = fc.tuple(word(lower + '0123456789_-', 1, 10).filter((n) => /^[a-z]/.test(n) && !n.endsWith('-')), fc.tuple(fc.nat(9), fc.nat(9), fc.nat(9)).map((p) => p.join('.')))
  .map(([name, v]): Generated => ({
    eco: 'gem', purl: purlOf('gem', undefined, name, v), name, version: v, key: name,
    forms: [
      { url: `https://rubygems.org/gems/${name}-${v}.gem`, kind: 'purl' },
      { url: `https://rubygems.org/quick/Marshal.4.8/${name}-${v}.gemspec.rz`, kind: 'purl' },
      { url: `https://index.rubygems.org/info/${name}`, kind: 'name-only' },
    ],
  }));

const oci = fc.tuple(fc.constantFrom('registry.example.com', 'ghcr.example.io'), word(lower, 1, 6), word(lower + '0123456789-', 1, 8).filter((n) => /^[a-z0-9]/.test(n) && /[a-z0-9]$/.test(n)), hex64, word(lower + '0123456789.', 1, 6).filter((t) => /^[a-z0-9]/.test(t)))
  .map(([host, org, name, hex, tag]): Generated => {
    const digest = `sha256:${hex}`;
    return {
      eco: 'oci', purl: purlOf('oci', undefined, name, digest, { repository_url: `${host}/${org}/${name}`, tag }), name, version: digest, key: `${host}/${org}/${name}`,
      forms: [
        { url: `https://${host}/v2/${org}/${name}/manifests/${digest}`, kind: 'purl' },
        { url: `https://${host}/v2/${org}/${name}/manifests/${tag}`, kind: 'purl' },
        { url: `https://${host}/v2/${org}/${name}/blobs/sha256:${'0'.repeat(64)}`, kind: 'name-only' },
      ],
    };
  });

// Older syft's `pkg:alpine/`, cnquery's build time as an epoch: the same package.
const apk = fc.tuple(word(lower + '0123456789-', 1, 10).filter((n) => /^[a-z]/.test(n) && !n.endsWith('-')), fc.tuple(fc.nat(9), fc.nat(9), fc.nat(9)), fc.constantFrom('apk', 'alpine'), fc.option(fc.integer({ min: 1600000000, max: 1800000000 }), { nil: undefined }))
  .map(([name, [a, b, r], type, epoch]): Generated => {
    const v = `${a}.${b}-r${r}`;
    const written = epoch !== undefined ? `${epoch}:${v}` : v;
    return {
      eco: 'apk', purl: purlOf(type, 'alpine', name, written, { arch: 'x86_64', ...(epoch !== undefined ? { epoch: String(epoch) } : {}) }), name, version: written, key: name,
      forms: [{ url: `https://dl-cdn.alpinelinux.org/alpine/v3.20/main/x86_64/${name}-${v}.apk`, kind: 'purl' }],
    };
  });

const deb = fc.tuple(word(lower + '0123456789+.-', 1, 10).filter((n) => /^[a-z0-9]/.test(n)), fc.option(fc.integer({ min: 1, max: 3 }), { nil: undefined }), fc.tuple(fc.nat(9), fc.nat(9), fc.nat(9)), fc.constantFrom('amd64', 'arm64', 'all'))
  .map(([name, epoch, [a, b, c], arch]): Generated => {
    const upstream = `${a}.${b}-${c}`;
    const v = epoch !== undefined ? `${epoch}:${upstream}` : upstream;
    return {
      eco: 'deb', purl: purlOf('deb', 'debian', name, v, { arch }), name, version: v, key: name,
      forms: [{ url: `http://deb.debian.org/debian/pool/main/${name[0]}/${name}/${name}_${upstream.replace(/\+/g, '%2b')}_${arch}.deb`, kind: 'purl' }],
    };
  });

const git = fc.tuple(word(lower + '0123456789-', 1, 8).filter((n) => /^[a-z0-9]/.test(n)), word(lower + '0123456789-_', 1, 8).filter((n) => /^[a-z0-9]/.test(n)), semver)
  .map(([owner, repo, v0]): Generated => {
    const v = `v${v0}`;
    return {
      eco: 'github', purl: purlOf('github', owner, repo, v), name: repo, version: v, key: `${owner}/${repo}`,
      forms: [
        { url: `https://github.com/${owner}/${repo}/archive/refs/tags/${v}.tar.gz`, kind: 'purl' },
        { url: `https://codeload.github.com/${owner}/${repo}/zip/refs/tags/${v}`, kind: 'purl' },
        { url: `https://github.com/${owner}/${repo}.git/info/refs`, kind: 'name-only' },
        { ssh: { host: 'github.com', repositoryPath: `/${owner}/${repo}.git` }, kind: 'name-only' },
      ],
    };
  });

const mavenWord = word(lower + '0123456789', 1, 8).filter((w) => /^[a-z]/.test(w));
const maven = fc.tuple(fc.array(mavenWord, { minLength: 1, maxLength: 3 }), word(lower + '0123456789-', 1, 10).filter((n) => /^[a-z]/.test(n) && !n.endsWith('-')), semver, fc.constantFrom('', '.Final', '.RELEASE'))
  .map(([groupParts, artifact, v0, suffix]): Generated => {
    const group = groupParts.join('.');
    const v = v0 + suffix;
    const dir = `https://repo1.maven.org/maven2/${groupParts.join('/')}/${artifact}`;
    return {
      eco: 'maven', purl: purlOf('maven', group, artifact, v, { type: 'jar' }), name: artifact, version: v, key: `${group}/${artifact}`, group,
      forms: [
        { url: `${dir}/${v}/${artifact}-${v}.jar`, kind: 'purl' },
        { url: `${dir}/${v}/${artifact}-${v}.pom.sha1`, kind: 'purl' },
        { url: `${dir}/maven-metadata.xml`, kind: 'name-only' },
      ],
    };
  });

const anyPackage = fc.oneof(npm, pypi, cargo, golang, gem, maven, oci, apk, deb, git);

/**
 * How a component is written: with its purl; without (name and version only: matched `name-only`
 * by forms that name a version, never for OCI and git); or with its purl and, as a distribution
 * reference, the URL of its last form (then that form matches `distribution-url` unless it names
 * the version).
 */
type Style = 'purl' | 'plain' | 'dist';
const style = fc.constantFrom<Style>('purl', 'purl', 'plain', 'dist');

/** A distribution URL of no recognised form: found through the index's URL map alone. */
const artifactUrl = (i: number) => `https://downloads.example.com/files/${i}/artifact.bin`;

function sbomOf(list: Generated[], styles: Style[]): unknown {
  return {
    bomFormat: 'CycloneDX', specVersion: '1.7', version: 1,
    components: list.map((g, i) => {
      const c: Record<string, unknown> = { type: 'library', 'bom-ref': `c${i}`, name: g.name, version: g.version };
      const s = styles[i % styles.length];
      if (s !== 'plain') c.purl = g.purl;
      const last = g.forms[g.forms.length - 1];
      if (s === 'dist') c.externalReferences = [...(last.url !== undefined ? [{ type: 'distribution', url: last.url }] : []), { type: 'distribution', url: artifactUrl(i) }];
      if (s === 'plain' && g.eco === 'npm' && g.key.startsWith('@')) { c.group = g.key.slice(0, g.key.indexOf('/')); }
      if (s === 'plain' && g.group !== undefined) c.group = g.group;
      return c;
    }),
  };
}

function expectedKind(g: Generated, s: Style, formIndex: number): MatchKind | undefined {
  const form = g.forms[formIndex];
  if (s === 'plain') return form.kind === 'purl' && g.eco !== 'oci' && g.eco !== 'github' ? 'name-only' : undefined;
  if (s === 'dist' && formIndex === g.forms.length - 1 && form.url !== undefined && form.kind !== 'purl') return 'distribution-url';
  return form.kind;
}

function accessOf(p: Printed): Access {
  return p.url !== undefined ? { kind: 'http', method: 'GET', url: p.url } : { kind: 'ssh', host: p.ssh!.host, port: 22, repositoryPath: p.ssh!.repositoryPath };
}

describe('attribution properties', () => {
  it('a purl printed into its URL forms is matched back to its component, and to nothing of another name', () => {
    fc.assert(fc.property(anyPackage, fc.array(anyPackage, { maxLength: 6 }), fc.nat(), fc.array(style, { minLength: 8, maxLength: 8 }), (target, others, at, styles) => {
      const list = [...others];
      const pos = at % (list.length + 1);
      list.splice(pos, 0, target);
      const index = indexSbom(sbomOf(list, styles));
      const targetStyle = styles[pos % styles.length];
      for (const [f, form] of target.forms.entries()) {
        const got = index.attribute(accessOf(form));
        const expected = expectedKind(target, targetStyle, f);
        const mine = got.find((m) => m.bomRef === `c${pos}`);
        // name-only is left out when another component matches more strongly.
        if (!(expected === 'name-only' && mine === undefined && got.some((m) => m.match !== 'name-only'))) {
          expect({ form, match: mine?.match }).toEqual({ form, match: expected });
        }
        for (const m of got) {
          const i = Number(m.bomRef!.slice(1));
          const other = list[i];
          // A component without a purl is matched by name and version whatever its ecosystem.
          if (styles[i % styles.length] === 'plain' && m.match === 'name-only') continue;
          expect({ form, eco: other.eco, key: other.key }).toEqual({ form, eco: target.eco, key: target.key });
        }
      }
      const artifact = index.attribute({ kind: 'http', method: 'GET', url: artifactUrl(pos) });
      expect(artifact).toEqual(targetStyle === 'dist' ? [expect.objectContaining({ bomRef: `c${pos}`, match: 'distribution-url' })] : []);
    }), { numRuns: 400 });
  });

  it('the index answers as the full scan', () => {
    const mutate = (url: string, how: number): string => {
      switch (how % 5) {
        case 0: return url;
        case 1: return url.replace(/\d(?=[^\d]*$)/, (d) => String((Number(d) + 1) % 10)); // another version
        case 2: return url.toUpperCase();
        case 3: return url.replace('https://', 'https://mirror.example.net/');
        default: return url.slice(0, Math.max(8, url.length - 3));
      }
    };
    fc.assert(fc.property(fc.array(anyPackage, { minLength: 1, maxLength: 8 }), fc.array(style, { minLength: 1, maxLength: 8 }), fc.array(fc.tuple(fc.nat(), fc.nat(), fc.nat()), { minLength: 1, maxLength: 10 }), (list, styles, picks) => {
      const sbom = sbomOf(list, styles);
      const index = indexSbom(sbom);
      for (const [i, j, how] of picks) {
        const g = list[i % list.length];
        const form = g.forms[j % g.forms.length];
        const url = how % 7 === 6 ? artifactUrl(i % list.length) : form.url;
        const access = url !== undefined ? { kind: 'http' as const, method: 'GET', url: mutate(url, how) } : accessOf(form);
        expect(index.attribute(access)).toEqual(attributeNaive(sbom, access));
      }
    }), { numRuns: 400 });
  });
});
