import { formatOption, outputOption, parseCommand, presetsOption, usageText, type CommandSpec } from '../args';
import { canReadTwice, checkOneStdin, reportSink } from '../report-output';
import { PolicyDiffer, type VerdictChange } from '@netpolicy/core';
import type { Command } from '../command';
import { EXIT, paint, UsageError, useColor } from '../io';
import { presetCatalogOption } from '../presets-option';
import { clipped as e } from '../escape';
import { loadPolicy, readDnsNames, readTraceFile } from '../explain-inputs';

export const spec: CommandSpec = {
  name: 'diff',
  summary: 'List accesses whose verdict changes between two policies',
  synopsis: ['diff --trace FILE [--trace FILE...] [options] OLD NEW'],
  description: `Replays the accesses of the traces against policy OLD and policy NEW and lists those whose
verdict changes: newly allowed (review them: the policy got wider) and newly denied (the job
may break). One of OLD, NEW and the traces may be - (stdin).`,
  options: {
    trace: { type: 'string', multiple: true, value: 'FILE', help: 'A trace to replay (repeat for several runs).' },
    format: formatOption(['text', 'json'], 'Report format: text, or json ({"summary":{"accesses","newlyAllowed","newlyDenied","ruleChanged"},"changes":[{"trace","sequence","protocol","destination","change","old","new"}]}).'),
    output: outputOption,
    'rule-changes': { type: 'boolean', help: 'Also list accesses whose verdict stays but whose deciding rule changes.' },
    'fail-on': { type: 'string', multiple: true, choices: ['newly-allowed', 'newly-denied', 'any'], help: 'Exit 1 when such a change exists (for CI gates).' },
    presets: presetsOption,
  },
  operands: { min: 2, max: 2, name: 'OLD NEW (two policy files)' },
  examples: ['netpolicy diff --trace fixtures/traces/denials/trace.json fixtures/traces/denials/policy.netpolicy.json suggested.netpolicy.json'],
  exitCodes: [[0, 'compared'], [1, 'a --fail-on condition held'], [2, 'usage error, unreadable file, or an invalid policy or trace']],
};

interface Listed extends VerdictChange { trace: string }

export const command: Command = {
  name: 'diff',
  summary: 'List accesses whose verdict changes between two policies',
  usage: usageText(spec),
  spec,
  async run(args, io) {
    const { values, positionals } = parseCommand(spec, args);
    const traces = (values.trace as string[] | undefined) ?? [];
    if (traces.length === 0) throw new UsageError('missing option --trace FILE');
    checkOneStdin([...traces, ...positionals]);
    const failOn = (values['fail-on'] as string[] | undefined) ?? [];
    const catalog = presetCatalogOption(values.presets as string | undefined);
    const sink = reportSink(io, values.output as string | undefined);
    const [oldFile, newFile] = positionals;
    const differ = new PolicyDiffer(loadPolicy(oldFile, catalog), loadPolicy(newFile, catalog), { catalog });
    const changes: Listed[] = [];
    const counts = { 'newly-allowed': 0, 'newly-denied': 0, 'rule-changed': 0 };
    for (const trace of traces) {
      differ.beginTrace(canReadTwice(trace) ? await readDnsNames(trace) : undefined);
      await readTraceFile(trace, (o) => {
        const change = differ.add(o);
        if (!change) return;
        counts[change.change]++;
        if (change.change !== 'rule-changed' || values['rule-changes']) changes.push({ trace, ...change });
      });
    }
    if (values.format === 'json') {
      sink.write(JSON.stringify({
        summary: { accesses: differ.accesses, newlyAllowed: counts['newly-allowed'], newlyDenied: counts['newly-denied'], ruleChanged: counts['rule-changed'] },
        changes: changes.map(({ trace, ...c }) => ({ trace, ...c })),
      }, null, 2) + '\n');
    } else {
      const c = paint(sink.toStdout && useColor(io));
      const out: string[] = [];
      const section = (kind: VerdictChange['change'], title: string, mark: string) => {
        const list = changes.filter((x) => x.change === kind);
        if (!list.length) return;
        const groups = new Map<string, Listed[]>();
        for (const x of list) {
          const group = groups.get(x.destination);
          if (group) group.push(x);
          else groups.set(x.destination, [x]);
        }
        out.push(c.bold(`${title}: ${list.length}`));
        for (const [dest, xs] of groups) {
          const x = xs[0];
          out.push(`  ${mark} ${e(dest)}${xs.length > 1 ? c.gray(`  ×${xs.length}`) : ''}  ${c.gray(e(`${x.old.verdict} by ${x.old.rule} → ${x.new.verdict} by ${x.new.rule}`))}`);
        }
        out.push('');
      };
      section('newly-allowed', 'Newly allowed', c.yellow('+'));
      section('newly-denied', 'Newly denied', c.red('-'));
      section('rule-changed', 'Same verdict, different deciding rule', c.gray('~'));
      out.push(`${differ.accesses} accesses compared: ${counts['newly-allowed']} newly allowed, ${counts['newly-denied']} newly denied, ${counts['rule-changed']} with another deciding rule.`);
      sink.write(out.join('\n') + '\n');
    }
    const failed = (failOn.includes('newly-allowed') || failOn.includes('any')) && counts['newly-allowed'] > 0 ||
      (failOn.includes('newly-denied') || failOn.includes('any')) && counts['newly-denied'] > 0;
    return failed ? EXIT.findings : EXIT.ok;
  },
};
