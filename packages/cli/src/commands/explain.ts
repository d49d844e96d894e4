import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { formatOption, outputOption, parseCommand, presetsOption, usageText, type CommandSpec } from '../args';
import { Explainer, type ExplainResult } from '@netpolicy/core';
import type { Command } from '../command';
import { checkWriteBack, drained, EXIT, UsageError, useColor, type Io, type PushbackOut } from '../io';
import { presetCatalogOption } from '../presets-option';
import { loadPolicy, loadSbom, readTraceFile } from '../explain-inputs';
import { Attribution } from '../explain-components';
import { JsonReportWriter, ReportDigest, renderMarkdown, renderText } from '../explain-render';
import { applyToPolicyFile, FixCollector } from '../apply-fixes';
import { AtomicFileOutput, canReadTwice, checkOneStdin, readInput } from '../report-output';
import { watchAndRerun } from '../watch';

export const spec: CommandSpec = {
  name: 'explain',
  summary: 'Explain a job trace against a policy: what was denied, why, and the smallest fix',
  synopsis: ['explain --policy FILE --trace FILE [options]'],
  description: `Explains a job's network trace against a policy: what was denied, why (the recorded reason
and the model's verdict, both when they differ), the rule that nearly matched and why it
missed, and the smallest policy addition that fixes it. --apply writes those additions into
the policy file.`,
  options: {
    policy: { type: 'string', value: 'FILE', help: 'The network policy (JSON, or JSONC for .jsonc files); - reads stdin.' },
    trace: { type: 'string', value: 'FILE', help: 'The network trace of the job (netpolicy fetch trace ...); - reads stdin.' },
    format: formatOption(['text', 'json', 'markdown', 'github'], 'Report format: text for a terminal (denials first, grouped by destination), json (the shape in docs/cli.md), markdown for a CI job summary or a pull-request comment, github (a warning on the policy at the nearest rule of each denied destination, with the fix; the Markdown report to the job summary when GITHUB_STEP_SUMMARY is set). See docs/ci.md.'),
    output: outputOption,
    only: { type: 'string', default: 'all', choices: ['denied', 'all'], help: 'Which accesses to list (the summary counts everything).' },
    'fail-on': { type: 'string', multiple: true, choices: ['denied', 'disagreement'], help: 'Exit 1 when the model denies an access / disagrees with the trace.' },
    apply: { type: 'boolean', help: 'Write the fixes of the denials into the policy file (keeping its formatting and comments; refused for a read-only file, a FIFO or standard input; nothing written if the file changed meanwhile), print the diff. A plain-http request to a software source gets the https rule, with a note that the job should use https.' },
    sbom: { type: 'string', value: 'FILE', help: 'The job\'s CycloneDX 1.7 SBOM (JSON, as netpolicy fetch sbom writes it): each result names the SBOM components its access fetched (docs/attribution.md), and the summary counts denials per component; - reads stdin.' },
    presets: presetsOption,
    watch: { type: 'boolean', help: 'Explain again whenever the policy or the trace changes, until interrupted (Ctrl-C).' },
  },
  operands: { min: 0, max: 0, name: '' },
  examples: ['netpolicy explain --policy fixtures/traces/denials/policy.netpolicy.json --trace fixtures/traces/denials/trace.json --only denied', 'netpolicy explain --policy fixtures/traces/npm-build/policy.netpolicy.json --trace fixtures/attribution/npm/trace.json --sbom fixtures/attribution/npm/sbom.cdx.json --only denied', 'netpolicy explain --apply --policy policy.netpolicy.json --trace trace.json'],
  exitCodes: [[0, 'explained'], [1, 'a --fail-on condition held'], [2, 'usage error, unreadable file, or an input that is not a valid policy or trace (or, with --sbom, not a CycloneDX JSON SBOM)']],
};

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
 * Whether a trace file may hold a DNS observation: it must contain the bytes `"dns"`, or a
 * `\u` escape that could spell them. A native search of the file (tens of milliseconds for
 * 100 MB); when neither is there, no DNS answer can come late and JSON goes straight to stdout.
 */
function mayHoldDns(file: string): boolean {
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
    const values = parseCommand(spec, args).values as { policy?: string; trace?: string; sbom?: string; format: string; only: string; presets?: string; 'fail-on'?: string[]; apply?: boolean; output?: string; watch?: boolean };
    if (!values.policy) throw new UsageError('missing option --policy FILE');
    if (!values.trace) throw new UsageError('missing option --trace FILE');
    checkOneStdin([values.policy, values.trace, values.sbom]);
    if (values.apply && values.policy === '-') throw new UsageError('--apply writes the fixes into the policy file: give the file, not standard input (`-`)');
    // Before the policy is read: a FIFO, /dev/stdin or a read-only file cannot take the fixes.
    if (values.apply) checkWriteBack(io.cwd, values.policy, '--apply');
    if (values.watch) return watchAndRerun('explain', [values.policy, values.trace, ...(values.sbom ? [values.sbom] : [])], () => this.run(args.filter((a) => a !== '--watch'), io), io);
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
    // --sbom: read once; each pass counts afresh (`fresh()`).
    const sbom = values.sbom !== undefined ? new Attribution(loadSbom(values.sbom)) : undefined;
    const fromFile = canReadTwice(values.trace!); // a regular file; stdin, a FIFO or `<(…)` is read once
    const stdout = out as PushbackOut;
    const only = values.only as 'denied' | 'all';
    let report;
    if (values.format === 'json') {
      // Results are written as they are produced, never held. D4 names addresses from every DNS
      // observation of the trace, also those after a connection: a file is then explained again
      // with every answer known, so its first pass goes to a spool (memory, then a temporary file)
      // and reaches stdout only once it is known to count. A file without DNS observations, and
      // a trace on stdin (read once), go straight to stdout.
      const spool = fromFile && mayHoldDns(values.trace!) ? new Spool() : undefined;
      try {
        const direct = { write: (text: string) => { stdout.write(text); } };
        const pass = async (sink: { write(text: string): void }, paced: boolean, resolvedNames?: Map<string, string[]>) => {
          const writer = new JsonReportWriter(sink, sbom?.fresh());
          fixes = new FixCollector();
          const explainer = new Explainer(policy, { catalog, only, keep: false, resolvedNames, onResult: (r) => { collect(r); writer.add(r); } });
          const header = await readTraceFile(values.trace!, (o) => { explainer.add(o); }, paced ? () => drained(stdout) : undefined);
          const done = explainer.finish(header);
          return { explainer, writer, report: done };
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
        fixes = new FixCollector();
        // The near miss and fix only of the denials shown (filled in below); --apply needs every fix.
        const explainer = new Explainer(policy, { catalog, only, keep: false, resolvedNames, deferDetails: !values.apply, onResult: (r) => { collect(r); digest.add(r); attribution?.add(r); } });
        const header = await readTraceFile(values.trace!, (o) => { explainer.add(o); });
        return { explainer, digest, attribution, report: explainer.finish(header) };
      };
      const first = await explainOnce();
      let { digest, attribution, explainer } = first;
      report = first.report;
      if (report.lateDnsAnswers) {
        if (fromFile) ({ digest, report, attribution, explainer } = await explainOnce(first.explainer.resolvedNames));
        else lateWarning(io);
      }
      for (const table of [digest.denied, digest.performed]) for (const g of table.groups.values()) explainer.addDetails(g.first);
      if (values.format === 'github') {
        const policyText = policyFile === '-' ? undefined : readInput(policyFile);
        for (const piece of (await import('../explain-ci')).githubExplainReport(io, { report, digest, policy, policyFile, policyText })) stdout.write(piece);
      } else stdout.write(values.format === 'markdown' ? renderMarkdown(report, digest, attribution) : renderText(report, digest, !file && useColor(io), policy, attribution));
    }
    const failed = (failOn.includes('denied') && report.summary.denied > 0) || (failOn.includes('disagreement') && report.summary.disagreements > 0);
    return failed ? EXIT.findings : EXIT.ok;
    }
  },
};
