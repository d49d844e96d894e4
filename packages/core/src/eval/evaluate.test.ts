import { describe, expect, it } from 'vitest';
import type { Policy } from '../policy/types';
import type { Access } from './access';
import { evaluate } from './evaluate';
import { evaluateNaive } from './naive';
import { fixFor } from './fix';
import { nearMiss } from './near-miss';
import { policyRules } from './rules';
import { loadPresetCatalog } from '../presets/catalog';

const get = (url: string, method = 'GET', remoteIp?: string): Access => ({ kind: 'http', method, url, remoteIp });
const tls = (serverName: string | undefined, port = 443, extra: Partial<Extract<Access, { kind: 'tls' }>> = {}): Access => ({ kind: 'tls', serverName, port, ...extra });
const tcp = (port: number, hostnames: string[] = [], remoteIp?: string): Access => ({ kind: 'tcp', port, hostnames, remoteIp });
/** Both evaluators, which must agree, as `verdict rule`. */
function decide(policy: Policy, a: Access): string {
  const d = evaluate(policy, a);
  expect(evaluateNaive(policy, a)).toEqual(d);
  return `${d.verdict} ${d.rule}${d.certain ? '' : ' uncertain'}`;
}

describe('D4: URL prefixes', () => {
  const p: Policy = { presets: [], sources: [{ pypi: { urls: ['https://idx.example/simple'] } }, { npm: { urls: ['https://npm.example:8443/'] } }] };
  it('covers at a / boundary, ignores query and fragment, compares host case-insensitively', () => {
    expect(decide(p, get('https://idx.example/simple'))).toBe('allow /sources/0');
    expect(decide(p, get('https://IDX.example./simple/x?y=1#z'))).toBe('allow /sources/0');
    expect(decide(p, get('https://idx.example/simplex'))).toBe('deny default');
    expect(decide(p, get('https://idx.example/'))).toBe('deny default');
  });
  it('ports must be equal, 80/443 implied by the scheme', () => {
    expect(decide(p, get('https://idx.example:443/simple/a'))).toBe('allow /sources/0');
    expect(decide(p, get('http://idx.example/simple/a'))).toBe('deny default');
    expect(decide(p, get('https://idx.example:8443/simple/a'))).toBe('deny default');
    expect(decide(p, get('https://npm.example:8443/x'))).toBe('allow /sources/1');
    expect(decide(p, get('https://npm.example/x'))).toBe('deny default');
  });
});

describe('D4: order and presets', () => {
  it('reports the first permitting rule: sources, then connections, then presets in catalog order', () => {
    const p: Policy = { presets: ['pypi'], sources: [{ pypi: { urls: ['https://pypi.org/simple'] } }], connections: [{ tls: { serverNamePatterns: ['*.org', 'pypi.org'], ports: [443] } }] };
    expect(decide(p, get('https://pypi.org/simple/x/'))).toBe('allow /sources/0');
    expect(decide(p, get('https://pypi.org/pypi/x/json'))).toBe('allow /connections/0');
    expect(decide({ presets: ['pypi', 'npm'] }, get('https://pypi.org/pypi/x/json'))).toBe('allow preset:pypi');
  });
  it('presets absent = all (opaque ones make denials uncertain); [] = none', () => {
    expect(decide({}, get('https://registry.npmjs.org/x'))).toBe('allow preset:npm');
    expect(decide({}, get('https://evil.example/'))).toBe('deny default uncertain');
    expect(decide({ presets: [] }, get('https://registry.npmjs.org/x'))).toBe('deny default');
    expect(decide({ presets: ['forge-a'] }, get('https://evil.example/'))).toBe('deny default uncertain');
  });
  it('default allow still names the permitting rule, else default', () => {
    const p: Policy = { default: 'allow', presets: ['npm'] };
    expect(decide(p, get('https://registry.npmjs.org/x'))).toBe('allow preset:npm');
    expect(decide(p, get('https://evil.example/'))).toBe('allow default');
  });
  it('a user catalog fills in an opaque preset', () => {
    const catalog = loadPresetCatalog({ presets: [{ name: 'forge-a', description: 'forge', known: { connections: [{ tls: { serverNamePatterns: ['*.forge-a.example'], ports: [443] } }] } }] });
    expect(evaluate({ presets: ['forge-a'] }, tls('api.forge-a.example'), { catalog })).toEqual({ verdict: 'allow', rule: 'preset:forge-a', certain: true });
    expect(evaluate({ presets: ['forge-a'] }, tls('evil.example'), { catalog })).toEqual({ verdict: 'deny', rule: 'default', certain: true });
  });
});

describe('D4: oci and git sources', () => {
  const p: Policy = { presets: [], sources: [
    { oci: { urls: ['https://reg.example'], repositoryPatterns: ['library/*'], operations: ['pull'] } },
    { oci: { urls: ['https://reg.example'], operations: ['push'] } },
    { git: { repositoryPatterns: ['acme/*'], https: [{ baseUrl: 'https://git.example/scm' }], ssh: [{ host: '*.git.example', port: 22, user: 'git' }] } },
  ] };
  it('registry API paths, repository patterns and operations', () => {
    expect(decide(p, get('https://reg.example/v2/'))).toBe('allow /sources/0');
    expect(decide(p, get('https://reg.example/v2/library/alpine/manifests/3', 'HEAD'))).toBe('allow /sources/0');
    expect(decide(p, get('https://reg.example/v2/acme/app/manifests/3'))).toBe('deny default');
    expect(decide(p, get('https://reg.example/v2/acme/app/blobs/uploads/', 'POST'))).toBe('allow /sources/1');
    expect(decide(p, get('https://reg.example/v2/library/alpine/manifests/3', 'DELETE'))).toBe('deny default');
    expect(decide(p, get('https://reg.example/v2/library/alpine/other/3'))).toBe('deny default');
    expect(decide(p, get('https://reg.example/token?scope=x'))).toBe('deny default');
    expect(decide(p, get('https://reg.example/v2/library/alpine/manifests/3', 'OPTIONS'))).toBe('deny default');
  });
  it('git smart HTTP below the base URL, and SSH transports', () => {
    expect(decide(p, get('https://git.example/scm/acme/app.git/info/refs?service=git-upload-pack'))).toBe('allow /sources/2');
    expect(decide(p, get('https://git.example/scm/acme/app/git-upload-pack', 'POST'))).toBe('allow /sources/2');
    expect(decide(p, get('https://git.example/scm/other/app.git/info/refs'))).toBe('deny default');
    const ssh = (host: string, repositoryPath?: string, user = 'git', port = 22): Access => ({ kind: 'ssh', host, port, user, repositoryPath });
    expect(decide(p, ssh('eu.git.example', '/acme/app.git'))).toBe('allow /sources/2');
    expect(decide(p, ssh('git.example', '/acme/app.git'))).toBe('deny default');
    expect(decide(p, ssh('eu.git.example', '/acme/app.git', 'root'))).toBe('deny default');
    expect(decide(p, ssh('eu.git.example', '/acme/app.git', 'git', 2222))).toBe('deny default');
    expect(decide(p, ssh('eu.git.example', undefined))).toBe('deny default');
  });
  it('sources imply TLS connections to their URL hosts and ports', () => {
    expect(decide(p, tls('reg.example'))).toBe('allow /sources/0');
    expect(decide(p, tls('git.example', 443, { alpn: ['h2'] }))).toBe('allow /sources/2');
    expect(decide(p, tls('reg.example', 8443))).toBe('deny default');
    expect(decide(p, tcp(443, ['reg.example']))).toBe('allow /sources/0');
  });
});

describe('D4: connections', () => {
  const p: Policy = { presets: [], connections: [
    { tls: { serverNamePatterns: ['*.example.com'], ports: [443], alpn: ['h2'] } },
    { tls: { cidrs: ['192.0.2.0/24'], ports: [443] } },
    { tcp: { hostPatterns: ['db.internal'], ports: [] } },
    { tcp: { cidrs: ['10.0.0.0/8'], ports: [5432] } },
  ] };
  it('tls rules: every stated criterion, alpn shares a value; never plain TCP', () => {
    expect(decide(p, tls('a.example.com', 443, { alpn: ['http/1.1', 'h2'] }))).toBe('allow /connections/0');
    expect(decide(p, tls('a.example.com', 443, { alpn: ['http/1.1'] }))).toBe('deny default');
    expect(decide(p, tls('example.com', 443, { alpn: ['h2'] }))).toBe('deny default');
    expect(decide(p, tls(undefined, 443, { alpn: ['h2'], remoteIp: '192.0.2.9' }))).toBe('allow /connections/1');
    expect(decide(p, tcp(443, [], '192.0.2.9'))).toBe('deny default');
  });
  it('a tls rule stating alpn never matches a request; one without alpn does for https only', () => {
    expect(decide(p, get('https://a.example.com/'))).toBe('deny default');
    expect(decide(p, get('https://198.51.100.1/', 'GET', '192.0.2.9'))).toBe('allow /connections/1');
    expect(decide(p, get('http://198.51.100.1:443/', 'GET', '192.0.2.9'))).toBe('deny default');
  });
  it('tcp rules: names from the trace, empty ports = any port, cidrs and ports', () => {
    expect(decide(p, tcp(1234, ['DB.internal.']))).toBe('allow /connections/2');
    expect(decide(p, tls('x.test', 9, { hostnames: ['db.internal'] }))).toBe('allow /connections/2');
    expect(decide(p, tcp(5432, [], '10.1.2.3'))).toBe('allow /connections/3');
    expect(decide(p, tcp(5433, [], '10.1.2.3'))).toBe('deny default');
    expect(decide(p, get('http://db.internal:8080/x'))).toBe('allow /connections/2');
    expect(decide(p, get('http://10.1.2.3:5432/', 'GET', '10.1.2.3'))).toBe('allow /connections/3');
  });
});

describe('near misses and fixes', () => {
  it('fix enables a preset when the policy lists presets, adds the array when it is missing', () => {
    expect(fixFor({ presets: ['npm'] }, get('https://pypi.org/simple/x/'))).toEqual({ pointer: '/presets/-', value: 'pypi' });
    expect(fixFor({ presets: [] }, get('https://registry.example/v2/acme/app/manifests/1', 'PUT'))).toEqual({ pointer: '/sources', value: [{ oci: { urls: ['https://registry.example'], repositoryPatterns: ['acme/app'], operations: ['push'] } }] });
    expect(fixFor({ presets: [], sources: [] }, get('https://example.net/a.tar.gz'))).toEqual({ pointer: '/connections', value: [{ tls: { serverNamePatterns: ['example.net'], ports: [443] } }] });
    expect(fixFor({ presets: [] }, tcp(22, [], '203.0.113.5'))).toEqual({ pointer: '/connections', value: [{ tcp: { cidrs: ['203.0.113.5'], ports: [22] } }] });
  });
  it('names the nearest rule: subdomain vs exact, plain TCP vs tls rule, alpn', () => {
    const rules = policyRules({ presets: [], connections: [{ tls: { serverNamePatterns: ['example.com'], ports: [443], alpn: ['h2'] } }, { tls: { serverNamePatterns: ['db.example.com'], ports: [443] } }] });
    expect(nearMiss(rules, tls('api.example.com', 443, { alpn: ['h2'] }))?.reasons.map((r) => r.code)).toEqual(['subdomain-vs-exact']);
    expect(nearMiss(rules, tls('example.com', 443, { alpn: ['http/1.1'] }))?.reasons.map((r) => r.code)).toEqual(['alpn']);
    expect(nearMiss(rules, tcp(443, ['db.example.com']))).toMatchObject({ rule: '/connections/1', reasons: [{ code: 'tls-rule-plain-tcp' }] });
    expect(nearMiss(rules, tls('unrelated.test'))).toBeUndefined();
  });
});
