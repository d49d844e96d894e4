/**
 * Commit-exact archives, read as their references say (issue 32 item 2), and the quirks of real
 * tools (items 3 and 4): Alpine as `pkg:alpine`, apk epochs, an OCI digest pulled elsewhere.
 */
import { describe, expect, it } from 'vitest';
import { indexSbom } from './index-sbom';
import { attributeNaive } from './naive';

const A = 'c887c803ac56deb5f91b617ef0486ca3fb98473b';
const B = 'c887c80399999999999999999999999999999999'; // shares A's first 8 digits
const C = 'e1a99f9871ca1cbd9b7f7b097c0e2aa8f1e79fe7';

function at(sbom: unknown, url: string): [string | undefined, string][] {
  const access = { kind: 'http' as const, method: 'GET', url };
  const got = indexSbom(sbom).attribute(access);
  expect(attributeNaive(sbom, access)).toEqual(got);
  return got.map((m) => [m.bomRef, m.match]);
}

describe('archives of a revision', () => {
  const sbom = {
    components: [
      { 'bom-ref': 'frag', name: 'a', version: '1', externalReferences: [{ type: 'vcs', url: `git+https://github.com/acme/lib.git#${A}` }] },
      { 'bom-ref': 'dist', name: 'a', version: '2', externalReferences: [{ type: 'distribution', url: `git+ssh://git@github.com/acme/lib.git#${C}` }] },
      { 'bom-ref': 'vcsurl', name: 'a', version: '3', purl: `pkg:npm/a@3?vcs_url=${encodeURIComponent('git+https://github.com/acme/lib.git@v3.0.0')}` },
      { 'bom-ref': 'short', name: 'a', version: '4', externalReferences: [{ type: 'vcs', url: 'https://github.com/acme/lib#e1a99f9' }] },
      { 'bom-ref': 'branch', name: 'a', version: '5', externalReferences: [{ type: 'vcs', url: 'https://github.com/acme/lib.git#release/5.x' }] },
      { 'bom-ref': 'norev', name: 'a', version: '6', externalReferences: [{ type: 'vcs', url: 'https://github.com/acme/lib.git' }] },
      { 'bom-ref': 'range', name: 'a', version: '7', externalReferences: [{ type: 'vcs', url: 'https://github.com/acme/lib.git#semver:^7' }] },
      { 'bom-ref': 'gh', name: 'lib', version: A, purl: `pkg:github/acme/lib@${A.toUpperCase()}` },
    ],
  };

  it('a commit: only the components whose reference names it, by its full name, a 7-digit prefix, any case', () => {
    expect(at(sbom, `https://codeload.github.com/acme/lib/tar.gz/${A}`)).toEqual([['gh', 'purl'], ['frag', 'vcs-url']]);
    expect(at(sbom, `https://codeload.github.com/acme/lib/tar.gz/${A.slice(0, 7).toUpperCase()}`)).toEqual([['gh', 'purl'], ['frag', 'vcs-url']]);
    expect(at(sbom, `https://github.com/acme/lib/archive/${A.slice(0, 6)}.tar.gz`)).toEqual([]);
    // The SBOM names C in full and by a prefix: both components.
    expect(at(sbom, `https://api.github.com/repos/acme/lib/tarball/${C}`)).toEqual([['dist', 'vcs-url'], ['short', 'vcs-url']]);
    expect(at(sbom, `https://codeload.github.com/acme/lib/zip/${'0'.repeat(40)}`)).toEqual([]);
  });

  it('a prefix two of the SBOM\'s commits share names neither', () => {
    const two = { components: [...sbom.components, { 'bom-ref': 'other', name: 'a', version: '8', externalReferences: [{ type: 'vcs', url: `https://github.com/acme/lib.git#${B}` }] }] };
    expect(at(two, `https://codeload.github.com/acme/lib/tar.gz/${A.slice(0, 8)}`)).toEqual([]);
    expect(at(two, `https://codeload.github.com/acme/lib/tar.gz/${A}`)).toEqual([['gh', 'purl'], ['frag', 'vcs-url']]);
    expect(at(two, `https://codeload.github.com/acme/lib/tar.gz/${B}`)).toEqual([['other', 'vcs-url']]);
  });

  it('tags and branches: equal names only (a tag `v3.0.0` as `3.0.0`); another repository never', () => {
    expect(at(sbom, 'https://github.com/acme/lib/archive/refs/tags/v3.0.0.tar.gz')).toEqual([['vcsurl', 'vcs-url']]);
    expect(at(sbom, 'https://codeload.github.com/acme/lib/tar.gz/refs/heads/release/5.x')).toEqual([['branch', 'vcs-url']]);
    expect(at(sbom, 'https://github.com/acme/lib/archive/refs/tags/v7.0.0.tar.gz')).toEqual([]);
    expect(at(sbom, `https://codeload.github.com/acme/other/tar.gz/${A}`)).toEqual([]);
  });

  it('a plain clone names every component of the repository', () => {
    expect(at(sbom, 'https://github.com/acme/lib.git/info/refs?service=git-upload-pack').map(([r]) => r))
      .toEqual(['frag', 'dist', 'vcsurl', 'short', 'branch', 'norev', 'range']);
  });

  it('GitLab\'s archives, on any host', () => {
    const gl = { components: [{ 'bom-ref': 'g', name: 'tool', version: '1', externalReferences: [{ type: 'vcs', url: 'https://gitlab.example.com/group/sub/tool.git#v1.0.0' }] }] };
    expect(at(gl, 'https://gitlab.example.com/group/sub/tool/-/archive/v1.0.0/tool-v1.0.0.tar.gz')).toEqual([['g', 'vcs-url']]);
    expect(at(gl, 'https://gitlab.example.com/group/sub/tool/-/archive/v1.0.1/tool-v1.0.1.tar.gz')).toEqual([]);
  });
});

describe('quirks of real tools', () => {
  it('older syft\'s pkg:alpine is apk; cnquery\'s epoch is left out', () => {
    const sbom = {
      components: [
        { 'bom-ref': 'syft', name: 'musl', version: '1.2.3-r0', purl: 'pkg:alpine/musl@1.2.3-r0?arch=x86_64&distro=alpine-3.16.2' },
        { 'bom-ref': 'cnquery', name: 'busybox', version: '1699383189:1.36.1-r15', purl: 'pkg:apk/alpine/busybox@1699383189%3A1.36.1-r15?arch=aarch64&epoch=1699383189' },
      ],
    };
    expect(at(sbom, 'https://dl-cdn.alpinelinux.org/alpine/v3.16/main/x86_64/musl-1.2.3-r0.apk')).toEqual([['syft', 'purl']]);
    expect(at(sbom, 'https://dl-cdn.alpinelinux.org/alpine/v3.19/main/aarch64/busybox-1.36.1-r15.apk')).toEqual([['cnquery', 'purl']]);
    expect(at(sbom, 'https://dl-cdn.alpinelinux.org/alpine/v3.19/main/aarch64/busybox-1.36.1-r14.apk')).toEqual([]);
  });

  it('an OCI digest pulled from another host or repository: `oci-digest`, never `purl`', () => {
    const d = `sha256:${'ab'.repeat(32)}`;
    const sbom = { components: [{ 'bom-ref': 'etcd', name: 'etcd', purl: `pkg:oci/etcd@${encodeURIComponent(d)}?repository_url=registry.k8s.io/etcd` }] };
    expect(at(sbom, `https://registry.k8s.io/v2/etcd/manifests/${d}`)).toEqual([['etcd', 'purl']]);
    expect(at(sbom, `https://us-west2-docker.pkg.dev/v2/k8s-artifacts-prod/images/etcd/manifests/${d}`)).toEqual([['etcd', 'oci-digest']]);
    expect(at(sbom, `https://registry.k8s.io/v2/mirror/etcd/manifests/${d}`)).toEqual([['etcd', 'oci-digest']]);
    expect(at(sbom, `https://us-west2-docker.pkg.dev/v2/k8s-artifacts-prod/images/etcd/manifests/sha256:${'cd'.repeat(32)}`)).toEqual([]);
    expect(at(sbom, `https://us-west2-docker.pkg.dev/v2/k8s-artifacts-prod/images/etcd/manifests/3.5.7-0`)).toEqual([]);
  });
});
