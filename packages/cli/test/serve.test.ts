/** `netpolicy serve` as a process, and the sample data set against our schemas. */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, beforeAll } from 'vitest';
import { checkArtifactRecordShape, checkTraceShape } from '@netpolicy/client';
import { ensureBuilt, exited, root, run, spawnServe } from './fetch-cli-helpers';

beforeAll(() => ensureBuilt());

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? files(p) : [p];
  });
}

describe('netpolicy serve (process)', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)('prints its URL, answers, and stops cleanly on %s', async (signal) => {
    const { child, url, stderr } = await spawnServe(['--data', 'fixtures/service', '--port', '0']);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const res = await fetch(`${url}/v1preview1/sbom?provider=ciprovider&repo=acme/webapp&job_id=1001`, { headers: { authorization: 'Bearer demo-token-valid' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/vnd.cyclonedx+json; version=1.7');
    await res.text();
    const denied = await fetch(`${url}/v1preview1/sbom?provider=ciprovider&repo=acme/webapp&job_id=1001`, { headers: { authorization: 'Bearer demo-token-valid-not' } });
    expect(denied.status).toBe(401);
    expect(denied.headers.get('content-type')).toBe('application/problem+json');
    expect(await denied.json()).toMatchObject({ status: 401, title: 'Authentication failed' });
    child.kill(signal);
    expect(await exited(child)).toEqual({ code: 0, signal: null });
    expect(stderr()).toContain('GET /v1preview1/sbom 200');
    expect(stderr()).not.toContain('demo-token-valid');
  });

  it('exit 2 without --data, for a missing directory, a bad port, or a port in use', async () => {
    expect((await run(['serve'])).stderr).toMatch(/missing option --data/);
    expect((await run(['serve', '--data', 'fixtures/nothing-here'])).code).toBe(2);
    expect((await run(['serve', '--data', 'fixtures/service', '--port', '70000'])).code).toBe(2);
    const first = await spawnServe(['--data', 'fixtures/service', '--port', '0', '--quiet']);
    const port = new URL(first.url).port;
    const second = await run(['serve', '--data', 'fixtures/service', '--port', port]);
    expect(second.code).toBe(2);
    expect(second.stderr).toMatch(/address in use/);
    first.child.kill('SIGTERM');
    await exited(first.child);
    expect((await run(['serve', '--help'])).stdout).toMatch(/--port N/);
  });
});

describe('sample data set (fixtures/service)', () => {
  const dir = join(root, 'fixtures/service');

  it('stores valid artifact records except the one meant to be invalid', () => {
    const records = files(join(dir, 'artifacts'));
    expect(records.length).toBe(5);
    const invalid = records.filter((f) => checkArtifactRecordShape(JSON.parse(readFileSync(f, 'utf8'))).length > 0);
    expect(invalid.map((f) => f.slice(dir.length))).toEqual([expect.stringMatching(/^\/artifacts\/oci_manifest\/sha512-/)]);
  });

  it('has artifacts of all three kinds, and jobs terminal and not', () => {
    expect(readdirSync(join(dir, 'artifacts')).sort()).toEqual(['ci_cache', 'oci_index', 'oci_manifest']);
    const jobs = files(join(dir, 'jobs')).filter((f) => f.endsWith('job.json')).map((f) => JSON.parse(readFileSync(f, 'utf8')));
    expect(jobs.length).toBeGreaterThanOrEqual(4);
    expect(jobs.some((j) => j.terminal === false)).toBe(true);
  });

  it('stores traces in the D1 shape', () => {
    const traces = files(join(dir, 'jobs')).filter((f) => f.endsWith('trace.json'));
    expect(traces.length).toBeGreaterThanOrEqual(3);
    for (const f of traces) expect(checkTraceShape(JSON.parse(readFileSync(f, 'utf8'))), f).toEqual([]);
  });

  it('agrees with the JSON Schemas (artifact record, problem) compiled by esbuild.mjs', async () => {
    const { artifactRecordValidator, problemValidator } = await import('../../core/src/generated/validators.js') as Record<string, ((d: unknown) => boolean) | undefined>;
    expect(artifactRecordValidator).toBeTypeOf('function');
    for (const f of files(join(dir, 'artifacts'))) {
      const record = JSON.parse(readFileSync(f, 'utf8'));
      expect(artifactRecordValidator!(record), f).toBe(checkArtifactRecordShape(record).length === 0);
    }
    expect(problemValidator!({ type: 'about:blank', title: 'Not Found', status: 404, detail: 'x' })).toBe(true);
    expect(problemValidator!({ type: 'about:blank', title: 'Not Found', status: 404 })).toBe(false);
  });
});
