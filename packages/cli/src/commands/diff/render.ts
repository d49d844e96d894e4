/**
 * `netpolicy diff`'s report: the run's results as one model (`DiffRun`), and its text, JSON and
 * Markdown forms. The Markdown is for a pull-request comment or a job summary: bounded
 * (`MARKDOWN_LIMIT` characters, under GitHub's 65,536 for a comment), each section collapsed
 * under `<details>` (the newly denied accesses open), outside text escaped (ci-formats/summary).
 */
import { type Decision, type Policy, type RuleChange, type RuleDiff, type Severity, type VerdictChange } from '@netpolicy/core';
import { valueAt } from '@netpolicy/core/internal';
import { plural } from '../../ci-formats/finding';
import { mdCode, mdText } from '../../ci-formats/summary';
import { clipped as e } from '../../escape';
import { paint } from '../../io';

export interface Listed extends VerdictChange { trace: string }

/** A lint finding of NEW (added) or OLD (resolved), placed as check's JSON places it. */
export interface DiffFinding {
  severity: Severity;
  code: string;
  message: string;
  pointer: string;
  range: { start: { line: number; character: number }; end: { line: number; character: number } };
}

/**
 * `--fail-on` values. `newly-denied` is the default; `any` is `newly-allowed` + `newly-denied`;
 * `any-change` is any verdict change, rule added or removed, default changed, or lint finding added.
 */
export const FAIL_ON = ['newly-denied', 'newly-allowed', 'any', 'new-findings', 'unused-rules', 'any-change', 'never'] as const;
export type FailOn = (typeof FAIL_ON)[number];

export interface DiffRun {
  old: { name: string; absent: boolean; policy: Policy };
  /** `file`: NEW's path as given (undefined for standard input), for CI annotations. */
  new: { name: string; file?: string; text: string; policy: Policy };
  traces: string[];
  accesses: number;
  counts: Record<VerdictChange['change'], number>;
  /** The changes listed (rule-changed ones only with --rule-changes), in trace order. */
  changes: Listed[];
  rules: RuleDiff;
  findings: { added: DiffFinding[]; resolved: DiffFinding[] };
  failOn: FailOn[];
  /** The --fail-on conditions that held (exit 1 when any). */
  held: FailOn[];
}

export const traced = (run: DiffRun): boolean => run.traces.length > 0;

/** The added rules no traced access is decided by (none without traces). */
export function unusedAdded(run: DiffRun): RuleChange[] {
  return traced(run) ? run.rules.added.filter((r) => r.uses === 0) : [];
}

/** Which --fail-on conditions hold. */
export function conditionsHeld(run: Omit<DiffRun, 'held'>): FailOn[] {
  const allowed = run.counts['newly-allowed'] > 0, denied = run.counts['newly-denied'] > 0;
  const findings = run.findings.added.length > 0;
  const rules = run.rules.added.length > 0 || run.rules.removed.length > 0 || run.rules.default !== undefined;
  const unused = traced(run as DiffRun) && run.rules.added.some((r) => r.uses === 0);
  const holds: Record<FailOn, boolean> = {
    'newly-denied': denied, 'newly-allowed': allowed, any: allowed || denied, 'new-findings': findings,
    'unused-rules': unused, 'any-change': allowed || denied || rules || findings, never: false,
  };
  return run.failOn.filter((f) => holds[f]);
}

/** The changes of one kind grouped by destination (first seen first). */
export function groups(changes: readonly Listed[], kind: VerdictChange['change']): Listed[][] {
  const byDestination = new Map<string, Listed[]>();
  for (const x of changes) {
    if (x.change !== kind) continue;
    const group = byDestination.get(x.destination);
    if (group) group.push(x);
    else byDestination.set(x.destination, [x]);
  }
  return [...byDestination.values()];
}

/** A rule as a reader sees it: a preset's name, `default`, or the source or connection as compact JSON (clipped). */
export function ruleText(rule: string, policy: Policy, max = 200): string {
  if (rule === 'default') return 'the default';
  if (rule.startsWith('preset:')) return `preset ${rule.slice('preset:'.length)}`;
  const value = valueAt(policy, rule);
  if (value === undefined) return rule;
  const json = JSON.stringify(value);
  return json.length > max ? `${json.slice(0, max)}…` : json;
}

const changeText = (r: RuleChange, max = 200): string => {
  if (r.kind === 'preset') return `preset ${r.value as string}`;
  const json = JSON.stringify(r.value);
  return json.length > max ? `${json.slice(0, max)}…` : json;
};

const usesText = (r: RuleChange): string => (r.uses === undefined ? '' : r.uses === 0 ? 'no traced access' : plural(r.uses, 'traced access', 'traced accesses'));

const decisionText = (d: Decision): string => `${d.verdict} by ${d.rule}`;

// ---------------------------------------------------------------------------------------- text

export function renderText(run: DiffRun, color: boolean): string {
  const c = paint(color);
  const out: string[] = [c.gray(`${e(run.old.name)}${run.old.absent ? ' (absent: no policy, every access allowed)' : ''} → ${e(run.new.name)}`), ''];
  const section = (kind: VerdictChange['change'], title: string, mark: string) => {
    const gs = groups(run.changes, kind);
    if (!gs.length) return;
    out.push(c.bold(`${title}: ${gs.reduce((n, g) => n + g.length, 0)}`));
    for (const xs of gs) {
      const x = xs[0];
      out.push(`  ${mark} ${e(x.destination)}${xs.length > 1 ? c.gray(`  ×${xs.length}`) : ''}  ${c.gray(e(`${decisionText(x.old)} → ${decisionText(x.new)}`))}`);
    }
    out.push('');
  };
  section('newly-allowed', 'Newly allowed', c.yellow('+'));
  section('newly-denied', 'Newly denied', c.red('-'));
  section('rule-changed', 'Same verdict, different deciding rule', c.gray('~'));
  const rules = (list: RuleChange[], title: string, mark: string) => {
    if (!list.length) return;
    const unused = list.filter((r) => r.uses === 0).length;
    out.push(c.bold(`${title}: ${list.length}`) + (traced(run) && unused ? ` (${unused} used by no traced access)` : ''));
    for (const r of list) {
      const uses = usesText(r);
      out.push(`  ${mark} ${e(r.pointer ?? r.rule)} ${e(changeText(r))}${uses ? `  ${r.uses === 0 ? c.yellow(uses) : c.gray(uses)}` : ''}`);
    }
    out.push('');
  };
  rules(run.rules.added, 'Rules added', c.yellow('+'));
  rules(run.rules.removed, 'Rules removed', c.red('-'));
  if (run.rules.default) out.push(c.bold(`Default: ${run.rules.default.old} → ${run.rules.default.new}`), '');
  const findings = (list: DiffFinding[], title: string, name: string) => {
    if (!list.length) return;
    out.push(c.bold(`${title}: ${list.length}`));
    for (const f of list) out.push(`  ${e(name)}:${f.range.start.line + 1}:${f.range.start.character + 1} ${f.severity} ${f.code}: ${e(f.message)}`);
    out.push('');
  };
  findings(run.findings.added, 'Lint findings the change adds', run.new.name);
  findings(run.findings.resolved, 'Lint findings the change resolves', run.old.name);
  if (traced(run)) {
    out.push(`${run.accesses} accesses compared: ${run.counts['newly-allowed']} newly allowed, ${run.counts['newly-denied']} newly denied, ${run.counts['rule-changed']} with another deciding rule.`);
  } else {
    out.push('No traces given: verdict changes not computed (give --trace FILE to replay a job\'s accesses).');
  }
  out.push(`Rules: ${run.rules.added.length} added, ${run.rules.removed.length} removed${run.rules.default ? ', default changed' : ''}. Lint: ${plural(run.findings.added.length, 'finding')} added, ${run.findings.resolved.length} resolved.`);
  if (run.held.length) out.push(c.red(`Fails: ${run.held.join(', ')} (--fail-on ${run.failOn.join(',')}).`));
  return out.join('\n') + '\n';
}

// ---------------------------------------------------------------------------------------- JSON

const ruleJson = (r: RuleChange) => ({ kind: r.kind, rule: r.rule, ...(r.pointer !== undefined ? { pointer: r.pointer } : {}), value: r.value, uses: r.uses ?? null });

/** The JSON report: diff's original members (summary, changes) and the review's (old, new, rules, findings, failOn, failed). */
export function renderJson(run: DiffRun): string {
  return JSON.stringify({
    old: { name: run.old.name, absent: run.old.absent },
    new: { name: run.new.name },
    traces: run.traces,
    summary: { accesses: run.accesses, newlyAllowed: run.counts['newly-allowed'], newlyDenied: run.counts['newly-denied'], ruleChanged: run.counts['rule-changed'] },
    changes: run.changes.map(({ trace, ...c }) => ({ trace, ...c })),
    rules: {
      added: run.rules.added.map(ruleJson),
      removed: run.rules.removed.map(ruleJson),
      default: run.rules.default ?? null,
      unusedAdded: traced(run) ? unusedAdded(run).length : null,
    },
    findings: { added: run.findings.added, resolved: run.findings.resolved },
    failOn: run.failOn,
    failed: run.held,
  }, null, 2) + '\n';
}

// ------------------------------------------------------------------------------------ Markdown

/** Characters of Markdown at most: a GitHub comment takes 65,536; the rest is left for what a workflow adds around it. */
export const MARKDOWN_LIMIT = 60_000;
/** Rows made per section at most before the budget is shared (the limit shows far fewer). */
const ROWS_MADE = 2_000;

interface MdSection {
  summary: string;
  open: boolean;
  head: string[];
  rows: string[];
  /** Rows not made (past ROWS_MADE). */
  more: number;
  noun: [string, string];
  note?: string;
}

function section(summary: string, open: boolean, head: string[], rows: Iterable<string[]>, noun: [string, string], note?: string): MdSection {
  const lines: string[] = [];
  let more = 0;
  for (const r of rows) {
    if (lines.length < ROWS_MADE) lines.push(`| ${r.join(' | ')} |`);
    else more++;
  }
  return { summary, open, head, rows: lines, more, noun, ...(note ? { note } : {}) };
}

const tableHead = (head: string[]) => [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`].join('\n');

function frame(s: MdSection, seeAll: string) {
  return {
    open: `<details${s.open ? ' open' : ''}>\n<summary>${s.summary}</summary>\n\n${s.note ? `${s.note}\n\n` : ''}${tableHead(s.head)}\n`,
    close: '\n</details>\n',
    rest: (n: number) => `\n… and ${plural(n, `more ${s.noun[0]}`, `more ${s.noun[1]}`)} not listed here: see ${seeAll}.\n`,
  };
}

/** The characters a section takes with every row made (and room for the line counting rows left out). */
function sectionNeed(s: MdSection, seeAll: string): number {
  const f = frame(s, seeAll);
  let size = f.open.length + f.close.length + f.rest(s.rows.length + s.more).length;
  for (const row of s.rows) size += row.length + 1;
  return size;
}

/** A section in at most `budget` characters (its frame included): the rows that fit, then a count of the rest. */
function renderSection(s: MdSection, budget: number, seeAll: string): string {
  const f = frame(s, seeAll);
  let size = f.open.length + f.close.length + f.rest(s.rows.length + s.more).length;
  const shown: string[] = [];
  for (const row of s.rows) {
    if (size + row.length + 1 > budget) break;
    shown.push(row);
    size += row.length + 1;
  }
  const rest = s.rows.length - shown.length + s.more;
  return `${f.open}${shown.map((r) => `${r}\n`).join('')}${rest > 0 ? f.rest(rest) : ''}${f.close}`;
}

/**
 * Shares `total` characters among sections: a section that needs less than an equal share gets
 * what it needs, and what it leaves goes to the others (water-filling). Returns budgets in order.
 */
function shareBudget(needs: number[], total: number): number[] {
  const budgets = new Array<number>(needs.length).fill(0);
  const order = needs.map((n, i) => [n, i] as const).sort((a, b) => a[0] - b[0]);
  let left = total;
  for (let k = 0; k < order.length; k++) {
    const share = Math.floor(left / (order.length - k));
    const [need, i] = order[k];
    budgets[i] = Math.min(need, share);
    left -= budgets[i];
  }
  return budgets;
}

export interface MarkdownOptions {
  /** Where the whole report can be seen (ends the line counting rows left out). */
  seeAll?: string;
  limit?: number;
}

/** The review as Markdown for a pull-request comment or a job summary, at most `limit` characters. */
export function renderMarkdown(run: DiffRun, options: MarkdownOptions = {}): string {
  const limit = options.limit ?? MARKDOWN_LIMIT;
  const seeAll = options.seeAll ?? '`netpolicy diff` run locally, or its `--format json` report';
  const denied = groups(run.changes, 'newly-denied');
  const allowed = groups(run.changes, 'newly-allowed');
  const unused = unusedAdded(run).length;
  const head: string[] = [
    '## netpolicy diff', '',
    `${mdCode(run.new.name, 200)} against ${mdCode(run.old.name, 200)}${run.old.absent ? ' (absent there: a new policy; before it, every access was allowed)' : ''}${traced(run) ? ` · ${plural(run.accesses, 'traced access', 'traced accesses')} from ${plural(run.traces.length, 'trace')}` : ''}`, '',
    '| Change | Count |', '|---|---:|',
  ];
  if (traced(run)) {
    head.push(`| ${run.counts['newly-denied'] ? '❌ ' : ''}Traced accesses newly denied (a job would break) | ${run.counts['newly-denied']} |`);
    head.push(`| ${run.counts['newly-allowed'] ? '⚠️ ' : ''}Traced accesses newly allowed | ${run.counts['newly-allowed']} |`);
  }
  head.push(`| Rules added | ${run.rules.added.length}${traced(run) && unused ? ` (${unused} used by no traced access)` : ''} |`);
  head.push(`| Rules removed | ${run.rules.removed.length} |`);
  if (run.rules.default) head.push(`| Default | ${run.rules.default.old} → ${run.rules.default.new} |`);
  head.push(`| Lint findings added | ${run.findings.added.length} |`, `| Lint findings resolved | ${run.findings.resolved.length} |`, '');
  if (!traced(run)) head.push('No traces given: verdict changes are not computed (`--trace FILE` replays a job\'s accesses).', '');
  head.push(run.held.length
    ? `**Fails** (\`--fail-on ${run.failOn.join(',')}\`): ${run.held.map((h) => `\`${h}\``).join(', ')}.`
    : `Passes (\`--fail-on ${run.failOn.join(',')}\`) ✅`, '');
  const sections: MdSection[] = [];
  if (denied.length) {
    sections.push(section(`<b>Newly denied: ${run.counts['newly-denied']}</b> (a job would break)`, true, ['Destination', 'Times', 'Allowed before by', 'Trace'],
      (function* () { for (const g of denied) yield [mdCode(g[0].destination), String(g.length), g[0].old.rule.startsWith('/') ? `${mdCode(g[0].old.rule, 100)} ${mdCode(ruleText(g[0].old.rule, run.old.policy), 200)}` : mdCode(g[0].old.rule, 100), mdCode(g[0].trace, 100)]; })(),
      ['destination', 'destinations']));
  }
  if (allowed.length) {
    sections.push(section(`<b>Newly allowed: ${run.counts['newly-allowed']}</b> (review: the policy got wider)`, false, ['Destination', 'Times', 'Allowed by', 'Rule'],
      (function* () { for (const g of allowed) yield [mdCode(g[0].destination), String(g.length), mdCode(g[0].new.rule, 100), mdCode(ruleText(g[0].new.rule, run.new.policy), 200)]; })(),
      ['destination', 'destinations']));
  }
  const ruleRows = (list: RuleChange[]) => (function* () {
    for (const r of list) yield [mdCode(r.pointer ?? r.rule, 100), r.kind, r.uses === undefined ? '' : r.uses === 0 ? '**none**' : String(r.uses), mdCode(changeText(r), 200)];
  })();
  if (run.rules.added.length) {
    sections.push(section(`<b>Rules added: ${run.rules.added.length}</b>${traced(run) ? unused ? ` (${unused} used by no traced access)` : ' (each decides a traced access)' : ''}`, false, ['Rule', 'Kind', 'Traced accesses it decides', 'Content'], ruleRows(run.rules.added), ['rule', 'rules'],
      unused ? 'A rule no traced access is decided by is dead weight for these jobs, or wider than they need.' : undefined));
  }
  if (run.rules.removed.length) {
    sections.push(section(`<b>Rules removed: ${run.rules.removed.length}</b>`, false, ['Rule (in the old policy)', 'Kind', 'Traced accesses it decided', 'Content'], ruleRows(run.rules.removed), ['rule', 'rules']));
  }
  const findingRows = (list: DiffFinding[], name: string) => (function* () {
    for (const f of list) yield [f.severity, mdCode(`${name}:${f.range.start.line + 1}:${f.range.start.character + 1}`, 200), mdCode(f.code, 100), mdText(f.message)];
  })();
  if (run.findings.added.length) {
    sections.push(section(`<b>Lint findings added: ${run.findings.added.length}</b>`, false, ['Level', 'Location', 'Code', 'Message'], findingRows(run.findings.added, run.new.name), ['finding', 'findings']));
  }
  if (run.findings.resolved.length) {
    sections.push(section(`Lint findings resolved: ${run.findings.resolved.length}`, false, ['Level', 'Location (old)', 'Code', 'Message'], findingRows(run.findings.resolved, run.old.name), ['finding', 'findings']));
  }
  const top = head.join('\n');
  const budgets = shareBudget(sections.map((s) => sectionNeed(s, seeAll) + 1), limit - top.length - 1);
  return [top, ...sections.map((s, i) => renderSection(s, budgets[i] - 1, seeAll))].join('\n');
}
