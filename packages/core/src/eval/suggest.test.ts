import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { parseTrace } from '../trace/reader';
import { validate } from '../validate/index';
import { explainTrace } from './explain';
import { Suggester, httpsForm, suggestPolicy } from './suggest';
import { fixFor } from './fix';

const dir = new URL('../../../../fixtures/traces/', import.meta.url).pathname;
const names = ['python-build', 'npm-build', 'container-build', 'ssh-clone', 'denials'];
const trace = (name: string) => parseTrace(readFileSync(`${dir}${name}/trace.json`, 'utf8'));

describe('suggest', () => {
  it.each(names)('%s: the suggestion passes check and explaining the trace with it denies nothing', (name) => {
    const t = trace(name);
    const policy = suggestPolicy([t.observations], { includeDenied: true });
    const diagnostics = validate(JSON.stringify(policy, null, 2), { fileName: 'suggested.json' }).diagnostics;
    expect(diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    const report = explainTrace(policy, t);
    // Plain-http requests to software sources are allowed in their https form only.
    expect(report.results.filter((r) => r.model.verdict === 'deny' && !(r.access && httpsForm(r.access))).map((r) => r.destination)).toEqual([]);
    expect(report.results.filter((r) => r.model.verdict === 'allow').every((r) => r.model.rule !== 'default')).toBe(true);
  });

  it('unions several runs and prefers presets, then ecosystem sources, then narrow connections', () => {
    const policy = suggestPolicy(names.map((n) => trace(n).observations), { includeDenied: true });
    expect(policy.default).toBe('deny');
    expect(policy.presets).toEqual(['debian', 'npm', 'pypi']);
    expect(policy.sources).toContainEqual({ oci: { urls: ['https://registry.example.com'], repositoryPatterns: ['library/python'], operations: ['pull'] } });
    expect(policy.sources).toContainEqual({ oci: { urls: ['https://registry.example.com'], repositoryPatterns: ['acme/app'], operations: ['pull', 'push'] } });
    expect(policy.sources).toContainEqual({ git: { repositoryPatterns: ['acme/app', 'acme/infra/modules'], ssh: [{ host: 'github.com', port: 22, user: 'git' }] } });
    expect(policy.sources).toContainEqual({ git: { repositoryPatterns: ['acme/docs'], https: [{ baseUrl: 'https://github.com' }] } });
    expect(policy.sources).toContainEqual({ npm: { urls: ['https://npm.pkg.example.com'] } });
    expect(policy.sources).toContainEqual({ pypi: { urls: ['https://pypi.internal.example'] } });
    expect(policy.connections).toContainEqual({ tcp: { hostPatterns: ['build.cache.example.net'], ports: [8080] } });
    expect(policy.connections).toContainEqual({ tls: { serverNamePatterns: ['telemetry.example.io'], ports: [443] } });
    for (const n of names) expect(explainTrace(policy, trace(n)).results.filter((r) => r.model.verdict === 'deny' && !(r.access && httpsForm(r.access))).map((r) => r.destination)).toEqual([]);
  });

  it('leaves accesses recorded as denied out by default and reports them', () => {
    const t = trace('denials');
    const s = new Suggester();
    s.beginTrace();
    for (const o of t.observations) s.add(o);
    const policy = s.finish();
    const left = s.leftOut();
    const deniedCount = t.observations.filter((o) => (o as { denied?: boolean }).denied === true || (o as { allowed?: boolean }).allowed === false).length;
    expect(deniedCount).toBeGreaterThan(0);
    expect(left.filter((l) => l.reason === 'denied').reduce((n, l) => n + l.count, 0)).toBe(deniedCount);
    const report = explainTrace(policy, t);
    for (const r of report.results) if (r.recorded.verdict === 'allow') expect(r.model.verdict, r.destination).toBe('allow');
    // Endpoints the job was denied and that no allowed access implies stay denied.
    const verdictOf = (prefix: string) => report.results.filter((r) => r.destination.startsWith(prefix)).map((r) => r.model.verdict);
    for (const d of ['GET https://registry.yarnpkg.com/', 'tls api.example.org:8443', 'GET https://ghcr.example.com/v2/other/tool', 'ssh git@git.example.com']) {
      expect(verdictOf(d).length, d).toBeGreaterThan(0);
      expect(verdictOf(d).every((v) => v === 'deny'), d).toBe(true);
    }
  });

  it('a plain-http request to a software source gets the https rule, never an http:// one (insecure-url)', () => {
    const o = { protocol: 'http', observedAt: '2026-01-01T00:00:00Z', sequence: 1, method: 'GET', url: 'http://pypi.example/simple/requests/', denied: false } as never;
    const s = new Suggester();
    s.beginTrace();
    s.add(o);
    const policy = s.finish();
    expect(policy.sources).toEqual([{ pypi: { urls: ['https://pypi.example'] } }]);
    expect(policy.connections).toBeUndefined();
    expect(s.leftOut()).toEqual([{ access: { kind: 'http', method: 'GET', url: 'http://pypi.example/simple/requests/' }, reason: 'insecure-http', count: 1 }]);
    const text = JSON.stringify(policy, null, 2);
    expect(validate(text, { fileName: 's.json' }).diagnostics).toEqual([]);
    const fix = fixFor({ default: 'deny', presets: [] }, { kind: 'http', method: 'GET', url: 'http://pypi.org/simple/requests/' });
    expect(fix).toMatchObject({ pointer: '/presets/-', value: 'pypi' });
    expect(fix?.note).toContain('https://pypi.org/simple/requests/');
    const fix2 = fixFor({ default: 'deny', presets: [] }, { kind: 'http', method: 'GET', url: 'http://mirror.example:8080/simple/x/' });
    expect(fix2).toMatchObject({ pointer: '/sources', value: [{ pypi: { urls: ['https://mirror.example:8080'] } }] });
    expect(httpsForm({ kind: 'http', method: 'GET', url: 'http://api.example/x' })).toBeUndefined();
    expect(httpsForm({ kind: 'http', method: 'GET', url: 'http://r.example:80/v2/' })?.url).toBe('https://r.example/v2/');
  });
  it('an access to a host name no rule can match is left out, never a rule check flags (D3 limits)', () => {
    const long = `${'b'.repeat(64)}.example`;
    const at = (sequence: number, extra: object) => ({ observedAt: '2026-01-01T00:00:00Z', sequence, ...extra }) as never;
    const s = new Suggester();
    s.beginTrace();
    s.add(at(1, { protocol: 'http', method: 'GET', url: `https://${long}/x`, denied: false }));
    s.add(at(2, { protocol: 'tcp', remoteIp: '192.0.2.7', remotePort: 443, serverName: `${'c'.repeat(250)}.example`, allowed: true }));
    s.add(at(3, { protocol: 'ssh_git', host: 'bad-.example', port: 22, user: 'git', command: 'git-upload-pack', repositoryPath: 'a/b', allowed: true }));
    // A plain TCP connection whose first resolved name is unmatchable takes the next one.
    s.add(at(4, { protocol: 'tcp', remoteIp: '192.0.2.8', remotePort: 5432, hostnames: [long, 'db.example'], allowed: true }));
    s.add(at(5, { protocol: 'http', method: 'GET', url: 'https://ok.example/y', denied: false }));
    const policy = s.finish();
    expect(s.leftOut().map((l) => [l.access.kind, l.reason])).toEqual([['http', 'unmatchable-host'], ['tls', 'unmatchable-host'], ['ssh', 'unmatchable-host']]);
    expect(policy.connections).toEqual([{ tcp: { hostPatterns: ['db.example'], ports: [5432] } }, { tls: { serverNamePatterns: ['ok.example'], ports: [443] } }]);
    expect(validate(JSON.stringify(policy, null, 2), { fileName: 's.json' }).diagnostics).toEqual([]);
  });
});
