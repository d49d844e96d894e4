import { parseCommandArgs } from '../args';
import { Explainer, type ExplainResult } from '@netpolicy/core';
import type { Command } from '../command';
import { EXIT, UsageError, useColor } from '../io';
import { presetCatalogOption } from '../presets-option';
import { loadPolicy, readTraceFile } from '../explain-inputs';
import { ReportDigest, renderMarkdown, renderText } from '../explain-render';

const usage = `Usage: netpolicy explain --policy FILE --trace FILE [options]

Explains a job's network trace against a policy: what was denied, why (the recorded reason
and the model's verdict, both when they differ), the rule that nearly matched and why it
missed, and the smallest policy addition that fixes it.

Options:
  --policy FILE              The network policy (JSON, or JSONC for .jsonc files).
  --trace FILE               The network trace of the job (netpolicy fetch trace ...); - reads stdin.
  --format text|json|markdown
                             text (default): for a terminal, denials first, grouped by destination;
                             json: the stable shape of contracts.md; markdown: for a CI job summary
                             or a pull-request comment.
  --only denied|all          Which accesses to list (default all; the summary counts everything).
  --presets FILE             A preset catalog that fills in or overrides the built-in one.
  --fail-on denied|disagreement
                             Exit 1 when the model denies an access / disagrees with the trace.

Example:
  netpolicy explain --policy fixtures/traces/denials/policy.netpolicy.json --trace fixtures/traces/denials/trace.json --only denied

Exit codes: 0 explained; 1 a --fail-on condition held; 2 usage error, unreadable file, or an
input that is not a valid policy or trace (message on stderr).
`;

function jsonResult(r: ExplainResult) {
  const { index: _i, access: _a, observation: _o, reliesOnDefault, nearMiss, ...rest } = r;
  return { ...rest, nearMiss, ...(reliesOnDefault ? { reliesOnDefault } : {}) };
}

export const command: Command = {
  name: 'explain',
  summary: 'Explain a job trace against a policy: what was denied, why, and the smallest fix',
  usage,
  async run(args, io) {
    const { values } = parseCommandArgs({
        args,
        options: {
          policy: { type: 'string' }, trace: { type: 'string' }, format: { type: 'string', default: 'text' },
          only: { type: 'string', default: 'all' }, presets: { type: 'string' }, 'fail-on': { type: 'string', multiple: true },
        },
        strict: true,
        allowPositionals: false,
      });
    if (!values.policy) throw new UsageError('missing option --policy FILE');
    if (!values.trace) throw new UsageError('missing option --trace FILE');
    if (!['text', 'json', 'markdown'].includes(values.format!)) throw new UsageError(`option --format must be text, json or markdown, not \`${values.format}\``);
    if (values.only !== 'denied' && values.only !== 'all') throw new UsageError(`option --only must be denied or all, not \`${values.only}\``);
    const failOn = values['fail-on'] ?? [];
    for (const f of failOn) if (f !== 'denied' && f !== 'disagreement') throw new UsageError(`option --fail-on must be denied or disagreement, not \`${f}\``);
    const catalog = presetCatalogOption(values.presets);
    const policy = loadPolicy(values.policy, catalog);
    // Results are kept in their output form (JSON text, or without the observation), so a large
    // trace costs the size of the report, not of the parsed observations.
    const json = values.format === 'json';
    const explainOnce = async (resolvedNames?: Map<string, string[]>) => {
      const serialised: string[] = [];
      const digest = new ReportDigest();
      const explainer = new Explainer(policy, {
        catalog, only: values.only as 'denied' | 'all', keep: false, resolvedNames,
        onResult: (r) => {
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
      io.stdout.write(`{\n  "summary": ${JSON.stringify(summary)},\n  "results": [${serialised.length ? `\n    ${serialised.join(',\n    ')}\n  ` : ''}]\n}\n`);
    } else if (values.format === 'markdown') {
      io.stdout.write(renderMarkdown(report, digest));
    } else {
      io.stdout.write(renderText(report, digest, useColor(io)));
    }
    const failed = (failOn.includes('denied') && report.summary.denied > 0) || (failOn.includes('disagreement') && report.summary.disagreements > 0);
    return failed ? EXIT.findings : EXIT.ok;
  },
};
