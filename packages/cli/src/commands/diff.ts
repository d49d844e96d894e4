import { parseCommandArgs } from '../args';
import { PolicyDiffer, type VerdictChange } from '@netpolicy/core';
import type { Command } from '../command';
import { EXIT, paint, UsageError, useColor } from '../io';
import { presetCatalogOption } from '../presets-option';
import { escapeControl as e } from '../escape';
import { loadPolicy, readDnsNames, readTraceFile } from '../explain-inputs';

const usage = `Usage: netpolicy diff --trace FILE [--trace FILE...] [options] OLD NEW

Lists the accesses of the traces whose verdict changes between policy OLD and policy NEW:
newly allowed (review them: the policy got wider) and newly denied (the job may break).

Options:
  --trace FILE             A trace to replay (repeat for several runs).
  --format text|json       text (default), or JSON:
                           {"summary":{"accesses":N,"newlyAllowed":N,"newlyDenied":N,"ruleChanged":N},
                            "changes":[{"trace","sequence","protocol","destination","change","old","new"}]}
  --rule-changes           Also list accesses whose verdict stays but whose deciding rule changes.
  --fail-on newly-allowed|newly-denied|any
                           Exit 1 when such a change exists (for CI gates).
  --presets FILE           A preset catalog that fills in or overrides the built-in one.

Example:
  netpolicy diff --trace fixtures/traces/denials/trace.json fixtures/traces/denials/policy.json suggested.netpolicy.json

Exit codes: 0 compared; 1 a --fail-on condition held; 2 usage error, unreadable file, or an
invalid policy or trace (message on stderr).
`;

interface Listed extends VerdictChange { trace: string }

export const command: Command = {
  name: 'diff',
  summary: 'List accesses whose verdict changes between two policies',
  usage,
  async run(args, io) {
    const parsed = parseCommandArgs({
        args,
        options: { trace: { type: 'string', multiple: true }, format: { type: 'string', default: 'text' }, 'rule-changes': { type: 'boolean', default: false }, 'fail-on': { type: 'string', multiple: true }, presets: { type: 'string' } },
        allowPositionals: true, strict: true,
      });
    const { values, positionals } = parsed;
    const traces = values.trace ?? [];
    if (traces.length === 0) throw new UsageError('missing option --trace FILE');
    if (positionals.length !== 2) throw new UsageError(`expected two policy arguments, OLD and NEW (got ${positionals.length})`);
    if (values.format !== 'text' && values.format !== 'json') throw new UsageError(`option --format must be text or json, not \`${values.format}\``);
    const failOn = values['fail-on'] ?? [];
    for (const f of failOn) if (!['newly-allowed', 'newly-denied', 'any'].includes(f)) throw new UsageError(`option --fail-on must be newly-allowed, newly-denied or any, not \`${f}\``);
    const catalog = presetCatalogOption(values.presets);
    const [oldFile, newFile] = positionals;
    const differ = new PolicyDiffer(loadPolicy(oldFile, catalog), loadPolicy(newFile, catalog), { catalog });
    const changes: Listed[] = [];
    const counts = { 'newly-allowed': 0, 'newly-denied': 0, 'rule-changed': 0 };
    for (const trace of traces) {
      differ.beginTrace(await readDnsNames(trace));
      await readTraceFile(trace, (o) => {
        const change = differ.add(o);
        if (!change) return;
        counts[change.change]++;
        if (change.change !== 'rule-changed' || values['rule-changes']) changes.push({ trace, ...change });
      });
    }
    if (values.format === 'json') {
      io.stdout.write(JSON.stringify({
        summary: { accesses: differ.accesses, newlyAllowed: counts['newly-allowed'], newlyDenied: counts['newly-denied'], ruleChanged: counts['rule-changed'] },
        changes: changes.map(({ trace, ...c }) => ({ trace, ...c })),
      }, null, 2) + '\n');
    } else {
      const c = paint(useColor(io));
      const out: string[] = [];
      const section = (kind: VerdictChange['change'], title: string, mark: string) => {
        const list = changes.filter((x) => x.change === kind);
        if (!list.length) return;
        const groups = new Map<string, Listed[]>();
        for (const x of list) groups.set(x.destination, [...(groups.get(x.destination) ?? []), x]);
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
      io.stdout.write(out.join('\n') + '\n');
    }
    const failed = (failOn.includes('newly-allowed') || failOn.includes('any')) && counts['newly-allowed'] > 0 ||
      (failOn.includes('newly-denied') || failOn.includes('any')) && counts['newly-denied'] > 0;
    return failed ? EXIT.findings : EXIT.ok;
  },
};
