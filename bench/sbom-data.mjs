// Generators of the SBOM attribution benchmark's inputs (security issue 28, item 4): written into a
// temporary directory, never committed.
//   node bench/sbom-data.mjs DIR [components]    writes the set into DIR and prints the paths
import { closeSync, mkdirSync, openSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { at, ipv6, ipv6Form, makePolicy, quad, random, writeObservations } from './explain-data.mjs';

/** The component every access of the trace downloads. */
export const LODASH = { name: 'lodash', version: '4.17.21', purl: 'pkg:npm/lodash@4.17.21' };
export const LODASH_TARBALL = 'https://registry.npmjs.org/lodash/-/lodash-4.17.21.tgz';

/**
 * A CycloneDX SBOM of `count` components, `component(i)` each (a JSON text), one a line: the
 * report's 300,000 identical lodash components are 26 MB.
 */
export function writeSbom(file, count, component = () => JSON.stringify({ type: 'library', ...LODASH })) {
  const fd = openSync(file, 'w');
  writeSync(fd, '{"bomFormat":"CycloneDX","specVersion":"1.7","version":1,"metadata":{"component":{"type":"application","name":"app","version":"1.0.0"}},"components":[\n');
  let buf = '';
  for (let i = 0; i < count; i++) {
    buf += component(i) + (i === count - 1 ? '\n' : ',\n');
    if (buf.length > 1 << 20) { writeSync(fd, buf); buf = ''; }
  }
  writeSync(fd, `${buf}]}\n`);
  closeSync(fd);
}

/** A trace of `count` denied GETs of `url` (the lodash tarball by default). */
export function writeDeniedDownloads(file, count, url = LODASH_TARBALL) {
  const observations = Array.from({ length: count }, (_, i) => JSON.stringify({
    protocol: 'http', observed_at: `2026-03-02T10:00:${String(i % 60).padStart(2, '0')}.000Z`, sequence: i + 1, method: 'GET', url,
    remote_ip: '192.0.2.10', status_code: 403, response_body_size: '0', denied: true, denied_reason: 'not allowed by policy',
  }));
  writeFileSync(file, `{"schema_version":"1.0","job":{"provider":"ciprovider","repository":"acme/app","job_id":"28004","run_id":"1","run_attempt":1},"observations":[\n${observations.join(',\n')}\n]}\n`);
}

/** A policy that allows an internal npm registry only: every download of the trace is denied. */
export function writeDenyingPolicy(file) {
  writeFileSync(file, JSON.stringify({ default: 'deny', presets: [], sources: [{ npm: { urls: ['https://npm.internal.example'] } }], connections: [] }, null, 2));
}

// ---- Issue 32: a realistic SBOM and trace -------------------------------------------------------
// A 10,000-component SBOM of mixed ecosystems as real tools write them (npm with scopes and a
// private registry, PyPI, Maven from Central, from a private repository that only the policy names
// and from one the purl names, OCI images by digest and tag, Go, crates, RubyGems, Debian, Alpine,
// git dependencies by commit), and a job's trace of 200,000 observations against it: HTTP, TLS,
// TCP, ssh and DNS in explain's proportions, every destination distinct, one in eight to an IPv6
// address; the HTTP requests a mix of downloads of the SBOM's components (each ecosystem's forms),
// near misses (another version, an unknown name on a known registry, a Maven path under a base
// nobody names, another digest) and requests that name no package.

/** Version of the mixed SBOM and trace: `ensure` writes them again when it changes. */
export const MIXED_SBOM_VERSION = 1;

/** The private Maven repository that only the policy's sources name. */
export const PRIVATE_MAVEN = 'https://maven.internal.example/repository/releases';
const PARTNER_MAVEN = 'https://maven.partner.example/releases';

const hex64 = (n) => {
  let s = '';
  for (let k = 0; s.length < 64; k++) s += ((Math.imul(n + 1, 2654435761) ^ Math.imul(k + 7, 40503)) >>> 0).toString(16).padStart(8, '0');
  return s.slice(0, 64);
};

/**
 * Component `i` of the mixed SBOM: its JSON (as a CycloneDX tool writes it), and `hit(r, n)`, the
 * URL of one of its downloads or metadata requests, `near(r, n)` a request that comes close (another
 * version, another classifier, another digest). `r`: a random source; `n`: a counter making URLs distinct.
 */
export function mixedComponent(i) {
  const b = i % 100;
  const v = `${1 + (i % 7)}.${i % 13}.${i % 5}`;
  const other = `${1 + (i % 7)}.${(i % 13) + 1}.${i % 5}`;
  const ref = (purl) => ({ 'bom-ref': purl, purl });
  const hash = { hashes: [{ alg: 'SHA-256', content: hex64(i) }] };
  if (b < 35) {
    // npm: one in five scoped, one in five from the internal registry.
    const scope = i % 5 === 0 ? `@scope-${i % 37}` : undefined;
    const name = `lib-${i}`;
    const internal = i % 5 === 1;
    const host = internal ? 'https://npm.internal.example' : 'https://registry.npmjs.org';
    const full = scope ? `${scope}/${name}` : name;
    const purl = `pkg:npm/${scope ? `${encodeURIComponent(scope)}/` : ''}${name}@${v}${internal ? '?repository_url=https://npm.internal.example' : ''}`;
    const tarball = (ver) => `${host}/${full}/-/${name}-${ver}.tgz`;
    const c = { type: 'library', ...ref(purl), ...(scope ? { group: scope } : {}), name, version: v, ...hash };
    if (i % 3 === 0) c.externalReferences = [{ type: 'distribution', url: tarball(v) }];
    return {
      json: c,
      hit: (r) => [tarball(v), `${host}/${scope ? `${scope}%2f${name}` : name}`, `${host}/${full}/${v}`][r(3)],
      near: (r) => [tarball(other), `${host}/${full}-utils/-/${name}-utils-${v}.tgz`][r(2)],
    };
  }
  if (b < 55) {
    // PyPI: names as PEP 503 compares them, files as the tools spell them.
    const name = `py-pkg-${i}`;
    const dist = `Py_Pkg_${i}`;
    const purl = `pkg:pypi/${name}@${v}`;
    const wheel = (ver, n) => `https://files.pythonhosted.org/packages/${hex64(n).slice(0, 2)}/${hex64(n).slice(2, 4)}/${hex64(n).slice(4, 60)}/${dist}-${ver}-py3-none-any.whl`;
    return {
      json: { type: 'library', ...ref(purl), name, version: v, ...hash },
      hit: (r, n) => [wheel(v, n), `https://pypi.org/simple/${dist}/`, `https://files.pythonhosted.org/packages/${hex64(n).slice(0, 2)}/${hex64(n).slice(2, 4)}/${hex64(n).slice(4, 60)}/${name}-${v}.tar.gz`, `https://pypi.internal.example/simple/${name}/`][r(4)],
      near: (r, n) => [wheel(other, n), `https://pypi.org/pypi/${name}/${other}/json`][r(2)],
    };
  }
  if (b < 80) {
    // Maven: 60 % from Central, 30 % from the private repository (only the policy names it), 10 % from a partner's the purl names.
    const group = i % 2 === 0 ? `com.acme.g${i % 50}` : `org.example.lib${i % 40}.core`;
    const artifact = `art-${i}`;
    const where = i % 10 < 6 ? 'central' : i % 10 < 9 ? 'private' : 'partner';
    const base = where === 'central' ? 'https://repo1.maven.org/maven2' : where === 'private' ? PRIVATE_MAVEN : PARTNER_MAVEN;
    const purl = `pkg:maven/${group}/${artifact}@${v}?type=jar${where === 'partner' ? `&repository_url=${PARTNER_MAVEN}` : ''}`;
    const dir = (ver) => `${base}/${group.split('.').join('/')}/${artifact}/${ver}`;
    const file = (ver, ext) => `${dir(ver)}/${artifact}-${ver}.${ext}`;
    return {
      json: { type: 'library', ...ref(purl), group, name: artifact, version: v, ...hash },
      hit: (r) => [file(v, 'jar'), file(v, 'pom'), file(v, 'jar.sha1'), file(v, 'pom.asc'), file(v, 'module'), `${base}/${group.split('.').join('/')}/${artifact}/maven-metadata.xml`][r(6)],
      near: (r) => [file(other, 'jar'), `${base}/${group.split('.').join('/')}/${artifact}-api/${v}/${artifact}-api-${v}.jar`, `https://maven.unknown.example/m2/${group.split('.').join('/')}/${artifact}/${v}/${artifact}-${v}.jar`][r(3)],
    };
  }
  if (b < 85) {
    // OCI: images on the company's registry, by digest, with their tag.
    const repo = `${i % 2 ? 'acme' : 'library'}/img-${i}`;
    const digest = `sha256:${hex64(i)}`;
    const purl = `pkg:oci/img-${i}@${encodeURIComponent(digest)}?repository_url=registry.example.com/${repo}&tag=${v}`;
    return {
      json: { type: 'container', ...ref(purl), name: `img-${i}`, version: digest },
      hit: (r) => [`https://registry.example.com/v2/${repo}/manifests/${digest}`, `https://registry.example.com/v2/${repo}/manifests/${v}`, `https://registry.example.com/v2/${repo}/blobs/sha256:${hex64(i + 1_000_000)}`][r(3)],
      near: (r) => [`https://registry.example.com/v2/${repo}/manifests/sha256:${hex64(i + 2_000_000)}`, `https://registry.example.com/v2/${repo}-cache/manifests/${v}`][r(2)],
    };
  }
  if (b < 90) {
    const mod = `github.com/acme-${i % 11}/Mod-${i}`;
    const purl = `pkg:golang/github.com/acme-${i % 11}/Mod-${i}@v${v}`;
    const esc = mod.replace(/[A-Z]/g, (ch) => `!${ch.toLowerCase()}`);
    return {
      json: { type: 'library', ...ref(purl), group: `github.com/acme-${i % 11}`, name: `Mod-${i}`, version: `v${v}` },
      hit: (r) => [`https://proxy.golang.org/${esc}/@v/v${v}.zip`, `https://proxy.golang.org/${esc}/@v/v${v}.mod`, `https://proxy.golang.org/${esc}/@v/list`][r(3)],
      near: () => `https://proxy.golang.org/${esc}/@v/v${other}.info`,
    };
  }
  if (b < 94) {
    const name = `crate_${i}`;
    const purl = `pkg:cargo/${name}@${v}`;
    return {
      json: { type: 'library', ...ref(purl), name, version: v, ...hash },
      hit: (r) => [`https://static.crates.io/crates/${name}/${name}-${v}.crate`, `https://crates.io/api/v1/crates/${name}/${v}/download`][r(2)],
      near: () => `https://static.crates.io/crates/${name}/${name}-${other}.crate`,
    };
  }
  if (b < 97) {
    const name = `gem-${i}`;
    const purl = `pkg:gem/${name}@${v}`;
    return {
      json: { type: 'library', ...ref(purl), name, version: v },
      hit: (r) => [`https://rubygems.org/gems/${name}-${v}.gem`, `https://index.rubygems.org/info/${name}`][r(2)],
      near: () => `https://rubygems.org/gems/${name}-${other}.gem`,
    };
  }
  if (b < 98) {
    const name = `libfoo${i}`;
    const purl = `pkg:deb/debian/${name}@${v}-1?arch=amd64&distro=debian-12`;
    return {
      json: { type: 'library', ...ref(purl), name, version: `${v}-1` },
      hit: () => `http://deb.debian.org/debian/pool/main/l/${name}/${name}_${v}-1_amd64.deb`,
      near: () => `http://deb.debian.org/debian/pool/main/l/${name}/${name}_${other}-1_amd64.deb`,
    };
  }
  if (b < 99) {
    const name = `apkpkg-${i}`;
    const purl = `pkg:apk/alpine/${name}@${v}-r0?arch=x86_64&distro=3.20`;
    return {
      json: { type: 'library', ...ref(purl), name, version: `${v}-r0` },
      hit: () => `https://dl-cdn.alpinelinux.org/alpine/v3.20/main/x86_64/${name}-${v}-r0.apk`,
      near: () => `https://dl-cdn.alpinelinux.org/alpine/v3.20/main/x86_64/${name}-${other}-r0.apk`,
    };
  }
  // git: a dependency locked to a commit (npm's git dependencies, as cyclonedx-npm writes them).
  const commit = hex64(i).slice(0, 40);
  const purl = `pkg:github/acme/repo-${i}@${commit}`;
  return {
    json: { type: 'library', ...ref(purl), name: `repo-${i}`, version: commit, externalReferences: [{ type: 'vcs', url: `git+https://github.com/acme/repo-${i}.git#${commit}` }] },
    hit: (r) => [`https://codeload.github.com/acme/repo-${i}/tar.gz/${commit}`, `https://github.com/acme/repo-${i}.git/info/refs?service=git-upload-pack`][r(2)],
    near: () => `https://codeload.github.com/acme/repo-${i}/tar.gz/${hex64(i + 3_000_000).slice(0, 40)}`,
  };
}

/** The mixed SBOM of `count` components (`mixedComponent`), one a line (10,000: about 3 MB). */
export function writeMixedSbom(file, count) {
  writeSbom(file, count, (i) => JSON.stringify(mixedComponent(i).json));
}

/** Hosts the mixed policy allows HTTP requests to (`writeMixedPolicy`): a request elsewhere is recorded as denied. */
const ALLOWED_HOSTS = new Set([
  'registry.npmjs.org', 'npm.internal.example', 'pypi.org', 'files.pythonhosted.org', 'pypi.internal.example', 'repo1.maven.org',
  'maven.internal.example', 'maven.partner.example', 'registry.example.com', 'proxy.golang.org', 'static.crates.io', 'rubygems.org',
  'index.rubygems.org', 'deb.debian.org', 'dl-cdn.alpinelinux.org', 'github.com', 'codeload.github.com',
]);

/**
 * The policy of the mixed trace: explain's 1,000-rule policy (`makePolicy`) with the presets of the
 * SBOM's public registries, and sources naming its private ones (the Maven repositories among them:
 * no source kind is Maven's, an HTTP registry's URL is its base) and GitHub.
 */
export function writeMixedPolicy(file) {
  const policy = makePolicy(1000);
  policy.presets = ['npm', 'pypi', 'golang', 'cargo', 'rubygems', 'debian', 'alpine'];
  policy.sources.unshift(
    { npm: { urls: [PRIVATE_MAVEN, PARTNER_MAVEN, 'https://repo1.maven.org/maven2'] } },
    { git: { repositoryPatterns: ['acme/**'], https: [{ baseUrl: 'https://github.com' }], ssh: [{ host: 'github.com', port: 22, user: 'git' }] } },
  );
  policy.connections.unshift({ tls: { serverNamePatterns: ['codeload.github.com'], ports: [443] } });
  writeFileSync(file, JSON.stringify(policy, null, 2));
  return file;
}

/**
 * A job's trace against the mixed SBOM of `components` components: explain's mix of protocols
 * (HTTP 45 %, TLS 22 %, TCP 15 %, ssh 8 %, DNS 10 %), every eighth observation to an IPv6 address,
 * every connection to a destination of its own. Of the HTTP requests, 55 % fetch a component (one of
 * its files or its metadata), 20 % come near one (`mixedComponent`'s near misses) and 25 % name no
 * package (APIs, telemetry, unknown hosts). A request to a host the policy does not name is
 * recorded as denied. Returns how many requests of each kind were written.
 */
export function writeSbomTrace(file, count, components, seed = 32) {
  const rnd = random(seed);
  const counts = { hit: 0, near: 0, none: 0 };
  let nHttp = 0, nTls = 0, nTcp = 0, nSsh = 0;
  const http = (seq, v6) => {
    const n = nHttp++;
    const k = rnd(100);
    let url, method = 'GET';
    if (k < 55) { url = mixedComponent(rnd(components)).hit(rnd, n); counts.hit++; }
    else if (k < 75) { url = mixedComponent(rnd(components)).near(rnd, n); counts.near++; }
    else {
      counts.none++;
      switch (rnd(5)) {
        case 0: method = 'POST'; url = `https://t${n % 5000}.telemetry.example.io/v1/collect?id=${n}`; break;
        case 1: url = `https://api.example.org/v1/items/${n}`; break;
        case 2: url = `https://github.com/acme/app/releases/download/v${n}/app-linux-amd64`; break;
        case 3: url = `https://registry.npmjs.org/-/npm/v1/security/advisories/bulk?n=${n}`; break;
        default: url = `https://cdn-${n % 997}.assets.example.net/static/${n}.js`;
      }
    }
    const host = url.slice(url.indexOf('//') + 2, url.indexOf('/', url.indexOf('//') + 2));
    const denied = !ALLOWED_HOSTS.has(host);
    const ip = v6 ? ipv6(0x26064700, n, ipv6Form(rnd)) : quad(151, 64, n, 6);
    return `{"protocol":"http","observed_at":"${at(seq)}","sequence":${seq},"method":"${method}","url":"${url}","remote_ip":"${ip}","status_code":${denied ? 403 : 200},"response_body_size":"${denied ? 0 : rnd(1 << 30)}","denied":${denied}${denied ? ',"denied_reason":"not allowed by policy"' : ''}}`;
  };
  const tls = (seq, v6) => {
    const n = nTls++;
    const denied = rnd(24) === 0;
    const name = denied ? `x${n}.unknown-cdn.example.com` : `a${n}.cdn.example.net`;
    const ip = v6 ? ipv6(0x2a041234, n, ipv6Form(rnd)) : quad(198, 18, n, 5);
    return `{"protocol":"tcp","observed_at":"${at(seq)}","sequence":${seq},"allowed":${!denied},"bytes_received":"${rnd(1 << 30)}","bytes_sent":"${rnd(1 << 20)}","duration":"1.2s","remote_port":443,"remote_ip":"${ip}","hostnames":["${name}"],"alpn":["h2","http/1.1"],"server_name":"${name}"${denied ? ',"denied_reason":"not allowed by policy"' : ''}}`;
  };
  const tcp = (seq, v6) => {
    const n = nTcp++;
    const denied = rnd(24) === 0;
    const ip = v6 ? (denied ? ipv6(0xfd000099, n, 'compressed') : ipv6(0xfd000020, n, 'compressed')) : denied ? quad(172, 16, n, 4) : quad(10, 32, n, 5);
    return `{"protocol":"tcp","observed_at":"${at(seq)}","sequence":${seq},"allowed":${!denied},"bytes_received":"${rnd(1 << 30)}","bytes_sent":"4096","remote_port":5432,"remote_ip":"${ip}","hostnames":[],"alpn":[]${denied ? ',"denied_reason":"not allowed by policy"' : ''}}`;
  };
  // Clones over ssh from GitHub: half of them of the SBOM's git dependencies (by their remote URL).
  const ssh = (seq) => {
    const n = nSsh++;
    const i = rnd(components);
    const repo = rnd(2) === 0 && i % 100 === 99 ? `acme/repo-${i}` : `acme/tool-${n}`;
    return `{"protocol":"ssh_git","observed_at":"${at(seq)}","sequence":${seq},"allowed":true,"bytes_received_upstream":"${rnd(1 << 30)}","bytes_sent_upstream":"2048","forced_shallow":false,"duration":"3.1s","exit_status":0,"host":"github.com","port":22,"user":"git","repository_path":"/${repo}.git","git_service":"git-upload-pack","remote_url":"git@github.com:${repo}.git"}`;
  };
  const dns = (seq) => {
    const aaaa = rnd(8) === 0;
    const name = `a${nTls}.cdn.example.net`;
    return `{"protocol":"dns","observed_at":"${at(seq)}","sequence":${seq},"resolver_ip":"168.63.129.16","query_name":"${name}","query_type":"${aaaa ? 'AAAA' : 'A'}","answers":["${aaaa ? ipv6(0x2a041234, nTls, 'compressed') : quad(198, 18, nTls, 5)}"]}`;
  };
  writeObservations(file, count, (seq) => {
    if (seq % 8 === 0) {
      const r = rnd(82);
      return r < 45 ? http(seq, true) : r < 67 ? tls(seq, true) : tcp(seq, true);
    }
    const r = rnd(100);
    return r < 45 ? http(seq, false) : r < 67 ? tls(seq, false) : r < 82 ? tcp(seq, false) : r < 90 ? ssh(seq) : dns(seq);
  });
  return counts;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const dir = process.argv[2];
  if (!dir) { console.error('usage: node bench/sbom-data.mjs DIR [components]'); process.exit(2); }
  mkdirSync(dir, { recursive: true });
  const count = Number(process.argv[3] ?? 300000);
  const sbom = join(dir, `sbom-lodash-${count}.cdx.json`), trace = join(dir, 'lodash-denied-50.json'), policy = join(dir, 'npm-internal.json');
  writeSbom(sbom, count);
  writeDeniedDownloads(trace, 50);
  writeDenyingPolicy(policy);
  console.log([sbom, trace, policy].join('\n'));
}
