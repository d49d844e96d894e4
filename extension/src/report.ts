/**
 * The explain report as data and as HTML, without VS Code: denials first, grouped by destination
 * host (parsed from the access, never split from text), each with the rule that came nearest (its
 * range in the policy) and its fix; then the observations where the recorded verdict and the
 * model's differ. Bounded: the trace streams through `ReportBuilder`, which counts every denial
 * per host but keeps the details of one page (PAGE_SIZE denials) only, so a trace of a million
 * denials makes a report of the same size as one of a thousand. Everything from the trace is
 * outside text: control and bidi characters are shown escaped (core's escapeControl), then HTML
 * is escaped. The webview only renders this.
 */
import { type ComponentMatch, type SbomIndex, applyEdits, compilePolicy, denialFixEdits, escapeControl, verdictSentence, type Access, type ExplainReport, type ExplainResult, type Policy, type PolicyDocument } from '@netpolicy/core';
import { Locator, accessHost } from '@netpolicy/core/internal';

export interface ReportRange { offset: number; length: number }

/** Denials whose details a page of the report holds. */
export const PAGE_SIZE = 1000;
/** Hosts counted by name; denials to hosts beyond are counted together. */
export const MAX_HOSTS_COUNTED = 10_000;
/** Hosts listed in the report's table of most denied hosts. */
export const HOSTS_LISTED = 20;

export interface ReportDenial {
  /** The observation's index in the trace (the id the webview sends back). */
  id: number;
  sequence: number;
  protocol: string;
  destination: string;
  host: string;
  certain: boolean;
  recorded: string;
  nearest: { rule: string; reason: string; range?: ReportRange } | null;
  fix: { pointer: string; value: unknown; text: string } | null;
  /** A change to the job rather than the policy (plain http whose https form the policy allows). */
  jobNote?: string;
  /** The access (for re-checking it against the policy after a fix). */
  access?: Access;
  /** Set once the policy allows it (after a fix): the rule that does. */
  fixed?: string;
  /** The SBOM components this access fetched (when an SBOM lies beside the trace), strongest match first. */
  components?: ComponentMatch[];
}

export interface ReportGroup {
  host: string;
  /** Denials to this host in the whole trace (the page may hold fewer). */
  count: number;
  denials: ReportDenial[];
}

export interface ReportModel {
  policy: string;
  trace: string;
  summary: ExplainReport['summary'];
  /** The groups of this page's denials, most denied hosts first. */
  groups: ReportGroup[];
  disagreements: Array<{ id: number; sequence: number; destination: string; sentence: string; rule?: { pointer: string; range: ReportRange } }>;
  /** Disagreements beyond those listed. */
  moreDisagreements: number;
  opaquePresets: string[];
  lateDnsAnswers: boolean;
  /** Zero-based page of denials this model holds, and its size. */
  page: number;
  pageSize: number;
  /** Denials in the whole trace (the model holds at most pageSize of them). */
  totalDenials: number;
  /** The most denied hosts of the whole trace. */
  topHosts: Array<{ host: string; count: number }>;
  /** Hosts with denials in all (counted by name up to MAX_HOSTS_COUNTED), and denials to hosts beyond that. */
  hostCount: number;
  uncountedDenials: number;
  /** The SBOM the denials were attributed against, with how many were and were not. */
  sbom?: { file: string; attributed: number; unattributed: number };
}

/** The text range of a rule (`/sources/N`, `/connections/N`, `preset:<name>`) in the policy text. */
export function ruleRange(doc: PolicyDocument, rule: string): ReportRange | undefined {
  const locator = new Locator(doc);
  if (rule.startsWith('/')) {
    const found = locator.find(rule);
    return found ? { offset: found.node.offset, length: found.node.length } : undefined;
  }
  if (rule.startsWith('preset:')) {
    const name = rule.slice('preset:'.length);
    const presets = locator.find('/presets');
    const item = presets?.node.children?.find((c) => c.value === name);
    if (item) return { offset: item.offset, length: item.length };
    return presets ? { offset: presets.node.offset, length: presets.node.length } : undefined;
  }
  return undefined;
}

function recordedText(r: ExplainResult): string {
  const v = r.recorded.verdict;
  if (v === 'none') return 'no recorded verdict';
  return `recorded ${v === 'deny' ? 'denied' : 'allowed'}${r.recorded.reason ? ` (${r.recorded.reason})` : ''}`;
}

/**
 * Builds a report page from explain's results as they stream (`onResult` with `keep: false`):
 * counts every denial, keeps the details of page `page` only.
 */
export class ReportBuilder {
  private readonly pageStart: number;
  private readonly pageEnd: number;
  private denialsSeen = 0;
  private readonly kept: ReportDenial[] = [];
  private readonly hostCounts = new Map<string, number>();
  private uncounted = 0;
  private readonly disagreements: ReportModel['disagreements'] = [];
  private moreDisagreements = 0;

  /** Denials attributed to a component, and those that were not (when an SBOM is given). */
  private attributed = 0;
  private unattributed = 0;

  constructor(private readonly doc: PolicyDocument, private readonly names: { policy: string; trace: string; sbom?: string }, readonly page = 0, readonly pageSize = PAGE_SIZE, private readonly sbom?: SbomIndex) {
    this.pageStart = page * pageSize;
    this.pageEnd = this.pageStart + pageSize;
  }

  add(r: ExplainResult): void {
    if (r.model.verdict === 'deny') {
      const host = r.access ? accessHost(r.access) : r.protocol;
      const n = this.hostCounts.get(host);
      if (n !== undefined) this.hostCounts.set(host, n + 1);
      else if (this.hostCounts.size < MAX_HOSTS_COUNTED) this.hostCounts.set(host, 1);
      else this.uncounted++;
      const k = this.denialsSeen++;
      const onPage = k >= this.pageStart && k < this.pageEnd;
      let components: ComponentMatch[] | undefined;
      if (this.sbom && r.access) {
        const o = r.observation as { remoteUrl?: unknown };
        const found = this.sbom.attribute(r.access, typeof o.remoteUrl === 'string' ? o.remoteUrl : undefined);
        if (found.length) { this.attributed++; if (onPage) components = found.slice(0, 3); } else this.unattributed++;
      }
      if (onPage) {
        this.kept.push({
          id: r.index,
          sequence: r.sequence,
          protocol: r.protocol,
          destination: r.destination,
          host,
          certain: r.model.certain,
          recorded: recordedText(r),
          nearest: r.nearMiss ? { rule: r.nearMiss.rule, reason: r.nearMiss.message, range: ruleRange(this.doc, r.nearMiss.rule) } : null,
          fix: r.fix && r.fix.kind !== 'job' ? { pointer: r.fix.pointer, value: r.fix.value, text: JSON.stringify(r.fix.value) } : null,
          jobNote: r.fix && r.fix.kind === 'job' ? r.fix.note : undefined,
          // Each reported result has an access of its own (explain reuses only its evaluation scratch).
          access: r.access,
          components,
        });
      }
    }
    if (!r.agrees) {
      if (this.disagreements.length >= PAGE_SIZE) { this.moreDisagreements++; return; }
      const range = r.model.rule && r.model.rule !== 'default' ? ruleRange(this.doc, r.model.rule) : undefined;
      this.disagreements.push({
        id: r.index, sequence: r.sequence, destination: r.destination, sentence: verdictSentence(r),
        rule: range && r.model.rule ? { pointer: r.model.rule, range } : undefined,
      });
    }
  }

  finish(report: ExplainReport): ReportModel {
    const byHost = new Map<string, ReportDenial[]>();
    for (const d of this.kept) {
      let list = byHost.get(d.host);
      if (!list) byHost.set(d.host, (list = []));
      list.push(d);
    }
    const total = (h: string) => this.hostCounts.get(h) ?? 0;
    // Most denied hosts first (over the whole trace); within a host, trace order.
    const order = (a: string, b: string) => total(b) - total(a) || (a < b ? -1 : a > b ? 1 : 0);
    const groups = [...byHost.keys()].sort(order).map((host) => ({ host, count: total(host), denials: byHost.get(host)! }));
    const topHosts = [...this.hostCounts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).slice(0, HOSTS_LISTED).map(([host, count]) => ({ host, count }));
    return {
      policy: this.names.policy,
      trace: this.names.trace,
      summary: report.summary,
      groups,
      disagreements: this.disagreements,
      moreDisagreements: this.moreDisagreements,
      opaquePresets: report.opaquePresets,
      lateDnsAnswers: report.lateDnsAnswers,
      page: this.page,
      pageSize: this.pageSize,
      totalDenials: this.denialsSeen,
      topHosts,
      hostCount: this.hostCounts.size,
      uncountedDenials: this.uncounted,
      sbom: this.sbom ? { file: this.names.sbom ?? 'SBOM', attributed: this.attributed, unattributed: this.unattributed } : undefined,
    };
  }
}

/** Builds the report from a finished explain (`only: 'denied'` is enough: denials and disagreements). */
export function buildReport(doc: PolicyDocument, report: ExplainReport, names: { policy: string; trace: string }, page = 0): ReportModel {
  const b = new ReportBuilder(doc, names, page);
  for (const r of report.results) b.add(r);
  return b.finish(report);
}

/**
 * Marks the page's denials that `policy` now allows (after a fix) with the rule that allows them;
 * returns how many were newly marked. Fix buttons of marked denials are disabled.
 */
export function markAllowed(model: ReportModel, policy: Policy): number {
  const compiled = compilePolicy(policy);
  let n = 0;
  for (const g of model.groups) {
    for (const d of g.denials) {
      if (d.fixed || !d.access) continue;
      const decision = compiled.evaluate(d.access);
      if (decision.verdict === 'allow') { d.fixed = decision.rule; n++; }
    }
  }
  return n;
}

/** The rule of `policy` that allows `denial` now, or undefined while it is still denied. */
export function allowedNow(policy: Policy, denial: ReportDenial): string | undefined {
  if (!denial.access) return undefined;
  const d = compilePolicy(policy).evaluate(denial.access);
  return d.verdict === 'allow' ? d.rule : undefined;
}

/** The policy text with a denial's fix applied, or undefined when the fix no longer applies. */
export function applyDenialFix(doc: PolicyDocument, fix: { pointer: string; value: unknown }): { edits: ReturnType<typeof denialFixEdits>; text: string } | undefined {
  const edits = denialFixEdits(doc, fix);
  if (edits.length === 0) return undefined;
  return { edits, text: applyEdits(doc.text, edits) };
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

/** Outside text (from a trace, a policy, a file name) for the page: control and bidi characters visible, then HTML-escaped. */
export function outside(s: string, max = 2000): string {
  return escapeHtml(escapeControl(s.length > max ? `${s.slice(0, max)}…` : s));
}

/** The webview's Content-Security-Policy: nothing but our own nonce'd script and the webview's styles. */
export function contentSecurityPolicy(cspSource: string, nonce: string): string {
  return `default-src 'none'; style-src ${cspSource} 'nonce-${nonce}'; script-src 'nonce-${nonce}'; img-src ${cspSource}; font-src ${cspSource}; base-uri 'none'; form-action 'none'`;
}

const STYLE = `
body { font-family: var(--vscode-font-family); font-size: var(--vscode-font-size); color: var(--vscode-foreground); background: var(--vscode-editor-background); padding: 0 16px 24px; line-height: 1.45; }
h1 { font-size: 1.3em; margin: 12px 0 4px; } h2 { font-size: 1.1em; margin: 20px 0 6px; } h3 { font-size: 1em; margin: 14px 0 4px; font-family: var(--vscode-editor-font-family); }
.summary { color: var(--vscode-descriptionForeground); margin: 0 0 8px; }
ul { list-style: none; padding: 0; margin: 0; }
li.item { border-left: 3px solid var(--vscode-editorError-foreground, var(--vscode-errorForeground)); padding: 6px 10px; margin: 6px 0; background: var(--vscode-editorWidget-background); }
li.item.uncertain { border-left-color: var(--vscode-editorWarning-foreground); }
li.item.disagree { border-left-color: var(--vscode-editorInfo-foreground); }
code, .dest { font-family: var(--vscode-editor-font-family); font-size: var(--vscode-editor-font-size); word-break: break-all; }
.why { color: var(--vscode-descriptionForeground); margin: 2px 0; }
.actions { margin-top: 4px; display: flex; gap: 8px; flex-wrap: wrap; }
button { font: inherit; color: var(--vscode-button-foreground); background: var(--vscode-button-background); border: 1px solid var(--vscode-button-border, transparent); padding: 2px 10px; cursor: pointer; border-radius: 2px; }
button.secondary { color: var(--vscode-button-secondaryForeground); background: var(--vscode-button-secondaryBackground); }
button:hover { background: var(--vscode-button-hoverBackground); }
button.secondary:hover { background: var(--vscode-button-secondaryHoverBackground); }
button code { background: transparent; color: inherit; padding: 0; }
code { background: var(--vscode-textCodeBlock-background); padding: 0 3px; border-radius: 2px; }
button:focus-visible, li.item:focus-visible { outline: 1px solid var(--vscode-focusBorder); outline-offset: 2px; }
button:disabled { opacity: 0.5; cursor: default; }
.ok { color: var(--vscode-testing-iconPassed, var(--vscode-foreground)); }
.note { color: var(--vscode-editorWarning-foreground); }
li.item.fixed { border-left-color: var(--vscode-testing-iconPassed, var(--vscode-foreground)); opacity: 0.8; }
table { border-collapse: collapse; margin: 4px 0 8px; } th, td { text-align: left; padding: 1px 12px 1px 0; } .num { text-align: right; }
h3 button { margin-left: 8px; font-size: 0.9em; }
`;

function denialHtml(d: ReportDenial): string {
  const parts = [
    `<li class="item${d.certain ? '' : ' uncertain'}${d.fixed ? ' fixed' : ''}" tabindex="-1" data-id="${d.id}">`,
    `<div class="dest">#${d.sequence} ${outside(d.destination)}</div>`,
    d.fixed
      ? `<div class="why ok">Allowed now by <code>${outside(d.fixed)}</code> (after a fix).</div>`
      : `<div class="why">Denied by the default${d.certain ? '' : ' (uncertain: an enabled opaque preset might allow it)'}; ${outside(d.recorded)}.</div>`,
  ];
  if (d.nearest && !d.fixed) parts.push(`<div class="why">Nearest rule <code>${outside(d.nearest.rule)}</code>: ${outside(d.nearest.reason)}</div>`);
  if (d.components?.length) parts.push(`<div class="why">Component: ${d.components.map((c) => `<code>${outside(c.purl ?? `${c.name}${c.version ? `@${c.version}` : ''}`, 300)}</code> (${outside(c.match)})`).join(', ')}</div>`);
  if (d.jobNote && !d.fixed) parts.push(`<div class="why note">Fix in the job: ${outside(d.jobNote)}</div>`);
  const actions: string[] = [];
  if (d.nearest?.range) actions.push(`<button class="secondary" data-action="reveal" data-id="${d.id}" title="Select ${outside(d.nearest.rule)} in the policy">Reveal rule ${outside(d.nearest.rule)}</button>`);
  if (d.fix) {
    const text = d.fix.text.length > 120 ? `${d.fix.text.slice(0, 117)}...` : d.fix.text;
    actions.push(`<button data-action="fix" data-id="${d.id}"${d.fixed ? ' disabled' : ''} title="Add ${outside(d.fix.text, 300)} at ${outside(d.fix.pointer)}">${d.fixed ? 'Fixed' : 'Apply fix'}: add <code>${outside(text)}</code> to <code>${outside(d.fix.pointer)}</code></button>`);
  }
  if (actions.length) parts.push(`<div class="actions">${actions.join('')}</div>`);
  parts.push('</li>');
  return parts.join('');
}

const n = (x: number) => x.toLocaleString('en-US');

/** The whole webview document: strict CSP, theme colours only, buttons for keyboard use. */
export function renderReportHtml(model: ReportModel, opts: { cspSource: string; nonce: string }): string {
  const s = model.summary;
  const onPage = model.groups.reduce((k, g) => k + g.denials.length, 0);
  const first = model.page * model.pageSize;
  const body: string[] = [];
  body.push(`<h1>${outside(model.trace)} against ${outside(model.policy)}</h1>`);
  body.push(`<p class="summary">${n(s.observations)} observations: ${n(s.allowed)} allowed, ${n(s.denied)} denied, ${n(s.none)} without a verdict; ${n(s.disagreements)} disagreement${s.disagreements === 1 ? '' : 's'} with the recorded verdicts.</p>`);
  if (model.opaquePresets.length) body.push(`<p class="note">Opaque presets (contents unknown, denials may be uncertain): ${model.opaquePresets.map((p) => outside(p)).join(', ')}</p>`);
  if (model.sbom) body.push(`<p class="summary">Components from ${outside(model.sbom.file)}: ${n(model.sbom.attributed)} denial${model.sbom.attributed === 1 ? '' : 's'} attributed to an SBOM component, ${n(model.sbom.unattributed)} unattributed.</p>`);
  if (model.lateDnsAnswers) body.push('<p class="note">Some DNS answers arrived after connections to their addresses; those connections were judged without the names.</p>');
  body.push(`<h2 id="denials">Denials (${n(model.totalDenials)})</h2>`);
  if (model.totalDenials === 0) body.push('<p class="ok">The policy allows every observation of this trace.</p>');
  if (model.totalDenials > model.pageSize || model.topHosts.length > 1) {
    const rows = model.topHosts.map((h) => `<tr><td><code>${outside(h.host, 300)}</code></td><td class="num">${n(h.count)}</td></tr>`).join('');
    const rest = model.hostCount > model.topHosts.length ? `<tr><td>${n(model.hostCount - model.topHosts.length)} more host${model.hostCount - model.topHosts.length === 1 ? '' : 's'}${model.uncountedDenials ? ` and ${n(model.uncountedDenials)} denials to hosts not counted by name` : ''}</td><td></td></tr>` : '';
    body.push(`<details${model.totalDenials > model.pageSize ? ' open' : ''}><summary>Most denied hosts</summary><table><thead><tr><th>Host</th><th class="num">Denials</th></tr></thead><tbody>${rows}${rest}</tbody></table></details>`);
  }
  if (model.totalDenials > 0) {
    const pager: string[] = [];
    if (model.page > 0) pager.push(`<button class="secondary" data-action="page" data-id="${model.page - 1}">Previous ${n(model.pageSize)}</button>`);
    if (first + onPage < model.totalDenials) pager.push(`<button class="secondary" data-action="page" data-id="${model.page + 1}">Next ${n(Math.min(model.pageSize, model.totalDenials - first - onPage))}</button>`);
    body.push(`<p class="summary">Showing denials ${n(first + 1)}–${n(first + onPage)} of ${n(model.totalDenials)}${model.totalDenials > first + onPage ? `; ${n(model.totalDenials - first - onPage)} more` : ''}.</p>${pager.length ? `<div class="actions">${pager.join('')}</div>` : ''}`);
  }
  model.groups.forEach((g, gi) => {
    const fixable = g.denials.filter((d) => d.fix && !d.fixed).length;
    const all = fixable > 1 ? ` <button class="secondary" data-action="fix-host" data-id="${gi}">Apply every fix for this host (${fixable})</button>` : '';
    body.push(`<h3>${outside(g.host, 300)} <span class="summary">(${n(g.count)}${g.count > g.denials.length ? `, ${n(g.denials.length)} on this page` : ''})</span>${all}</h3><ul>${g.denials.map(denialHtml).join('')}</ul>`);
  });
  body.push(`<h2 id="disagreements">Recorded vs model (${n(s.disagreements)})</h2>`);
  if (model.disagreements.length === 0) body.push('<p class="ok">The model agrees with every recorded verdict.</p>');
  else {
    body.push('<ul>');
    for (const d of model.disagreements) {
      body.push(`<li class="item disagree" tabindex="-1" data-id="${d.id}"><div class="dest">#${d.sequence} ${outside(d.destination)}</div><div class="why">${outside(d.sentence)}</div>${d.rule ? `<div class="actions"><button class="secondary" data-action="reveal-model" data-id="${d.id}">Reveal rule ${outside(d.rule.pointer)}</button></div>` : ''}</li>`);
    }
    body.push('</ul>');
    if (model.moreDisagreements > 0) body.push(`<p class="summary">${n(model.moreDisagreements)} more disagreements are not listed (<code>netpolicy explain --format json</code> lists them all).</p>`);
  }
  const script = `
const vscode = acquireVsCodeApi();
document.addEventListener('click', (e) => {
  const b = e.target instanceof Element ? e.target.closest('button[data-action]') : null;
  if (!b || b.disabled) return;
  vscode.postMessage({ action: b.dataset.action, id: Number(b.dataset.id) });
  if (b.dataset.action === 'fix' || b.dataset.action === 'fix-host') b.disabled = true;
});
// Arrow keys move between findings; Enter/Space on a button activates it (native).
document.addEventListener('keydown', (e) => {
  if (e.key !== 'ArrowDown' && e.key !== 'ArrowUp') return;
  const buttons = [...document.querySelectorAll('button:not(:disabled)')];
  if (buttons.length === 0) return;
  const i = buttons.indexOf(document.activeElement);
  const next = e.key === 'ArrowDown' ? Math.min(buttons.length - 1, i + 1) : Math.max(0, i - 1);
  buttons[i < 0 ? 0 : next].focus();
  e.preventDefault();
});
const first = document.querySelector('button');
if (first) first.focus();
`;
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${escapeHtml(contentSecurityPolicy(opts.cspSource, opts.nonce))}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>netpolicy: explain</title>
<style nonce="${opts.nonce}">${STYLE}</style>
</head><body>
<main aria-label="Trace explained against the policy">
${body.join('\n')}
</main>
<script nonce="${opts.nonce}">${script}</script>
</body></html>`;
}
