import { describe, expect, it } from 'vitest';
import { NetpolicyClient } from '@netpolicy/client';
import { MAX_RECENT, describeFetchError, rememberJob, traceFileName, validateJobId, validateRepository } from '../../src/fetch-logic';

const TOKEN = 'np_secret_token_123';
const job = { repository: 'acme/app', jobId: '42' };

/** The error the real client throws when the service answers `status` (no retries). */
async function failure(status: number, body = '') {
  const client = new NetpolicyClient({
    baseUrl: 'https://svc.example', token: TOKEN, maxAttempts: 1, retryBaseMs: 1,
    fetch: async () => new Response(body || JSON.stringify({ type: 'about:blank', title: `HTTP ${status}`, status, detail: `detail ${status}` }), { status, headers: { 'content-type': 'application/problem+json' } }),
  });
  try {
    await client.getNetworkTrace({ repo: job.repository, jobId: job.jobId });
  } catch (e) {
    return describeFetchError(e, job, 'https://svc.example');
  }
  throw new Error('no failure');
}

describe('describeFetchError', () => {
  it('says what to do for 401, 404, 409 and an outage, and never shows the token', async () => {
    const f401 = await failure(401);
    expect(f401.message).toMatch(/401/);
    expect(f401.action).toBe('Set API Token');
    const f404 = await failure(404);
    expect(f404.message).toMatch(/no job 42 in acme\/app \(404\)/);
    const f409 = await failure(409);
    expect(f409.message).toMatch(/not finished yet \(409\)/);
    expect(f409.action).toBe('Retry');
    const f503 = await failure(503);
    expect(f503.message).toMatch(/unavailable/);
    for (const f of [f401, f404, f409, f503]) expect(f.message).not.toContain(TOKEN);
  });

  it('reports an unreachable service as an outage', async () => {
    const client = new NetpolicyClient({ baseUrl: 'https://svc.example', token: TOKEN, maxAttempts: 1, fetch: async () => { throw new TypeError('fetch failed'); } });
    const f = await client.getNetworkTrace({ repo: 'acme/app', jobId: '1' }).then(() => undefined, (e) => describeFetchError(e, job, 'https://svc.example'));
    expect(f?.message).toMatch(/unavailable/);
    expect(f?.message).not.toContain(TOKEN);
  });

  it('sends a bad base URL to the setting', () => {
    let f;
    try { new NetpolicyClient({ baseUrl: 'http://svc.example' }); } catch (e) { f = describeFetchError(e, job, 'http://svc.example'); }
    expect(f?.action).toBe('Open Settings');
    let g;
    try { new NetpolicyClient({ baseUrl: 'https://svc.example', token: 'has space' }); } catch (e) { g = describeFetchError(e, job, 'https://svc.example'); }
    expect(g?.action).toBe('Set API Token');
    expect(g?.message).not.toContain('has space');
  });
});

describe('recent jobs and inputs', () => {
  it('keeps the newest first, once, at most MAX_RECENT', () => {
    let list: { repository: string; jobId: string }[] = [];
    for (let i = 0; i < 15; i++) list = rememberJob(list, { repository: 'acme/app', jobId: String(i % 12) });
    expect(list.length).toBe(MAX_RECENT);
    expect(list[0].jobId).toBe('2');
    expect(new Set(list.map((j) => j.jobId)).size).toBe(list.length);
    expect(rememberJob([{ repository: 5 } as never], job)).toEqual([job]);
  });

  it('checks repository and job id as the service would', () => {
    expect(validateRepository('acme/app')).toBeUndefined();
    expect(validateRepository('acme')).toMatch(/OWNER\/REPOSITORY/);
    expect(validateJobId('123')).toBeUndefined();
    expect(validateJobId('01')).toMatch(/leading zeros/);
    expect(traceFileName('.netpolicy/traces/', { repository: 'acme/app', jobId: '9' })).toBe('.netpolicy/traces/acme_app-9.json');
    expect(traceFileName('t', { repository: '../../x', jobId: '1' })).not.toContain('/../');
  });
});
