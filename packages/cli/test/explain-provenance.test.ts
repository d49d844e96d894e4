/**
 * `explain --provenance` (who published each manifest or index the job pulled) and `explain --repo
 * --job-id [--sbom service]` (the trace and SBOM from the service), against `netpolicy serve` on
 * 127.0.0.1 over a copy of fixtures/service with a job that pulls images.
 */
import { execFileSync, spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bin, ensureBuilt, exited, root, run, spawnServe, type ServeProcess } from './fetch-cli-helpers';

const D = {
  amd64: 'e05c85fd17a3e3eb528839e2a2f2c75b0638c55fef02c6c7911beec10f064c80',
  arm64: '3e80ff5bed3ae0ddac301760e88e52c1483fb9a23124429725bfa91eaee08280',
  index: '868dfb80e04fb9a480e2bec30e6fef3d460f55877acf9c210e3bd2ac49b79c11',
  invalid512: '20681df9632a294117f065d1e656b9959a6054a81258674fa0c4eb23f85bb874a4bc8e68c5056da23103f0f9a50ac2603cc2e9cc92d6610480097a828b71c50d',
  unknown: 'a'.repeat(64),
  tool: 'b'.repeat(64),
};
const REG = 'https://registry.example.com/v2/acme/webapp';

/** A deploy job of acme/deploy that pulls acme/webapp's images and a tool published elsewhere. */
function deployTrace() {
  const observations: Record<string, unknown>[] = [];
  const get = (url: string, more: Record<string, unknown> = {}) => observations.push({
    protocol: 'http', observed_at: '2026-01-05T10:00:00Z', sequence: observations.length + 1, method: 'GET', url,
    remote_ip: '192.0.2.10', status_code: 200, response_body_size: '1200', denied: false, matched_rule: '/sources/0', ...more,
  });
  get(`${REG}/manifests/2.8.0`, { docker_content_digest: `sha256:${D.index}` }); // 1: a tag, resolved by the trace
  get(`${REG}/manifests/sha256:${D.amd64}`); // 2
  get(`${REG}/blobs/sha256:${D.unknown}`); // 3: a layer, not an artifact of the service
  get(`${REG}/manifests/sha256:${D.amd64}`); // 4: again (one lookup)
  get(`https://ghcr.example.com/v2/other/tool/manifests/sha256:${D.tool}`); // 5: published by other/tool
  get(`${REG}/manifests/sha512:${D.invalid512}`); // 6: the stored record is invalid (503)
  get(`https://ghcr.example.com/v2/other/tool/manifests/sha256:${D.unknown}`); // 7: no record
  get(`${REG}/manifests/latest`); // 8: a tag the trace shows no digest for
  get(`${REG}/manifests/sha256:${D.arm64}`, { denied: true, denied_reason: 'no rule', status_code: 403 }); // 9: denied: not pulled
  get(`${REG}/manifests/sha256:${D.arm64}`); // 10
  return {
    schema_version: '1.0',
    job: { provider: 'ciprovider', repository: 'acme/deploy', job_id: '2001', job_name: 'deploy', run_id: '7', run_attempt: 1, workflow: '.ci/deploy.yml', branch: 'main', commit: '0'.repeat(40), status: 'success' },
    observations,
  };
}

const toolRecord = {
  id: 'art-tool', digest_algorithm: 'sha256', digest_value: D.tool, kind: 'oci_manifest', contents: [],
  publications: [
    { id: 'pub-t1', accepted_at: '2025-10-01T00:00:00Z', job: { id: 'job-t1', provider: { provider: 'ciprovider', job_id: '55', repository: 'other/tool' } }, metadata: { kind: 'oci', media_type: 'application/vnd.oci.image.manifest.v1+json', reference: '1.0', registry: 'ghcr.example.com', repository: 'other/tool' } },
  ],
};

let data: string;
let serve: ServeProcess;
let policy: string;
let traceFile: string;

beforeAll(async () => {
  ensureBuilt();
  data = mkdtempSync(join(tmpdir(), 'netpolicy-provenance-'));
  cpSync(join(root, 'fixtures/service'), join(data, 'service'), { recursive: true });
  const job = join(data, 'service/jobs/ciprovider/acme/deploy/2001');
  mkdirSync(job, { recursive: true });
  writeFileSync(join(job, 'job.json'), JSON.stringify({ status: 'success', terminal: true }));
  traceFile = join(job, 'trace.json');
  writeFileSync(traceFile, JSON.stringify(deployTrace(), null, 1));
  writeFileSync(join(data, `service/artifacts/oci_manifest/sha256-${D.tool}.json`), JSON.stringify(toolRecord));
  policy = join(data, 'policy.netpolicy.json');
  writeFileSync(policy, JSON.stringify({ presets: [], sources: [{ oci: { urls: ['https://registry.example.com'], operations: ['pull'] } }] }));
  serve = await spawnServe(['--data', join(data, 'service'), '--port', '0']);
});
afterAll(async () => {
  serve?.child.kill('SIGTERM');
  if (serve) await exited(serve.child);
  rmSync(data, { recursive: true, force: true });
});

const env = (token = 'demo-token-valid') => ({ NETPOLICY_BASE_URL: serve.url, NETPOLICY_TOKEN: token });
/** Artifacts requests the service has logged so far. */
const artifactRequests = () => serve.stderr().split('\n').filter((l) => l.startsWith('GET /v1preview1/artifacts ')).length;
async function requestsDuring<T>(f: () => Promise<T>): Promise<{ result: T; requests: number }> {
  const before = artifactRequests();
  const result = await f();
  await new Promise((r) => setTimeout(r, 50)); // the log line follows the response
  return { result, requests: artifactRequests() - before };
}

type Entry = Record<string, any>;
const byDigest = (report: { provenance: Entry[] }) => new Map(report.provenance.map((e) => [e.digest, e]));

describe('explain --provenance', () => {
  it('reports the newest publication of each artifact pulled, per digest, with failures on their artifact', async () => {
    const { result: r, requests } = await requestsDuring(() => run(['explain', '--policy', policy, '--trace', traceFile, '--provenance', '--format', 'json', '--only', 'denied'], env()));
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout);
    // One entry per digest, in the order first pulled; the blob, the denied pull and the tag without a digest are not artifacts.
    expect(report.provenance.map((e: Entry) => [e.digest, e.status, e.sequences])).toEqual([
      [`sha256:${D.index}`, 'found', [1]],
      [`sha256:${D.amd64}`, 'found', [2, 4]],
      [`sha256:${D.tool}`, 'found', [5]],
      [`sha512:${D.invalid512}`, 'error', [6]],
      [`sha256:${D.unknown}`, 'unknown', [7]],
      [`sha256:${D.arm64}`, 'found', [10]],
    ]);
    const e = byDigest(report);
    // The tag's digest is an index: asked as a manifest (404), then as an index.
    expect(e.get(`sha256:${D.index}`)).toMatchObject({ registry: 'registry.example.com', repository: 'acme/webapp', reference: '2.8.0', pulls: 1, artifact: { kind: 'oci_index', id: 'art-index', publications: 1 } });
    // Two publications: the newest (job 1004) is reported, with where it was published.
    expect(e.get(`sha256:${D.amd64}`)).toEqual({
      digest: `sha256:${D.amd64}`, registry: 'registry.example.com', repository: 'acme/webapp', reference: `sha256:${D.amd64}`, sequences: [2, 4], pulls: 2, status: 'found',
      artifact: { kind: 'oci_manifest', id: 'art-amd64', publications: 2 },
      publication: { acceptedAt: '2025-11-06T08:01:12Z', job: { provider: 'ciprovider', repository: 'acme/webapp', jobId: '1004', id: 'job-6c2a91' }, registry: 'registry.example.com', repository: 'acme/webapp', reference: 'latest-amd64' },
      own: false, // the trace's job is acme/deploy's
    });
    expect(e.get(`sha256:${D.tool}`)).toMatchObject({ publication: { job: { repository: 'other/tool', jobId: '55' } }, own: false });
    expect(e.get(`sha512:${D.invalid512}`).error).toMatch(/503.*Stored artifact invalid/);
    expect(e.get(`sha256:${D.unknown}`)).toMatchObject({ error: 'the service has no record of this digest as an OCI manifest or index' });
    expect(report.summary.provenance).toEqual({ artifacts: 6, found: 4, own: 0, foreign: 4, unpublished: 1, failed: 1, skipped: 0, tagPulls: 1, omitted: 0 });
    // index: 2 (manifest 404, index), amd64 1 (its second pull cached), tool 1, sha512: 4 attempts (503 retried),
    // unknown: 2 (manifest and index both 404), arm64 1.
    expect(requests).toBe(11);
    // Without --provenance the report has no such member.
    const plain = JSON.parse((await run(['explain', '--policy', policy, '--trace', traceFile, '--format', 'json'], env())).stdout);
    expect(plain.provenance).toBeUndefined();
    expect(plain.summary.provenance).toBeUndefined();
  });

  it('counts the trace\'s repository and --own-repo repositories and patterns as the user\'s own', async () => {
    const ownAs = async (args: string[], repoOfTrace?: string) => {
      let trace = traceFile;
      if (repoOfTrace) {
        const t = deployTrace();
        t.job.repository = repoOfTrace;
        trace = join(data, `trace-${repoOfTrace.replace('/', '-')}.json`);
        writeFileSync(trace, JSON.stringify(t));
      }
      const r = await run(['explain', '--policy', policy, '--trace', trace, '--provenance', '--format', 'json', ...args], env());
      expect(r.code).toBe(0);
      const e = byDigest(JSON.parse(r.stdout));
      return [e.get(`sha256:${D.amd64}`)!.own, e.get(`sha256:${D.tool}`)!.own, e.get(`sha256:${D.unknown}`)!.own];
    };
    expect(await ownAs([], 'ACME/WebApp')).toEqual([true, false, undefined]);
    expect(await ownAs(['--own-repo', 'acme/webapp'])).toEqual([true, false, undefined]);
    expect(await ownAs(['--own-repo', 'acme/*', '--own-repo', 'other/tool'])).toEqual([true, true, undefined]);
    expect(await ownAs(['--own-repo', 'acme/web'])).toEqual([false, false, undefined]);
  });

  it('looks up at most --provenance-limit artifacts; the rest are listed as not looked up', async () => {
    const { result: r, requests } = await requestsDuring(() => run(['explain', '--policy', policy, '--trace', traceFile, '--provenance', '--provenance-limit', '2', '--format', 'json'], env()));
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.provenance.map((e: Entry) => e.status)).toEqual(['found', 'found', 'skipped', 'skipped', 'skipped', 'skipped']);
    expect(report.provenance[2].error).toBe('not looked up: over --provenance-limit 2');
    expect(requests).toBe(3); // the index (manifest 404, then index) and amd64
    const none = await requestsDuring(() => run(['explain', '--policy', policy, '--trace', traceFile, '--provenance', '--provenance-limit', '0', '--format', 'json'], env()));
    expect(JSON.parse(none.result.stdout).summary.provenance).toMatchObject({ artifacts: 6, found: 0, skipped: 6 });
    expect(none.requests).toBe(0);
  });

  it('stops asking after a failure every lookup would share (authentication), and still explains (exit 0)', async () => {
    const { result: r, requests } = await requestsDuring(() => run(['explain', '--policy', policy, '--trace', traceFile, '--provenance', '--format', 'json'], env('demo-token-expired')));
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout);
    const statuses = report.provenance.map((e: Entry) => e.status);
    expect(statuses.filter((s: string) => s === 'error').length).toBeGreaterThanOrEqual(1);
    expect(statuses.filter((s: string) => s === 'error' || s === 'skipped').length).toBe(6);
    expect(report.provenance.find((e: Entry) => e.status === 'error').error).toMatch(/401|expired/i);
    expect(report.provenance.at(-1).error).toMatch(/^not looked up: an earlier lookup failed/);
    expect(requests).toBeLessThanOrEqual(4); // the lookups already in flight, no more
    expect(r.stdout).not.toContain('demo-token-expired');
    expect(r.stderr).not.toContain('demo-token-expired');
  });

  it('text: a section per artifact; Markdown: a table', async () => {
    const text = await run(['explain', '--policy', policy, '--trace', traceFile, '--provenance', '--own-repo', 'acme/webapp'], env());
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('Provenance of pulled images: 6 artifacts (3 from your repositories, 1 from other repositories, 1 with no publication known, 1 lookup failed)');
    expect(text.stdout).toContain(`✓ registry.example.com/acme/webapp@sha256:${D.amd64}  ×2  (sequence 2, 4)`);
    expect(text.stdout).toContain('newest publication: 2025-11-06T08:01:12Z by ciprovider acme/webapp job 1004 (your repository), as registry.example.com/acme/webapp:latest-amd64; 2 publications of this oci_manifest');
    expect(text.stdout).toContain(`! ghcr.example.com/other/tool@sha256:${D.tool}`);
    expect(text.stdout).toMatch(/✗ registry\.example\.com\/acme\/webapp@sha512:\S+  \(sequence 6\)\n {6}lookup failed: .*503/);
    expect(text.stdout).toContain('1 pull by tag whose digest the trace does not show (not looked up)');
    const md = await run(['explain', '--policy', policy, '--trace', traceFile, '--provenance', '--format', 'markdown'], env());
    expect(md.code).toBe(0);
    expect(md.stdout).toContain('### Provenance of pulled images');
    expect(md.stdout).toContain('| Pulled | Newest publication | Published by | Own repository |');
    expect(md.stdout).toContain(`| \`registry.example.com/acme/webapp:2.8.0 (sha256:${D.index})\` | 2025-11-03T09:16:50Z<br>as \`registry.example.com/acme/webapp:2.8.0\` | ciprovider acme/webapp job 1001 | no |`);
  });

  it('prints the service\'s strings with control characters escaped (text, Markdown); JSON keeps them exactly', async () => {
    const digest = 'c'.repeat(64);
    const evil = 'evil\u001b[31m/x\u0007';
    writeFileSync(join(data, `service/artifacts/oci_manifest/sha256-${digest}.json`), JSON.stringify({
      ...toolRecord, id: 'art-evil\u001b[2J', digest_value: digest,
      publications: [{ ...toolRecord.publications[0], job: { id: 'j\u001b[0m', provider: toolRecord.publications[0].job.provider }, metadata: { ...toolRecord.publications[0].metadata, repository: evil, reference: 'r\u001b]0;title\u0007' } }],
    }));
    const t = deployTrace();
    // The second pull is a denial: its provenance line (text) and cell (Markdown) too.
    t.observations = [{ ...t.observations[1], url: `${REG}/manifests/sha256:${digest}` }, { ...t.observations[1], sequence: 3, url: `https://ghcr.example.com/v2/x/manifests/sha256:${digest}` }];
    const trace = join(data, 'trace-evil.json');
    writeFileSync(trace, JSON.stringify(t));
    for (const format of ['text', 'markdown']) {
      const r = await run(['explain', '--policy', policy, '--trace', trace, '--provenance', '--format', format], env());
      expect(r.code).toBe(0);
      expect(r.stdout).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
      expect(r.stdout).toContain('evil\\u001b[31m/x');
      expect(r.stdout).toContain('newest publication 2025-10-01T00:00:00Z by ciprovider other/tool job 55 (not your repository)');
    }
    const json = JSON.parse((await run(['explain', '--policy', policy, '--trace', trace, '--provenance', '--format', 'json'], env())).stdout);
    expect(json.provenance[0].publication).toMatchObject({ repository: evil, reference: 'r\u001b]0;title\u0007', job: { id: 'j\u001b[0m' } });
    expect(json.provenance[0].artifact.id).toBe('art-evil\u001b[2J');
    expect(json.results[1].provenance.publication).toMatchObject({ repository: evil, job: { id: 'j\u001b[0m' } });
  });

  it('refuses what cannot work, before any request (exit 2)', async () => {
    const cases: [string[], Record<string, string>, RegExp][] = [
      [['--provenance-limit', '3'], env(), /--provenance-limit applies only with --provenance/],
      [['--own-repo', 'acme/x'], env(), /--own-repo applies only with --provenance/],
      [['--provenance', '--provenance-limit=-1'], env(), /--provenance-limit must be a whole number from 0 to 10000/],
      [['--provenance', '--provenance-limit', '10001'], env(), /--provenance-limit must be a whole number/],
      [['--provenance', '--own-repo', 'acme//x'], env(), /--own-repo: "acme\/\/x" is not a repository/],
      [['--provenance', '--format', 'github'], env(), /--provenance applies to --format text, json and markdown/],
      [['--provenance'], { NETPOLICY_TOKEN: 'demo-token-valid' }, /no service base URL for --provenance/],
      [['--provenance'], { NETPOLICY_BASE_URL: 'http://provenance.example', NETPOLICY_TOKEN: 'demo-token-valid' }, /plain http to a non-loopback host/],
      [['--base-url', 'https://x.example'], {}, /--base-url applies only with --repo\/--job-id or --provenance/],
    ];
    for (const [args, e, message] of cases) {
      const { result: r, requests } = await requestsDuring(() => run(['explain', '--policy', policy, '--trace', traceFile, ...args], e));
      expect({ args, code: r.code }).toEqual({ args, code: 2 });
      expect(r.stderr).toMatch(message);
      expect(requests).toBe(0);
    }
  });
});

describe('explain --provenance: each result\'s provenance member', () => {
  /** The deploy trace with accesses that are no OCI pull: a package download, a TCP connection, DNS. */
  function mixedTrace() {
    const t = deployTrace();
    const o = t.observations;
    const base = { observed_at: '2026-01-05T10:00:01Z', remote_ip: '192.0.2.20' };
    o.push({ ...base, protocol: 'http', sequence: o.length + 1, method: 'GET', url: 'https://registry.npmjs.org/express/-/express-4.21.2.tgz', status_code: 200, denied: false });
    o.push({ ...base, protocol: 'tcp', sequence: o.length + 1, remote_port: 5432, denied: false });
    o.push({ observed_at: '2026-01-05T10:00:02Z', protocol: 'dns', sequence: o.length + 1, query: 'db.example.com', type: 'A', answers: ['192.0.2.20'] });
    // A blob by digest (a layer), and a HEAD of a manifest (no pull).
    o.push({ ...base, protocol: 'http', sequence: o.length + 1, method: 'GET', url: `${REG}/blobs/sha256:${D.tool}`, status_code: 307, denied: false });
    o.push({ ...base, protocol: 'http', sequence: o.length + 1, method: 'HEAD', url: `${REG}/manifests/sha256:${D.amd64}`, status_code: 200, denied: false });
    return t;
  }
  let mixed: string;
  beforeAll(() => {
    mixed = join(data, 'trace-mixed.json');
    writeFileSync(mixed, JSON.stringify(mixedTrace()));
  });
  const explainJson = async (args: string[]) => {
    const r = await run(['explain', '--policy', policy, '--format', 'json', ...args], env());
    expect(r.code).toBe(0);
    return JSON.parse(r.stdout) as { results: Entry[]; summary: Entry; provenance: Entry[] };
  };
  const bySequence = (report: { results: Entry[] }) => new Map(report.results.map((x) => [x.sequence, x.provenance]));
  const BLOB = 'not looked up: a blob (a layer or image config); the service records manifests and indexes';

  it('is the artifact and newest publication of its digest\'s entry, or an error; absent where nothing was pulled by digest', async () => {
    const report = await explainJson(['--trace', mixed, '--provenance']);
    const p = bySequence(report);
    const entry = byDigest(report);
    const found = (digest: string) => {
      const e = entry.get(digest)!;
      return { artifact: { digest, ...e.artifact }, publication: { ...e.publication, own: e.own } };
    };
    expect(p.get(2)).toEqual({
      artifact: { digest: `sha256:${D.amd64}`, kind: 'oci_manifest', id: 'art-amd64', publications: 2 },
      publication: { acceptedAt: '2025-11-06T08:01:12Z', job: { provider: 'ciprovider', repository: 'acme/webapp', jobId: '1004', id: 'job-6c2a91' }, registry: 'registry.example.com', repository: 'acme/webapp', reference: 'latest-amd64', own: false },
    });
    expect(p.get(4)).toEqual(p.get(2)); // the digest's second pull
    expect(p.get(1)).toEqual(found(`sha256:${D.index}`)); // a tag, by the digest the trace recorded
    expect(p.get(1).artifact.kind).toBe('oci_index');
    expect(p.get(5)).toEqual(found(`sha256:${D.tool}`));
    expect(p.get(10)).toEqual(found(`sha256:${D.arm64}`));
    expect(p.get(6)).toEqual({ error: `lookup failed: ${entry.get(`sha512:${D.invalid512}`)!.error}` });
    expect(p.get(6).error).toMatch(/^lookup failed: .*503/);
    expect(p.get(7)).toEqual({ error: 'the service has no record of this digest as an OCI manifest or index' });
    expect(p.get(3)).toEqual({ error: BLOB }); // a layer by digest
    expect(p.get(14)).toEqual({ error: BLOB });
    // A tag without a recorded digest, a denied pull, a package download, TCP, DNS, a HEAD: no member.
    for (const seq of [8, 9, 11, 12, 13, 15]) expect({ seq, has: report.results.find((x) => x.sequence === seq)!.hasOwnProperty('provenance') }).toEqual({ seq, has: false });
    expect(report.results).toHaveLength(15);
  });

  it('says why when the lookup was skipped (the limit, an earlier failure that every lookup shares)', async () => {
    const p = bySequence(await explainJson(['--trace', mixed, '--provenance', '--provenance-limit', '2']));
    expect(p.get(1)).toHaveProperty('artifact');
    expect(p.get(2)).toHaveProperty('artifact');
    for (const seq of [5, 6, 7, 10]) expect(p.get(seq)).toEqual({ error: 'not looked up: over --provenance-limit 2' });
    const r = await run(['explain', '--policy', policy, '--format', 'json', '--trace', mixed, '--provenance'], env('demo-token-expired'));
    const q = bySequence(JSON.parse(r.stdout));
    const errors = [1, 2, 4, 5, 6, 7, 10].map((seq) => q.get(seq).error as string);
    expect(errors.some((x) => /^lookup failed: .*(401|expired)/i.test(x))).toBe(true);
    expect(errors.every((x) => /^lookup failed: .*(401|expired)/i.test(x) || x.startsWith('not looked up: an earlier lookup failed'))).toBe(true);
    expect(errors.at(-1)).toMatch(/^not looked up: an earlier lookup failed/);
  });

  it('leaves the rest of the JSON report as it is without --provenance', async () => {
    for (const only of ['all', 'denied']) {
      const plain = await explainJson(['--trace', mixed, '--only', only]);
      const withProvenance = await explainJson(['--trace', mixed, '--only', only, '--provenance']);
      expect(withProvenance.results.map(({ provenance: _p, ...rest }) => rest)).toEqual(plain.results);
      const { provenance: _counts, ...summary } = withProvenance.summary;
      expect(summary).toEqual(plain.summary);
      expect(Object.keys(withProvenance)).toEqual(['results', 'summary', 'provenance']);
    }
  });

  it('reads a trace on standard input or from a FIFO into memory: the report of the same trace as a file', async () => {
    const fromFile = await run(['explain', '--policy', policy, '--format', 'json', '--trace', mixed, '--provenance'], env());
    const timeless = (text: string) => JSON.parse(text.replace(/ in \d+(\.\d+)? s/g, ' in … s'));
    /** explain --trace `trace`, with the trace file written to its stdin, or to `fifo` once started. */
    const explainOnce = async (trace: string, fifo?: string) => {
      const child = spawn(process.execPath, [bin, 'explain', '--policy', policy, '--format', 'json', '--trace', trace, '--provenance'], {
        env: { PATH: process.env.PATH, NETPOLICY_RETRY_BASE_MS: '1', ...env() }, stdio: ['pipe', 'pipe', 'pipe'],
      });
      let stdout = '', stderr = '';
      child.stdout.on('data', (c) => (stdout += c));
      child.stderr.on('data', (c) => (stderr += c));
      if (fifo) { child.stdin.end(); await writeFile(fifo, readFileSync(mixed)); } else child.stdin.end(readFileSync(mixed));
      return { code: (await exited(child)).code, stdout, stderr };
    };
    const stdin = await explainOnce('-');
    expect(stdin.code).toBe(0);
    // The trace's DNS answer comes after the connection it names: read twice, no warning about it.
    expect(stdin.stderr).not.toContain('DNS answers arrived after connections');
    expect(timeless(stdin.stdout)).toEqual(timeless(fromFile.stdout));
    expect(bySequence(JSON.parse(stdin.stdout)).get(2)).toHaveProperty('publication.job.jobId', '1004');
    const fifo = join(data, 'trace.fifo');
    execFileSync('mkfifo', [fifo]);
    const fromFifo = await explainOnce(fifo, fifo);
    expect(fromFifo.code).toBe(0);
    expect(timeless(fromFifo.stdout)).toEqual(timeless(fromFile.stdout));
  });

  it('text: a provenance line under each shown access that pulled by digest; Markdown: a Provenance column', async () => {
    const text = await run(['explain', '--policy', policy, '--trace', mixed, '--provenance', '--own-repo', 'other/*'], env());
    expect(text.code).toBe(0);
    // ghcr.example.com is not in the policy: its pulls are denials, each with the provenance of what it pulled.
    const denial = (digest: string) => text.stdout.split('\n\n').find((b) => b.includes(`/manifests/sha256:${digest}`) && b.includes('nearest rule'))!;
    expect(denial(D.tool)).toContain('      provenance: newest publication 2025-10-01T00:00:00Z by ciprovider other/tool job 55 (your repository)\n');
    expect(denial(D.unknown)).toContain('      provenance: the service has no record of this digest as an OCI manifest or index\n');
    expect(text.stdout).toContain('Provenance of pulled images: 6 artifacts'); // the section stays
    expect(text.stdout).not.toMatch(/registry\.npmjs\.org[^\n]*\n(?: {6}[^\n]*\n)*? {6}provenance:/);
    const md = await run(['explain', '--policy', policy, '--trace', mixed, '--provenance', '--format', 'markdown'], env());
    expect(md.code).toBe(0);
    const head = md.stdout.split('\n').find((l) => l.startsWith('| Destination |'))!;
    expect(head).toBe('| Destination | Count | Recorded vs model | Nearest rule | Fix | Provenance |');
    const row = md.stdout.split('\n').find((l) => l.startsWith(`| \`GET https://ghcr.example.com/v2/other/tool/manifests/sha256:${D.tool}\``))!;
    expect(row).toMatch(/\| newest publication 2025-10-01T00:00:00Z by ciprovider other\/tool job 55 \(not your repository\) \|$/);
    const npm = md.stdout.split('\n').find((l) => l.includes('registry.npmjs.org'))!;
    expect(npm).toMatch(/\|  \|$/); // an empty Provenance cell
    // Without --provenance: no column.
    const plain = await run(['explain', '--policy', policy, '--trace', mixed, '--format', 'markdown'], env());
    expect(plain.stdout).toContain('| Destination | Count | Recorded vs model | Nearest rule | Fix |\n');
  });
});

describe('explain --repo --job-id (the trace and SBOM from the service)', () => {
  const webapp = join(root, 'fixtures/service/jobs/ciprovider/acme/webapp/1001');
  const webappPolicy = join(root, 'fixtures/service/policies/acme-webapp.netpolicy.json');

  it('gives the report explain gives for the same trace and SBOM as files', async () => {
    for (const format of ['json', 'text', 'markdown']) {
      const fromService = await run(['explain', '--policy', webappPolicy, '--repo', 'acme/webapp', '--job-id', '1001', '--sbom', 'service', '--format', format], env());
      const fromFiles = await run(['explain', '--policy', webappPolicy, '--trace', join(webapp, 'trace.json'), '--sbom', join(webapp, 'sbom.cdx.json'), '--format', format]);
      expect(fromService.stderr).toBe('');
      expect(fromService.code).toBe(fromFiles.code);
      expect(fromService.stdout).toBe(fromFiles.stdout);
    }
    const report = JSON.parse((await run(['explain', '--policy', webappPolicy, '--repo', 'acme/webapp', '--job-id', '1001', '--sbom', 'service', '--format', 'json'], env())).stdout);
    expect(report.summary.components).toBeDefined();
    expect(report.results.every((r: Entry) => Array.isArray(r.components))).toBe(true);
  });

  it('with --provenance, the job\'s own repository comes from the fetched trace', async () => {
    const r = await run(['explain', '--policy', policy, '--repo', 'acme/deploy', '--job-id', '2001', '--provenance', '--format', 'json'], env());
    expect(r.code).toBe(0);
    const fromFile = await run(['explain', '--policy', policy, '--trace', traceFile, '--provenance', '--format', 'json'], env());
    // The same report; a retried lookup's message says how long its attempts took.
    const timeless = (text: string) => JSON.parse(text.replace(/ in \d+(\.\d+)? s/g, ' in … s'));
    expect(timeless(r.stdout)).toEqual(timeless(fromFile.stdout));
    expect(JSON.parse(r.stdout).provenance).toHaveLength(6);
  });

  it('exits as fetch does when the service refuses (3, 4, 5, 6, 7) and refuses bad combinations (2)', async () => {
    const explain = (args: string[], e = env()) => run(['explain', '--policy', webappPolicy, ...args], e);
    expect((await explain(['--repo', 'acme/webapp', '--job-id', '1001'], env('demo-token-revoked'))).code).toBe(3);
    expect((await explain(['--repo', 'acme/webapp', '--job-id', '999'])).code).toBe(4);
    const notTerminal = await explain(['--repo', 'acme/webapp', '--job-id', '1002']);
    expect(notTerminal.code).toBe(5);
    expect(notTerminal.stderr).toMatch(/^netpolicy explain: fetching the trace: .*409/);
    const noSbom = await explain(['--repo', 'acme/webapp', '--job-id', '1003', '--sbom', 'service']);
    expect(noSbom.code).toBe(6);
    expect(noSbom.stderr).toMatch(/netpolicy explain: fetching the SBOM: .*503/);
    // An SBOM that is not CycloneDX, from the service: exit 7.
    const odd = join(data, 'service/jobs/ciprovider/acme/deploy/2002');
    mkdirSync(odd, { recursive: true });
    writeFileSync(join(odd, 'job.json'), JSON.stringify({ status: 'success', terminal: true }));
    writeFileSync(join(odd, 'trace.json'), JSON.stringify(deployTrace()));
    writeFileSync(join(odd, 'sbom.cdx.json'), JSON.stringify({ bomFormat: 'SPDX', specVersion: '1.7' }));
    const notCdx = await explain(['--repo', 'acme/deploy', '--job-id', '2002', '--sbom', 'service']);
    expect(notCdx.code).toBe(7);
    expect(notCdx.stderr).toContain('the SBOM of acme/deploy job 2002: not a CycloneDX SBOM');
    // Without --sbom service, job 1003's trace alone explains.
    expect((await explain(['--repo', 'acme/webapp', '--job-id', '1003'])).code).toBe(0);
    for (const [args, message] of [
      [['--repo', 'acme/webapp', '--job-id', '1001', '--trace', join(webapp, 'trace.json')], /not both/],
      [['--repo', 'acme/webapp'], /missing option --job-id/],
      [['--job-id', '1001'], /missing option --repo/],
      [['--repo', 'acme/webapp', '--job-id', '01'], /job_id must be a decimal number without sign or leading zeros|leading zeros/],
      [['--repo', 'acme/webapp', '--job-id', '1001', '--watch'], /--watch .* does not apply/],
      [['--trace', join(webapp, 'trace.json'), '--sbom', 'service'], /--sbom service fetches the SBOM of the job given by --repo and --job-id/],
      [['--repo', 'acme/webapp', '--job-id', '1001', '--token', 'demo-token-valid'], /tokens are not taken as a plain option/],
    ] as [string[], RegExp][]) {
      const r = await explain(args);
      expect({ args, code: r.code }).toEqual({ args, code: 2 });
      expect(r.stderr).toMatch(message);
    }
  });
});
