// explain's fix of a plain-http denial: a policy addition when the https form is not allowed yet,
// a fix for the job (kind job) when the policy already allows it (issue 20.4).
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { Policy } from '../policy/types';
import type { Access } from './access';
import { compilePolicy } from './evaluate';
import { explainTrace } from './explain';
import { applyFix, fixFor, isPolicyFix } from './fix';
import { httpsForm } from './suggest';

const get = (url: string): Access => ({ kind: 'http', method: 'GET', url });

describe('fixFor: plain http whose https form the policy allows', () => {
  it('is a fix for the job: the https URL, and a note that says so', () => {
    const fix = fixFor({ default: 'deny', presets: ['pypi'] }, get('http://pypi.org/simple/six/'));
    expect(fix).toEqual({
      kind: 'job', url: 'https://pypi.org/simple/six/',
      note: 'make the job use https://pypi.org/simple/six/; the policy already allows it (the job used plain http: http://pypi.org/simple/six/)',
    });
    expect(isPolicyFix(fix)).toBe(false);
  });

  it('names the https URL without the http default port, and works for a source the policy lists', () => {
    const policy: Policy = { default: 'deny', presets: [], sources: [{ npm: { urls: ['https://npm.mirror.example'] } }] };
    expect(fixFor(policy, get('http://npm.mirror.example:80/left-pad/-/left-pad-1.3.0.tgz'))).toMatchObject({ kind: 'job', url: 'https://npm.mirror.example/left-pad/-/left-pad-1.3.0.tgz' });
  });

  it('is a policy addition (no kind) when the https form is not allowed yet; with a note', () => {
    const fix = fixFor({ default: 'deny', presets: [] }, get('http://pypi.org/simple/six/'));
    expect(fix).toMatchObject({ pointer: '/presets/-', value: 'pypi' });
    expect(fix).not.toHaveProperty('kind');
    expect(isPolicyFix(fix)).toBe(true);
    expect(isPolicyFix(null)).toBe(false);
  });

  // A job fix is for requests to a software source (httpsForm: a recognised ecosystem path), as the https rule is.
  it('an https or non-ecosystem denial never gets a job fix', () => {
    expect(fixFor({ presets: [] }, get('https://pypi.org/simple/six/'))).toEqual({ pointer: '/presets/-', value: 'pypi' });
    expect(fixFor({ presets: [], connections: [{ tls: { serverNamePatterns: ['api.example'], ports: [443] } }] }, get('http://api.example/x'))).toMatchObject({ pointer: '/connections/-' });
  });

  it('explain reports it as the denial\'s fix', () => {
    const trace = { observations: [{ index: 0, sequence: 1, protocol: 'http' as const, method: 'GET', url: 'http://registry.npmjs.org/left-pad/-/left-pad-1.3.0.tgz', denied: true }] };
    const [r] = explainTrace({ default: 'deny', presets: ['npm'] }, trace).results;
    expect(r.model.verdict).toBe('deny');
    expect(r.fix).toMatchObject({ kind: 'job', url: 'https://registry.npmjs.org/left-pad/-/left-pad-1.3.0.tgz' });
  });

  // A fix against re-evaluation: whatever the policy, a denied plain-http request's fix either
  // is the job's (the policy allows its URL as it is) or, applied, allows the access or its https form.
  it('property: a job fix exactly when the policy allows the https form; either way re-evaluation agrees', () => {
    const hosts = ['pypi.org', 'registry.npmjs.org', 'mirror.example', 'proxy.golang.org'];
    const source = fc.constantFrom<NonNullable<Policy['sources']>[number]>(
      { pypi: { urls: ['https://mirror.example'] } }, { pypi: { urls: ['https://mirror.example/simple'] } },
      { npm: { urls: ['https://mirror.example'] } }, { pypi: { urls: ['http://mirror.example'] } },
    );
    const policy = fc.record({
      presets: fc.subarray(['pypi', 'npm', 'golang'] as never[]),
      sources: fc.array(source, { maxLength: 2 }),
    }).map((p): Policy => ({ default: 'deny', ...p }));
    const url = fc.record({ host: fc.constantFrom(...hosts), port: fc.constantFrom('', ':80', ':8080'), path: fc.constantFrom('/', '/simple/six/', '/left-pad/-/left-pad-1.3.0.tgz', '/golang.org/x/text/@v/list') })
      .map(({ host, port, path }) => `http://${host}${port}${path}`);
    const seen = { job: 0, policy: 0 };
    fc.assert(fc.property(policy, url, (p, u) => {
      const a = get(u);
      const compiled = compilePolicy(p);
      if (compiled.evaluate(a).verdict !== 'deny') return;
      const fix = fixFor(p, a);
      const secure = httpsForm(a);
      const httpsAllowed = secure !== undefined && compiled.evaluate(secure).verdict === 'allow';
      if (fix === null) { expect(httpsAllowed).toBe(false); return; }
      seen[fix.kind === 'job' ? 'job' : 'policy']++;
      expect(fix.kind === 'job').toBe(httpsAllowed);
      if (fix.kind === 'job') expect(fix.url).toBe(secure!.url);
      else expect(compilePolicy(applyFix(p, fix)).evaluate(fix.note ? secure! : a).verdict).toBe('allow');
    }), { numRuns: 300 });
    expect(seen.job).toBeGreaterThan(0);
    expect(seen.policy).toBeGreaterThan(0);
  });
});
