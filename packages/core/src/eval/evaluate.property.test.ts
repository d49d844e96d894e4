import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { Policy } from '../policy/types';
import type { Access } from './access';
import { CompiledPolicy } from './evaluate';
import type { EvalOptions } from './rules';
import { evaluateNaive } from './naive';
import { nearMiss, widening } from './near-miss';
import { applyFix } from './fix';
import { addressOf, policyRules } from './rules';
import { parseAddress } from '../formats/ip';
import { loadPresetCatalog } from '../presets/catalog';

// The generated policies include some the schema refuses (a tcp rule with no target, ...): the
// model stays total on them. `compilePolicy` refuses those (InputError); the constructor does not.
const compileUnchecked = (p: Policy, options?: EvalOptions) => new CompiledPolicy(p, options);

// Small alphabets so random rules and random accesses collide often.
const label = fc.constantFrom('a', 'b', 'example', 'com', 'io', 'x-1');
const host = fc.array(label, { minLength: 1, maxLength: 4 }).map((ls) => ls.join('.'));
const hostPattern = fc.tuple(fc.boolean(), host).map(([w, h]) => (w ? `*.${h}` : h));
const hostCase = fc.tuple(host, fc.boolean(), fc.boolean()).map(([h, up, dot]) => `${up ? h.toUpperCase() : h}${dot ? '.' : ''}`);
const port = fc.constantFrom(22, 80, 443, 8080);
const scheme = fc.constantFrom('http', 'https');
const segment = fc.constantFrom('simple', 'v2', 'org', 'repo', 'repo.git', 'info', 'refs', 'manifests', 'blobs', 'tags', 'x', '');
const path = fc.array(segment, { maxLength: 5 }).map((s) => '/' + s.join('/'));
const urlText = fc.tuple(scheme, host, fc.option(port, { nil: undefined }), path).map(([s, h, p, pa]) => `${s}://${h}${p ? `:${p}` : ''}${pa === '/' ? '' : pa}`);
const ipv4 = fc.tuple(fc.constantFrom(10, 192), fc.constantFrom(0, 168), fc.constantFrom(0, 1), fc.integer({ min: 0, max: 3 })).map((b) => b.join('.'));
const cidr = fc.tuple(ipv4, fc.constantFrom(8, 16, 24, 30, 32)).map(([ip, n]) => `${ip}/${n}`);
// First segments literal (indexed by it), with a wildcard (tried for every path) or `**`.
const repoPattern = fc.constantFrom('org/*', 'org/repo', '**', 'other/**', 'org/**/x', 'Org/Repo', 'o*/repo', '*/x', 'org', 'repo');
const opt = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });
const uniq = <T>(arb: fc.Arbitrary<T>) => fc.uniqueArray(arb, { minLength: 1, maxLength: 3 });

const source = fc.oneof(
  fc.record({ pypi: fc.record({ urls: uniq(urlText) }) }),
  fc.record({ npm: fc.record({ urls: uniq(urlText) }) }),
  fc.record({ cargo: fc.record({ indexUrl: urlText, downloadUrl: urlText }) }),
  fc.record({ oci: fc.record({ urls: uniq(urlText), repositoryPatterns: opt(uniq(repoPattern)), operations: uniq(fc.constantFrom('pull', 'push', 'delete')) }, { requiredKeys: ['urls', 'operations'] }) }),
  fc.record({ git: fc.record({
    repositoryPatterns: opt(uniq(repoPattern)),
    https: opt(uniq(urlText.map((baseUrl) => ({ baseUrl })))),
    ssh: opt(uniq(fc.record({ host: hostPattern, port, user: opt(fc.constantFrom('git', 'bot')) }, { requiredKeys: ['host', 'port'] }))),
  }, { requiredKeys: [] }) }),
);
const connection = fc.oneof(
  fc.record({ tls: fc.record({ serverNamePatterns: opt(uniq(hostPattern)), cidrs: opt(uniq(cidr)), ports: uniq(port), alpn: opt(fc.uniqueArray(fc.constantFrom('h2', 'http/1.1'), { maxLength: 2 })) }, { requiredKeys: ['ports'] }) }),
  fc.record({ tcp: fc.record({ hostPatterns: opt(uniq(hostPattern)), cidrs: opt(uniq(cidr)), ports: opt(fc.uniqueArray(port, { maxLength: 2 })) }, { requiredKeys: [] }) }),
);
const policy: fc.Arbitrary<Policy> = fc.record({
  default: opt(fc.constantFrom('deny' as const, 'allow' as const)),
  presets: opt(fc.uniqueArray(fc.constantFrom('pypi', 'npm', 'forge-a', 'cargo', 'golang') as fc.Arbitrary<any>, { maxLength: 3 })),
  sources: opt(fc.array(source, { maxLength: 5 })),
  connections: opt(fc.array(connection, { maxLength: 5 })),
}, { requiredKeys: [] }) as fc.Arbitrary<Policy>;

const access: fc.Arbitrary<Access> = fc.oneof(
  fc.record({ kind: fc.constant('http' as const), method: fc.constantFrom('GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS'), url: fc.oneof(urlText, fc.constantFrom('https://pypi.org/simple/x/', 'https://files.pythonhosted.org/packages/a.whl', 'https://registry.npmjs.org/x')), remoteIp: opt(ipv4) }, { requiredKeys: ['kind', 'method', 'url'] }),
  fc.record({ kind: fc.constant('tls' as const), serverName: opt(fc.oneof(hostCase, fc.constant('pypi.org'))), alpn: opt(fc.uniqueArray(fc.constantFrom('h2', 'http/1.1'), { maxLength: 2 })), remoteIp: opt(ipv4), port, hostnames: opt(fc.array(hostCase, { maxLength: 2 })) }, { requiredKeys: ['kind', 'port'] }),
  fc.record({ kind: fc.constant('tcp' as const), remoteIp: opt(ipv4), port, hostnames: opt(fc.array(hostCase, { maxLength: 2 })) }, { requiredKeys: ['kind', 'port'] }),
  fc.record({ kind: fc.constant('ssh' as const), host: hostCase, port, user: opt(fc.constantFrom('git', 'bot')), repositoryPath: opt(fc.constantFrom('org/repo.git', '/org/repo', 'other/a/b', 'org/sub/x', 'ORG/x', 'repo', '/', '')) }, { requiredKeys: ['kind', 'host', 'port'] }),
);

/** Accesses aimed at a policy's own rules (URLs extended by a path, names under its patterns, addresses in its CIDRs). */
function aimedAt(p: Policy): fc.Arbitrary<Access> {
  const urls: string[] = [];
  const names: string[] = [];
  const transports: { host: string; port: number; user?: string }[] = [];
  const ips: string[] = [];
  for (const s of p.sources ?? []) {
    const body = Object.values(s)[0] as Record<string, any>;
    urls.push(...(body.urls ?? []), ...(body.https ?? []).map((h: any) => h.baseUrl));
    if (body.indexUrl) urls.push(body.indexUrl, body.downloadUrl);
    names.push(...(body.ssh ?? []).map((t: any) => t.host));
    transports.push(...(body.ssh ?? []));
  }
  for (const c of p.connections ?? []) {
    const body = Object.values(c)[0] as Record<string, any>;
    names.push(...(body.serverNamePatterns ?? []), ...(body.hostPatterns ?? []));
    for (const x of body.cidrs ?? []) {
      // The address and its neighbours across each octet boundary (one bit flipped).
      const octets = x.split('/')[0].split('.').map(Number);
      ips.push(octets.join('.'));
      for (let i = 0; i < 4; i++) for (const bit of [1, 2, 128]) ips.push(octets.map((o: number, j: number) => (j === i ? o ^ bit : o)).join('.'));
    }
  }
  for (const u of urls) names.push(u.replace(/^https?:\/\//, '').replace(/[:/].*$/, ''));
  if (urls.length === 0 && names.length === 0 && ips.length === 0) return access;
  const name = names.length ? fc.tuple(fc.constantFrom(...names), fc.constantFrom('', 'sub.', 'a.b.')).map(([n, pre]) => (n.startsWith('*.') ? `${pre || 'x.'}${n.slice(2)}` : `${pre}${n}`)) : host;
  const ip = ips.length ? fc.oneof(fc.constantFrom(...ips), ipv4) : ipv4;
  const url = urls.length ? fc.oneof(
    fc.tuple(fc.constantFrom(...urls), path, fc.constantFrom('', '?q=1')).map(([u, pa, q]) => `${u.replace(/\/$/, '')}${pa}${q}`),
    fc.constantFrom(...urls, ...urls.map((u) => u.replace(/\/$/, '')), ...urls.map((u) => `${u}x`)),
  ) : urlText;
  const ports = fc.constantFrom(22, 80, 443, 8080);
  return fc.oneof(
    fc.record({ kind: fc.constant('http' as const), method: fc.constantFrom('GET', 'HEAD', 'PUT', 'DELETE'), url: fc.oneof(url, url.map((u) => u.replace(/(https?:\/\/[^/]+)(.*)/, '$1/v2/org/repo/manifests/x')), url.map((u) => u.replace(/(https?:\/\/[^/]+)(.*)/, '$1/v2/ORG/x/blobs/y')), url.map((u) => u.replace(/(https?:\/\/[^/]+)(.*)/, '$1/v2/')), url.map((u) => `${u}/org/repo.git/info/refs`), url.map((u) => `${u}/Repo.git/info/refs`), url.map((u) => `${u}/other/org/x.git/git-upload-pack`)), remoteIp: opt(ip) }, { requiredKeys: ['kind', 'method', 'url'] }),
    fc.record({ kind: fc.constant('tls' as const), serverName: opt(name), alpn: opt(fc.uniqueArray(fc.constantFrom('h2', 'http/1.1'), { maxLength: 2 })), remoteIp: opt(ip), port: ports, hostnames: opt(fc.array(name, { maxLength: 2 })) }, { requiredKeys: ['kind', 'port'] }),
    fc.record({ kind: fc.constant('tcp' as const), remoteIp: opt(ip), port: ports, hostnames: opt(fc.array(name, { maxLength: 2 })) }, { requiredKeys: ['kind', 'port'] }),
    ...(transports.length ? [fc.tuple(fc.constantFrom(...transports), fc.constantFrom('', 'x.', 'a.b.'), fc.constantFrom('org/repo.git', '/org/repo', 'other/a/b', 'ORG/Repo.git', '//Org/x', 'Repo.git', 'repo', undefined), fc.constantFrom('git', 'bot', undefined))
      .map(([t, pre, repositoryPath, user]) => ({ kind: 'ssh' as const, host: t.host.startsWith('*.') ? `${pre || 'y.'}${t.host.slice(2)}` : `${pre}${t.host}`, port: t.port, user: user ?? t.user, repositoryPath }))] : []),
    fc.record({ kind: fc.constant('ssh' as const), host: name, port: ports, user: opt(fc.constantFrom('git', 'bot')), repositoryPath: opt(fc.constantFrom('org/repo.git', '/org/repo', 'other/a/b', 'org/sub/x')) }, { requiredKeys: ['kind', 'host', 'port'] }),
  );
}

describe('indexed evaluator agrees with the naive reference evaluator', () => {
  it('same verdict, rule and certainty on random policies and accesses', () => {
    const seen = new Map<string, number>();
    fc.assert(
      fc.property(policy.chain((p) => fc.tuple(fc.constant(p), fc.array(fc.oneof(access, aimedAt(p), aimedAt(p)), { minLength: 1, maxLength: 12 }))), ([p, accesses]) => {
        const compiled = compileUnchecked(p);
        for (const a of accesses) {
          const d = compiled.evaluate(a);
          expect(d).toEqual(evaluateNaive(p, a));
          const kind = `${a.kind} ${d.verdict} ${d.rule.startsWith('/sources') ? 'source' : d.rule.startsWith('/connections') ? 'connection' : d.rule.startsWith('preset:') ? 'preset' : 'default'}`;
          seen.set(kind, (seen.get(kind) ?? 0) + 1);
        }
      }),
      { numRuns: 3000 },
    );
    // The generators reach every way of deciding, so agreement is not vacuous.
    for (const kind of ['http allow source', 'http allow connection', 'http allow preset', 'http deny default', 'tls allow source', 'tls allow connection', 'tcp allow connection', 'tcp allow source', 'ssh allow source', 'ssh deny default']) {
      expect(seen.get(kind) ?? 0, kind).toBeGreaterThan(10);
    }
  });

  it('same verdict, rule and certainty with many repository sources on one URL and ssh host (the repository index)', () => {
    // Five to twelve oci and git sources on the same URL and ssh host: more than the index tries one by one.
    const teams = fc.tuple(urlText, hostPattern, port, fc.array(fc.tuple(fc.boolean(), opt(uniq(repoPattern)), uniq(fc.constantFrom('pull', 'push', 'delete'))), { minLength: 5, maxLength: 12 }), opt(fc.array(source, { maxLength: 3 })))
      .map(([u, h, pt, list, others]) => ({
        default: 'deny',
        presets: [],
        sources: [
          ...list.map(([oci, patterns, operations]) => (oci
            ? { oci: { urls: [u], ...(patterns ? { repositoryPatterns: patterns } : {}), operations } }
            : { git: { ...(patterns ? { repositoryPatterns: patterns } : {}), https: [{ baseUrl: u }], ssh: [{ host: h, port: pt }] } })),
          ...(others ?? []),
        ],
      }) as Policy);
    let allowedBySource = 0;
    fc.assert(
      fc.property(teams.chain((p) => fc.tuple(fc.constant(p), fc.array(fc.oneof(access, aimedAt(p), aimedAt(p), aimedAt(p)), { minLength: 1, maxLength: 12 }))), ([p, accesses]) => {
        const compiled = compileUnchecked(p);
        for (const a of accesses) {
          const d = compiled.evaluate(a);
          expect(d).toEqual(evaluateNaive(p, a));
          if (d.verdict === 'allow' && d.rule.startsWith('/sources')) allowedBySource++;
        }
      }),
      { numRuns: 2000 },
    );
    expect(allowedBySource).toBeGreaterThan(200);
  });

  it('near misses from the related-rule index equal those from trying every rule', () => {
    fc.assert(
      fc.property(policy.chain((p) => fc.tuple(fc.constant(p), fc.array(fc.oneof(access, aimedAt(p)), { minLength: 1, maxLength: 8 }))), ([p, accesses]) => {
        const rules = policyRules(p);
        for (const a of accesses) expect(nearMiss(rules, a)).toEqual(nearMiss(rules, a, { exhaustive: true }));
      }),
      { numRuns: 1500 },
    );
  });

  it('a near miss\'s widening, applied to the policy, allows the access (issue 8 item 5)', () => {
    let widened = 0;
    fc.assert(
      fc.property(policy.chain((p) => fc.tuple(fc.constant(p), fc.array(fc.oneof(access, aimedAt(p)), { minLength: 1, maxLength: 8 }))), ([p, accesses]) => {
        const rules = policyRules(p);
        for (const a of accesses) {
          if (compileUnchecked(p).evaluate(a).verdict !== 'deny') continue;
          const near = nearMiss(rules, a);
          const widen = near && widening(p, near, a);
          if (!widen) continue;
          widened++;
          expect(widen.pointer.startsWith(`${near!.rule}/`)).toBe(true);
          expect(evaluateNaive(applyFix(p, widen), a).verdict).toBe('allow');
        }
      }),
      { numRuns: 1500 },
    );
    expect(widened).toBeGreaterThan(20);
  });

  it('agrees with a user catalog that fills in an opaque preset', () => {
    const catalog = loadPresetCatalog({ presets: [{ name: 'forge-a', description: 'x', known: { sources: [{ git: { https: [{ baseUrl: 'https://example.com' }] } }], connections: [{ tcp: { hostPatterns: ['*.a'] } }] } }] });
    fc.assert(
      fc.property(policy, access, (p, a) => {
        expect(compileUnchecked(p, { catalog }).evaluate(a)).toEqual(evaluateNaive(p, a, { catalog }));
      }),
      { numRuns: 1000 },
    );
  });
});

describe('addressOf: dotted quads parsed by hand, every other text by ipaddr.js', () => {
  it('equals parseAddress (ipaddr.js) on quads, near-quads and IPv6', () => {
    const part = fc.oneof(fc.integer({ min: 0, max: 255 }).map(String), fc.constantFrom('', '0', '00', '01', '256', '999', '1000', '-1', '+1', ' 1', '1 ', 'a', '0x1', '1e2', '٣'));
    const quadLike = fc.array(part, { minLength: 1, maxLength: 6 }).chain((parts) => fc.constantFrom('.', '..', ':').map((sep) => parts.join(sep)));
    fc.assert(fc.property(fc.oneof(quadLike, fc.ipV4(), fc.ipV4Extended(), fc.ipV6(), fc.string({ maxLength: 16 })), (text) => {
      expect(addressOf(text)).toEqual(parseAddress(text));
    }), { numRuns: 5000 });
  });
});
