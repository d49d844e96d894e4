/** Rendering an explain report for people: terminal text (colour on a TTY only) and Markdown. */
import { verdictSentence, type ExplainReport, type ExplainResult } from '@netpolicy/core';
import { paint } from './io';
import { escapeControl as e } from './escape';

interface Group {
  destination: string;
  /** The first result for this destination (the one shown), without its observation. */
  first: ExplainResult;
  count: number;
  /** Sequences of the first few results (enough to show). */
  sequences: number[];
}

const SHOWN_SEQUENCES = 6;

/** Destinations a section of the report keeps (the most repeated ones are kept; see GroupTable). */
export const GROUPS_KEPT = 1000;

/**
 * Results grouped by destination, with a bounded number of groups: once `capacity` are held, a
 * new destination replaces the oldest one seen only once (a one-off is the least useful line of
 * a report), or, when every group has repeated, is only counted. Memory follows `capacity`, not
 * the number of distinct destinations; what is not shown is counted (`omitted*`).
 */
export class GroupTable {
  readonly groups = new Map<string, Group>();
  /** Destinations held that were seen once, oldest first. */
  private readonly singles = new Set<string>();
  /** Accesses counted (shown or not). */
  total = 0;
  omittedAccesses = 0;
  omittedDestinations = 0;

  constructor(readonly capacity = GROUPS_KEPT) {}

  add(r: ExplainResult): void {
    this.total++;
    const g = this.groups.get(r.destination);
    if (g) {
      if (g.count++ === 1) this.singles.delete(r.destination);
      if (g.sequences.length <= SHOWN_SEQUENCES) g.sequences.push(r.sequence);
      return;
    }
    if (this.groups.size >= this.capacity) {
      const oldest = this.singles.values().next();
      if (oldest.done) {
        this.omittedAccesses++;
        this.omittedDestinations++; // an upper bound: a destination left out may come again
        return;
      }
      this.singles.delete(oldest.value);
      this.groups.delete(oldest.value);
      this.omittedAccesses++;
      this.omittedDestinations++;
    }
    this.groups.set(r.destination, { destination: r.destination, first: { ...r, observation: undefined as never, access: undefined }, count: 1, sequences: [r.sequence] });
    this.singles.add(r.destination);
  }
}

/**
 * What the people-facing reports need, gathered one result at a time: groups by destination and
 * counts by rule, so memory follows the number of destinations shown, not of observations.
 */
export class ReportDigest {
  readonly denied = new GroupTable();
  readonly disagreeing = new GroupTable();
  readonly allowedByRule = new Map<string, number>();
  get deniedCount(): number { return this.denied.total; }
  get disagreeingCount(): number { return this.disagreeing.total; }
  allowedCount = 0;

  add(r: ExplainResult): void {
    if (r.model.verdict === 'deny') this.denied.add(r);
    else if (!r.agrees) this.disagreeing.add(r);
    else if (r.model.verdict === 'allow') {
      this.allowedCount++;
      this.allowedByRule.set(r.model.rule!, (this.allowedByRule.get(r.model.rule!) ?? 0) + 1);
    }
  }
}

/** Most frequent first, then in trace order. */
function sortedGroups(table: GroupTable): Group[] {
  return [...table.groups.values()].sort((a, b) => b.count - a.count || a.first.index - b.first.index);
}

function sequences(g: Group): string {
  const seqs = g.sequences.slice(0, SHOWN_SEQUENCES).join(', ');
  return g.count > SHOWN_SEQUENCES ? `${seqs}, …` : seqs;
}

function fixText(r: ExplainResult): string | undefined {
  if (!r.fix) return undefined;
  const where = r.fix.pointer.replace(/\/-$/, '');
  return e(`add to ${where}: ${JSON.stringify(r.fix.value)}${r.fix.note ? ` (${r.fix.note})` : ''}`);
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
      out.push(`  ${c.red('✗')} ${c.bold(e(g.destination))}${g.count > 1 ? c.gray(`  ×${g.count}`) : ''}  ${c.gray(`(sequence ${sequences(g)})`)}`);
      out.push(`      ${r.agrees ? '' : c.yellow('disagrees: ')}${e(verdictSentence(r))}`);
      if (r.nearMiss) out.push(`      nearest rule: ${c.cyan(e(r.nearMiss.rule))}: ${e(r.nearMiss.message)}`);
      else out.push(`      nearest rule: none names this destination`);
      const fix = fixText(r);
      if (fix) out.push(`      ${c.green('fix')}: ${fix}`);
      out.push('');
    }
  }
  if (digest.disagreeingCount) {
    out.push(c.bold(c.yellow(`Recorded verdict differs from the model: ${digest.disagreeingCount}`)), '');
    for (const g of sortedGroups(digest.disagreeing)) {
      out.push(`  ${c.yellow('!')} ${c.bold(e(g.destination))}${g.count > 1 ? c.gray(`  ×${g.count}`) : ''}  ${c.gray(`(sequence ${sequences(g)})`)}`);
      out.push(`      ${e(verdictSentence(g.first))}`, '');
    }
  }
  if (digest.allowedCount) {
    out.push(c.bold(c.green(`Allowed: ${digest.allowedCount}`)), '');
    for (const [rule, n] of [...digest.allowedByRule].sort((a, b) => b[1] - a[1])) {
      out.push(`  ${c.green('✓')} ${rule === 'default' ? 'the default (allow) alone, no rule' : e(rule)}  ${c.gray(`×${n}`)}`);
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
  return e(text.replace(/\|/g, '\\|').replace(/\n/g, ' '));
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

// ---- JSON, written result by result --------------------------------------------------------

/** The contracts.md form of one result (the internal members left out). */
export function jsonResult(r: ExplainResult) {
  const { index: _i, access: _a, observation: _o, reliesOnDefault, nearMiss, ...rest } = r;
  return { ...rest, nearMiss, ...(reliesOnDefault ? { reliesOnDefault } : {}) };
}

/** Where JSON text goes: stdout, or a spool while it is not yet known whether the pass counts. */
export interface TextSink { write(text: string): void }

const FLUSH_AT = 1 << 16;

/**
 * The JSON report, one result per line, written as results are produced:
 * `{"results":[` + results + `],"summary":{...}}`. The summary comes last because it is known
 * only at the end; JSON readers do not depend on member order (contracts.md names the members).
 * Text is gathered into blocks of about 64 KiB before it is handed to the sink.
 */
export class JsonReportWriter {
  private pending = '{\n  "results": [';
  private count = 0;

  constructor(private readonly sink: TextSink) {}

  add(r: ExplainResult): void {
    this.pending += `${this.count++ ? ',' : ''}\n    ${JSON.stringify(jsonResult(r))}`;
    if (this.pending.length >= FLUSH_AT) this.flush();
  }

  flush(): void {
    if (this.pending) this.sink.write(this.pending);
    this.pending = '';
  }

  /** Closes the array and writes the summary. */
  end(s: ExplainReport['summary']): void {
    const summary = { observations: s.observations, allowed: s.allowed, denied: s.denied, disagreements: s.disagreements, none: s.none, uncertain: s.uncertain, reliesOnDefault: s.reliesOnDefault };
    this.pending += `${this.count ? '\n  ' : ''}],\n  "summary": ${JSON.stringify(summary)}\n}\n`;
    this.flush();
  }
}
