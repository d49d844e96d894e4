import { formatOption, outputOption, parseCommand, presetsOption, usageText, type CommandSpec } from '../args';
import { Explainer, type ExplainResult } from '@netpolicy/core';
import type { Command } from '../command';
import { EXIT, UsageError, useColor } from '../io';
import { presetCatalogOption } from '../presets-option';
import { loadPolicy, readTraceFile } from '../explain-inputs';
import { ReportDigest, renderMarkdown, renderText } from '../explain-render';
import { applyToPolicyFile, FixCollector } from '../apply-fixes';
import { checkOneStdin, reportSink } from '../report-output';
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
    format: formatOption(['text', 'json', 'markdown'], 'Report format: text for a terminal (denials first, grouped by destination), json (the shape in docs/cli.md), markdown for a CI job summary or a pull-request comment.'),
    output: outputOption,
    only: { type: 'string', default: 'all', choices: ['denied', 'all'], help: 'Which accesses to list (the summary counts everything).' },
    'fail-on': { type: 'string', multiple: true, choices: ['denied', 'disagreement'], help: 'Exit 1 when the model denies an access / disagrees with the trace.' },
    apply: { type: 'boolean', help: 'Write the fixes of the denials into the policy file (keeping its formatting and comments), print the diff. A plain-http request to a software source gets the https rule, with a note that the job should use https.' },
    presets: presetsOption,
    watch: { type: 'boolean', help: 'Explain again whenever the policy or the trace changes, until interrupted (Ctrl-C).' },
  },
  operands: { min: 0, max: 0, name: '' },
  examples: ['netpolicy explain --policy fixtures/traces/denials/policy.netpolicy.json --trace fixtures/traces/denials/trace.json --only denied', 'netpolicy explain --apply --policy policy.netpolicy.json --trace trace.json'],
  exitCodes: [[0, 'explained'], [1, 'a --fail-on condition held'], [2, 'usage error, unreadable file, or an input that is not a valid policy or trace']],
};

function jsonResult(r: ExplainResult) {
  const { index: _i, access: _a, observation: _o, reliesOnDefault, nearMiss, ...rest } = r;
  return { ...rest, nearMiss, ...(reliesOnDefault ? { reliesOnDefault } : {}) };
}

export const command: Command = {
  name: 'explain',
  summary: 'Explain a job trace against a policy: what was denied, why, and the smallest fix',
  usage: usageText(spec),
  spec,
  async run(args, io) {
    const values = parseCommand(spec, args).values as { policy?: string; trace?: string; format: string; only: string; presets?: string; 'fail-on'?: string[]; apply?: boolean; output?: string; watch?: boolean };
    if (!values.policy) throw new UsageError('missing option --policy FILE');
    if (!values.trace) throw new UsageError('missing option --trace FILE');
    checkOneStdin([values.policy, values.trace]);
    if (values.apply && values.policy === '-') throw new UsageError('--apply writes the fixes into the policy file: give the file, not standard input (`-`)');
    if (values.watch) return watchAndRerun('explain', [values.policy, values.trace], () => this.run(args.filter((a) => a !== '--watch'), io), io);
    let fixes = new FixCollector();
    const sink = reportSink(io, values.output);
    const failOn = values['fail-on'] ?? [];
    const catalog = presetCatalogOption(values.presets);
    const policy = loadPolicy(values.policy, catalog);
    // Results are kept in their output form (JSON text, or without the observation), so a large
    // trace costs the size of the report, not of the parsed observations.
    const json = values.format === 'json';
    const explainOnce = async (resolvedNames?: Map<string, string[]>) => {
      fixes = new FixCollector(); // a second pass (late DNS answers) replaces the first's fixes
      const serialised: string[] = [];
      const digest = new ReportDigest();
      const explainer = new Explainer(policy, {
        catalog, only: values.only as 'denied' | 'all', keep: false, resolvedNames,
        onResult: (r) => {
          if (values.apply && r.model.verdict === 'deny') fixes.add(r.fix);
          if (json) serialised.push(JSON.stringify(jsonResult(r), null, 2).replace(/\n/g, '\n    '));
          else digest.add(r);
        },
      });
      const header = await readTraceFile(values.trace!, (o) => { explainer.add(o); });
      return { explainer, serialised, digest, report: explainer.finish(header) };
    };
    const first = await explainOnce();
    let { serialised, digest, report } = first;
    if (report.lateDnsAnswers) {
      // D4 names addresses from every DNS observation of the trace, also those after a connection.
      if (values.trace !== '-') ({ serialised, digest, report } = await explainOnce(first.explainer.resolvedNames));
      else io.stderr.write('netpolicy explain: warning: DNS answers arrived after connections to their addresses; a trace read from stdin is read once, so those connections were decided without the later names (pass the trace as a file to include them)\n');
    }
    if (json) {
      const s = report.summary;
      const summary = { observations: s.observations, allowed: s.allowed, denied: s.denied, disagreements: s.disagreements, none: s.none, uncertain: s.uncertain, reliesOnDefault: s.reliesOnDefault };
      sink.write(`{\n  "summary": ${JSON.stringify(summary)},\n  "results": [${serialised.length ? `\n    ${serialised.join(',\n    ')}\n  ` : ''}]\n}\n`);
    } else if (values.format === 'markdown') {
      sink.write(renderMarkdown(report, digest));
    } else {
      sink.write(renderText(report, digest, sink.toStdout && useColor(io)));
    }
    if (values.apply) applyToPolicyFile(values.policy, fixes.all, { catalog, io, diffToStdout: sink.toStdout && values.format === 'text' });
    const failed = (failOn.includes('denied') && report.summary.denied > 0) || (failOn.includes('disagreement') && report.summary.disagreements > 0);
    return failed ? EXIT.findings : EXIT.ok;
  },
};
