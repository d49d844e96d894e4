/**
 * `explain --provenance`: for each OCI manifest or index the job pulled by digest (core's
 * PullCollector), its newest publication from the service's artifacts operation, and whether the
 * job that published it ran in one of the user's repositories (docs/attribution.md, "Provenance").
 * Bounded (at most `limit` artifacts looked up in a run, each at most once), and a failed lookup is
 * reported on its artifact, never fatal.
 */
import { ApiError, NetpolicyError, PROBLEM_TYPES, type ArtifactKind, type DigestAlgorithm, type NetpolicyClient } from '@netpolicy/client';
import { provenanceCounts, provenanceEntry, ResultProvenanceIndex, type ArtifactLookup, type ResultProvenance, type ProvenanceCounts, type ExplainResult, type ProvenanceEntry, type PullCollector, type PulledArtifact } from '@netpolicy/core';
import { clipped } from '@netpolicy/core/internal';
import { paint } from '../../io';

export const DEFAULT_PROVENANCE_LIMIT = 50;
/** Lookups in flight at once. */
const CONCURRENCY = 4;
/** The kinds a pulled manifest may be, in the order asked: a platform manifest, else an index. */
const KINDS: readonly ArtifactKind[] = ['oci_manifest', 'oci_index'];

/**
 * Looks artifacts up, each digest once per run (the lookup is kept for a second pass), at most
 * `limit` digests in all. After a failure that every further lookup would share (authentication,
 * the service unavailable once retries ran out, a refused configuration), the rest are not asked.
 */
export class ProvenanceLookups {
  private readonly cache = new Map<string, Promise<ArtifactLookup>>();
  /** Why further lookups are not made (set by the first failure that every lookup would share). */
  private stopped: string | undefined;

  constructor(private readonly client: NetpolicyClient, readonly limit: number) {}

  /** Lookups of `artifacts`, in their order. */
  async lookUp(artifacts: readonly PulledArtifact[]): Promise<ArtifactLookup[]> {
    const out: ArtifactLookup[] = new Array(artifacts.length);
    let next = 0;
    const worker = async () => {
      while (next < artifacts.length) {
        const i = next++;
        out[i] = await this.one(artifacts[i].digest);
      }
    };
    await Promise.all(Array.from({ length: Math.min(CONCURRENCY, artifacts.length) }, worker));
    return out;
  }

  private one(digest: string): Promise<ArtifactLookup> {
    const cached = this.cache.get(digest);
    if (cached !== undefined) return cached;
    if (this.cache.size >= this.limit) return Promise.resolve({ status: 'skipped', message: `not looked up: over --provenance-limit ${this.limit}` });
    if (this.stopped !== undefined) return Promise.resolve({ status: 'skipped', message: `not looked up: an earlier lookup failed (${this.stopped})` });
    const pending = this.ask(digest);
    this.cache.set(digest, pending);
    return pending;
  }

  private async ask(digest: string): Promise<ArtifactLookup> {
    const colon = digest.indexOf(':');
    const digestAlgorithm = digest.slice(0, colon) as DigestAlgorithm, digestValue = digest.slice(colon + 1);
    for (const kind of KINDS) {
      if (this.stopped !== undefined) return { status: 'skipped', message: `not looked up: an earlier lookup failed (${this.stopped})` };
      try {
        const { data } = await this.client.findArtifact({ kind, digestAlgorithm, digestValue });
        return { status: 'found', record: data };
      } catch (error) {
        if (!(error instanceof NetpolicyError)) throw error;
        if (error.kind === 'not-found') continue;
        const message = lookupFailure(error);
        if (sharedByEveryLookup(error)) this.stopped ??= message;
        return { status: 'error', message };
      }
    }
    return { status: 'unknown', message: 'the service has no record of this digest as an OCI manifest or index' };
  }
}

/** A failure that every other lookup would meet too: stop asking. A stored record that is invalid is that record's own. */
function sharedByEveryLookup(error: NetpolicyError): boolean {
  if (error.kind === 'authentication' || error.kind === 'config') return true;
  return error.kind === 'unavailable' && !(error instanceof ApiError && error.problem?.type === PROBLEM_TYPES.storedArtifactInvalid);
}

/** The client's message (the token already removed), with the problem's detail when it adds one. */
function lookupFailure(error: NetpolicyError): string {
  const detail = error instanceof ApiError ? error.problem?.detail : undefined;
  return detail && !error.message.includes(detail) ? `${error.message}: ${detail}` : error.message;
}

/** The report's provenance: an entry per pulled artifact, the counts, and each result's member. */
export interface Provenance {
  entries: ProvenanceEntry[];
  counts: ProvenanceCounts;
  limit: number;
  /** The `provenance` member of each result that pulled an OCI manifest, index or blob by digest. */
  perResult: ResultProvenanceIndex;
}

/** Looks up what `pulls` gathered and makes the report's entries (`isOwn` judges a publication's repository). */
export async function provenanceOf(pulls: PullCollector, lookups: ProvenanceLookups, isOwn: (repository: string) => boolean): Promise<Provenance> {
  const artifacts = pulls.artifacts();
  const found = await lookups.lookUp(artifacts);
  const entries = artifacts.map((a, i) => provenanceEntry(a, found[i], isOwn));
  return { entries, counts: provenanceCounts(entries, pulls), limit: lookups.limit, perResult: new ResultProvenanceIndex(entries, pulls.maxArtifacts) };
}

// ---- reports ----------------------------------------------------------------------------------

/** `"provenance":[...]` (a member of the JSON report's top level): one entry per line. */
export function provenanceJson(p: Provenance): string {
  if (p.entries.length === 0) return '"provenance": []';
  return `"provenance": [\n${p.entries.map((e) => `    ${JSON.stringify(e)}`).join(',\n')}\n  ]`;
}

/**
 * The JSON text of results' `provenance` members: one text per digest (each pull of a digest has
 * the same member object), so a digest pulled a thousand times is serialised once.
 */
export class ResultProvenanceJson {
  private readonly texts = new Map<ResultProvenance, string>();

  constructor(private readonly provenance: Provenance) {}

  /** `,"provenance":{...}` for a result that pulled an OCI artifact by digest, else ''. */
  member(r: ExplainResult): string {
    const p = this.provenance.perResult.of(r.observation);
    if (p === undefined) return '';
    let text = this.texts.get(p);
    if (text === undefined) this.texts.set(p, (text = `,"provenance":${JSON.stringify(p)}`));
    return text;
  }
}

/** The summary's `provenance` member. */
export function provenanceCountsJson(p: Provenance): string {
  return `"provenance":${JSON.stringify(p.counts)}`;
}

/** Outside text on one line: control characters escaped, clipped. */
const e = (text: string): string => clipped(text, 500);

/** What was pulled: `registry/repository@digest`, or `registry/repository:tag` with the digest the trace recorded. */
export function pulledAs(x: Pick<ProvenanceEntry, 'registry' | 'repository' | 'reference' | 'digest'>): string {
  return x.reference.toLowerCase() === x.digest ? `${x.registry}/${x.repository}@${x.digest}` : `${x.registry}/${x.repository}:${x.reference} (${x.digest})`;
}

/** `ciprovider acme/webapp job 1004`. */
const jobOf = (x: ProvenanceEntry): string => {
  const j = x.publication!.job;
  return `${j.provider || '?'} ${j.repository || '?'} job ${j.jobId || '?'}`;
};

function publishedAs(x: ProvenanceEntry): string | undefined {
  const p = x.publication;
  if (!p || p.registry === undefined || p.repository === undefined) return undefined;
  return `${p.registry}/${p.repository}${p.reference !== undefined ? `${p.reference.includes(':') ? '@' : ':'}${p.reference}` : ''}`;
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/**
 * A result's provenance in one line (the text report's `provenance:` line, the Markdown report's
 * Provenance cell, before escaping): undefined when the result pulled no OCI artifact by digest.
 */
export function resultProvenanceLine(p: Provenance, r: ExplainResult): string | undefined {
  const x = p.perResult.of(r.observation);
  if (x === undefined) return undefined;
  if ('error' in x) return x.error;
  const pub = x.publication;
  if (pub === null) return `the service knows this ${x.artifact.kind} but no publication of it`;
  const j = pub.job;
  return `newest publication ${pub.acceptedAt} by ${j.provider || '?'} ${j.repository || '?'} job ${j.jobId || '?'} (${pub.own ? 'your repository' : 'not your repository'})`;
}

/** The headline's parts: how many came from where, how many could not be told. */
function countsLine(c: ProvenanceCounts): string {
  const parts: string[] = [];
  if (c.own) parts.push(`${c.own} from your repositories`);
  if (c.foreign) parts.push(`${c.foreign} from other repositories`);
  if (c.unpublished) parts.push(`${c.unpublished} with no publication known`);
  if (c.failed) parts.push(`${plural(c.failed, 'lookup')} failed`);
  if (c.skipped) parts.push(`${c.skipped} not looked up`);
  return `${plural(c.artifacts, 'artifact')}${parts.length ? ` (${parts.join(', ')})` : ''}`;
}

/** The text report's section. */
export function provenanceText(p: Provenance, color: boolean): string[] {
  const c = paint(color);
  const out = [c.bold(`Provenance of pulled images: ${countsLine(p.counts)}`), ''];
  for (const x of p.entries) {
    const seq = `(sequence ${x.sequences.join(', ')}${x.pulls > x.sequences.length ? ', …' : ''})`;
    const mark = x.status === 'found' ? (x.own ? c.green('✓') : x.own === false ? c.yellow('!') : '?') : x.status === 'error' ? c.red('✗') : x.status === 'unknown' ? '?' : '·';
    out.push(`  ${mark} ${c.bold(e(pulledAs(x)))}${x.pulls > 1 ? c.gray(`  ×${x.pulls}`) : ''}  ${c.gray(seq)}`);
    if (x.status === 'found' && x.publication) {
      const as = publishedAs(x);
      out.push(`      newest publication: ${e(x.publication.acceptedAt)} by ${e(jobOf(x))} (${x.own ? 'your repository' : 'not your repository'})${as ? `, as ${e(as)}` : ''}; ${plural(x.artifact!.publications, 'publication')} of this ${e(x.artifact!.kind)}`);
    } else if (x.status === 'found') out.push(`      the service knows this ${e(x.artifact!.kind)} but no publication of it`);
    else if (x.status === 'error') out.push(`      lookup failed: ${e(x.error!)}`);
    else out.push(`      ${e(x.error!)}`);
  }
  if (p.entries.length) out.push('');
  if (p.counts.omitted) out.push(`  … and ${plural(p.counts.omitted, 'more pull')} of other artifacts, neither listed nor looked up`, '');
  if (p.counts.tagPulls) out.push(`  ${plural(p.counts.tagPulls, 'pull')} by tag whose digest the trace does not show (not looked up)`, '');
  return out;
}

function md(text: string): string {
  return e(text.replace(/\|/g, '\\|').replace(/\n/g, ' '));
}

/** The Markdown report's section: a table of the pulled artifacts. */
export function provenanceMarkdown(p: Provenance): string[] {
  const out = ['### Provenance of pulled images', '', `${countsLine(p.counts)}.`, ''];
  if (p.entries.length) {
    out.push('| Pulled | Newest publication | Published by | Own repository |', '|---|---|---|---|');
    for (const x of p.entries) {
      let when = '', by = '', own = '';
      if (x.status === 'found' && x.publication) {
        const as = publishedAs(x);
        when = `${md(x.publication.acceptedAt)}${as ? `<br>as \`${md(as)}\`` : ''}`;
        by = md(jobOf(x));
        own = x.own ? 'yes' : 'no';
      } else if (x.status === 'found') when = 'no publication';
      else when = x.status === 'error' ? `lookup failed: ${md(x.error!)}` : md(x.error!);
      out.push(`| \`${md(pulledAs(x))}\` | ${when} | ${by} | ${own} |`);
    }
    out.push('');
  }
  if (p.counts.omitted) out.push(`${plural(p.counts.omitted, 'more pull')} of other artifacts, neither listed nor looked up.`, '');
  if (p.counts.tagPulls) out.push(`${plural(p.counts.tagPulls, 'pull')} by tag whose digest the trace does not show (not looked up).`, '');
  return out;
}
