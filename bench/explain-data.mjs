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
    { tcp: { cidrs: ['10.20.0.0/16'], ports: [5432] } },
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

function writeObservations(file, count, observation) {
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

const at = (seq) => `2026-03-02T10:${String((seq / 60000 | 0) % 60).padStart(2, '0')}:${String((seq / 1000 | 0) % 60).padStart(2, '0')}.${String(seq % 1000).padStart(3, '0')}Z`;

/**
 * A job's trace: package downloads, TLS and database connections, DNS, ssh git; a few denials
 * (telemetry) repeated many times. Destinations repeat, as in real jobs.
 */
export function writeMixedTrace(file, count, seed = 42) {
  const rnd = random(seed);
  const pkgs = Array.from({ length: 400 }, (_, i) => `pkg${i}`);
  const hex = () => rnd(0x7fffffff).toString(16).padStart(8, '0') + rnd(0x7fffffff).toString(16).padStart(8, '0') + 'c0ffee00'.repeat(6);
  const hosts = ['pypi.org', 'files.pythonhosted.org', 'pypi.internal.example', 'npm.internal.example', 'registry.npmjs.org', 'registry.example.com', 'git.example.com', 'assets.cdn.example.net', 'api.example.org', 'telemetry.example.io'];
  writeObservations(file, count, (seq) => {
    const r = rnd(100);
    const pkg = pkgs[rnd(pkgs.length)];
    if (r < 60) {
      let method = 'GET', url, ip = '151.101.0.223', denied = false;
      switch (rnd(10)) {
        case 0: url = `https://pypi.org/simple/${pkg}/`; break;
        case 1: url = `https://files.pythonhosted.org/packages/${hex().slice(0, 2)}/${hex().slice(0, 2)}/${pkg}-1.${rnd(20)}.0-py3-none-any.whl`; break;
        case 2: url = `https://pypi.internal.example/simple/${pkg}/`; ip = '10.8.0.12'; break;
        case 3: url = `https://npm.internal.example/${pkg}/-/${pkg}-1.0.${rnd(30)}.tgz`; ip = '10.8.1.20'; break;
        case 4: url = `https://registry.npmjs.org/${pkg}`; ip = '104.16.24.34'; break;
        case 5: url = `https://registry.example.com/v2/library/${pkg}/blobs/sha256:${hex()}`; ip = '192.0.2.10'; break;
        case 6: method = 'PUT'; url = `https://registry.example.com/v2/acme/app/manifests/1.${rnd(100)}`; ip = '192.0.2.10'; break;
        case 7: url = `https://git.example.com/acme/${pkg}.git/info/refs?service=git-upload-pack`; ip = '192.0.2.30'; break;
        case 8: url = `https://assets.cdn.example.net/static/${pkg}/${hex().slice(0, 12)}.js`; ip = '198.51.100.7'; break;
        default:
          if (rnd(5) === 0) { method = 'POST'; url = 'https://telemetry.example.io/v1/collect'; ip = '203.0.113.50'; denied = true; }
          else url = `https://api.example.org/v1/builds/${rnd(100000)}`, ip = '93.184.215.15';
      }
      return `{"protocol":"http","observed_at":"${at(seq)}","sequence":${seq},"method":"${method}","url":"${url}","remote_ip":"${ip}","status_code":${denied ? 403 : 200},"response_body_size":"${denied ? 0 : rnd(1 << 30)}","denied":${denied}${denied ? ',"denied_reason":"not allowed by policy"' : ''}}`;
    }
    if (r < 85) {
      const h = hosts[rnd(hosts.length)];
      const allowed = h !== 'telemetry.example.io';
      return `{"protocol":"tcp","observed_at":"${at(seq)}","sequence":${seq},"allowed":${allowed},"bytes_received":"${rnd(1 << 30)}","bytes_sent":"${rnd(1 << 20)}","duration":"1.2s","remote_port":443,"remote_ip":"198.51.100.${rnd(250)}","hostnames":["${h}"],"alpn":["h2","http/1.1"],"server_name":"${h}"}`;
    }
    if (r < 95) return `{"protocol":"dns","observed_at":"${at(seq)}","sequence":${seq},"resolver_ip":"168.63.129.16","query_name":"db${rnd(20)}.internal.example","query_type":"A","answers":["10.20.${rnd(4)}.${rnd(250)}"]}`;
    if (r < 99) return `{"protocol":"tcp","observed_at":"${at(seq)}","sequence":${seq},"allowed":true,"bytes_received":"${rnd(1 << 30)}","bytes_sent":"4096","remote_port":5432,"remote_ip":"10.20.${rnd(4)}.${rnd(250)}","hostnames":[],"alpn":[]}`;
    return `{"protocol":"ssh_git","observed_at":"${at(seq)}","sequence":${seq},"allowed":true,"bytes_received_upstream":"${rnd(1 << 30)}","bytes_sent_upstream":"2048","forced_shallow":false,"duration":"3.1s","exit_status":0,"host":"git.example.com","port":22,"user":"git","repository_path":"/acme/${pkg}.git","git_service":"git-upload-pack","remote_url":"git@git.example.com:acme/${pkg}.git"}`;
  });
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
  console.log(ensure(join(dir, `mixed-${mixed}.json`), writeMixedTrace, mixed));
  console.log(ensure(join(dir, `distinct-${distinct}.json`), writeDistinctUrlTrace, distinct));
}
