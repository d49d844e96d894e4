/**
 * What each URL form names, from each ecosystem's documented layout (the table of
 * docs/attribution.md). `name@version` for a package claim, `name` alone when the form names no
 * version; `oci host/repository` with `@digest` or `:tag`; `git repo` with `@version`.
 */
import { describe, expect, it } from 'vitest';
import { parseUrl } from '../eval/url';
import { claimsOfUrl, DEFAULT_REGISTRY_HOSTS, describeClaim } from './url-forms';
import { repoKeyOfUrl } from './repo-key';
import type { Ecosystem } from './types';

const hosts = new Map<Ecosystem, Set<string>>([...DEFAULT_REGISTRY_HOSTS].map(([k, v]) => [k, new Set(v)]));
hosts.get('npm')!.add('npm.pkg.example.com');

function claims(url: string): string[] {
  const u = parseUrl(url);
  if (!u) throw new Error(`test URL does not parse: ${url}`);
  return claimsOfUrl(u, hosts).map(describeClaim).sort();
}

const D = 'sha256:' + 'a'.repeat(64);

// [URL, claims]: one row per documented form, and the near misses that must name nothing.
const TABLE: [string, string[]][] = [
  // npm (registry API: tarballs at NAME/-/BASENAME-VERSION.tgz; packuments on registry hosts)
  ['https://registry.npmjs.org/express/-/express-4.21.2.tgz', ['npm express@4.21.2']],
  ['https://registry.npmjs.org/@babel/core/-/core-7.26.0.tgz', ['npm @babel/core@7.26.0']],
  ['https://registry.npmjs.org/@babel%2fcore/-/core-7.26.0.tgz', ['npm @babel/core@7.26.0']],
  ['https://registry.npmjs.org/react/-/react-19.0.0-rc-66855b96-20241106.tgz', ['npm react@19.0.0-rc-66855b96-20241106']],
  ['https://registry.npmjs.org/JSONStream/-/JSONStream-1.3.5.tgz', ['npm jsonstream@1.3.5']],
  ['https://mirror.example.com/api/npm/remote/lodash/-/lodash-4.17.21.tgz', ['npm lodash@4.17.21']],
  ['https://registry.npmjs.org/express', ['npm express']],
  ['https://registry.npmjs.org/express/', ['npm express']],
  ['https://registry.npmjs.org/express/4.21.2', ['npm express@4.21.2']],
  ['https://registry.npmjs.org/express/latest', ['npm express']],
  ['https://registry.npmjs.org/@types%2fnode', ['npm @types/node']],
  ['https://registry.npmjs.org/@types%2Fnode', ['npm @types/node']],
  ['https://registry.npmjs.org/@types/node', ['npm @types/node']],
  ['https://npm.pkg.example.com/@acme%2fui', ['npm @acme/ui']],
  ['https://example.com/express', []],
  ['https://registry.npmjs.org/-/v1/search', []],
  ['https://registry.npmjs.org/express/-/lodash-4.17.21.tgz', []],
  // PyPI (PEP 503 simple pages, JSON API, wheels per the binary distribution format, sdists)
  ['https://pypi.org/simple/requests/', ['pypi requests']],
  ['https://pypi.org/simple/Flask_SQLAlchemy', ['pypi flask-sqlalchemy']],
  ['https://devpi.example.com/root/pypi/+simple/zope.interface/', ['pypi zope-interface']],
  ['https://pypi.org/pypi/requests/json', ['pypi requests']],
  ['https://pypi.org/pypi/requests/2.32.3/json', ['pypi requests@2.32.3']],
  ['https://files.pythonhosted.org/packages/f9/9b/335f/requests-2.32.3-py3-none-any.whl', ['pypi requests@2.32.3']],
  ['https://files.pythonhosted.org/packages/aa/bb/cc/zope_interface-7.2-cp312-cp312-manylinux_2_17_x86_64.whl', ['pypi zope-interface@7.2']],
  ['https://files.pythonhosted.org/packages/aa/bb/cc/numpy-2.1.0-1-cp312-cp312-win_amd64.whl', ['pypi numpy@2.1.0']],
  ['https://files.pythonhosted.org/packages/aa/bb/cc/python-dateutil-2.9.0.post0.tar.gz', ['pypi python-dateutil@2.9.0.post0']],
  ['https://files.pythonhosted.org/packages/source/r/requests/requests-2.32.3.tar.gz', ['pypi requests@2.32.3']],
  ['https://files.pythonhosted.org/packages/aa/bb/cc/PyYAML-6.0.2.tar.gz', ['pypi pyyaml@6.0.2']],
  ['https://pypi.internal.example/simple/acme-utils/acme_utils-0.4.1.tar.gz', ['pypi acme-utils@0.4.1']],
  ['https://downloads.example.com/requests-2.32.3.tar.gz', []],
  ['https://files.pythonhosted.org/packages/aa/bb/cc/notawheel.whl', []],
  // crates (download API, static.crates.io, sparse index on index.crates.io)
  ['https://crates.io/api/v1/crates/serde/1.0.217/download', ['cargo serde@1.0.217']],
  ['https://static.crates.io/crates/serde_json/serde_json-1.0.135.crate', ['cargo serde-json@1.0.135']],
  ['https://static.crates.io/crates/syn/2.0.96/download', ['cargo syn@2.0.96']],
  ['https://crates.io/api/v1/crates/serde', ['cargo serde']],
  ['https://index.crates.io/1/a', ['cargo a']],
  ['https://index.crates.io/2/io', ['cargo io']],
  ['https://index.crates.io/3/s/syn', ['cargo syn']],
  ['https://index.crates.io/se/rd/serde', ['cargo serde']],
  ['https://index.crates.io/se/rd/Serde_JSON', ['cargo serde-json']],
  ['https://index.crates.io/xx/rd/serde', []],
  ['https://index.crates.io/config.json', []],
  ['https://example.com/se/rd/serde', []],
  // Go module proxy (GOPROXY protocol; case-encoded paths) and the checksum database
  ['https://proxy.golang.org/github.com/gorilla/mux/@v/list', ['golang github.com/gorilla/mux']],
  ['https://proxy.golang.org/github.com/gorilla/mux/@v/v1.8.1.info', ['golang github.com/gorilla/mux@v1.8.1']],
  ['https://proxy.golang.org/github.com/gorilla/mux/@v/v1.8.1.mod', ['golang github.com/gorilla/mux@v1.8.1']],
  ['https://proxy.golang.org/github.com/gorilla/mux/@v/v1.8.1.zip', ['golang github.com/gorilla/mux@v1.8.1']],
  ['https://proxy.golang.org/github.com/gorilla/mux/@latest', ['golang github.com/gorilla/mux']],
  ['https://proxy.golang.org/github.com/!burnt!sushi/toml/@v/v1.4.0.zip', ['golang github.com/BurntSushi/toml@v1.4.0']],
  ['https://proxy.golang.org/github.com/foo/bar/@v/v0.0.0-20240101000000-abcdefabcdef.zip', ['golang github.com/foo/bar@v0.0.0-20240101000000-abcdefabcdef']],
  ['https://proxy.golang.org/github.com/!bad!!/x/@v/v1.0.0.zip', []],
  // A proxy under a base path: every suffix that starts with a domain-like element.
  ['https://goproxy.example.com/api/go/remote/golang.org/x/text/@v/v0.21.0.mod', ['golang golang.org/x/text@v0.21.0']],
  ['https://sum.golang.org/lookup/github.com/gorilla/mux@v1.8.1', ['golang github.com/gorilla/mux@v1.8.1']],
  ['https://proxy.golang.org/github.com/gorilla/mux/@v/v1.8.1.txt', []],
  ['https://example.com/lookup/github.com/gorilla/mux@v1.8.1', []],
  // RubyGems
  ['https://rubygems.org/gems/rails-7.2.2.gem', ['gem rails@7.2.2']],
  ['https://rubygems.org/gems/nokogiri-1.16.8-x86_64-linux.gem', ['gem nokogiri@1.16.8']],
  ['https://rubygems.org/gems/net-http-persistent-4.0.5.gem', ['gem net-http-persistent@4.0.5']],
  ['https://rubygems.org/quick/Marshal.4.8/rails-7.2.2.gemspec.rz', ['gem rails@7.2.2']],
  ['https://index.rubygems.org/info/rails', ['gem rails']],
  ['https://rubygems.org/api/v1/gems/rails.json', ['gem rails']],
  ['https://example.com/info/rails', []],
  ['https://rubygems.org/downloads/rails-7.2.2.gem', []],
  // OCI distribution
  [`https://registry.example.com/v2/library/python/manifests/3.12-slim`, ['oci registry.example.com/library/python:3.12-slim']],
  [`https://registry.example.com/v2/library/python/manifests/${D}`, [`oci registry.example.com/library/python@${D}`]],
  [`https://registry.example.com/v2/library/python/blobs/${D}`, ['oci registry.example.com/library/python']],
  ['https://registry-1.docker.io/v2/library/debian/manifests/bookworm', ['oci docker.io/library/debian:bookworm']],
  ['https://index.docker.io/v2/debian/manifests/bookworm', ['oci docker.io/library/debian:bookworm']],
  ['https://registry.example.com/v2/acme/app/blobs/uploads/', ['oci registry.example.com/acme/app']],
  ['https://registry.example.com/v2/acme/app/tags/list', ['oci registry.example.com/acme/app']],
  ['https://registry.example.com/v2/', []],
  // Alpine
  ['https://dl-cdn.alpinelinux.org/alpine/v3.20/main/x86_64/musl-1.2.5-r0.apk', ['apk musl@1.2.5-r0']],
  ['https://dl-cdn.alpinelinux.org/alpine/v3.20/main/x86_64/ca-certificates-bundle-20241121-r1.apk', ['apk ca-certificates-bundle@20241121-r1']],
  ['https://dl-cdn.alpinelinux.org/alpine/v3.20/main/x86_64/APKINDEX.tar.gz', []],
  ['https://example.com/app-release.apk', []],
  // Debian and Ubuntu pools
  ['http://deb.debian.org/debian/pool/main/c/curl/curl_7.88.1-10+deb12u8_amd64.deb', ['deb curl@7.88.1-10+deb12u8']],
  ['http://deb.debian.org/debian/pool/main/t/tzdata/tzdata_2024b-0%2bdeb12u1_all.deb', ['deb tzdata@2024b-0+deb12u1']],
  ['http://archive.ubuntu.com/ubuntu/pool/main/p/pcre3/libpcre3_2%3a8.39-15_amd64.deb', ['deb libpcre3@8.39-15']],
  ['http://deb.debian.org/debian/pool/main/d/debian-installer/net-retriever_1.61_all.udeb', ['deb net-retriever@1.61']],
  ['http://deb.debian.org/debian/dists/bookworm/InRelease', []],
  ['http://deb.debian.org/debian/pool/main/c/curl/curl_7.88.1.orig.tar.gz', []],
  // git: smart HTTP, GitHub archives and release assets
  ['https://github.com/acme/docs.git/info/refs', ['git github.com/acme/docs']],
  ['https://github.com/acme/docs/git-upload-pack', ['git github.com/acme/docs']],
  ['https://gitlab.example.com/group/sub/project.git/git-receive-pack', ['git gitlab.example.com/group/sub/project']],
  ['https://github.com/acme/tools/archive/refs/tags/v1.2.0.tar.gz', ['git github.com/acme/tools@v1.2.0']],
  ['https://github.com/acme/tools/archive/v1.2.0.zip', ['git github.com/acme/tools@v1.2.0']],
  ['https://github.com/acme/tools/releases/download/v1.2.0/tools-linux-amd64.tar.gz', ['git github.com/acme/tools@v1.2.0']],
  ['https://codeload.github.com/acme/tools/tar.gz/refs/tags/v1.1.0', ['git github.com/acme/tools@v1.1.0']],
  ['https://github.com/acme/tools', []],
  ['https://github.com/acme/tools/blob/main/README.md', []],
  // git: archives of a commit, a tag or a branch on each forge
  ['https://codeload.github.com/CycloneDX/cyclonedx-javascript-library/tar.gz/c887c803ac56deb5f91b617ef0486ca3fb98473b', ['git github.com/cyclonedx/cyclonedx-javascript-library@c887c803ac56deb5f91b617ef0486ca3fb98473b']],
  ['https://codeload.github.com/acme/tools/zip/refs/heads/release/2.x', ['git github.com/acme/tools@release/2.x']],
  ['https://codeload.github.com/acme/tools/legacy.tar.gz/main', ['git github.com/acme/tools@main']],
  ['https://github.com/acme/tools/archive/c887c803ac56deb5f91b617ef0486ca3fb98473b.tar.gz', ['git github.com/acme/tools@c887c803ac56deb5f91b617ef0486ca3fb98473b']],
  ['https://github.com/acme/tools/archive/refs/heads/main.zip', ['git github.com/acme/tools@main']],
  ['https://api.github.com/repos/acme/tools/tarball/v1.2.0', ['git github.com/acme/tools@v1.2.0']],
  ['https://api.github.com/repos/acme/tools/tarball', []],
  ['https://gitlab.com/group/sub/project/-/archive/v1.0.0/project-v1.0.0.tar.gz', ['git gitlab.com/group/sub/project@v1.0.0']],
  ['https://git.example.com/team/tool/-/archive/c887c803/tool-c887c803.zip', ['git git.example.com/team/tool@c887c803']],
  ['https://gitlab.com/group/project/-/archive/main/project-main.tar.gz?path=docs', ['git gitlab.com/group/project@main']],
  ['https://gitlab.com/group/project/-/blob/main/README.md', []],
  ['https://bitbucket.org/acme/tools/get/v1.2.0.tar.gz', ['git bitbucket.org/acme/tools@v1.2.0']],
  ['https://codeberg.org/forgejo/forgejo/archive/v9.0.0.tar.gz', ['git codeberg.org/forgejo/forgejo@v9.0.0']],
  // Maven 2 layout on known bases (Maven Central, Google, the Gradle plugin portal)
  ['https://repo1.maven.org/maven2/io/quarkus/quarkus-resteasy-reactive/2.13.4.Final/quarkus-resteasy-reactive-2.13.4.Final.jar', ['maven io.quarkus/quarkus-resteasy-reactive@2.13.4.Final']],
  ['https://repo.maven.apache.org/maven2/io/quarkus/quarkus-resteasy-reactive/2.13.4.Final/quarkus-resteasy-reactive-2.13.4.Final.pom', ['maven io.quarkus/quarkus-resteasy-reactive@2.13.4.Final']],
  ['https://repo1.maven.org/maven2/org/slf4j/slf4j-api/2.0.16/slf4j-api-2.0.16.module', ['maven org.slf4j/slf4j-api@2.0.16']],
  ['https://repo1.maven.org/maven2/org/slf4j/slf4j-api/2.0.16/slf4j-api-2.0.16.jar.sha1', ['maven org.slf4j/slf4j-api@2.0.16']],
  ['https://repo1.maven.org/maven2/org/slf4j/slf4j-api/2.0.16/slf4j-api-2.0.16.pom.asc', ['maven org.slf4j/slf4j-api@2.0.16']],
  ['https://repo1.maven.org/maven2/org/slf4j/slf4j-api/2.0.16/slf4j-api-2.0.16.jar.asc.sha256', ['maven org.slf4j/slf4j-api@2.0.16']],
  ['https://repo1.maven.org/maven2/io/netty/netty-transport-native-epoll/4.1.115.Final/netty-transport-native-epoll-4.1.115.Final-linux-x86_64.jar', ['maven io.netty/netty-transport-native-epoll@4.1.115.Final?classifier=linux-x86_64']],
  ['https://repo1.maven.org/maven2/junit/junit/4.13.2/junit-4.13.2-sources.jar.md5', ['maven junit/junit@4.13.2?classifier=sources']],
  ['https://repo1.maven.org/maven2/org/apache/maven/apache-maven/3.9.9/apache-maven-3.9.9-bin.tar.gz', ['maven org.apache.maven/apache-maven@3.9.9?classifier=bin']],
  ['https://repo1.maven.org/maven2/com/google/guava/guava/maven-metadata.xml', ['maven com.google.guava/guava']],
  ['https://repo1.maven.org/maven2/com/google/guava/guava/maven-metadata.xml.sha512', ['maven com.google.guava/guava']],
  ['https://maven.google.com/androidx/core/core/1.13.1/core-1.13.1.aar', ['maven androidx.core/core@1.13.1']],
  ['https://plugins.gradle.org/m2/com/gradle/develocity-gradle-plugin/3.18/develocity-gradle-plugin-3.18.pom', ['maven com.gradle/develocity-gradle-plugin@3.18']],
  // Snapshots: the directory's version and the timestamped build; version-level metadata names the artifact
  ['https://repo1.maven.org/maven2/org/acme/app/1.0-SNAPSHOT/app-1.0-20240105.101010-3.jar', ['maven org.acme/app@1.0-SNAPSHOT', 'maven org.acme/app@1.0-20240105.101010-3']],
  ['https://repo1.maven.org/maven2/org/acme/app/1.0-SNAPSHOT/maven-metadata.xml', ['maven org.acme/app']],
  // Near misses: a file of another artifact or version, an unknown base, no file
  ['https://repo1.maven.org/maven2/org/slf4j/slf4j-api/2.0.16/slf4j-simple-2.0.16.jar', []],
  ['https://repo1.maven.org/maven2/org/slf4j/slf4j-api/2.0.16/slf4j-api-2.0.17.jar', []],
  ['https://repo1.maven.org/maven2/org/slf4j/slf4j-api/2.0.16/', []],
  ['https://repo1.maven.org/org/slf4j/slf4j-api/2.0.16/slf4j-api-2.0.16.jar', []],
  ['https://maven.example.com/releases/org/slf4j/slf4j-api/2.0.16/slf4j-api-2.0.16.jar', []],
];

describe('claimsOfUrl: the documented URL forms', () => {
  for (const [url, expected] of TABLE) {
    it(url, () => {
      expect(claims(url)).toEqual([...expected].sort());
    });
  }

  it('a path longer than 4096 characters names nothing (read for its exact URL only)', () => {
    expect(claims(`https://registry.npmjs.org/${'a'.repeat(5000)}/-/${'a'.repeat(5000)}-1.0.0.tgz`)).toEqual([]);
  });
});

describe('repoKeyOfUrl: every spelling of a remote', () => {
  const same: string[] = [
    'https://github.com/Acme/Tools.git', 'https://github.com/acme/tools', 'git+https://github.com/acme/tools.git',
    'git@github.com:acme/tools.git', 'ssh://git@github.com/acme/tools.git', 'ssh://git@github.com:22/acme/tools',
    'git+ssh://git@github.com/acme/tools.git', 'git://github.com/acme/tools.git', 'https://github.com/acme/tools/tree/main/docs',
    'git+https://github.com/acme/tools.git@v1.2.0', 'https://github.com/acme/tools.git#readme', 'github.com:acme/tools',
  ];
  for (const url of same) it(url, () => expect(repoKeyOfUrl(url)).toBe('github.com/acme/tools'));

  it('keeps every segment on other hosts and refuses what is no remote', () => {
    expect(repoKeyOfUrl('https://gitlab.example.com/group/sub/project.git')).toBe('gitlab.example.com/group/sub/project');
    expect(repoKeyOfUrl('ci@git.internal.example:platform/ci-scripts.git')).toBe('git.internal.example/platform/ci-scripts');
    for (const bad of ['', 'ftp://example.com/x.git', 'https://github.com/acme', 'not a url', '/local/path.git', 'https://[::1]/x.git']) {
      expect(repoKeyOfUrl(bad)).toBeUndefined();
    }
  });
});
