import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { AnyObservation } from '../trace/types';
import { ociBlobPullOf, ownRepositories, provenanceEntry, PullCollector, SEQUENCES_KEPT, type ArtifactLookup, type PulledArtifact } from './provenance';
import { BLOB_NOT_LOOKED_UP, resultProvenance, ResultProvenanceIndex } from './result-provenance';

const D = 'e05c85fd17a3e3eb528839e2a2f2c75b0638c55fef02c6c7911beec10f064c80';
const http = (url: string, more: Record<string, unknown> = {}, sequence = 1): AnyObservation =>
  ({ protocol: 'http', index: sequence - 1, sequence, method: 'GET', url, statusCode: 200, denied: false, ...more }) as AnyObservation;

describe('ociBlobPullOf', () => {
  it.each([
    ['a blob by digest', `https://registry.example.com/v2/acme/webapp/blobs/sha256:${D}`, {}, `sha256:${D}`],
    ['a redirect to the storage (307)', `https://registry.example.com/v2/acme/webapp/blobs/sha256:${D}`, { statusCode: 307 }, `sha256:${D}`],
    ['a digest percent-encoded, in upper case', `https://r.example.com:5000/v2/a/b/blobs/SHA256%3A${D.toUpperCase()}`, {}, `sha256:${D}`],
    ['a request without a recorded method', `http://localhost:5000/v2/x/blobs/sha256:${D}`, { method: undefined }, `sha256:${D}`],
  ])('reads %s', (_what, url, more, digest) => {
    expect(ociBlobPullOf(http(url, more))).toBe(digest);
  });

  it.each([
    ['a manifest', `https://registry.example.com/v2/acme/webapp/manifests/sha256:${D}`, {}],
    ['an upload', 'https://registry.example.com/v2/acme/webapp/blobs/uploads/', { method: 'POST' }],
    ['a GET of an upload', 'https://registry.example.com/v2/acme/webapp/blobs/uploads/123', {}],
    ['a HEAD request', `https://registry.example.com/v2/acme/webapp/blobs/sha256:${D}`, { method: 'HEAD' }],
    ['a denied request', `https://registry.example.com/v2/acme/webapp/blobs/sha256:${D}`, { denied: true }],
    ['a failed request', `https://registry.example.com/v2/acme/webapp/blobs/sha256:${D}`, { statusCode: 404 }],
    ['a reference that is no digest', 'https://registry.example.com/v2/acme/webapp/blobs/latest', {}],
    ['no registry path', `https://example.com/acme/blobs/sha256:${D}`, {}],
  ])('leaves out %s', (_what, url, more) => {
    expect(ociBlobPullOf(http(url, more))).toBeUndefined();
  });
});

const pulled: PulledArtifact = { digest: `sha256:${D}`, registry: 'registry.example.com', repository: 'acme/webapp', reference: `sha256:${D}`, sequences: [2, 4], pulls: 2 };
const publication = (acceptedAt: string, repository: string, jobId: string) => ({
  id: `pub-${jobId}`, accepted_at: acceptedAt, job: { id: `job-${jobId}`, provider: { provider: 'ciprovider', job_id: jobId, repository } },
  metadata: { kind: 'oci', registry: 'registry.example.com', repository: 'acme/webapp', reference: 'latest' },
});
const record = (publications: unknown[]) => ({ id: 'art-1', kind: 'oci_manifest', digest_algorithm: 'sha256', digest_value: D, contents: [], publications });
const isOwn = ownRepositories(['acme/*']);

describe('resultProvenance', () => {
  it('gives a found artifact its identity and its newest publication, with whether it is your own', () => {
    const entry = provenanceEntry(pulled, { status: 'found', record: record([publication('2025-01-01T00:00:00Z', 'other/x', '1'), publication('2025-06-01T00:00:00Z', 'acme/webapp', '2')]) }, isOwn);
    expect(resultProvenance(entry)).toEqual({
      artifact: { digest: `sha256:${D}`, kind: 'oci_manifest', id: 'art-1', publications: 2 },
      publication: { acceptedAt: '2025-06-01T00:00:00Z', job: { provider: 'ciprovider', repository: 'acme/webapp', jobId: '2', id: 'job-2' }, registry: 'registry.example.com', repository: 'acme/webapp', reference: 'latest', own: true },
    });
    const foreign = provenanceEntry(pulled, { status: 'found', record: record([publication('2025-01-01T00:00:00Z', 'other/x', '1')]) }, isOwn);
    expect(resultProvenance(foreign)).toMatchObject({ publication: { job: { repository: 'other/x' }, own: false } });
  });

  it('gives a record without publications a null publication', () => {
    expect(resultProvenance(provenanceEntry(pulled, { status: 'found', record: record([]) }, isOwn))).toEqual({
      artifact: { digest: `sha256:${D}`, kind: 'oci_manifest', id: 'art-1', publications: 0 }, publication: null,
    });
  });

  it.each([
    [{ status: 'error', message: 'HTTP 503: down' }, 'lookup failed: HTTP 503: down'],
    [{ status: 'unknown', message: 'the service has no record of this digest' }, 'the service has no record of this digest'],
    [{ status: 'skipped', message: 'not looked up: over --provenance-limit 2' }, 'not looked up: over --provenance-limit 2'],
  ] as [ArtifactLookup, string][])('gives %o the error %s', (lookup, error) => {
    expect(resultProvenance(provenanceEntry(pulled, lookup, isOwn))).toEqual({ error });
  });
});

describe('ResultProvenanceIndex', () => {
  const digest = (n: number) => `sha256:${n.toString(16).padStart(64, '0')}`;
  /** Observation kinds: a manifest by digest, a tag with or without a recorded digest, a blob, a denied pull, a HEAD, other requests. */
  const observation = fc.tuple(fc.integer({ min: 0, max: 7 }), fc.integer({ min: 0, max: 5 }));
  /** Kinds 0, 1 (manifests by digest) and 3 (a blob by digest) pulled something by digest. */
  const BY_DIGEST = new Set([0, 1, 3]);
  const make = ([kind, n]: [number, number], sequence: number): AnyObservation => {
    const reg = `https://r${n % 2}.example.com/v2/team/app${n}`;
    switch (kind) {
      case 0: return http(`${reg}/manifests/${digest(n)}`, {}, sequence);
      case 1: return http(`${reg}/manifests/v${n}`, { extra: { docker_content_digest: digest(n) } }, sequence);
      case 2: return http(`${reg}/manifests/v${n}`, {}, sequence);
      case 3: return http(`${reg}/blobs/${digest(n + 100)}`, {}, sequence);
      case 4: return http(`${reg}/manifests/${digest(n)}`, { denied: true }, sequence);
      case 5: return http(`${reg}/manifests/${digest(n)}`, { method: 'HEAD' }, sequence);
      case 6: return http(`https://registry.npmjs.org/app${n}/-/app${n}-1.0.0.tgz`, {}, sequence);
      default: return { protocol: 'tcp', index: sequence - 1, sequence, remoteIp: '192.0.2.1', remotePort: 443 } as AnyObservation;
    }
  };
  const lookupOf = (d: string, i: number): ArtifactLookup =>
    i % 3 === 0 ? { status: 'found', record: record([publication('2025-01-01T00:00:00Z', i % 2 ? 'acme/app' : 'other/app', String(i))]) }
      : i % 3 === 1 ? { status: 'error', message: `down for ${d}` } : { status: 'skipped', message: 'not looked up: over --provenance-limit 1' };

  it('puts each entry of the report on the results of its pulls, and on no other result (property)', () => {
    // At most 20 observations: an entry keeps every sequence of its pulls (SEQUENCES_KEPT).
    fc.assert(fc.property(fc.array(observation, { maxLength: SEQUENCES_KEPT }), fc.integer({ min: 0, max: 6 }), (kinds, kept) => {
      const trace = kinds.map((k, i) => make(k, i + 1));
      const collector = new PullCollector(kept);
      for (const o of trace) collector.add(o);
      const entries = collector.artifacts().map((a, i) => provenanceEntry(a, lookupOf(a.digest, i), isOwn));
      const index = new ResultProvenanceIndex(entries, kept);
      const entryOfSequence = new Map(entries.flatMap((e) => e.sequences.map((s) => [s, e] as const)));
      for (const [i, o] of trace.entries()) {
        const member = index.of(o);
        const e = entryOfSequence.get(o.sequence);
        if (e !== undefined) expect(member).toEqual(resultProvenance(e));
        else if (ociBlobPullOf(o) !== undefined) expect(member).toEqual({ error: BLOB_NOT_LOOKED_UP });
        else if (member !== undefined) {
          // A pull of a digest beyond what the collector kept: said so, never another digest's entry.
          expect(member).toEqual({ error: `not looked up: the report keeps the first ${kept} artifacts pulled` });
          expect(collector.omitted).toBeGreaterThan(0);
        }
        // Something was pulled by digest exactly when there is a member.
        expect({ sequence: o.sequence, has: member !== undefined }).toEqual({ sequence: o.sequence, has: BY_DIGEST.has(kinds[i][0]) });
      }
    }), { numRuns: 300 });
  });
});
