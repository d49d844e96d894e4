// explain() of a trace document held as an object (the service's document as the client returns
// it, JSON.parse of a trace file) gives the report of its text (issue 22.3: it had taken the
// snake_case document for a normalised trace, 1 allowed and 4 denied where the text gives 3 and 2).
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import type { Policy } from '../policy/types';
import { TraceError } from '../trace/normalise';
import { parseTrace } from '../trace/reader';
import { explain, explainTrace } from './explain';

const root = new URL('../../../../fixtures/', import.meta.url).pathname;
const read = (path: string) => readFileSync(`${root}${path}`, 'utf8');
const servicePolicy = JSON.parse(read('service/policies/acme-webapp.netpolicy.json')) as Policy;

const cases: [string, Policy, string][] = [
  ...['acme/webapp/1001', 'acme/webapp/1003', 'acme/legacy/7', 'acme/api/18446744073709551615']
    .map((job): [string, Policy, string] => [`service ${job}`, servicePolicy, read(`service/jobs/ciprovider/${job}/trace.json`)]),
  ...['denials', 'python-build', 'npm-build', 'container-build', 'late-dns', 'ssh-clone']
    .map((name): [string, Policy, string] => [`traces/${name}`, JSON.parse(read(`traces/${name}/policy.netpolicy.json`)), read(`traces/${name}/trace.json`)]),
];

describe('explain: a trace document as an object gives the report of its text', () => {
  for (const [name, policy, text] of cases) {
    it(name, async () => {
      const fromText = await explain(policy, text);
      expect(await explain(policy, JSON.parse(text))).toEqual(fromText);
      expect(explainTrace(policy, JSON.parse(text))).toEqual(fromText);
      // A Trace the reader made gives it too.
      expect(await explain(policy, parseTrace(text))).toEqual(fromText);
    });
  }

  it("the service's job 1001: 3 allowed, 2 denied, no disagreement, as the CLI says", async () => {
    const report = await explain(servicePolicy, JSON.parse(read('service/jobs/ciprovider/acme/webapp/1001/trace.json')));
    expect(report.summary).toMatchObject({ observations: 6, allowed: 3, denied: 2, disagreements: 0, none: 1 });
    expect(report.header.job?.jobId).toBe('1001');
    expect(report.header).not.toHaveProperty('observations');
  });

  it('a document that is not a valid trace is the TraceError its text gives', async () => {
    const doc = { observations: [{ protocol: 'tcp', sequence: 1, remote_port: '443' }] };
    await expect(explain(servicePolicy, doc)).rejects.toThrowError(TraceError);
    await expect(explain(servicePolicy, doc)).rejects.toThrowError(/observation 0 \(sequence 1\): `remote_port` must be an integer/);
  });
});
