import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { parseTrace } from '../trace/reader';
import { validate } from '../validate/index';
import { explainTrace } from './explain';
import { suggestPolicy } from './suggest';

const dir = new URL('../../../../fixtures/traces/', import.meta.url).pathname;
const names = ['python-build', 'npm-build', 'container-build', 'ssh-clone', 'denials'];
const trace = (name: string) => parseTrace(readFileSync(`${dir}${name}/trace.json`, 'utf8'));

describe('suggest', () => {
  it.each(names)('%s: the suggestion passes check and explaining the trace with it denies nothing', (name) => {
    const t = trace(name);
    const policy = suggestPolicy([t.observations]);
    const diagnostics = validate(JSON.stringify(policy, null, 2), { fileName: 'suggested.json' }).diagnostics;
    expect(diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    const report = explainTrace(policy, t);
    expect(report.summary.denied).toBe(0);
    expect(report.results.filter((r) => r.model.verdict === 'allow').every((r) => r.model.rule !== 'default')).toBe(true);
  });

  it('unions several runs and prefers presets, then ecosystem sources, then narrow connections', () => {
    const policy = suggestPolicy(names.map((n) => trace(n).observations));
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
    for (const n of names) expect(explainTrace(policy, trace(n)).summary.denied).toBe(0);
  });
});
