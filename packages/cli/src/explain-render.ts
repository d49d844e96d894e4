/** Rendering an explain report for people: terminal text (colour on a TTY only) and Markdown. */
import { verdictSentence, type ExplainReport, type ExplainResult } from '@netpolicy/core';
import { paint } from './io';

interface Group { destination: string; results: ExplainResult[] }

function groupByDestination(results: ExplainResult[]): Group[] {
  const groups = new Map<string, Group>();
  for (const r of results) {
    let g = groups.get(r.destination);
    if (!g) groups.set(r.destination, (g = { destination: r.destination, results: [] }));
    g.results.push(r);
  }
  return [...groups.values()].sort((a, b) => b.results.length - a.results.length || a.results[0].index - b.results[0].index);
}

function sequences(results: ExplainResult[]): string {
  const seqs = results.slice(0, 6).map((r) => r.sequence).join(', ');
  return results.length > 6 ? `${seqs}, …` : seqs;
}

function fixText(r: ExplainResult): string | undefined {
  if (!r.fix) return undefined;
  const where = r.fix.pointer.replace(/\/-$/, '');
  return `add to ${where}: ${JSON.stringify(r.fix.value)}`;
}

function summaryLine(report: ExplainReport): string {
  const s = report.summary;
  const parts = [`${s.observations} observations`, `${s.allowed} allowed`, `${s.denied} denied`];
  if (s.none) parts.push(`${s.none} without a verdict (DNS)`);
  parts.push(`${s.disagreements} disagreement${s.disagreements === 1 ? '' : 's'} with the recorded verdicts`);
  return parts.join(', ');
}

export function renderText(report: ExplainReport, color: boolean): string {
  const c = paint(color);
  const out: string[] = [];
  const denied = report.results.filter((r) => r.model.verdict === 'deny');
  const disagreeing = report.results.filter((r) => !r.agrees && r.model.verdict !== 'deny');
  const allowed = report.results.filter((r) => r.model.verdict === 'allow' && r.agrees);
  if (denied.length) {
    const groups = groupByDestination(denied);
    out.push(c.bold(c.red(`Denied: ${denied.length} access${denied.length === 1 ? '' : 'es'} to ${groups.length} destination${groups.length === 1 ? '' : 's'}`)), '');
    for (const g of groups) {
      const r = g.results[0];
      out.push(`  ${c.red('✗')} ${c.bold(g.destination)}${g.results.length > 1 ? c.gray(`  ×${g.results.length}`) : ''}  ${c.gray(`(sequence ${sequences(g.results)})`)}`);
      out.push(`      ${r.agrees ? '' : c.yellow('disagrees: ')}${verdictSentence(r)}`);
      if (r.nearMiss) out.push(`      nearest rule: ${c.cyan(r.nearMiss.rule)}: ${r.nearMiss.message}`);
      else out.push(`      nearest rule: none names this destination`);
      const fix = fixText(r);
      if (fix) out.push(`      ${c.green('fix')}: ${fix}`);
      out.push('');
    }
  }
  if (disagreeing.length) {
    const groups = groupByDestination(disagreeing);
    out.push(c.bold(c.yellow(`Recorded verdict differs from the model: ${disagreeing.length}`)), '');
    for (const g of groups) {
      out.push(`  ${c.yellow('!')} ${c.bold(g.destination)}${g.results.length > 1 ? c.gray(`  ×${g.results.length}`) : ''}  ${c.gray(`(sequence ${sequences(g.results)})`)}`);
      out.push(`      ${verdictSentence(g.results[0])}`, '');
    }
  }
  if (allowed.length) {
    const byRule = new Map<string, number>();
    for (const r of allowed) byRule.set(r.model.rule!, (byRule.get(r.model.rule!) ?? 0) + 1);
    out.push(c.bold(c.green(`Allowed: ${allowed.length}`)), '');
    for (const [rule, n] of [...byRule].sort((a, b) => b[1] - a[1])) {
      out.push(`  ${c.green('✓')} ${rule === 'default' ? 'the default (allow) alone, no rule' : rule}  ${c.gray(`×${n}`)}`);
    }
    out.push('');
  }
  if (report.opaquePresets.length && report.summary.uncertain) {
    out.push(c.yellow(`${report.summary.uncertain} denial${report.summary.uncertain === 1 ? ' is' : 's are'} uncertain: enabled presets with unknown contents (${report.opaquePresets.join(', ')}) might permit ${report.summary.uncertain === 1 ? 'it' : 'them'}.`), '');
  }
  if (report.summary.reliesOnDefault) out.push(`${report.summary.reliesOnDefault} access${report.summary.reliesOnDefault === 1 ? '' : 'es'} rely on \`default: allow\` alone.`, '');
  out.push(c.bold('Summary: ') + summaryLine(report));
  return out.join('\n') + '\n';
}

function md(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

export function renderMarkdown(report: ExplainReport): string {
  const s = report.summary;
  const out: string[] = ['## Network policy: explain', ''];
  out.push(`**${s.denied} denied**, ${s.allowed} allowed, ${s.observations} observations, ${s.disagreements} disagreement${s.disagreements === 1 ? '' : 's'} with the recorded verdicts.`, '');
  const denied = report.results.filter((r) => r.model.verdict === 'deny');
  if (denied.length) {
    out.push('### Denied', '', '| Destination | Count | Recorded vs model | Nearest rule | Fix |', '|---|---|---|---|---|');
    for (const g of groupByDestination(denied)) {
      const r = g.results[0];
      const near = r.nearMiss ? `\`${r.nearMiss.rule}\`: ${md(r.nearMiss.message)}` : '';
      const fix = r.fix ? `add to \`${r.fix.pointer.replace(/\/-$/, '')}\`: \`${md(JSON.stringify(r.fix.value))}\`` : '';
      out.push(`| \`${md(g.destination)}\` | ${g.results.length} | ${md(verdictSentence(r))} | ${near} | ${fix} |`);
    }
    out.push('');
  }
  const disagreeing = report.results.filter((r) => !r.agrees && r.model.verdict !== 'deny');
  if (disagreeing.length) {
    out.push('### Recorded verdict differs from the model', '');
    for (const g of groupByDestination(disagreeing)) out.push(`- \`${md(g.destination)}\` (×${g.results.length}): ${md(verdictSentence(g.results[0]))}`);
    out.push('');
  }
  if (report.opaquePresets.length && s.uncertain) out.push(`> ${s.uncertain} denial(s) are uncertain: enabled presets with unknown contents (${report.opaquePresets.join(', ')}) might permit them.`, '');
  return out.join('\n');
}
