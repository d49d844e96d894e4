/**
 * Provenance of what a job pulled (docs/attribution.md, "Provenance"): the OCI manifests and
 * indexes a trace shows the job pulling by digest, and, from the artifact records the service
 * returns for them, each one's newest publication and whether it came from the user's own
 * repositories. Pure: the caller (the CLI) does the lookups and hands the records in.
 */
import { ociRepository } from '../eval/rules';
import { defaultPort, parseUrl } from '../eval/url';
import { matchRepositoryPattern } from '../formats/repository-pattern';
import type { AnyObservation } from '../trace/types';

/**
 * Members of an HTTP observation that may carry the digest of the manifest a tag pull returned
 * (the registry's `Docker-Content-Digest` response header). D1 names no such member; a trace that
 * records the header this way lets a pull by tag be looked up too.
 */
export const CONTENT_DIGEST_MEMBERS = ['docker_content_digest', 'dockerContentDigest'] as const;

/** Digest lengths the service takes (interface.md, Limits). */
const DIGEST = /^(sha256:[0-9a-f]{64}|sha512:[0-9a-f]{128})$/;

/** `sha256:<64 hex>` or `sha512:<128 hex>` (any case) in lower case; undefined otherwise. */
export function ociDigest(text: unknown): string | undefined {
  if (typeof text !== 'string' || text.length > 7 + 128) return undefined;
  const d = text.toLowerCase();
  return DIGEST.test(d) ? d : undefined;
}

/**
 * One request of a trace that pulled an OCI manifest or index.
 * @beta
 */
export interface OciPull {
  sequence: number;
  /** The registry's host, with its port when not the scheme's default. */
  registry: string;
  /** The repository path of the request, as sent (percent-decoded). */
  repository: string;
  /** The tag or digest of the request. */
  reference: string;
  /** The manifest's digest: the reference itself, or what the trace recorded for a tag. */
  digest?: string;
}

function decoded(text: string): string {
  if (!text.includes('%')) return text;
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** A successful GET of `/v2/NAME/ENDPOINT/REFERENCE` (`ociGetOf`). */
interface OciGet {
  host: string;
  scheme: string;
  port: number;
  /** NAME as sent (not decoded). */
  name: string;
  /** REFERENCE as sent (not decoded), one segment. */
  reference: string;
}

/**
 * The registry request an observation shows when the job fetched something from `endpoint`: a GET
 * (or an HTTP request without a recorded method) of `/v2/NAME/ENDPOINT/REFERENCE` that the job's
 * network layer did not deny and that did not fail (no status, or one below 400).
 */
function ociGetOf(o: AnyObservation, endpoint: 'manifests' | 'blobs'): OciGet | undefined {
  if (o.protocol !== 'http') return undefined;
  const h = o as AnyObservation & { method?: unknown; url?: unknown; denied?: unknown; statusCode?: unknown };
  if (h.denied === true || typeof h.url !== 'string') return undefined;
  if (h.method !== undefined && (typeof h.method !== 'string' || h.method.toUpperCase() !== 'GET')) return undefined;
  if (typeof h.statusCode === 'number' && h.statusCode >= 400) return undefined;
  const u = parseUrl(h.url);
  if (u === undefined || (u.scheme !== 'https' && u.scheme !== 'http')) return undefined;
  const name = ociRepository(u.path);
  if (name === undefined || name === '') return undefined;
  const rest = u.path.slice(4 + name.length + 1); // after `/v2/NAME/`
  if (!rest.startsWith(`${endpoint}/`)) return undefined;
  const reference = rest.slice(endpoint.length + 1);
  if (reference === '' || reference.includes('/')) return undefined;
  return { host: u.host, scheme: u.scheme, port: u.port, name, reference };
}

/**
 * The OCI pull an observation shows: a GET (or an HTTP request without a recorded method) of
 * `/v2/NAME/manifests/REFERENCE` that the job's network layer did not deny and that did not fail
 * (no status, or one below 400). HEAD requests fetch no manifest; blobs are not artifacts of the
 * service (its kinds are manifests, indexes and CI caches).
 */
export function ociPullOf(o: AnyObservation): OciPull | undefined {
  const get = ociGetOf(o, 'manifests');
  if (get === undefined) return undefined;
  const reference = decoded(get.reference);
  const registry = get.port === defaultPort(get.scheme) ? get.host : `${get.host.includes(':') ? `[${get.host}]` : get.host}:${get.port}`;
  let digest = ociDigest(reference);
  if (digest === undefined && o.extra !== undefined) {
    for (const m of CONTENT_DIGEST_MEMBERS) {
      digest = Object.hasOwn(o.extra, m) ? ociDigest(o.extra[m]) : undefined;
      if (digest !== undefined) break;
    }
  }
  return { sequence: o.sequence, registry, repository: decoded(get.name), reference, ...(digest !== undefined ? { digest } : {}) };
}

/**
 * The digest of the blob (a layer, an image config) an observation pulled: a GET of
 * `/v2/NAME/blobs/DIGEST` read as `ociPullOf` reads a manifest pull. Undefined for anything else,
 * a blob named by something that is not a digest included. The service records no blobs: explain
 * says so on such a result (`ResultProvenanceIndex`).
 */
export function ociBlobPullOf(o: AnyObservation): string | undefined {
  const get = ociGetOf(o, 'blobs');
  return get === undefined ? undefined : ociDigest(decoded(get.reference));
}

/**
 * A manifest or index the job pulled (one per digest), as first pulled.
 * @beta
 */
export interface PulledArtifact {
  /** `ALG:HEX`, lower case. */
  digest: string;
  registry: string;
  repository: string;
  reference: string;
  /** Sequences of its pulls (the first SEQUENCES_KEPT). */
  sequences: number[];
  /** Pulls of it in all. */
  pulls: number;
}

/** How many pull sequences an artifact keeps (`PulledArtifact.sequences`): enough to find the pulls in the trace, bounded. */
export const SEQUENCES_KEPT = 20;

/**
 * The artifacts a trace pulled, one per digest in the order first pulled, gathered observation by
 * observation. Bounded: at most `maxArtifacts` digests are kept, further ones only counted.
 * @beta
 */
export class PullCollector {
  private readonly byDigest = new Map<string, PulledArtifact>();
  /** Pulls by tag whose digest the trace does not show (they cannot be looked up). */
  tagPulls = 0;
  /** Pulls of digests beyond `maxArtifacts` (an upper bound on those digests: nothing is kept of them). */
  omitted = 0;

  constructor(readonly maxArtifacts = 10_000) {}

  add(o: AnyObservation): void {
    if (o.protocol !== 'http') return;
    const pull = ociPullOf(o);
    if (pull === undefined) return;
    if (pull.digest === undefined) { this.tagPulls++; return; }
    const seen = this.byDigest.get(pull.digest);
    if (seen !== undefined) {
      seen.pulls++;
      if (seen.sequences.length < SEQUENCES_KEPT) seen.sequences.push(pull.sequence);
      return;
    }
    if (this.byDigest.size >= this.maxArtifacts) { this.omitted++; return; }
    this.byDigest.set(pull.digest, { digest: pull.digest, registry: pull.registry, repository: pull.repository, reference: pull.reference, sequences: [pull.sequence], pulls: 1 });
  }

  /** In the order first pulled. */
  artifacts(): PulledArtifact[] {
    return [...this.byDigest.values()];
  }
}

/**
 * What looking an artifact up gave: its record, none (the service knows no such artifact), a failure, or no lookup.
 * @beta
 */
export type ArtifactLookup =
  | { status: 'found'; record: unknown }
  | { status: 'unknown'; message: string }
  | { status: 'error'; message: string }
  | { status: 'skipped'; message: string };

/**
 * A publication as explain reports it (camelCase; the service's strings exactly).
 * @beta
 */
export interface PublicationSummary {
  acceptedAt: string;
  job: { provider: string; repository: string; jobId: string; id?: string };
  /** Where it was published (OCI publications): registry, repository path, tag or digest reference. */
  registry?: string;
  repository?: string;
  reference?: string;
  purl?: string;
}

/**
 * A pulled artifact in the provenance report (`provenanceEntry`): where it came from, its lookup's outcome and, when found, its newest publication.
 * @beta
 */
export interface ProvenanceEntry extends PulledArtifact {
  status: ArtifactLookup['status'];
  /** `found`: the record's kind and id, and how many publications it has. */
  artifact?: { kind: string; id: string; publications: number };
  /** `found`: the newest publication (null when the record has none). */
  publication?: PublicationSummary | null;
  /** `found`: whether the newest publication's job ran in one of the user's repositories (null without one). */
  own?: boolean | null;
  /** Why there is no record (`unknown`, `error`, `skipped`). */
  error?: string;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const text = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

function summary(p: Record<string, unknown>): PublicationSummary {
  const job = isObject(p.job) ? p.job : {};
  const provider = isObject(job.provider) ? job.provider : {};
  const meta = isObject(p.metadata) ? p.metadata : {};
  const out: PublicationSummary = {
    acceptedAt: text(p.accepted_at) ?? '',
    job: { provider: text(provider.provider) ?? '', repository: text(provider.repository) ?? '', jobId: text(provider.job_id) ?? '' },
  };
  const id = text(job.id);
  if (id !== undefined) out.job.id = id;
  if (meta.kind === 'oci') {
    for (const [from, to] of [['registry', 'registry'], ['repository', 'repository'], ['reference', 'reference']] as const) {
      const v = text(meta[from]);
      if (v !== undefined) out[to] = v;
    }
  }
  const purl = text(p.purl);
  if (purl !== undefined) out.purl = purl;
  return out;
}

/**
 * The newest of a record's publications: the latest `accepted_at`. The service lists them newest
 * first, but the time decides; among equal or unreadable times the one listed first wins.
 * @beta
 */
export function newestPublication(publications: unknown): PublicationSummary | undefined {
  if (!Array.isArray(publications)) return undefined;
  let best: Record<string, unknown> | undefined;
  let bestTime = -Infinity;
  for (const p of publications) {
    if (!isObject(p)) continue;
    const t = typeof p.accepted_at === 'string' ? Date.parse(p.accepted_at) : NaN;
    const time = Number.isNaN(t) ? -Infinity : t;
    if (best === undefined || time > bestTime) { best = p; bestTime = time; }
  }
  return best === undefined ? undefined : summary(best);
}

/**
 * Whether a repository is the user's own: it is one of `exact` (compared without regard to case:
 * the job's own repository, as the trace names it) or matches one of `patterns` (repository
 * patterns as in policies, decisions.md D3: `acme/webapp`, `acme/*`; case-insensitive).
 * @beta
 */
export function ownRepositories(patterns: readonly string[], exact: readonly string[] = []): (repository: string) => boolean {
  const names = new Set(exact.map((r) => r.toLowerCase()));
  return (repository) => repository !== '' && (names.has(repository.toLowerCase()) || patterns.some((p) => matchRepositoryPattern(p, repository)));
}

/**
 * The report's entry for a pulled artifact, given its lookup.
 * @beta
 */
export function provenanceEntry(pulled: PulledArtifact, lookup: ArtifactLookup, isOwn: (repository: string) => boolean): ProvenanceEntry {
  const entry: ProvenanceEntry = {
    digest: pulled.digest, registry: pulled.registry, repository: pulled.repository, reference: pulled.reference,
    sequences: pulled.sequences, pulls: pulled.pulls, status: lookup.status,
  };
  if (lookup.status !== 'found') {
    entry.error = lookup.message;
    return entry;
  }
  const record = isObject(lookup.record) ? lookup.record : {};
  const publications = Array.isArray(record.publications) ? record.publications : [];
  entry.artifact = { kind: text(record.kind) ?? '', id: text(record.id) ?? '', publications: publications.length };
  const newest = newestPublication(publications);
  entry.publication = newest ?? null;
  entry.own = newest === undefined ? null : isOwn(newest.job.repository);
  return entry;
}

/**
 * Counts of a provenance report (the JSON summary's `provenance`).
 * @beta
 */
export interface ProvenanceCounts {
  /** Distinct manifests and indexes pulled by digest (or by a tag whose digest the trace shows); an upper bound when `omitted`. */
  artifacts: number;
  found: number;
  /** Found, newest publication from one of the user's repositories. */
  own: number;
  /** Found, newest publication from another repository. */
  foreign: number;
  /** Found with no publication, or unknown to the service. */
  unpublished: number;
  failed: number;
  skipped: number;
  /** Pulls by tag whose digest the trace does not show. */
  tagPulls: number;
  /** Pulls of digests beyond what the report keeps (not listed, not looked up; an upper bound on those digests). */
  omitted: number;
}

/**
 * The report's counts, from its entries and what the collector counted without keeping (tag pulls, digests beyond its bound).
 * @beta
 */
export function provenanceCounts(entries: readonly ProvenanceEntry[], collector: Pick<PullCollector, 'tagPulls' | 'omitted'>): ProvenanceCounts {
  const c: ProvenanceCounts = { artifacts: entries.length + collector.omitted, found: 0, own: 0, foreign: 0, unpublished: 0, failed: 0, skipped: 0, tagPulls: collector.tagPulls, omitted: collector.omitted };
  for (const e of entries) {
    if (e.status === 'found') {
      c.found++;
      if (e.own === true) c.own++;
      else if (e.own === false) c.foreign++;
      else c.unpublished++;
    } else if (e.status === 'unknown') c.unpublished++;
    else if (e.status === 'error') c.failed++;
    else c.skipped++;
  }
  return c;
}
