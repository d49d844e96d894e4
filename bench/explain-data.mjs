// Generators of the explain benchmark's inputs (issue 8): written into a temporary directory,
// never committed. Deterministic (seeded), so two runs measure the same files.
//   node bench/explain-data.mjs DIR        writes the default set into DIR and prints the paths
import { existsSync, mkdirSync, openSync, writeSync, closeSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** mulberry32: small, fast, and without the periodic low bits of a power-of-two LCG. */
export function random(seed = 42) {
  return (k) => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return (((t ^ (t >>> 14)) >>> 0) % k);
  };
}

/** The rules the mixed trace exercises, then `n - 7` filler rules of the same shapes that it never matches. */
export function makePolicy(n) {
  const sources = [
    { pypi: { urls: ['https://pypi.internal.example/simple'] } },
    { npm: { urls: ['https://npm.internal.example'] } },
    { oci: { urls: ['https://registry.example.com'], repositoryPatterns: ['library/*', 'acme/*'], operations: ['pull', 'push'] } },
    { git: { repositoryPatterns: ['acme/**'], https: [{ baseUrl: 'https://git.example.com' }], ssh: [{ host: 'git.example.com', port: 22, user: 'git' }] } },
  ];
  const connections = [
    { tls: { serverNamePatterns: ['*.cdn.example.net'], ports: [443] } },
    { tcp: { cidrs: ['10.32.0.0/11', 'fd00:20::/32'], ports: [5432] } },
    { tls: { serverNamePatterns: ['api.example.org'], ports: [443] } },
  ];
  for (let i = 0; i < n - 7; i++) {
    switch (i % 5) {
      case 0: sources.push({ pypi: { urls: [`https://pypi-${i}.example/simple`] } }); break;
      case 1: sources.push({ oci: { urls: [`https://registry-${i}.example`], repositoryPatterns: [`team-${i}/*`], operations: ['pull'] } }); break;
      case 2: sources.push({ git: { repositoryPatterns: [`org-${i}/**`], https: [{ baseUrl: `https://git-${i}.example` }], ssh: [{ host: `git-${i}.example`, port: 22, user: 'git' }] } }); break;
      case 3: connections.push({ tls: { serverNamePatterns: [`*.svc-${i}.example.net`], ports: [443] } }); break;
      default: connections.push({ tcp: { cidrs: [`10.${100 + ((i >> 8) & 127)}.${i & 255}.0/24`], ports: [5432] } });
    }
  }
  return { default: 'deny', presets: ['pypi', 'npm'], sources, connections };
}

export function writeObservations(file, count, observation) {
  const fd = openSync(file, 'w');
  writeSync(fd, '{"schema_version":"1.0","job":{"provider":"ciprovider","repository":"acme/app","job_id":"18446744073709551615","run_id":"9007199254740993","run_attempt":1},"observations":[\n');
  let buf = '';
  for (let seq = 1; seq <= count; seq++) {
    buf += observation(seq) + (seq === count ? '\n' : ',\n');
    if (buf.length > 1 << 20) { writeSync(fd, buf); buf = ''; }
  }
  writeSync(fd, `${buf}]}\n`);
  closeSync(fd);
}

export const at = (seq) => `2026-03-02T10:${String((seq / 60000 | 0) % 60).padStart(2, '0')}:${String((seq / 1000 | 0) % 60).padStart(2, '0')}.${String(seq % 1000).padStart(3, '0')}Z`;

/** Version of writeMixedTrace's output: `ensure` writes the file again when it changes. */
export const MIXED_VERSION = 4;

/** `n` as an IPv4 address inside `a.b.0.0/(16 - bits)`: distinct for each n below 2^(16 + bits). */
export const quad = (first, second, n, bits) => `${first}.${second + ((n >>> 16) & ((1 << bits) - 1))}.${(n >>> 8) & 255}.${n & 255}`;
const h16 = (n) => (n & 0xffff).toString(16);
const h16full = (n) => (n & 0xffff).toString(16).padStart(4, '0');

/**
 * `n` as an IPv6 address in one of the forms real traces carry: compressed (RFC 5952, most of
 * them), every group written out with its zeros, or IPv4-mapped (`::ffff:a.b.c.d`, as a dual-stack
 * proxy logs an IPv4 peer). Distinct for each n below 2^32 within a form; `net` is a 32-bit network.
 */
export function ipv6(net, n, form) {
  const a = net >>> 16, b = net & 0xffff;
  if (form === 'full') return [a, b, 0, n >>> 16, 0, 0, 0x100, n].map(h16full).join(':');
  if (form === 'mapped') return `::ffff:${quad(100, 64, n, 6)}`;
  return `${h16(a)}:${h16(b)}:${h16(n >>> 16)}::${h16(n)}`;
}
export const ipv6Form = (rnd) => { const r = rnd(20); return r < 14 ? 'compressed' : r < 17 ? 'full' : 'mapped'; };

/**
 * A job's trace as real traces are (issue 20): every destination distinct (each request its own
 * URL, each connection its own address or server name, each ssh command its own repository), HTTP
 * to several registries, TLS by server name, plain TCP, git over ssh and DNS in proportion
 * (about 45 %, 22 %, 15 %, 8 % and 10 %), and one observation in eight (every eighth) with an
 * IPv6 remote address (compressed, full or IPv4-mapped); DNS answers name the connections that
 * follow, as a job's resolver does before it connects. One access in `deniedOneIn` is denied
 * (24: about 4 %, the share of the trace this one replaced), each to a destination of its own,
 * recorded as denied. Against `makePolicy`'s first rules, which the trace's verdicts agree with.
 */
export function writeMixedTrace(file, count, seed = 42, deniedOneIn = 24) {
  const rnd = random(seed);
  const pkgs = Array.from({ length: 400 }, (_, i) => `pkg${i}`);
  const hex = () => rnd(0x7fffffff).toString(16).padStart(8, '0') + rnd(0x7fffffff).toString(16).padStart(8, '0') + 'c0ffee00'.repeat(6);
  // One counter per kind of destination, so that each kind's addresses are distinct.
  let nHttp = 0, nTls = 0, nTcp = 0, nSsh = 0, nDenied = 0;
  const http = (seq, v6) => {
    const n = nHttp++, pkg = pkgs[rnd(pkgs.length)];
    let method = 'GET', url, denied = false;
    // A registry's address: IPv4 spread over a /10, or IPv6 in one of its forms.
    const ip = v6 ? ipv6(0x26064700, n, ipv6Form(rnd)) : quad(151, 64, n, 6);
    switch (rnd(deniedOneIn) === 0 ? -1 : rnd(11)) {
      case 0: url = `https://pypi.org/simple/${pkg}-${n}/`; break;
      case 1: url = `https://files.pythonhosted.org/packages/${hex().slice(0, 2)}/${hex().slice(0, 2)}/${pkg}-1.${n}.0-py3-none-any.whl`; break;
      case 2: url = `https://pypi.internal.example/simple/${pkg}-${n}/`; break;
      case 3: url = `https://npm.internal.example/${pkg}/-/${pkg}-1.0.${n}.tgz`; break;
      case 4: url = `https://registry.npmjs.org/${pkg}-${n}`; break;
      case 5: url = `https://registry.example.com/v2/library/${pkg}/blobs/sha256:${hex()}`; break;
      case 6: method = 'PUT'; url = `https://registry.example.com/v2/acme/app/manifests/1.${n}`; break;
      case 7: url = `https://git.example.com/acme/${pkg}-${n}.git/info/refs?service=git-upload-pack`; break;
      case 8: url = `https://registry.example.com/v2/acme/${pkg}/manifests/sha256:${hex()}`; break;
      case 9: url = `https://npm.internal.example/@acme%2f${pkg}-${n}`; break;
      case 10: url = `https://pypi.internal.example/simple/${pkg}/${pkg}-${n}.tar.gz#sha256=${hex()}`; break;
      default:
        denied = true; nDenied++;
        switch (n % 3) {
          case 0: method = 'POST'; url = `https://t${n}.telemetry.example.io/v1/collect`; break;
          case 1: url = `https://pypi.internal.example/private/${pkg}-${n}/`; break;
          default: url = `https://registry.example.com/v2/other-${n}/${pkg}/manifests/latest`;
        }
    }
    return `{"protocol":"http","observed_at":"${at(seq)}","sequence":${seq},"method":"${method}","url":"${url}","remote_ip":"${ip}","status_code":${denied ? 403 : 200},"response_body_size":"${denied ? 0 : rnd(1 << 30)}","denied":${denied}${denied ? ',"denied_reason":"not allowed by policy"' : ''}}`;
  };
  const tls = (seq, v6) => {
    const n = nTls++;
    const denied = rnd(deniedOneIn) === 0;
    const name = denied ? `x${n}.unknown-cdn.example.com` : `a${n}.cdn.example.net`;
    const ip = v6 ? ipv6(0x2a041234, n, ipv6Form(rnd)) : quad(198, 18, n, 5);
    if (denied) nDenied++;
    return `{"protocol":"tcp","observed_at":"${at(seq)}","sequence":${seq},"allowed":${!denied},"bytes_received":"${rnd(1 << 30)}","bytes_sent":"${rnd(1 << 20)}","duration":"1.2s","remote_port":443,"remote_ip":"${ip}","hostnames":["${name}"],"alpn":["h2","http/1.1"],"server_name":"${name}"${denied ? ',"denied_reason":"not allowed by policy"' : ''}}`;
  };
  const tcp = (seq, v6) => {
    const n = nTcp++;
    const denied = rnd(deniedOneIn) === 0;
    // Allowed: the database rule's 10.32.0.0/11 or fd00:20::/32; denied: outside both.
    const ip = v6 ? (denied ? ipv6(0xfd000099, n, 'compressed') : ipv6(0xfd000020, n, rnd(4) === 0 ? 'full' : 'compressed')) : denied ? quad(172, 16, n, 4) : quad(10, 32, n, 5);
    if (denied) nDenied++;
    return `{"protocol":"tcp","observed_at":"${at(seq)}","sequence":${seq},"allowed":${!denied},"bytes_received":"${rnd(1 << 30)}","bytes_sent":"4096","remote_port":5432,"remote_ip":"${ip}","hostnames":[],"alpn":[]${denied ? ',"denied_reason":"not allowed by policy"' : ''}}`;
  };
  const ssh = (seq) => {
    const n = nSsh++, pkg = pkgs[rnd(pkgs.length)];
    const denied = rnd(deniedOneIn) === 0;
    const path = denied ? `/other-${n}/${pkg}.git` : `/acme/${pkg}-${n}.git`;
    if (denied) nDenied++;
    return `{"protocol":"ssh_git","observed_at":"${at(seq)}","sequence":${seq},"allowed":${!denied},"bytes_received_upstream":"${rnd(1 << 30)}","bytes_sent_upstream":"2048","forced_shallow":false,"duration":"3.1s","exit_status":${denied ? 128 : 0},"host":"git.example.com","port":22,"user":"git","repository_path":"${path}","git_service":"git-upload-pack","remote_url":"git@git.example.com:${path.slice(1)}"${denied ? ',"denied_reason":"not allowed by policy"' : ''}}`;
  };
  // As a job's resolver answers before it connects: each answer names the address of a connection
  // still to come (the next TLS connection by its server name, or the next database connection),
  // so that connections find names learned from DNS, as in real traces. One in eight is an AAAA
  // answer (in the compressed form the next IPv6 TLS connection would use). Never an answer for an
  // address already connected to (that would make explain read the trace twice): every kind's
  // addresses stay distinct up to the 5,000,000 observations of NETPOLICY_BENCH_FULL.
  const dns = (seq) => {
    const aaaa = rnd(8) === 0;
    if (rnd(2) === 0) {
      const name = `a${nTls}.cdn.example.net`;
      return `{"protocol":"dns","observed_at":"${at(seq)}","sequence":${seq},"resolver_ip":"168.63.129.16","query_name":"${name}","query_type":"${aaaa ? 'AAAA' : 'A'}","answers":["${aaaa ? ipv6(0x2a041234, nTls, 'compressed') : quad(198, 18, nTls, 5)}"]}`;
    }
    return `{"protocol":"dns","observed_at":"${at(seq)}","sequence":${seq},"resolver_ip":"168.63.129.16","query_name":"db${nTcp}.internal.example","query_type":"${aaaa ? 'AAAA' : 'A'}","answers":["${aaaa ? ipv6(0xfd000020, nTcp, 'compressed') : quad(10, 32, nTcp, 5)}"]}`;
  };
  writeObservations(file, count, (seq) => {
    if (seq % 8 === 0) {
      // Every eighth observation: a connection or request to an IPv6 address.
      const r = rnd(82);
      return r < 45 ? http(seq, true) : r < 67 ? tls(seq, true) : tcp(seq, true);
    }
    const r = rnd(100);
    return r < 45 ? http(seq, false) : r < 67 ? tls(seq, false) : r < 82 ? tcp(seq, false) : r < 90 ? ssh(seq) : dns(seq);
  });
  return { denied: nDenied };
}

/**
 * Every observation an HTTP request to its own URL (about 240 bytes each), half of them denied:
 * the allowed ones under a source of the policy, the denied ones spread over many hosts (some
 * near a rule: another port, another scheme, a path outside the prefix) so that every cache
 * keyed by URL, host or destination sees a new key almost every time.
 */
export function writeDistinctUrlTrace(file, count, seed = 7) {
  const rnd = random(seed);
  const hex = () => rnd(0x7fffffff).toString(16).padStart(8, '0');
  writeObservations(file, count, (seq) => {
    const denied = (seq & 1) === 0;
    let url, ip;
    if (!denied) {
      url = `https://pypi.internal.example/simple/pkg-${seq}/${hex()}${hex()}/`;
      ip = '10.8.0.12';
    } else {
      const host = `h${rnd(1 << 20)}.svc-${rnd(4000)}.example.org`;
      switch (seq & 6) {
        case 0: url = `https://${host}/v1/items/${seq}/${hex()}${hex()}`; break;
        case 2: url = `https://pypi.internal.example:8443/simple/pkg-${seq}/${hex()}/`; break;
        case 4: url = `http://${host}/packages/${hex()}/pkg_${seq}-1.0-py3-none-any.whl`; break;
        default: url = `https://pypi.internal.example/private/${seq}/${hex()}${hex()}`;
      }
      ip = `10.${64 + (seq % 64)}.${rnd(256)}.${rnd(256)}`;
    }
    return `{"protocol":"http","observed_at":"${at(seq)}","sequence":${seq},"method":"GET","url":"${url}","remote_ip":"${ip}","status_code":${denied ? 403 : 200},"response_body_size":"${denied ? 0 : rnd(1 << 30)}","denied":${denied}${denied ? ',"denied_reason":"not allowed by policy"' : ''}}`;
  });
}

/**
 * A company's policy of `n` rules that names its own registry and Git server many times: a pypi
 * and an npm source per team under paths of one index, an oci source per team on one registry
 * (`team-N/*`), a git source per team on one Git server over https and ssh (`org-N/**`), TLS by
 * wildcard per service, TCP to IPv4 and IPv6 prefixes and to name patterns. Sources that share a
 * host are what a rule scan pays for on every request to it (row 7 of explain.bench.mjs).
 */
export function makeTeamPolicy(n) {
  const sources = [
    { pypi: { urls: ['https://pypi.internal.example/simple'] } },
    { npm: { urls: ['https://npm.internal.example'] } },
  ];
  const connections = [];
  for (let i = 0; i < n - 2; i++) {
    switch (i % 7) {
      case 0: sources.push({ pypi: { urls: [`https://pypi.internal.example/team-${i}/simple`] } }); break;
      case 1: sources.push({ npm: { urls: [`https://npm.internal.example/scope-${i}`] } }); break;
      case 2: sources.push({ oci: { urls: ['https://registry.example.com'], repositoryPatterns: [`team-${i}/*`, `team-${i}/**/cache`], operations: ['pull'] } }); break;
      case 3: sources.push({ git: { repositoryPatterns: [`org-${i}/**`], https: [{ baseUrl: 'https://git.example.com' }], ssh: [{ host: 'git.example.com', port: 22, user: 'git' }] } }); break;
      case 4: connections.push({ tls: { serverNamePatterns: [`*.svc-${i}.example.net`, `api-${i}.example.org`], ports: [443, 8443] } }); break;
      case 5: connections.push({ tcp: { cidrs: [`2001:db8:${i.toString(16)}::/48`, `10.${100 + (i & 127)}.${i & 255}.0/24`], ports: [5432, 6379] } }); break;
      default: connections.push({ tcp: { hostPatterns: [`db-${i}.internal.example`, `*.cache-${i}.internal.example`], ports: [6379] } });
    }
  }
  return { default: 'deny', presets: ['pypi', 'npm', 'debian'], sources, connections };
}

/**
 * A compact trace (about 235 bytes an observation) aimed at `makeTeamPolicy(1000)`'s rules: each
 * access to a destination of its own, allowed by one of the teams' rules or denied beside one
 * (1 in 25), IPv6 one in eight connections, DNS 8 %.
 */
export function writeAimedTrace(file, count, seed = 5) {
  const rnd = random(seed);
  // A team's rule of the given kind (`makeTeamPolicy`: rule i has kind i % 7).
  const team = (kind) => { const i = rnd(994); return i - (i % 7) + kind; };
  writeObservations(file, count, (s) => {
    const k = rnd(100), denied = rnd(25) === 0, v6 = s % 8 === 0;
    if (k < 20) { const t = team(0); return JSON.stringify({ protocol: 'http', observed_at: at(s), sequence: s, method: 'GET', url: `https://pypi.internal.example/team-${denied ? t + 1 : t}/simple/pkg-${s}/`, remote_ip: quad(10, 8, s, 4), status_code: 200, response_body_size: String(rnd(1 << 20)), denied }); }
    if (k < 40) { const t = team(2); return JSON.stringify({ protocol: 'http', observed_at: at(s), sequence: s, method: 'GET', url: `https://registry.example.com/v2/team-${denied ? t + 1 : t}/img-${s}/manifests/sha256:${s.toString(16).padStart(64, '0')}`, remote_ip: v6 ? ipv6(0x20010db8, s, 'compressed') : quad(10, 64, s, 4), status_code: 200, response_body_size: String(rnd(1 << 20)), denied }); }
    if (k < 50) { const t = team(3); return JSON.stringify({ protocol: 'ssh_git', observed_at: at(s), sequence: s, allowed: !denied, host: 'git.example.com', port: 22, user: 'git', repository_path: `/org-${denied ? t + 1 : t}/repo-${s}.git`, git_service: 'git-upload-pack' }); }
    if (k < 70) { const t = team(4); const name = denied ? `x${s}.svc-${t}.example.com` : `h${s}.svc-${t}.example.net`; return JSON.stringify({ protocol: 'tcp', observed_at: at(s), sequence: s, allowed: !denied, remote_port: 443, remote_ip: v6 ? ipv6(0x20010db8, s, 'full') : quad(198, 18, s, 5), hostnames: [name], alpn: ['h2'], server_name: name }); }
    if (k < 85) {
      const t = team(5), net = denied ? t + 1 : t;
      return JSON.stringify({ protocol: 'tcp', observed_at: at(s), sequence: s, allowed: !denied, remote_port: 5432, remote_ip: v6 ? `2001:db8:${net.toString(16)}::${(s & 0xffff).toString(16)}` : `10.${100 + (t & 127)}.${net & 255}.${s & 255}`, hostnames: [] });
    }
    if (k < 92) { const t = team(6); return JSON.stringify({ protocol: 'tcp', observed_at: at(s), sequence: s, allowed: !denied, remote_port: 6379, remote_ip: quad(10, 200, s, 4), hostnames: [denied ? `db-${t}.other.example` : `n${s}.cache-${t}.internal.example`] }); }
    return JSON.stringify({ protocol: 'dns', observed_at: at(s), sequence: s, resolver_ip: '127.0.0.53', query_name: `q${s}.example.org`, query_type: 'A', answers: [quad(203, 0, s, 4)] });
  });
}

/** Writes `file` once (a marker beside it records the generator and size). */
export function ensure(file, write, count, version = 1) {
  const marker = `${file}.v${version}-${count}`;
  if (existsSync(file) && existsSync(marker)) return file;
  write(file, count);
  writeFileSync(marker, '');
  return file;
}

export function writePolicy(file, rules) {
  writeFileSync(file, JSON.stringify(makePolicy(rules), null, 2));
  return file;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const dir = process.argv[2];
  if (!dir) { console.error('usage: node bench/explain-data.mjs DIR [mixedCount] [distinctCount]'); process.exit(2); }
  mkdirSync(dir, { recursive: true });
  const mixed = Number(process.argv[3] ?? 200000), distinct = Number(process.argv[4] ?? 300000);
  console.log(writePolicy(join(dir, 'policy-1000.json'), 1000));
  console.log(ensure(join(dir, `mixed-${mixed}.json`), writeMixedTrace, mixed, MIXED_VERSION));
  console.log(ensure(join(dir, `distinct-${distinct}.json`), writeDistinctUrlTrace, distinct));
}
