/** The client against `netpolicy serve` (in-process) over real HTTP on loopback: every condition of interface.md. */
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, NetpolicyClient, PROBLEM_TYPES } from '@netpolicy/client';
import { startService, type RunningService } from '../src/commands/serve/server';

const fixtures = new URL('../../../fixtures/service/', import.meta.url).pathname;
const D = {
  amd64: 'e05c85fd17a3e3eb528839e2a2f2c75b0638c55fef02c6c7911beec10f064c80',
  index: '868dfb80e04fb9a480e2bec30e6fef3d460f55877acf9c210e3bd2ac49b79c11',
  cache: '7fe0eab765a5301578851abf7f062c119852cc2a1986aa1acb6cb26d7c854317',
  invalid512: '20681df9632a294117f065d1e656b9959a6054a81258674fa0c4eb23f85bb874a4bc8e68c5056da23103f0f9a50ac2603cc2e9cc92d6610480097a828b71c50d',
};
let data: string;
let service: RunningService;

beforeAll(async () => {
  data = mkdtempSync(join(tmpdir(), 'netpolicy-serve-'));
  cpSync(fixtures, data, { recursive: true });
  service = await startService({ data, port: 0, host: '127.0.0.1' });
});
afterAll(async () => {
  await service?.close();
  rmSync(data, { recursive: true, force: true });
});

const client = (token: string | null = 'demo-token-valid') =>
  new NetpolicyClient({ baseUrl: service.url, token: token ?? undefined, retryBaseMs: 1, maxAttempts: 3 });

async function failure(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}

describe('client against netpolicy serve', () => {
  it('fetches a valid CycloneDX 1.7 SBOM with its media type', async () => {
    const result = await client().getSbom({ repo: 'acme/webapp', jobId: '1001' });
    expect(result.contentType).toBe('application/vnd.cyclonedx+json; version=1.7');
    expect(result.validated).toBe(true);
    expect(result.data.specVersion).toBe('1.7');
  });

  it('fetches traces, snake_case and camelCase, for a 64-bit job id', async () => {
    const trace = await client().getNetworkTrace({ repo: 'acme/webapp', jobId: '1001' });
    expect(trace.data.job.job_id).toBe('1001');
    expect(trace.data.observations.map((o) => o.protocol)).toEqual(['dns', 'tcp', 'http', 'http', 'tcp', 'ssh_git']);
    const big = await client().getNetworkTrace({ repo: 'acme/api', jobId: '18446744073709551615' });
    expect(big.data.job.jobId).toBe('18446744073709551615');
  });

  it('finds an OCI index with its contents in order and publications newest first', async () => {
    const { data: record } = await client().findArtifact({ kind: 'oci_index', digestAlgorithm: 'sha256', digestValue: D.index });
    expect(record.kind).toBe('oci_index');
    expect(record.contents.map((c) => [c.index, c.media_type, c.size])).toEqual([
      [0, 'application/vnd.oci.image.manifest.v1+json', 1089],
      [1, 'application/vnd.oci.image.manifest.v1+json', 1094],
    ]);
    expect(record.contents[0].publications.map((p) => p.accepted_at)).toEqual(['2025-11-06T08:01:12Z', '2025-11-03T09:16:40Z']);
    const manifest = await client().findArtifact({ kind: 'oci_manifest', digestAlgorithm: 'sha256', digestValue: D.amd64.toUpperCase() });
    expect(manifest.data.publications.map((p) => p.id)).toEqual(['pub-0007', 'pub-0001']);
    expect(manifest.data.publications[0].job.provider).toEqual({ provider: 'ciprovider', job_id: '1004', repository: 'acme/webapp' });
  });

  it('finds a CI cache in its repository only', async () => {
    const { data: record } = await client().findArtifact({ kind: 'ci_cache', digestAlgorithm: 'sha256', digestValue: D.cache, repository: 'acme/webapp' });
    expect(record.publications[0].metadata).toMatchObject({ kind: 'ci_cache', size: 48213377, version: 'v2' });
    const other = await failure(client().findArtifact({ kind: 'ci_cache', digestAlgorithm: 'sha256', digestValue: D.cache, repository: 'acme/api' }));
    expect(other).toMatchObject({ kind: 'not-found', status: 404, type: PROBLEM_TYPES.unknownArtifact });
  });

  it.each([
    ['missing', null, /no Authorization header/],
    ['unknown', 'not-a-token', /not valid/],
    ['expired', 'demo-token-expired', /expired/],
    ['revoked', 'demo-token-revoked', /revoked/],
  ])('answers a %s token with 401 on every operation', async (_what, token, detail) => {
    for (const call of [
      (c: NetpolicyClient) => c.getSbom({ repo: 'acme/webapp', jobId: '1001' }),
      (c: NetpolicyClient) => c.getNetworkTrace({ repo: 'acme/webapp', jobId: '1001' }),
      (c: NetpolicyClient) => c.findArtifact({ kind: 'oci_index', digestAlgorithm: 'sha256', digestValue: D.index }),
    ]) {
      const error = await failure(call(client(token)));
      expect(error).toMatchObject({ kind: 'authentication', status: 401, type: PROBLEM_TYPES.authentication, attempts: 1 });
      expect(error.detail).toMatch(detail);
    }
  });

  it('answers an unknown job with 404 (sbom and trace) and an unknown artifact with 404', async () => {
    expect(await failure(client().getSbom({ repo: 'acme/webapp', jobId: '999' }))).toMatchObject({ kind: 'not-found', type: PROBLEM_TYPES.unknownJob });
    expect(await failure(client().getNetworkTrace({ repo: 'nobody/nothing', jobId: '1' }))).toMatchObject({ kind: 'not-found', status: 404 });
    expect(await failure(client().findArtifact({ kind: 'oci_manifest', digestAlgorithm: 'sha256', digestValue: '0'.repeat(64) }))).toMatchObject({ kind: 'not-found', type: PROBLEM_TYPES.unknownArtifact });
  });

  it('answers a job that is not terminal with 409 (sbom and trace)', async () => {
    for (const error of [
      await failure(client().getSbom({ repo: 'acme/webapp', jobId: '1002' })),
      await failure(client().getNetworkTrace({ repo: 'acme/webapp', jobId: '1002' })),
    ]) {
      expect(error).toMatchObject({ kind: 'not-terminal', status: 409, type: PROBLEM_TYPES.notTerminal, title: 'Job is not terminal' });
      expect(error.detail).toContain('in_progress');
    }
  });

  it('answers a missing stored SBOM with 503 and an invalid stored artifact with 503, after retries', async () => {
    const sbom = await failure(client().getSbom({ repo: 'acme/webapp', jobId: '1003' }));
    expect(sbom).toMatchObject({ kind: 'unavailable', status: 503, type: PROBLEM_TYPES.dependencyUnavailable, attempts: 3 });
    const artifact = await failure(client().findArtifact({ kind: 'oci_manifest', digestAlgorithm: 'sha512', digestValue: D.invalid512 }));
    expect(artifact).toMatchObject({ kind: 'unavailable', status: 503, type: PROBLEM_TYPES.storedArtifactInvalid, attempts: 3 });
  });

  it('answers every operation with 503 and Retry-After during a declared outage', async () => {
    writeFileSync(join(data, 'outage.json'), JSON.stringify({ operations: ['sbom', 'network-trace', 'artifacts'], retry_after: 0 }));
    try {
      // Each call starts only when awaited: a rejection created ahead of its await is unhandled.
      for (const call of [
        () => client().getSbom({ repo: 'acme/webapp', jobId: '1001' }),
        () => client().getNetworkTrace({ repo: 'acme/webapp', jobId: '1001' }),
        () => client().findArtifact({ kind: 'oci_index', digestAlgorithm: 'sha256', digestValue: D.index }),
      ]) {
        expect(await failure(call())).toMatchObject({ kind: 'unavailable', status: 503, type: PROBLEM_TYPES.dependencyUnavailable });
      }
    } finally {
      rmSync(join(data, 'outage.json'));
    }
  });

  it('rejects an SBOM that is not valid CycloneDX 1.7 unless validation is off', async () => {
    const error = await failure(client().getSbom({ repo: 'acme/legacy', jobId: '7' }));
    expect(error.kind).toBe('invalid-response');
    expect(error.reasons[0]).toMatch(/serialNumber/);
    const skipped = await new NetpolicyClient({ baseUrl: service.url, token: 'demo-token-valid', sbomValidator: false }).getSbom({ repo: 'acme/legacy', jobId: '7' });
    expect(skipped.validated).toBe(false);
  });
});

describe('netpolicy serve answers malformed selectors with 400 problem documents', () => {
  const raw = async (path: string, token = 'demo-token-valid') => {
    const res = await fetch(`${service.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
    return { status: res.status, type: res.headers.get('content-type'), body: await res.json() as Record<string, unknown> };
  };

  it.each([
    '/v1preview1/sbom?provider=ciprovider&repo=acme/webapp',
    '/v1preview1/sbom?provider=other&repo=acme/webapp&job_id=1001',
    '/v1preview1/network-trace?provider=ciprovider&repo=acme&job_id=1001',
    '/v1preview1/network-trace?provider=ciprovider&repo=acme/webapp&job_id=01001',
    '/v1preview1/network-trace?provider=ciprovider&repo=acme/webapp&job_id=18446744073709551616',
    '/v1preview1/network-trace?provider=ciprovider&repo=acme/webapp&job_id=1&job_id=2',
    '/v1preview1/artifacts?kind=oci_manifest&digest_algorithm=sha256',
    '/v1preview1/artifacts?kind=blob&digest_algorithm=sha256&digest_value=' + 'a'.repeat(64),
    '/v1preview1/artifacts?kind=oci_manifest&digest_algorithm=md5&digest_value=' + 'a'.repeat(64),
    '/v1preview1/artifacts?kind=oci_manifest&digest_algorithm=sha512&digest_value=' + 'a'.repeat(64),
    '/v1preview1/artifacts?kind=ci_cache&digest_algorithm=sha256&digest_value=' + 'a'.repeat(64),
    '/v1preview1/artifacts?kind=ci_cache&digest_algorithm=sha512&repository=a/b&digest_value=' + 'a'.repeat(128),
  ])('%s', async (path) => {
    const res = await raw(path);
    expect(res.status).toBe(400);
    expect(res.type).toBe('application/problem+json');
    expect(res.body).toMatchObject({ type: PROBLEM_TYPES.malformedSelector, title: 'Malformed selector', status: 400 });
    expect(typeof res.body.detail).toBe('string');
  });

  it('checks the token before the selector', async () => {
    expect((await raw('/v1preview1/sbom?repo=x', 'nope')).status).toBe(401);
  });

  it('answers unknown paths and methods with problem documents', async () => {
    expect(await raw('/v1/sbom')).toMatchObject({ status: 404, type: 'application/problem+json' });
    const res = await fetch(`${service.url}/v1preview1/sbom`, { method: 'POST', headers: { authorization: 'Bearer demo-token-valid' } });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, HEAD');
  });
});
