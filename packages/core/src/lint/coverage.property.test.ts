/**
 * The property that ties lint to the evaluation model (issue 8 item 3): removing a rule that lint
 * reports as `duplicate-rule`, `shadowed-rule` or `redundant-with-preset` leaves the verdict of every
 * access unchanged. The naive evaluator (eval/naive.ts) is the judge; policies are generated with
 * later rules derived from earlier ones (copies, narrowed copies, preset URLs), so findings occur.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { Connection, Policy, Source } from '../policy/types';
import type { Access } from '../eval/access';
import { evaluateNaive } from '../eval/naive';
import { lint } from './index';
import { analyseCoverage, analyseCoverageInFull } from './coverage';
import { defaultPresetCatalog } from '../presets/catalog';
import type { LintCode } from '../validate/types';

const COVERAGE_CODES: LintCode[] = ['duplicate-rule', 'shadowed-rule', 'redundant-with-preset'];

// Small alphabets, so rules and accesses collide often.
const hostName = fc.constantFrom('a.example', 'b.example', 'x.a.example', 'pypi.org', 'registry.npmjs.org', 'files.pythonhosted.org');
const hostPattern = fc.constantFrom('a.example', 'x.a.example', '*.example', '*.a.example', 'pypi.org', 'b.example');
const port = fc.constantFrom(22, 80, 443, 8080);
const urlPath = fc.constantFrom('', '/simple', '/simple/', '/simple/x', '/v2', '/org', '/org/repo.git');
const urlText = fc.tuple(fc.constantFrom('http', 'https', 'https'), hostName, fc.option(fc.constantFrom(443, 8080), { nil: undefined }), urlPath)
  .map(([s, h, p, pa]) => `${s}://${h}${p ? `:${p}` : ''}${pa}`);
const cidr = fc.constantFrom('10.0.0.0/8', '10.1.0.0/16', '10.1.2.0/24', '10.1.2.3/32', '10.1.2.3', '192.168.0.0/16', '192.168.1.0/24');
const repoPattern = fc.constantFrom('org/*', 'org/repo', '**', 'other/**', 'org/**', 'ORG/Repo', 'Org/*', '*/repo', 'org/repo.git', 'org.git', 'org', 'org.git/**', 'kit/*', '\u212Ait/x', 'o*/repo');
const opt = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });
const uniq = <T>(arb: fc.Arbitrary<T>, max = 3) => fc.uniqueArray(arb, { minLength: 1, maxLength: max });
/** Patterns of a repository source: mostly some, now and then none (`[]`, which every list covers). */
const repoPatterns = fc.oneof({ weight: 6, arbitrary: uniq(repoPattern) }, { weight: 1, arbitrary: fc.constant([] as string[]) });

const source: fc.Arbitrary<Source> = fc.oneof(
  fc.record({ pypi: fc.record({ urls: uniq(urlText) }) }),
  fc.record({ npm: fc.record({ urls: uniq(urlText) }) }),
  fc.record({ apt: fc.record({ urls: uniq(urlText), purlNamespace: opt(fc.constantFrom('debian', 'acme')) }, { requiredKeys: ['urls'] }) }),
  fc.record({ cargo: fc.record({ indexUrl: urlText, downloadUrl: urlText }) }),
  fc.record({ oci: fc.record({ urls: uniq(urlText), repositoryPatterns: opt(repoPatterns), operations: uniq(fc.constantFrom('pull', 'push', 'delete')) }, { requiredKeys: ['urls', 'operations'] }) }),
  fc.record({ git: fc.record({
    repositoryPatterns: opt(repoPatterns),
    https: opt(uniq(urlText.map((baseUrl) => ({ baseUrl })), 2)),
    ssh: opt(uniq(fc.record({ host: hostPattern, port, user: opt(fc.constantFrom('git', 'bot')) }, { requiredKeys: ['host', 'port'] }), 2)),
  }, { requiredKeys: [] }).filter((g) => g.https !== undefined || g.ssh !== undefined) }),
) as fc.Arbitrary<Source>;

const connection: fc.Arbitrary<Connection> = fc.oneof(
  fc.record({ tls: fc.record({ serverNamePatterns: opt(uniq(hostPattern)), cidrs: opt(uniq(cidr)), ports: uniq(port), alpn: opt(fc.uniqueArray(fc.constantFrom('h2', 'http/1.1'), { maxLength: 2 })) }, { requiredKeys: ['ports'] }) }),
  fc.record({ tcp: fc.record({ hostPatterns: opt(uniq(hostPattern)), cidrs: opt(uniq(cidr)), ports: opt(fc.uniqueArray(port, { maxLength: 2 })) }, { requiredKeys: [] }) }),
  fc.record({ udp: fc.record({ cidrs: uniq(cidr), ports: opt(fc.uniqueArray(port, { maxLength: 2 })) }, { requiredKeys: ['cidrs'] }) }),
) as fc.Arbitrary<Connection>;

/** Sources that presets provide (in whole or in part). */
const presetLike: fc.Arbitrary<Source> = fc.constantFrom<Source>(
  { pypi: { urls: ['https://pypi.org/simple'] } },
  { pypi: { urls: ['https://pypi.org', 'https://files.pythonhosted.org/packages'] } },
  { npm: { urls: ['https://registry.npmjs.org'] } },
  { golang: { urls: ['https://proxy.golang.org/x'] } },
  { cargo: { indexUrl: 'https://index.crates.io', downloadUrl: 'https://static.crates.io/crates' } },
  { apt: { urls: ['https://deb.debian.org/debian'], purlNamespace: 'debian' } },
  { npm: { urls: ['https://registry.npmjs.org', 'https://a.example'] } },
);

const pick = <T>(list: readonly T[], k: number): T => list[k % list.length];
const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v));

/** A narrowed copy of a source: longer paths, fewer URLs or operations, a user on ssh. */
function narrowSource(s: Source, k: number): Source {
  const [kind] = Object.keys(s);
  const body = clone((s as Record<string, any>)[kind]);
  const deepen = (u: string) => (k % 3 === 0 ? u : `${u.replace(/\/$/, '')}${pick(['/simple', '/org/x', '/v2/'], k)}`);
  if (Array.isArray(body.urls)) body.urls = [...new Set(body.urls.slice(0, 1 + (k % body.urls.length)).map(deepen))];
  if (kind === 'cargo') { body.indexUrl = deepen(body.indexUrl); body.downloadUrl = deepen(body.downloadUrl); }
  if (kind === 'oci') {
    body.operations = body.operations.slice(0, 1);
    if (k % 2 === 0) body.repositoryPatterns = ['org/repo'];
  }
  if (kind === 'git') {
    if (body.repositoryPatterns === undefined && k % 2 === 0) body.repositoryPatterns = ['org/repo'];
    if (body.ssh) body.ssh = body.ssh.slice(0, 1).map((t: any) => ({ ...t, user: t.user ?? 'git', host: t.host.startsWith('*.') ? `z.${t.host.slice(2)}` : t.host }));
    if (body.https && k % 4 === 1) body.https = body.https.slice(0, 1);
  }
  // Another HTTP kind with the same URLs permits the same requests.
  const renamed = kind === 'pypi' && k % 5 === 0 ? 'npm' : kind;
  return { [renamed]: body } as Source;
}

/** A narrowed copy of a connection: fewer ports, a stated ALPN, names under wildcards, single addresses. */
function narrowConnection(c: Connection, k: number): Connection {
  const [kind] = Object.keys(c);
  const body = clone((c as Record<string, any>)[kind]);
  if (Array.isArray(body.ports) && body.ports.length > 0) body.ports = body.ports.slice(0, 1);
  else if (kind === 'tcp' && k % 2 === 0) body.ports = [443];
  const names = kind === 'tls' ? 'serverNamePatterns' : 'hostPatterns';
  if (Array.isArray(body[names])) body[names] = [...new Set(body[names].map((p: string) => (p.startsWith('*.') && k % 2 === 1 ? `z.${p.slice(2)}` : p)))];
  if (Array.isArray(body.cidrs) && k % 3 !== 0) body.cidrs = [...new Set(body.cidrs.map((x: string) => `${x.split('/')[0]}/32`))];
  if (kind === 'tls' && k % 4 === 2) body.alpn = ['h2'];
  // A tcp rule without names permits what the same tls rule permits.
  if (kind === 'tls' && body.serverNamePatterns === undefined && k % 5 === 3) {
    delete body.alpn;
    return { tcp: body } as Connection;
  }
  return { [kind]: body } as Connection;
}

/**
 * A near copy that may permit more (a criterion dropped or widened): lint must not call it covered
 * unless it is, so these probe false positives.
 */
function varySource(s: Source, k: number): Source {
  const [kind] = Object.keys(s);
  const body = clone((s as Record<string, any>)[kind]);
  const widen = (u: string) => u.replace(/^(https?:\/\/[^/]+).*$/, '$1') + pick(['', '/simple', '/simplex'], k);
  if (Array.isArray(body.urls)) body.urls = [...new Set(body.urls.map(widen))];
  if (kind === 'oci') {
    if (k % 2 === 0) delete body.repositoryPatterns;
    else body.operations = [...new Set([...body.operations, pick(['push', 'delete'], k)])];
  }
  if (kind === 'git') {
    if (k % 2 === 0) delete body.repositoryPatterns;
    if (body.ssh) body.ssh = body.ssh.map((t: any) => { const { user: _user, ...rest } = t; return k % 3 === 0 ? { ...rest, port: 2222 } : rest; });
    if (body.https && k % 3 === 1) body.https = body.https.map((h: any) => ({ baseUrl: widen(h.baseUrl) }));
  }
  if (kind === 'apt' && k % 2 === 1) delete body.purlNamespace;
  return { [kind]: body } as Source;
}

function varyConnection(c: Connection, k: number): Connection {
  const [kind] = Object.keys(c);
  const body = clone((c as Record<string, any>)[kind]);
  switch (k % 5) {
    case 0: if (body.alpn) delete body.alpn; else if (kind !== 'tls') delete body.ports; else body.ports = [...new Set([...body.ports, 8080])]; break;
    case 1: if (body.cidrs) body.cidrs = body.cidrs.map((x: string) => `${x.split('/')[0].replace(/\.\d+\.\d+$/, '.0.0')}/16`); break;
    case 2: { const names = kind === 'tls' ? 'serverNamePatterns' : 'hostPatterns'; if (body[names]) body[names] = body[names].map((n: string) => (n.startsWith('*.') ? n : `*.${n.split('.').slice(1).join('.') || n}`)); break; }
    case 3: if (body.ports) body.ports = kind === 'udp' ? [] : [...new Set([...body.ports, 22])]; break;
    default: if (kind === 'tls') { body.alpn = ['http/1.1']; if (k % 2) delete body.serverNamePatterns; if (!body.cidrs && !body.serverNamePatterns) body.cidrs = ['10.0.0.0/8']; } break;
  }
  return { [kind]: body } as Connection;
}

/** Reorders the members of an object (a duplicate need not list keys in the same order). */
function reorder<T>(v: T): T {
  const [kind] = Object.keys(v as object);
  const body = (v as Record<string, any>)[kind];
  return { [kind]: Object.fromEntries(Object.entries(body).reverse()) } as T;
}

type Derivation = [number, number, 'copy' | 'narrow' | 'reorder' | 'vary'];
const derivation = fc.tuple(fc.nat(50), fc.nat(50), fc.constantFrom('copy' as const, 'narrow' as const, 'narrow' as const, 'reorder' as const, 'vary' as const, 'vary' as const));

function derive<T>(base: T[], steps: Derivation[], narrow: (x: T, k: number) => T, vary: (x: T, k: number) => T): T[] {
  const out = base.slice();
  for (const [i, k, how] of steps) {
    if (out.length === 0) break;
    const from = pick(out, i);
    const derived = how === 'copy' ? clone(from) : how === 'reorder' ? reorder(from) : how === 'vary' ? vary(from, k) : narrow(from, k);
    out.splice(Math.min(out.length, i % (out.length + 1) + 1), 0, derived);
  }
  return out;
}

const policy: fc.Arbitrary<Policy> = fc.record({
  default: opt(fc.constantFrom('deny' as const, 'allow' as const)),
  presets: opt(fc.uniqueArray(fc.constantFrom('pypi', 'npm', 'forge-a', 'cargo', 'golang', 'debian'), { maxLength: 3 })),
  sources: fc.array(fc.oneof({ arbitrary: source, weight: 3 }, { arbitrary: presetLike, weight: 1 }), { maxLength: 4 }),
  connections: fc.array(connection, { maxLength: 4 }),
  sourceSteps: fc.array(derivation, { maxLength: 4 }),
  connectionSteps: fc.array(derivation, { maxLength: 4 }),
}, { requiredKeys: ['sources', 'connections', 'sourceSteps', 'connectionSteps'] }).map((r) => {
  const p: Policy = {};
  if (r.default) p.default = r.default;
  if (r.presets) p.presets = r.presets;
  p.sources = derive(r.sources, r.sourceSteps, narrowSource, varySource);
  p.connections = derive(r.connections, r.connectionSteps, narrowConnection, varyConnection);
  return p;
});

/** Accesses aimed at a policy's rules (and the presets'): URLs under theirs, names under their patterns, addresses in their CIDRs. */
function accessesFor(p: Policy): fc.Arbitrary<Access[]> {
  const urls = new Set<string>(['https://pypi.org/simple/x', 'https://files.pythonhosted.org/packages/a', 'https://registry.npmjs.org/x', 'https://deb.debian.org/debian/pool']);
  const names = new Set<string>(['a.example', 'x.a.example', 'y.x.a.example', 'b.example', 'pypi.org']);
  const ssh: { host: string; port: number }[] = [];
  for (const s of p.sources ?? []) {
    const body = Object.values(s)[0] as Record<string, any>;
    for (const u of [...(body.urls ?? []), ...(body.https ?? []).map((h: any) => h.baseUrl), body.indexUrl, body.downloadUrl]) if (u) urls.add(u);
    for (const t of body.ssh ?? []) ssh.push(t);
  }
  for (const u of urls) names.add(u.replace(/^https?:\/\//, '').replace(/[:/].*$/, ''));
  const urlList = [...urls];
  const url = fc.tuple(fc.constantFrom(...urlList), fc.constantFrom('', '/', '/simple', '/simple/x', '/v2/org/repo/manifests/1', '/org/repo.git/info/refs', 'x', '?q=1'))
    .map(([u, rest]) => `${u.replace(/\/$/, '')}${rest}`);
  const name = fc.tuple(fc.constantFrom(...names), fc.constantFrom('', '', 'z.', 'y.x.')).map(([n, pre]) => `${pre}${n}`);
  const ip = fc.constantFrom('10.1.2.3', '10.1.2.4', '10.1.3.1', '10.2.0.1', '192.168.1.5', '192.168.2.1', '172.16.0.1');
  const ports = fc.constantFrom(22, 80, 443, 8080);
  const access: fc.Arbitrary<Access> = fc.oneof(
    { arbitrary: fc.record({ kind: fc.constant('http' as const), method: fc.constantFrom('GET', 'PUT', 'DELETE'), url, remoteIp: opt(ip) }, { requiredKeys: ['kind', 'method', 'url'] }), weight: 3 },
    fc.record({ kind: fc.constant('tls' as const), serverName: opt(name), alpn: opt(fc.uniqueArray(fc.constantFrom('h2', 'http/1.1'), { maxLength: 2 })), remoteIp: opt(ip), port: ports, hostnames: opt(fc.array(name, { maxLength: 2 })) }, { requiredKeys: ['kind', 'port'] }),
    fc.record({ kind: fc.constant('tcp' as const), remoteIp: opt(ip), port: ports, hostnames: opt(fc.array(name, { maxLength: 2 })) }, { requiredKeys: ['kind', 'port'] }),
    fc.record({
      kind: fc.constant('ssh' as const),
      host: ssh.length ? fc.oneof(name, fc.constantFrom(...ssh.map((t) => t.host.replace(/^\*\./, 'q.')))) : name,
      port: ssh.length ? fc.oneof(ports, fc.constantFrom(...ssh.map((t) => t.port))) : ports,
      user: opt(fc.constantFrom('git', 'bot')),
      repositoryPath: opt(fc.constantFrom('org/repo.git', 'org/x', 'other/a/b')),
    }, { requiredKeys: ['kind', 'host', 'port'] }),
  );
  return fc.array(access, { minLength: 10, maxLength: 25 });
}

function without(p: Policy, pointer: string): Policy {
  const [, member, index] = pointer.split('/');
  const copy: Policy = { ...p, sources: p.sources?.slice(), connections: p.connections?.slice() };
  (copy[member as 'sources' | 'connections'] as unknown[]).splice(Number(index), 1);
  return copy;
}

const verdict = (p: Policy, a: Access) => {
  const d = evaluateNaive(p, a);
  return { verdict: d.verdict, certain: d.certain };
};

describe('coverage findings never change a verdict (naive evaluator as the judge)', () => {
  it('removing any duplicate, shadowed or redundant rule leaves every verdict unchanged', () => {
    const counts = new Map<string, number>();
    let runs = 0, runsWithFindings = 0;
    fc.assert(
      fc.property(policy.chain((p) => fc.tuple(fc.constant(p), accessesFor(p))), ([p, accesses]) => {
        runs++;
        const findings = lint(p, { enabled: (code) => COVERAGE_CODES.includes(code) });
        if (findings.length > 0) runsWithFindings++;
        const before = accesses.map((a) => verdict(p, a));
        for (const f of findings) {
          counts.set(f.code, (counts.get(f.code) ?? 0) + 1);
          const smaller = without(p, f.pointer);
          accesses.forEach((a, i) => expect(verdict(smaller, a), `${f.code} ${f.pointer} ${JSON.stringify(a)}`).toEqual(before[i]));
        }
      }),
      { numRuns: 1500 },
    );
    // Not vacuous: a good share of runs have findings, and every code is exercised many times.
    expect(runsWithFindings / runs).toBeGreaterThan(0.3);
    for (const code of COVERAGE_CODES) expect(counts.get(code) ?? 0, code).toBeGreaterThan(100);
  });
});

describe('the key filter of coverage (coverage-keys.ts) sets aside only rules with no finding to give or take', () => {
  it('gives the findings of the full analysis (every rule read, indexed and looked up)', () => {
    let withFindings = 0;
    fc.assert(
      fc.property(policy, (p) => {
        const fast = analyseCoverage({ value: p, catalog: defaultPresetCatalog });
        const full = analyseCoverageInFull({ value: p, catalog: defaultPresetCatalog });
        expect(fast).toEqual(full);
        if (full.duplicates.length + full.redundant.length + full.shadowed.length > 0) withFindings++;
      }),
      { numRuns: 2000 },
    );
    expect(withFindings).toBeGreaterThan(500);
  });

  it('with a rule of too many keys to list (every rule then takes part), and names of many labels', () => {
    const many = Array.from({ length: 300 }, (_, i) => `h${i}.a.example`);
    const deep = `${'x.'.repeat(200)}a.example`;
    fc.assert(fc.property(policy, fc.nat(3), (p, where) => {
      const big = { tls: { serverNamePatterns: where % 2 === 0 ? many : [deep, '*.a.example'], ports: [443] } };
      const connections = [...(p.connections ?? [])];
      connections.splice(Math.min(where, connections.length), 0, big as never);
      const value = { ...p, connections: [...connections, { tls: { serverNamePatterns: ['h7.a.example', deep], ports: [443] } }] };
      expect(analyseCoverage({ value, catalog: defaultPresetCatalog })).toEqual(analyseCoverageInFull({ value, catalog: defaultPresetCatalog }));
    }), { numRuns: 300 });
  });

  it('on host names beyond ASCII and in mixed case, which readers lower-case in different ways', () => {
    const name = fc.constantFrom('A.example', 'a.example', '\u212Aa.example', 'ka.example', 'KA.EXAMPLE', '*.EXAMPLE', 'É.example', 'é.example');
    const rule = fc.oneof(
      name.map((n) => ({ tls: { serverNamePatterns: [n], ports: [443] } })),
      name.map((n) => ({ tcp: { hostPatterns: [n] } })),
    );
    const src = fc.oneof(
      name.map((n) => ({ pypi: { urls: [`https://${n.replace('*.', 'w.')}/x`] } })),
      name.map((n) => ({ git: { ssh: [{ host: n, port: 22 }] } })),
    );
    fc.assert(fc.property(fc.array(src, { maxLength: 4 }), fc.array(rule, { maxLength: 4 }), (sources, connections) => {
      const value = { presets: [], sources, connections };
      expect(analyseCoverage({ value, catalog: defaultPresetCatalog })).toEqual(analyseCoverageInFull({ value, catalog: defaultPresetCatalog }));
    }), { numRuns: 1000 });
  });
});
