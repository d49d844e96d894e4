// getNetworkTrace()'s `data` (the service's document, snake_case members) handed to core's
// explain gives the report of the same trace as text (issue 22.3), as docs/client.md shows.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { explain, explainTrace, readTraceDocument, type Policy } from '@netpolicy/core';
import { ApiError, NetpolicyClient } from '../src/index';

const root = new URL('../../../fixtures/service/', import.meta.url).pathname;
const policy = JSON.parse(readFileSync(`${root}policies/acme-webapp.netpolicy.json`, 'utf8')) as Policy;

/** A service that answers every request with the job's trace file, as `netpolicy serve` does. */
function serving(text: string): typeof fetch {
  return async () => new Response(text, { status: 200, headers: { 'content-type': 'application/json' } });
}

describe('getNetworkTrace() then explain()', () => {
  for (const job of ['webapp/1001', 'webapp/1003', 'api/18446744073709551615']) {
    it(`acme/${job}: data and text give the same report`, async () => {
      const file = readFileSync(`${root}jobs/ciprovider/acme/${job}/trace.json`, 'utf8');
      const client = new NetpolicyClient({ baseUrl: 'http://127.0.0.1:1', token: 'demo-token-valid', fetch: serving(file) });
      const [repo, jobId] = [`acme/${job.split('/')[0]}`, job.split('/')[1]];
      const { data, text } = await client.getNetworkTrace({ repo, jobId });
      const fromText = await explain(policy, text);
      expect(await explain(policy, data)).toEqual(fromText);
      if (job === 'webapp/1001') expect(fromText.summary).toMatchObject({ allowed: 3, denied: 2, disagreements: 0 });
    });
  }
});

describe('getTrace(): the document as sent, and the trace normalised by core in one call', () => {
  it('acme/api sends camelCase members: the document has them as sent, the trace in core\'s names', async () => {
    const file = readFileSync(`${root}jobs/ciprovider/acme/api/18446744073709551615/trace.json`, 'utf8');
    const client = new NetpolicyClient({ baseUrl: 'http://127.0.0.1:1', token: 'demo-token-valid', fetch: serving(file) });
    const { data, text, trace } = await client.getTrace({ repo: 'acme/api', jobId: '18446744073709551615' });
    expect(text).toBe(file);
    expect({ snake: data.job.job_id, camel: data.job.jobId }).toEqual({ snake: undefined, camel: '18446744073709551615' });
    expect(trace.job).toMatchObject({ jobId: '18446744073709551615', runId: '18446744073709551614', runAttempt: 1 });
    expect(trace).toEqual(readTraceDocument(data));
    expect(explainTrace(policy, trace)).toEqual(await explain(policy, text));
  });

  it('acme/webapp sends snake_case: the same trace shape', async () => {
    const file = readFileSync(`${root}jobs/ciprovider/acme/webapp/1001/trace.json`, 'utf8');
    const client = new NetpolicyClient({ baseUrl: 'http://127.0.0.1:1', token: 'demo-token-valid', fetch: serving(file) });
    const { data, trace } = await client.getTrace({ repo: 'acme/webapp', jobId: '1001' });
    expect({ snake: data.job.job_id, camel: data.job.jobId }).toEqual({ snake: '1001', camel: undefined });
    expect(trace.job?.jobId).toBe('1001');
    expect(trace.observations[0]).toMatchObject({ index: 0, protocol: expect.any(String) });
  });

  it('a document core cannot read is an ApiError of kind invalid-response', async () => {
    // The shape check takes any decimal string; core's reader, 40 digits at most.
    const doc = { job: {}, observations: [{ protocol: 'http', observed_at: '2025-01-01T00:00:00Z', sequence: 0, url: 'https://x.example/', response_body_size: '1'.repeat(41) }] };
    const client = new NetpolicyClient({ baseUrl: 'http://127.0.0.1:1', fetch: serving(JSON.stringify(doc)) });
    await expect(client.getNetworkTrace({ repo: 'acme/webapp', jobId: '1' })).resolves.toMatchObject({ data: doc });
    const error = await client.getTrace({ repo: 'acme/webapp', jobId: '1' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ kind: 'invalid-response', status: 200, message: expect.stringMatching(/^the network trace cannot be read: .*response_body_size/) });
  });
});
