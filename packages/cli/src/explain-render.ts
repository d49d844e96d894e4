/** Rendering an explain report for people: terminal text (colour on a TTY only) and Markdown. */
import { verdictSentence, type ExplainReport, type ExplainResult } from '@netpolicy/core';
import { paint } from './io';

interface Group {
  destination: string;
  /** The first result for this destination (the one shown), without its observation. */
  first: ExplainResult;
  count: number;
  /** Sequences of the first few results (enough to show). */
  sequences: number[];
}

const SHOWN_SEQUENCES = 6;

/**
 * What the people-facing reports need, gathered one result at a time: groups by destination and
 * counts by rule, so memory follows the number of destinations, not of observations.
 */
export class ReportDigest {
  readonly denied = new Map<string, Group>();
  readonly disagreeing = new Map<string, Group>();
  readonly allowedByRule = new Map<string, number>();
  deniedCount = 0;
  disagreeingCount = 0;
  allowedCount = 0;

  add(r: ExplainResult): void {
    if (r.model.verdict === 'deny') {
      this.deniedCount++;
      addTo(this.denied, r);
    } else if (!r.agrees) {
      this.disagreeingCount++;
      addTo(this.disagreeing, r);
    } else if (r.model.verdict === 'allow') {
      this.allowedCount++;
      this.allowedByRule.set(r.model.rule!, (this.allowedByRule.get(r.model.rule!) ?? 0) + 1);
    }
  }
}

function addTo(groups: Map<string, Group>, r: ExplainResult): void {
  let g = groups.get(r.destination);
  if (!g) groups.set(r.destination, (g = { destination: r.destination, first: { ...r, observation: undefined as never, access: undefined }, count: 0, sequences: [] }));
  g.count++;
  if (g.sequences.length <= SHOWN_SEQUENCES) g.sequences.push(r.sequence);
}

/** Most frequent first, then in trace order. */
function sortedGroups(groups: Map<string, Group>): Group[] {
  return [...groups.values()].sort((a, b) => b.count - a.count || a.first.index - b.first.index);
}

function sequences(g: Group): string {
  const seqs = g.sequences.slice(0, SHOWN_SEQUENCES).join(', ');
  return g.count > SHOWN_SEQUENCES ? `${seqs}, …` : seqs;
}

function fixText(r: ExplainResult): string | undefined {
  if (!r.fix) return undefined;
  const where = r.fix.pointer.replace(/\/-$/, '');
  return `add to ${where}: ${JSON.stringify(r.fix.value)}${r.fix.note ? ` (${r.fix.note})` : ''}`;
}

function summaryLine(report: ExplainReport): string {
  const s = report.summary;
  const parts = [`${s.observations} observations`, `${s.allowed} allowed`, `${s.denied} denied`];
  if (s.none) parts.push(`${s.none} without a verdict (DNS)`);
  parts.push(`${s.disagreements} disagreement${s.disagreements === 1 ? '' : 's'} with the recorded verdicts`);
  return parts.join(', ');
}

export function renderText(report: ExplainReport, digest: ReportDigest, color: boolean): string {
  const c = paint(color);
  const out: string[] = [];
  const denied = digest.deniedCount;
  if (denied) {
    const groups = sortedGroups(digest.denied);
    out.push(c.bold(c.red(`Denied: ${denied} access${denied === 1 ? '' : 'es'} to ${groups.length} destination${groups.length === 1 ? '' : 's'}`)), '');
    for (const g of groups) {
      const r = g.first;
      out.push(`  ${c.red('✗')} ${c.bold(g.destination)}${g.count > 1 ? c.gray(`  ×${g.count}`) : ''}  ${c.gray(`(sequence ${sequences(g)})`)}`);
      out.push(`      ${r.agrees ? '' : c.yellow('disagrees: ')}${verdictSentence(r)}`);
      if (r.nearMiss) out.push(`      nearest rule: ${c.cyan(r.nearMiss.rule)}: ${r.nearMiss.message}`);
      else out.push(`      nearest rule: none names this destination`);
      const fix = fixText(r);
      if (fix) out.push(`      ${c.green('fix')}: ${fix}`);
      out.push('');
    }
  }
  if (digest.disagreeingCount) {
    out.push(c.bold(c.yellow(`Recorded verdict differs from the model: ${digest.disagreeingCount}`)), '');
    for (const g of sortedGroups(digest.disagreeing)) {
      out.push(`  ${c.yellow('!')} ${c.bold(g.destination)}${g.count > 1 ? c.gray(`  ×${g.count}`) : ''}  ${c.gray(`(sequence ${sequences(g)})`)}`);
      out.push(`      ${verdictSentence(g.first)}`, '');
    }
  }
  if (digest.allowedCount) {
    out.push(c.bold(c.green(`Allowed: ${digest.allowedCount}`)), '');
    for (const [rule, n] of [...digest.allowedByRule].sort((a, b) => b[1] - a[1])) {
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

export function renderMarkdown(report: ExplainReport, digest: ReportDigest): string {
  const s = report.summary;
  const out: string[] = ['## Network policy: explain', ''];
  out.push(`**${s.denied} denied**, ${s.allowed} allowed, ${s.observations} observations, ${s.disagreements} disagreement${s.disagreements === 1 ? '' : 's'} with the recorded verdicts.`, '');
  if (digest.deniedCount) {
    out.push('### Denied', '', '| Destination | Count | Recorded vs model | Nearest rule | Fix |', '|---|---|---|---|---|');
    for (const g of sortedGroups(digest.denied)) {
      const r = g.first;
      const near = r.nearMiss ? `\`${r.nearMiss.rule}\`: ${md(r.nearMiss.message)}` : '';
      const fix = r.fix ? `add to \`${r.fix.pointer.replace(/\/-$/, '')}\`: \`${md(JSON.stringify(r.fix.value))}\`` : '';
      out.push(`| \`${md(g.destination)}\` | ${g.count} | ${md(verdictSentence(r))} | ${near} | ${fix} |`);
    }
    out.push('');
  }
  if (digest.disagreeingCount) {
    out.push('### Recorded verdict differs from the model', '');
    for (const g of sortedGroups(digest.disagreeing)) out.push(`- \`${md(g.destination)}\` (×${g.count}): ${md(verdictSentence(g.first))}`);
    out.push('');
  }
  if (report.opaquePresets.length && s.uncertain) out.push(`> ${s.uncertain} denial(s) are uncertain: enabled presets with unknown contents (${report.opaquePresets.join(', ')}) might permit them.`, '');
  return out.join('\n');
}
