import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { formatOption, outputOption, parseCommand, presetsOption, usageText, type CommandSpec } from '../../args';
import { Explainer, indexSbom, ownRepositories, PullCollector, type ExplainResult, type TraceHeader } from '@netpolicy/core';
import { repositoryPatternProblem } from '@netpolicy/core/internal';
import type { NetpolicyClient } from '@netpolicy/client';
import type { Command } from '../../command';
import { checkWriteBack, drained, EXIT, UsageError, useColor, type Io, type PushbackOut } from '../../io';
import { presetCatalogOption } from '../../presets-option';
import { checkSbomValue, loadPolicy, loadSbom, readTrace, traceIntoMemory, type TraceInput } from '../../inputs';
import { Attribution } from './components';
import { DEFAULT_PROVENANCE_LIMIT, ProvenanceLookups, provenanceOf, type Provenance } from './provenance';
import { baseUrlOf, makeClient, reportServiceError, SERVICE_ENVIRONMENT, tokenOf, TOKEN_REFUSED } from '../../service-client';
import { JsonReportWriter, ReportDigest, renderMarkdown, renderText } from './render';
import { applyToPolicyFile, FixCollector } from './apply-fixes';
import { AtomicFileOutput, canReadTwice, checkOneStdin, readInput } from '../../report-output';
import { watchAndRerun } from '../../watch';

export const spec: CommandSpec = {
  name: 'explain',
  summary: 'Explain a job trace against a policy: what was denied, why, and the smallest fix',
  synopsis: ['explain --policy FILE --trace FILE [options]', 'explain --policy FILE --repo OWNER/REPO --job-id N [--sbom service] [options]'],
  description: `Explains a job's network trace against a policy: what was denied, why (the recorded reason
and the model's verdict, both when they differ), the rule that nearly matched and why it
missed, and the smallest policy addition that fixes it. --apply writes those additions into
the policy file. --repo and --job-id fetch the trace (and, with --sbom service, the SBOM) from
the job provenance service instead of reading files; --provenance asks the service which job
published each OCI manifest or index the job pulled. The token comes from NETPOLICY_TOKEN or
--token-file, never from a plain option; it is sent only to the base URL's origin.`,
  options: {
    policy: { type: 'string', value: 'FILE', help: 'The network policy (JSON, or JSONC for .jsonc files); - reads stdin.' },
    trace: { type: 'string', value: 'FILE', help: 'The network trace of the job (netpolicy fetch trace ...); - reads stdin.' },
    repo: { type: 'string', value: 'OWNER/REPO', help: 'Fetch the trace of this repository\'s job from the service (with --job-id) instead of --trace FILE.' },
    'job-id': { type: 'string', value: 'N', help: 'The job whose trace to fetch (with --repo), a decimal number.' },
    provider: { type: 'string', value: 'ciprovider', help: 'The job\'s CI provider (with --repo). Default: ciprovider.' },
    format: formatOption(['text', 'json', 'markdown', 'github', 'gitlab'], 'Report format: text for a terminal (denials first, grouped by destination), json (the shape in docs/cli.md), markdown for a CI job summary or a pull-request comment, github (a warning on the policy at the nearest rule of each denied destination, with the fix; the Markdown report to the job summary when GITHUB_STEP_SUMMARY is set), gitlab (the same denials as a GitLab Code Quality report: major when the job performed the access, minor otherwise). See docs/ci.md.'),
    output: outputOption,
    only: { type: 'string', default: 'all', choices: ['denied', 'all'], help: 'Which accesses to list (the summary counts everything).' },
    'fail-on': { type: 'string', multiple: true, choices: ['denied', 'disagreement'], help: 'Exit 1 when the model denies an access / disagrees with the trace.' },
    apply: { type: 'boolean', help: 'Write the fixes of the denials into the policy file (keeping its formatting and comments; refused for a read-only file, a FIFO or standard input; nothing written if the file changed meanwhile), print the diff. A plain-http request to a software source gets the https rule, with a note that the job should use https.' },
    sbom: { type: 'string', value: 'FILE|service', help: 'The job\'s CycloneDX 1.7 SBOM (JSON, as netpolicy fetch sbom writes it): each result names the SBOM components its access fetched (docs/attribution.md), and the summary counts denials per component; - reads stdin; `service` fetches the SBOM of the job given by --repo and --job-id (a file named service: ./service).' },
    provenance: { type: 'boolean', help: 'For each OCI manifest or index the job pulled by digest (or by a tag whose digest the trace records), ask the service\'s artifacts operation for its newest publication: the job that published it, when, and whether that job ran in your repository (the trace\'s own, or --own-repo). Each result that pulled one carries it, and a section lists them all; a failed lookup is reported on its artifact and its results. Not with --format github or gitlab.' },
    'provenance-limit': { type: 'string', value: 'N', help: `With --provenance: look up at most N artifacts (each at most once; the rest are listed as not looked up). Default: ${DEFAULT_PROVENANCE_LIMIT}.` },
    'own-repo': { type: 'string', value: 'OWNER/REPO', multiple: true, help: 'With --provenance: a repository (or repository pattern, such as acme/*) whose publications count as your own, besides the trace\'s own repository.' },
    'base-url': { type: 'string', value: 'URL', help: 'Service base URL for --repo/--job-id and --provenance (default: $NETPOLICY_BASE_URL); https, or http only for localhost, 127.0.0.0/8 and ::1.' },
    'token-file': { type: 'string', value: 'FILE', help: 'Read the access token from FILE (default: $NETPOLICY_TOKEN). Tokens are never taken as a plain option and never printed.' },
    presets: presetsOption,
    watch: { type: 'boolean', help: 'Explain again whenever the policy or the trace changes, until interrupted (Ctrl-C).' },
  },
  operands: { min: 0, max: 0, name: '' },
  examples: [
    'netpolicy explain --policy fixtures/traces/denials/policy.netpolicy.json --trace fixtures/traces/denials/trace.json --only denied',
    'netpolicy explain --policy fixtures/traces/npm-build/policy.netpolicy.json --trace fixtures/attribution/npm/trace.json --sbom fixtures/attribution/npm/sbom.cdx.json --only denied',
    'netpolicy explain --apply --policy policy.netpolicy.json --trace trace.json',
    'NETPOLICY_BASE_URL=https://provenance.example NETPOLICY_TOKEN=... netpolicy explain --policy policy.netpolicy.json --repo acme/webapp --job-id 1001 --sbom service --provenance',
  ],
  exitCodes: [
    [0, 'explained (also when provenance lookups failed: each failure is reported on its artifact)'],
    [1, 'a --fail-on condition held'],
    [2, 'usage error, unreadable file, or an input that is not a valid policy or trace (or, with --sbom, not a CycloneDX JSON SBOM); with --repo/--job-id or --provenance, a selector refused locally, no or an insecure base URL, an unusable token'],
    [3, 'fetching the trace or SBOM (--repo/--job-id): authentication failed (401)'],
    [4, 'fetching the trace or SBOM: not found (404)'],
    [5, 'fetching the trace or SBOM: job not terminal (409)'],
    [6, 'fetching the trace or SBOM: service unavailable once retries ran out (5xx, 429, timeout, network error)'],
    [7, 'fetching the trace or SBOM: any other API failure (other 4xx, wrong media type, invalid or truncated body, an SBOM that is not CycloneDX)'],
  ],
  environment: SERVICE_ENVIRONMENT,
  refused: { token: TOKEN_REFUSED },
};

/** `--provenance-limit`: a whole number up to this (a bound on the requests one run makes). */
const MAX_PROVENANCE_LIMIT = 10_000;

const SPOOL_MEMORY = 4 << 20;

/**
 * Holds the JSON text of a pass until it is known to count (a trace file whose DNS answers come
 * after the connections they name is explained again, see below): in memory up to 4 MiB, beyond
 * that in a temporary file, so memory stays bounded whatever the size of the report.
 */
class Spool {
  private memory: string[] = [];
  private size = 0;
  private fd: number | undefined;
  private dir: string | undefined;

  write(text: string): void {
    if (this.fd === undefined && this.size + text.length <= SPOOL_MEMORY) {
      this.memory.push(text);
      this.size += text.length;
      return;
    }
    if (this.fd === undefined) {
      this.dir = mkdtempSync(join(tmpdir(), 'netpolicy-explain-'));
      this.fd = openSync(join(this.dir, 'report.json'), 'w+', 0o600);
      for (const m of this.memory) writeSync(this.fd, m);
      this.memory = [];
    }
    writeSync(this.fd, text);
  }

  /** Writes what it holds to stdout, in blocks, waiting whenever stdout pushes back. */
  async copyTo(stdout: PushbackOut): Promise<void> {
    for (const m of this.memory) { stdout.write(m); await drained(stdout); }
    if (this.fd === undefined) return;
    const block = Buffer.allocUnsafe(1 << 20);
    const decoder = new StringDecoder('utf8');
    for (let at = 0; ;) {
      const n = readSync(this.fd, block, 0, block.length, at);
      if (n === 0) break;
      at += n;
      stdout.write(decoder.write(block.subarray(0, n)));
      await drained(stdout);
    }
    const tail = decoder.end();
    if (tail) stdout.write(tail);
  }

  discard(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    if (this.dir !== undefined) rmSync(this.dir, { recursive: true, force: true });
    this.fd = undefined;
    this.dir = undefined;
    this.memory = [];
  }
}

/**
 * Whether a trace (file) may hold a DNS observation: it must contain the bytes `"dns"`, or a
 * `\u` escape that could spell them. A native search of the file (tens of milliseconds for
 * 100 MB); when neither is there, no DNS answer can come late and JSON goes straight to stdout.
 */
function mayHoldDns(input: TraceInput): boolean {
  if (typeof input !== 'string') return input.text.includes('"dns"') || input.text.includes('\\u');
  const file = input;
  const needles = [Buffer.from('"dns"'), Buffer.from('\\u')];
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    const block = Buffer.allocUnsafe(4 << 20);
    const overlap = 4; // a needle cut by a block boundary is found in the next block
    let at = 0, kept = 0;
    while (true) {
      const n = readSync(fd, block, kept, block.length - kept, at);
      const end = kept + n;
      const view = block.subarray(0, end);
      for (const needle of needles) if (view.indexOf(needle) >= 0) return true;
      if (n === 0) return false;
      at += n;
      kept = Math.min(overlap, end);
      block.copy(block, 0, end - kept, end);
    }
  } catch {
    return true; // unknown: keep the safe path (the reader reports any error itself)
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function lateWarning(io: Io): void {
  io.stderr.write('netpolicy explain: warning: DNS answers arrived after connections to their addresses; a trace read from stdin or a pipe is read once, so those connections were decided without the later names (pass the trace as a file to include them)\n');
}

export const command: Command = {
  name: 'explain',
  summary: 'Explain a job trace against a policy: what was denied, why, and the smallest fix',
  usage: usageText(spec),
  spec,
  async run(args, io) {
    const values = parseCommand(spec, args).values as {
      policy?: string; trace?: string; sbom?: string; format: string; only: string; presets?: string; 'fail-on'?: string[]; apply?: boolean; output?: string; watch?: boolean;
      repo?: string; 'job-id'?: string; provider?: string; provenance?: boolean; 'provenance-limit'?: string; 'own-repo'?: string[]; 'base-url'?: string; 'token-file'?: string;
    };
    if (!values.policy) throw new UsageError('missing option --policy FILE');
    const fromService = values.repo !== undefined || values['job-id'] !== undefined || values.provider !== undefined;
    if (fromService) {
      if (values.trace !== undefined) throw new UsageError('give the trace as --trace FILE, or fetch it with --repo and --job-id, not both');
      if (values.repo === undefined) throw new UsageError('missing option --repo OWNER/REPO (the job whose trace to fetch)');
      if (values['job-id'] === undefined) throw new UsageError('missing option --job-id N (the job whose trace to fetch)');
      if (values.watch) throw new UsageError('--watch explains again when files change: it does not apply to a trace fetched with --repo and --job-id');
    } else if (!values.trace) throw new UsageError('missing option --trace FILE (or --repo OWNER/REPO --job-id N to fetch the trace from the service)');
    const sbomFromService = values.sbom === 'service';
    if (sbomFromService && !fromService) throw new UsageError('--sbom service fetches the SBOM of the job given by --repo and --job-id: give them, or name the SBOM file (./service for a file named service)');
    for (const o of ['provenance-limit', 'own-repo'] as const) if (values[o] !== undefined && !values.provenance) throw new UsageError(`option --${o} applies only with --provenance`);
    for (const o of ['base-url', 'token-file'] as const) if (values[o] !== undefined && !fromService && !values.provenance) throw new UsageError(`option --${o} applies only with --repo/--job-id or --provenance`);
    if (values.provenance && (values.format === 'github' || values.format === 'gitlab')) throw new UsageError(`--provenance applies to --format text, json and markdown, not ${values.format}`);
    const limit = provenanceLimit(values['provenance-limit']);
    const ownPatterns = values['own-repo'] ?? [];
    for (const p of ownPatterns) {
      const problem = repositoryPatternProblem(p);
      if (problem !== undefined) throw new UsageError(`option --own-repo: ${JSON.stringify(p)} is not a repository or repository pattern: ${problem}`);
    }
    checkOneStdin([values.policy, values.trace, sbomFromService ? undefined : values.sbom]);
    if (values.apply && values.policy === '-') throw new UsageError('--apply writes the fixes into the policy file: give the file, not standard input (`-`)');
    // Before the policy is read: a FIFO, /dev/stdin or a read-only file cannot take the fixes.
    if (values.apply) checkWriteBack(io.cwd, values.policy, '--apply');
    if (values.watch) return watchAndRerun('explain', [values.policy, values.trace!, ...(values.sbom ? [values.sbom] : [])], () => this.run(args.filter((a) => a !== '--watch'), io), io);

    // The service: the trace (and SBOM) of --repo/--job-id, the lookups of --provenance.
    let client: NetpolicyClient | undefined;
    if (fromService || values.provenance) {
      const baseUrl = baseUrlOf(io, values, fromService ? ' to fetch the trace from' : ' for --provenance');
      const token = tokenOf(io, values);
      client = makeClient(io, 'explain', baseUrl, token, { ...values, 'no-validate': true }, false);
      if (token === undefined) io.stderr.write('netpolicy explain: no token (set NETPOLICY_TOKEN or pass --token-file); the service will likely refuse the requests\n');
    }
    let traceInput: TraceInput = values.trace!;
    let serviceSbom: object | undefined;
    if (fromService) {
      const selector = { provider: values.provider, repo: values.repo!, jobId: values['job-id']! };
      const job = `${selector.repo} job ${selector.jobId}`;
      let step = 'fetching the trace: ';
      try {
        traceInput = { name: `the trace of ${job}`, text: (await client!.getNetworkTrace(selector)).text };
        step = 'fetching the SBOM: ';
        // Checked as --sbom FILE is (JSON, bomFormat); `netpolicy fetch sbom` validates CycloneDX 1.7 in full.
        if (sbomFromService) serviceSbom = checkSbomValue((await client!.getSbom(selector)).data, `the SBOM of ${job}`, EXIT.apiOther);
      } catch (error) {
        if (error instanceof UsageError) throw error;
        return reportServiceError(io, 'explain', error, step);
      }
    }
    const lookups = values.provenance ? new ProvenanceLookups(client!, limit) : undefined;
    /** The report's provenance, once the pass that counts has read the trace. */
    const provenanceAfter = (pulls: PullCollector | undefined, header: TraceHeader): Promise<Provenance> | undefined => {
      if (!lookups || !pulls) return undefined;
      const own = header.job?.repository;
      return provenanceOf(pulls, lookups, ownRepositories(ownPatterns, own ? [own] : []));
    };

    const failOn = values['fail-on'] ?? [];
    // --apply: the fixes of the pass that counts (a second pass, after late DNS answers, replaces the first's).
    let fixes = new FixCollector();
    // A fix for the job (`kind: 'job'`: use https, the policy already allows it) writes nothing.
    const collect = (r: ExplainResult) => { if (values.apply && r.model.verdict === 'deny' && r.fix?.kind !== 'job') fixes.add(r.fix); };
    const catalog = presetCatalogOption(values.presets);
    const policyFile = values.policy;
    // -o FILE: written to a temporary file as the report is produced, renamed when it is complete.
    const file = values.output !== undefined && values.output !== '-' ? new AtomicFileOutput(io.cwd, values.output) : undefined;
    try {
      const code = await explainTo(file ?? io.stdout);
      file?.commit();
      if (values.apply) applyToPolicyFile(values.policy, fixes.all, { catalog, io, diffToStdout: !file && values.format === 'text' });
      return code;
    } finally {
      file?.abort();
    }

    async function explainTo(out: Io['stdout']): Promise<number> {
    const policy = loadPolicy(policyFile, catalog);
    // --sbom: read once; each pass counts afresh (`fresh()`). The policy's sources name registries
    // and Maven repository bases that attribution reads the SBOM's download forms under.
    const sbomIndex = serviceSbom !== undefined ? indexSbom(serviceSbom, { policy }) : values.sbom !== undefined ? loadSbom(values.sbom, { policy }) : undefined;
    const sbom = sbomIndex !== undefined ? new Attribution(sbomIndex) : undefined;
    // A regular file, or a trace fetched into memory; stdin, a FIFO or `<(…)` is read once.
    let fromFile = typeof traceInput !== 'string' || canReadTwice(traceInput);
    const stdout = out as PushbackOut;
    const only = values.only as 'denied' | 'all';
    let report;
    if (values.format === 'json') {
      // --provenance: each result that pulled an OCI artifact by digest carries its provenance, so
      // the digests are looked up before the first result is written: a pass of their own over the
      // trace (read twice: stdin, a FIFO or `<(…)` is read into memory first, bounded as any input).
      let provenance: Provenance | undefined;
      if (lookups) {
        if (!fromFile) { traceInput = traceIntoMemory(traceInput as string); fromFile = true; }
        const pulls = new PullCollector();
        const header = await readTrace(traceInput, (o) => pulls.add(o));
        provenance = await provenanceAfter(pulls, header);
      }
      // Results are written as they are produced, never held. D4 names addresses from every DNS
      // observation of the trace, also those after a connection: a file is then explained again
      // with every answer known, so its first pass goes to a spool (memory, then a temporary file)
      // and reaches stdout only once it is known to count. A file without DNS observations, and
      // a trace on stdin (read once), go straight to stdout.
      const spool = fromFile && mayHoldDns(traceInput) ? new Spool() : undefined;
      try {
        const direct = { write: (text: string) => { stdout.write(text); } };
        const pass = async (sink: { write(text: string): void }, paced: boolean, resolvedNames?: Map<string, string[]>) => {
          const writer = new JsonReportWriter(sink, sbom?.fresh(), provenance);
          fixes = new FixCollector();
          const explainer = new Explainer(policy, { catalog, only, keep: false, resolvedNames, onResult: (r) => { collect(r); writer.add(r, explainer.parsedUrl); } });
          const header = await readTrace(traceInput, (o) => explainer.add(o), paced ? () => drained(stdout) : undefined);
          return { explainer, writer, report: explainer.finish(header) };
        };
        const first = await pass(spool ?? direct, !spool);
        report = first.report;
        if (report.lateDnsAnswers && spool) {
          spool.discard();
          const second = await pass(direct, true, first.explainer.resolvedNames);
          report = second.report;
          second.writer.end(report.summary);
        } else {
          first.writer.end(report.summary);
          if (spool) await spool.copyTo(stdout);
          if (report.lateDnsAnswers) lateWarning(io);
        }
      } finally {
        spool?.discard();
      }
    } else {
      // Text and Markdown keep only what their grouping needs (ReportDigest, bounded).
      const explainOnce = async (resolvedNames?: Map<string, string[]>) => {
        const digest = new ReportDigest();
        const attribution = sbom?.fresh();
        const pulls = lookups ? new PullCollector() : undefined;
        fixes = new FixCollector();
        // The near miss and fix only of the denials shown (filled in below); --apply needs every fix.
        const explainer = new Explainer(policy, { catalog, only, keep: false, resolvedNames, deferDetails: !values.apply, onResult: (r) => { collect(r); digest.add(r); attribution?.count(r, explainer.parsedUrl); } });
        const header = await readTrace(traceInput, (o) => { pulls?.add(o); explainer.add(o); });
        return { explainer, digest, attribution, pulls, header, report: explainer.finish(header) };
      };
      const first = await explainOnce();
      let { digest, attribution, pulls, header, explainer } = first;
      report = first.report;
      if (report.lateDnsAnswers) {
        if (fromFile) ({ digest, report, attribution, pulls, header, explainer } = await explainOnce(first.explainer.resolvedNames));
        else lateWarning(io);
      }
      for (const table of [digest.denied, digest.performed]) for (const g of table.groups.values()) explainer.addDetails(g.first);
      if (values.format === 'github' || values.format === 'gitlab') {
        const policyText = policyFile === '-' ? undefined : readInput(policyFile);
        const ci = await import('./ci');
        const pieces = values.format === 'github'
          ? ci.githubExplainReport(io, { report, digest, policy, policyFile, policyText, attribution })
          : ci.gitlabExplainReport(io, { digest, policy, policyFile, policyText, attribution });
        for (const piece of pieces) stdout.write(piece);
      } else {
        const provenance = await provenanceAfter(pulls, header);
        stdout.write(values.format === 'markdown' ? renderMarkdown(report, digest, attribution, provenance) : renderText(report, digest, !file && useColor(io), policy, attribution, provenance));
      }
    }
    const failed = (failOn.includes('denied') && report.summary.denied > 0) || (failOn.includes('disagreement') && report.summary.disagreements > 0);
    return failed ? EXIT.findings : EXIT.ok;
    }
  },
};

/** `--provenance-limit N`: a whole number from 0 to MAX_PROVENANCE_LIMIT; the default when absent. */
function provenanceLimit(text: string | undefined): number {
  if (text === undefined) return DEFAULT_PROVENANCE_LIMIT;
  if (!/^\d{1,6}$/.test(text) || Number(text) > MAX_PROVENANCE_LIMIT) {
    throw new UsageError(`option --provenance-limit must be a whole number from 0 to ${MAX_PROVENANCE_LIMIT}, got ${JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text)}`);
  }
  return Number(text);
}
