/** Rendering an explain report for people: terminal text (colour on a TTY only) and Markdown. */
import { describeRule, verdictSentence, type ExplainReport, type ExplainResult, type Policy } from '@netpolicy/core';
import { BoundedCache } from '@netpolicy/core/internal';
import { paint } from '../../io';
import { clipped } from '../../escape';
import { componentsJson, type Attribution } from './components';
import { provenanceCountsJson, provenanceJson, provenanceMarkdown, provenanceText, resultProvenanceLine, ResultProvenanceJson, type Provenance } from './provenance';

/**
 * Outside text in a line of the text or Markdown report: control characters escaped, cut at 2,000
 * characters with `…` (a 1 MB URL is one line, not a megabyte repeated in the destination, the
 * near miss and the fix; ordinary fixes and notes are far shorter). JSON keeps the exact strings.
 */
const e = (text: string): string => clipped(text, 2000);

interface Group {
  destination: string;
  /** The first result for this destination (the one shown). */
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
  /**
   * Groups held that were seen once, oldest first, from `head` on: a queue, each group queued once
   * when made, and passed over once it repeats. Not a Set: taking a Set's first value walks over
   * the holes its deletions leave (up to its capacity each time), which made a trace of 48,000
   * distinct denials spend 45 ms here (docs/performance.md, issue 20 round 4).
   */
  private singles: Group[] = [];
  private head = 0;
  /** Accesses counted (shown or not). */
  total = 0;
  omittedAccesses = 0;
  omittedDestinations = 0;

  constructor(readonly capacity = GROUPS_KEPT) {}

  add(r: ExplainResult): void {
    this.total++;
    const g = this.groups.get(r.destination);
    if (g) {
      g.count++;
      if (g.sequences.length <= SHOWN_SEQUENCES) g.sequences.push(r.sequence);
      return;
    }
    if (this.groups.size >= this.capacity) {
      const oldest = this.oldestSingle();
      this.omittedAccesses++;
      // An upper bound when nothing is replaced: a destination left out may come again.
      this.omittedDestinations++;
      if (oldest === undefined) return;
      this.groups.delete(oldest.destination);
    }
    // The result itself (held only while its group is: at most `capacity` of them).
    const group: Group = { destination: r.destination, first: r, count: 1, sequences: [r.sequence] };
    this.groups.set(r.destination, group);
    this.singles.push(group);
  }

  /** Takes the oldest group still seen once off the queue; undefined when every group has repeated. */
  private oldestSingle(): Group | undefined {
    const queue = this.singles;
    let found: Group | undefined;
    while (this.head < queue.length) {
      const g = queue[this.head++];
      if (g.count === 1) { found = g; break; }
    }
    // Only groups held are queued, each once: what is left is at most `capacity` long.
    if (this.head > 1024 && this.head * 2 > queue.length) {
      this.singles = queue.slice(this.head);
      this.head = 0;
    }
    return found;
  }
}

/**
 * What the people-facing reports need, gathered one result at a time: groups by destination and
 * counts by rule, so memory follows the number of destinations shown, not of observations.
 * Sections follow what a developer debugging a job asks: what the model denies (and the job was
 * denied too, or recorded nothing), what the job did that the model denies, what the job was
 * denied that the model allows, and which rules allowed the rest.
 */
export class ReportDigest {
  /** Model denies; recorded denied or no recorded verdict. */
  readonly denied = new GroupTable();
  /** Recorded allowed (the job performed it); model denies. */
  readonly performed = new GroupTable();
  /** Recorded denied; model allows. */
  readonly disagreeing = new GroupTable();
  readonly allowedByRule = new Map<string, number>();
  allowedCount = 0;
  get deniedCount(): number { return this.denied.total + this.performed.total; }
  get disagreeingCount(): number { return this.disagreeing.total + this.performed.total; }

  add(r: ExplainResult): void {
    if (r.model.verdict === 'deny') (r.recorded.verdict === 'allow' ? this.performed : this.denied).add(r);
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

/** A policy fix as `add to WHERE: VALUE (note)`; a fix for the job (`kind: 'job'`) is its note. */
function fixText(r: ExplainResult): string | undefined {
  if (!r.fix) return undefined;
  if (r.fix.kind === 'job') return e(r.fix.note);
  const where = r.fix.pointer.replace(/\/-$/, '');
  return e(`add to ${where}: ${JSON.stringify(r.fix.value)}${r.fix.note ? ` (${r.fix.note})` : ''}`);
}

/** 12,345: thousands separated by hand (toLocaleString loads ICU data: ~20 ms at the first call). */
const count = (n: number): string => String(n).replace(/\B(?=(\d{3})+$)/g, ',');
const plural = (n: number, one: string, many = `${one}s`) => `${count(n)} ${n === 1 ? one : many}`;

/** `N accesses to M destinations` (M a lower bound once destinations were left out). */
function extent(t: GroupTable): string {
  const shown = t.groups.size;
  return `${plural(t.total, 'access', 'accesses')} to ${t.omittedDestinations ? `more than ${count(shown)} destinations` : plural(shown, 'destination')}`;
}

function omittedLine(t: GroupTable): string[] {
  if (!t.omittedAccesses) return [];
  return [`  … and ${plural(t.omittedAccesses, 'more access', 'more accesses')} not shown (the report keeps the ${count(t.capacity)} most repeated destinations; --format json lists every access)`, ''];
}

/** The legend, said once instead of on every entry. */
export const LEGEND = 'recorded: what the job\'s network layer did (the trace). model: what this policy allows (the evaluation model).';

export function renderText(report: ExplainReport, digest: ReportDigest, color: boolean, policy: Policy, attribution?: Attribution, provenance?: Provenance): string {
  const c = paint(color);
  // Text from the policy and the trace is printed with control characters escaped (issue 10 item 2).
  const rule = (id: string) => e(describeRule(policy, id));
  const out: string[] = [c.gray(LEGEND), ''];
  const head = (g: Group, mark: string, extra?: string) =>
    `  ${mark} ${c.bold(e(g.destination))}${g.count > 1 ? c.gray(`  ×${g.count}`) : ''}  ${c.gray(`(sequence ${sequences(g)}${extra ? `; ${e(extra)}` : ''})`)}`;
  // --provenance: a denial that pulled by digest gets its own line (the section below lists every
  // artifact pulled; a request the job was denied pulled nothing, and allowed ones are only counted).
  const provenanceLine = (r: ExplainResult) => {
    const line = provenance ? resultProvenanceLine(provenance, r) : undefined;
    if (line !== undefined) out.push(`      provenance: ${e(line)}`);
  };
  const denial = (g: Group, mark: string, recordedNote: boolean) => {
    const r = g.first;
    const note = recordedNote ? (r.recorded.verdict === 'none' ? 'no recorded verdict' : r.recorded.reason ? `recorded: ${r.recorded.reason}` : undefined) : undefined;
    out.push(head(g, mark, note));
    if (attribution) out.push(`      ${attribution.textLine(r)}`);
    provenanceLine(r);
    if (!r.model.certain) out.push(`      ${c.yellow('uncertain')}: an enabled preset with unknown contents might allow it`);
    if (r.nearMiss) out.push(`      nearest rule: ${c.cyan(rule(r.nearMiss.rule))}: ${e(r.nearMiss.message)}`);
    else out.push('      nearest rule: none names this destination');
    const fix = fixText(r);
    const widen = r.nearMiss?.widen;
    // Widening the rule that nearly matched comes first; a new rule is the alternative.
    if (widen) out.push(`      ${c.green('fix')}: widen ${rule(r.nearMiss!.rule)}: ${e(`add to ${widen.pointer.replace(/\/-$/, '')}: ${JSON.stringify(widen.value)}`)}`);
    if (fix) out.push(`      ${!widen ? c.green('fix') : r.fix?.kind === 'job' ? 'or, in the job' : 'or, a new rule'}: ${fix}`);
    out.push('');
  };
  if (digest.denied.total) {
    out.push(c.bold(c.red(`Denied by the model: ${extent(digest.denied)}`)), '');
    for (const g of sortedGroups(digest.denied)) denial(g, c.red('✗'), true);
    out.push(...omittedLine(digest.denied));
  }
  if (digest.performed.total) {
    out.push(c.bold(c.yellow(`Performed by the job, denied by the model: ${extent(digest.performed)}`)), c.gray('  The job reached these; under this policy it would not.'), '');
    for (const g of sortedGroups(digest.performed)) denial(g, c.yellow('!'), false);
    out.push(...omittedLine(digest.performed));
  }
  if (digest.disagreeing.total) {
    out.push(c.bold(c.yellow(`Denied to the job, allowed by the model: ${extent(digest.disagreeing)}`)), '');
    for (const g of sortedGroups(digest.disagreeing)) {
      const r = g.first;
      out.push(head(g, c.yellow('!'), r.recorded.reason ? `recorded: ${r.recorded.reason}` : undefined));
      out.push(`      allowed by ${c.cyan(rule(r.model.rule!))}${r.recorded.rule ? `; the job's layer applied ${e(r.recorded.rule)}` : ''}`, '');
    }
    out.push(...omittedLine(digest.disagreeing));
  }
  if (digest.allowedCount) {
    out.push(c.bold(c.green(`Allowed: ${plural(digest.allowedCount, 'access', 'accesses')}`)), '');
    for (const [id, n] of [...digest.allowedByRule].sort((a, b) => b[1] - a[1])) {
      out.push(`  ${c.green('✓')} ${id === 'default' ? 'the default (allow) alone, no rule' : rule(id)}  ${c.gray(`×${n}`)}`);
    }
    out.push('');
  }
  if (report.opaquePresets.length && report.summary.uncertain) {
    out.push(c.yellow(`${report.summary.uncertain} denial${report.summary.uncertain === 1 ? ' is' : 's are'} uncertain: enabled presets with unknown contents (${report.opaquePresets.join(', ')}) might permit ${report.summary.uncertain === 1 ? 'it' : 'them'}.`), '');
  }
  if (attribution) out.push(...attribution.textSection().map((l, i) => (i === 0 ? c.bold(l) : l)));
  if (provenance) out.push(...provenanceText(provenance, color));
  if (report.summary.reliesOnDefault) out.push(`${report.summary.reliesOnDefault} access${report.summary.reliesOnDefault === 1 ? '' : 'es'} rely on \`default: allow\` alone.`, '');
  out.push(c.bold('Summary: ') + summaryLine(report));
  return out.join('\n') + '\n';
}

/** Counts by recorded verdict, the model's beside each. */
export function summaryLine(report: ExplainReport): string {
  const s = report.summary, rec = report.recorded;
  const parts = [`${plural(rec.allowed, 'allowed', 'allowed')} (model: ${s.allowed})`, `${count(rec.denied)} denied (model: ${s.denied})`];
  if (rec.none || s.none) parts.push(`${count(rec.none)} without a verdict (model: ${s.none})`);
  return `${plural(s.observations, 'observation')} recorded as ${parts.join(', ')}; ${plural(s.disagreements, 'disagreement')}`;
}

function md(text: string): string {
  return e(text.replace(/\|/g, '\\|').replace(/\n/g, ' '));
}

/** The Fix cell's policy addition (its note too), or the change a job fix asks of the job. */
function markdownFix(fix: ExplainResult['fix'], alternative: boolean): string {
  if (!fix) return '';
  const or = alternative ? 'or ' : '';
  if (fix.kind === 'job') return `${or}in the job: ${md(fix.note)}`;
  return `${or}add to \`${fix.pointer.replace(/\/-$/, '')}\`: \`${md(JSON.stringify(fix.value))}\`${fix.note ? ` (${md(fix.note)})` : ''}`;
}

export function renderMarkdown(report: ExplainReport, digest: ReportDigest, attribution?: Attribution, provenance?: Provenance): string {
  const s = report.summary;
  const out: string[] = ['## Network policy: explain', ''];
  out.push(`**${s.denied} denied**, ${s.allowed} allowed, ${s.observations} observations, ${s.disagreements} disagreement${s.disagreements === 1 ? '' : 's'} with the recorded verdicts.`, '');
  if (digest.deniedCount) {
    out.push('### Denied', '', `| Destination | Count | Recorded vs model | Nearest rule | Fix |${attribution ? ' Component |' : ''}${provenance ? ' Provenance |' : ''}`, `|---|---|---|---|---|${attribution ? '---|' : ''}${provenance ? '---|' : ''}`);
    for (const g of [...sortedGroups(digest.denied), ...sortedGroups(digest.performed)]) {
      const r = g.first;
      const near = r.nearMiss ? `\`${r.nearMiss.rule}\`: ${md(r.nearMiss.message)}` : '';
      const w = r.nearMiss?.widen;
      const fix = [w ? `widen: add to \`${w.pointer.replace(/\/-$/, '')}\`: \`${md(JSON.stringify(w.value))}\`` : '', markdownFix(r.fix, !!w)].filter(Boolean).join('<br>');
      const origin = provenance ? resultProvenanceLine(provenance, r) : undefined;
      out.push(`| \`${md(g.destination)}\` | ${g.count} | ${md(verdictSentence(r))} | ${near} | ${fix} |${attribution ? ` ${attribution.markdownCell(r, md)} |` : ''}${provenance ? ` ${origin !== undefined ? md(origin) : ''} |` : ''}`);
    }
    out.push('');
  }
  if (digest.disagreeingCount) {
    out.push('### Recorded verdict differs from the model', '');
    for (const g of [...sortedGroups(digest.performed), ...sortedGroups(digest.disagreeing)]) out.push(`- \`${md(g.destination)}\` (×${g.count}): ${md(verdictSentence(g.first))}`);
    out.push('');
  }
  if (attribution) out.push(...attribution.markdownSection(md));
  if (provenance) out.push(...provenanceMarkdown(provenance));
  if (report.opaquePresets.length && s.uncertain) out.push(`> ${s.uncertain} denial(s) are uncertain: enabled presets with unknown contents (${report.opaquePresets.join(', ')}) might permit them.`, '');
  return out.join('\n');
}

// ---- JSON, written result by result --------------------------------------------------------

/** The contracts.md form of one result (the internal members left out). */
export function jsonResult(r: ExplainResult) {
  const { index: _i, access: _a, observation: _o, reliesOnDefault, nearMiss, ...rest } = r;
  return { ...rest, nearMiss, ...(reliesOnDefault ? { reliesOnDefault } : {}) };
}

const str = (s: string | null): string => (s === null ? 'null' : JSON.stringify(s));

/**
 * JSON text of fixes and near misses, which explain shares between the results of one
 * destination (bounded; a WeakMap cost more: every key an ephemeron for the collector). As
 * small as core's cache of the details it mirrors (DETAILS_CACHED in eval/explain.ts): what it
 * holds survives young-generation collections.
 */
const sharedJson = new BoundedCache<object, string>(256);
function shared(value: object | null): string {
  if (value === null) return 'null';
  let text = sharedJson.get(value);
  if (text === undefined) sharedJson.set(value, (text = JSON.stringify(value)));
  return text;
}

/**
 * `JSON.stringify(jsonResult(r))`, written out member by member (the same text, held to it by a
 * test): no intermediate object per result, and the fix and near miss of a destination
 * serialised once.
 */
export function resultJson(r: ExplainResult, components?: string, provenance = ''): string {
  const rec = r.recorded, m = r.model;
  return `{"sequence":${JSON.stringify(r.sequence)},"protocol":${str(r.protocol)},"destination":${str(r.destination)},`
    + `"recorded":{"verdict":"${rec.verdict}","reason":${str(rec.reason)},"rule":${str(rec.rule)}},`
    + `"model":{"verdict":"${m.verdict}","rule":${str(m.rule)},"certain":${m.certain}},"agrees":${r.agrees},`
    + `"fix":${shared(r.fix)},"nearMiss":${shared(r.nearMiss)}${r.reliesOnDefault ? ',"reliesOnDefault":true' : ''}${components !== undefined ? `,"components":${components}` : ''}${provenance}}`;
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

  private readonly provenanceMembers: ResultProvenanceJson | undefined;

  /**
   * `attribution` (`--sbom`): each result gains `components`, the summary the counts per component.
   * `provenance` (`--provenance`, looked up before the first result): each result that pulled an
   * OCI artifact by digest gains `provenance`; `end` writes the counts and the top-level array.
   */
  constructor(private readonly sink: TextSink, private readonly attribution?: Attribution, private readonly provenance?: Provenance) {
    this.provenanceMembers = provenance ? new ResultProvenanceJson(provenance) : undefined;
  }

  /** `parsed`: the result's URL as explain parsed it (`Explainer.parsedUrl`), spared a second parse by attribution. */
  add(r: ExplainResult, parsed?: Parameters<Attribution['add']>[1]): void {
    const components = this.attribution ? componentsJson(this.attribution.add(r, parsed)) : undefined;
    this.pending += `${this.count++ ? ',' : ''}\n    ${resultJson(r, components, this.provenanceMembers?.member(r))}`;
    if (this.pending.length >= FLUSH_AT) this.flush();
  }

  flush(): void {
    if (this.pending) this.sink.write(this.pending);
    this.pending = '';
  }

  /**
   * Closes the array and writes the summary; with `provenance` (`--provenance`), the summary's
   * `provenance` counts and the top-level `provenance` array after it.
   */
  end(s: ExplainReport['summary']): void {
    const provenance = this.provenance;
    const summary = { observations: s.observations, allowed: s.allowed, denied: s.denied, disagreements: s.disagreements, none: s.none, uncertain: s.uncertain, reliesOnDefault: s.reliesOnDefault };
    let text = JSON.stringify(summary);
    if (this.attribution) text = `${text.slice(0, -1)},${this.attribution.summaryJson()}}`;
    if (provenance) text = `${text.slice(0, -1)},${provenanceCountsJson(provenance)}}`;
    this.pending += `${this.count ? '\n  ' : ''}],\n  "summary": ${text}${provenance ? `,\n  ${provenanceJson(provenance)}` : ''}\n}\n`;
    this.flush();
  }
}
