// getNetworkTrace()'s `data` (the service's document, snake_case members) handed to core's
// explain gives the report of the same trace as text (issue 22.3), as docs/client.md shows.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { explain, type Policy } from '@netpolicy/core';
import { NetpolicyClient } from '../src/index';

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
