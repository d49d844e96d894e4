import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { AnyObservation } from '../trace/types';
import { newestPublication, ociPullOf, ownRepositories, provenanceCounts, provenanceEntry, PullCollector, SEQUENCES_KEPT } from './provenance';

const D = 'e05c85fd17a3e3eb528839e2a2f2c75b0638c55fef02c6c7911beec10f064c80';
const http = (url: string, more: Record<string, unknown> = {}, sequence = 1): AnyObservation =>
  ({ protocol: 'http', index: sequence - 1, sequence, method: 'GET', url, statusCode: 200, denied: false, ...more }) as AnyObservation;

describe('ociPullOf', () => {
  it.each([
    ['a manifest by digest', `https://registry.example.com/v2/acme/webapp/manifests/sha256:${D}`, {}, { registry: 'registry.example.com', repository: 'acme/webapp', reference: `sha256:${D}`, digest: `sha256:${D}` }],
    ['a digest in upper case, percent-encoded', `https://R.example.com/v2/a/b/c/manifests/SHA256%3A${D.toUpperCase()}`, {}, { registry: 'r.example.com', repository: 'a/b/c', reference: `SHA256:${D.toUpperCase()}`, digest: `sha256:${D}` }],
    ['a port that is not the default', `https://registry.example.com:5000/v2/x/manifests/sha256:${D}`, {}, { registry: 'registry.example.com:5000', repository: 'x', digest: `sha256:${D}` }],
    ['a tag with the digest the trace recorded', 'https://registry.example.com/v2/acme/webapp/manifests/2.8.0', { extra: { docker_content_digest: `sha256:${D}` } }, { reference: '2.8.0', digest: `sha256:${D}` }],
    ['a tag with the camelCase member', 'https://registry.example.com/v2/acme/webapp/manifests/2.8.0', { extra: { dockerContentDigest: `sha256:${D}` } }, { reference: '2.8.0', digest: `sha256:${D}` }],
    ['a sha512 digest', `https://registry.example.com/v2/x/manifests/sha512:${'ab'.repeat(64)}`, {}, { digest: `sha512:${'ab'.repeat(64)}` }],
    ['a request without a recorded method', `https://registry.example.com/v2/x/manifests/sha256:${D}`, { method: undefined }, { digest: `sha256:${D}` }],
  ])('reads %s', (_what, url, more, expected) => {
    expect(ociPullOf(http(url, more))).toMatchObject(expected);
  });

  it.each([
    ['a tag without a recorded digest', 'https://registry.example.com/v2/acme/webapp/manifests/latest', {}],
    ['a recorded digest that is not one', 'https://registry.example.com/v2/acme/webapp/manifests/latest', { extra: { docker_content_digest: 'sha256:00' } }],
    ['a short digest', 'https://registry.example.com/v2/acme/webapp/manifests/sha256:00', {}],
    ['an unknown algorithm', `https://registry.example.com/v2/acme/webapp/manifests/md5:${D}`, {}],
  ])('reads %s as a tag pull (no digest)', (_what, url, more) => {
    const pull = ociPullOf(http(url, more));
    expect(pull).toBeDefined();
    expect(pull!.digest).toBeUndefined();
  });

  it.each([
    ['a blob', `https://registry.example.com/v2/acme/webapp/blobs/sha256:${D}`, {}],
    ['a HEAD request', `https://registry.example.com/v2/acme/webapp/manifests/sha256:${D}`, { method: 'HEAD' }],
    ['a push', `https://registry.example.com/v2/acme/webapp/manifests/sha256:${D}`, { method: 'PUT' }],
    ['a denied request', `https://registry.example.com/v2/acme/webapp/manifests/sha256:${D}`, { denied: true }],
    ['a failed request', `https://registry.example.com/v2/acme/webapp/manifests/sha256:${D}`, { statusCode: 404 }],
    ['the API root', 'https://registry.example.com/v2/', {}],
    ['a manifests path with more segments', `https://registry.example.com/v2/acme/webapp/manifests/sha256:${D}/x`, {}],
    ['no registry path', `https://example.com/acme/manifests/sha256:${D}`, {}],
  ])('leaves out %s', (_what, url, more) => {
    expect(ociPullOf(http(url, more))).toBeUndefined();
  });

  it('leaves out other protocols', () => {
    expect(ociPullOf({ protocol: 'tcp', index: 0, sequence: 1, remotePort: 443 } as AnyObservation)).toBeUndefined();
  });
});

describe('PullCollector', () => {
  const digest = (n: number) => `sha256:${n.toString(16).padStart(64, '0')}`;
  const pull = (n: number, sequence: number) => http(`https://r.example.com/v2/x/manifests/${digest(n)}`, {}, sequence);

  it('keeps one artifact per digest in the order first pulled, with every pull counted', () => {
    fc.assert(fc.property(fc.array(fc.integer({ min: 0, max: 6 }), { maxLength: 60 }), fc.integer({ min: 0, max: 8 }), (digests, max) => {
      const c = new PullCollector(max);
      digests.forEach((d, i) => c.add(pull(d, i + 1)));
      const firstSeen = [...new Set(digests)];
      const kept = firstSeen.slice(0, max);
      expect(c.artifacts().map((a) => a.digest)).toEqual(kept.map(digest));
      for (const a of c.artifacts()) {
        const sequences = digests.flatMap((d, i) => (digest(d) === a.digest ? [i + 1] : []));
        expect(a.pulls).toBe(sequences.length);
        expect(a.sequences).toEqual(sequences.slice(0, SEQUENCES_KEPT));
      }
      // Every pull of a digest not kept is counted (no memory per digest left out).
      expect(c.omitted).toBe(digests.filter((d) => !kept.includes(d)).length);
    }));
  });

  it('counts pulls by tag whose digest the trace does not show', () => {
    const c = new PullCollector();
    c.add(http('https://r.example.com/v2/x/manifests/latest'));
    c.add(http('https://r.example.com/v2/x/manifests/1.0', { extra: { docker_content_digest: digest(1) } }));
    expect(c.tagPulls).toBe(1);
    expect(c.artifacts().map((a) => [a.reference, a.digest])).toEqual([['1.0', digest(1)]]);
  });
});

describe('newest publication and ownership', () => {
  const pub = (id: string, at: string, repository: string) => ({ id, accepted_at: at, job: { id: `job-${id}`, provider: { provider: 'ciprovider', job_id: id, repository } }, metadata: { kind: 'oci', media_type: 'm', reference: `r-${id}`, registry: 'reg', repository: 'repo' } });

  it('takes the latest acceptance time, whatever the order', () => {
    const list = [pub('1', '2025-11-03T09:16:40Z', 'a/b'), pub('2', '2025-11-06T08:01:12Z', 'c/d'), pub('3', '2025-11-04T00:00:00+05:00', 'e/f')];
    for (const order of [list, [...list].reverse(), [list[2], list[1], list[0]]]) {
      expect(newestPublication(order)).toEqual({ acceptedAt: '2025-11-06T08:01:12Z', job: { provider: 'ciprovider', repository: 'c/d', jobId: '2', id: 'job-2' }, registry: 'reg', repository: 'repo', reference: 'r-2' });
    }
    // Unreadable times lose to readable ones; among unreadable ones, the first listed wins.
    expect(newestPublication([pub('1', 'yesterday', 'a/b'), pub('2', '2020-01-01T00:00:00Z', 'c/d')])!.job.jobId).toBe('2');
    expect(newestPublication([pub('1', 'yesterday', 'a/b'), pub('2', 'today', 'c/d')])!.job.jobId).toBe('1');
    expect(newestPublication([])).toBeUndefined();
    expect(newestPublication('nope')).toBeUndefined();
  });

  it('judges the newest publication own by the exact repository or a pattern', () => {
    const own = ownRepositories(['acme/*'], ['Other/Repo']);
    expect([own('acme/webapp'), own('ACME/x'), own('other/repo'), own('other/else'), own('')]).toEqual([true, true, true, false, false]);
    // The trace's repository is a name, not a pattern.
    expect(ownRepositories([], ['acme/*'])('acme/webapp')).toBe(false);
  });

  it('makes an entry per lookup and counts them', () => {
    const pulled = { digest: `sha256:${D}`, registry: 'reg', repository: 'acme/webapp', reference: `sha256:${D}`, sequences: [2, 3], pulls: 2 };
    const own = ownRepositories([], ['acme/webapp']);
    const found = provenanceEntry(pulled, { status: 'found', record: { id: 'art', kind: 'oci_manifest', publications: [pub('1', '2025-11-03T09:16:40Z', 'acme/webapp'), pub('2', '2025-11-06T08:01:12Z', 'evil/fork')] } }, own);
    expect(found).toMatchObject({ status: 'found', artifact: { kind: 'oci_manifest', id: 'art', publications: 2 }, own: false, publication: { job: { repository: 'evil/fork' } } });
    const bare = provenanceEntry(pulled, { status: 'found', record: { id: 'art', kind: 'oci_index', publications: [] } }, own);
    expect(bare).toMatchObject({ publication: null, own: null });
    const failed = provenanceEntry(pulled, { status: 'error', message: 'HTTP 503' }, own);
    expect(failed).toEqual({ ...pulled, status: 'error', error: 'HTTP 503' });
    const entries = [found, bare, failed, provenanceEntry(pulled, { status: 'skipped', message: 'limit' }, own), provenanceEntry(pulled, { status: 'unknown', message: 'none' }, own)];
    expect(provenanceCounts(entries, { tagPulls: 2, omitted: 1 })).toEqual({ artifacts: 6, found: 2, own: 0, foreign: 1, unpublished: 2, failed: 1, skipped: 1, tagPulls: 2, omitted: 1 });
  });
});
