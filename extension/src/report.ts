/**
 * The explain report as data and as HTML, without VS Code: denials first, grouped by destination
 * host, each with the rule that came nearest (its range in the policy) and its fix; then the
 * observations where the recorded verdict and the model's differ. The webview only renders this.
 */
import {
  Locator, applyEdits, denialFixEdits, verdictSentence,
  type ExplainReport, type ExplainResult, type PolicyDocument,
} from '@netpolicy/core';

export interface ReportRange { offset: number; length: number }

export interface ReportDenial {
  /** Index into the report's results (the id the webview sends back). */
  id: number;
  sequence: number;
  protocol: string;
  destination: string;
  certain: boolean;
  recorded: string;
  nearest: { rule: string; reason: string; range?: ReportRange } | null;
  fix: { pointer: string; value: unknown; text: string } | null;
}

export interface ReportGroup { host: string; denials: ReportDenial[] }

export interface ReportModel {
  policy: string;
  trace: string;
  summary: ExplainReport['summary'];
  groups: ReportGroup[];
  disagreements: Array<{ id: number; sequence: number; destination: string; sentence: string; rule?: { pointer: string; range: ReportRange } }>;
  opaquePresets: string[];
  lateDnsAnswers: boolean;
}

/** The host (or address) a destination string names: `GET https://h/x` -> h, `tls h:443` -> h. */
export function hostOf(destination: string): string {
  const space = destination.indexOf(' ');
  const rest = space >= 0 ? destination.slice(space + 1) : destination;
  const scheme = rest.indexOf('://');
  let host = scheme >= 0 && scheme < 16 ? rest.slice(scheme + 3) : rest;
  const at = host.indexOf('@');
  const slash = host.indexOf('/');
  if (at >= 0 && (slash < 0 || at < slash)) host = host.slice(at + 1);
  host = host.split(/[/ ?#]/, 1)[0];
  if (host.startsWith('[')) return host.slice(0, host.indexOf(']') + 1) || host;
  const colon = host.lastIndexOf(':');
  return colon > 0 && host.indexOf(':') === colon ? host.slice(0, colon) : host;
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

/** Builds the report from explain's results (`only: 'denied'` is enough: denials and disagreements). */
export function buildReport(doc: PolicyDocument, report: ExplainReport, names: { policy: string; trace: string }): ReportModel {
  const groups = new Map<string, ReportDenial[]>();
  const disagreements: ReportModel['disagreements'] = [];
  report.results.forEach((r, id) => {
    if (r.model.verdict === 'deny') {
      const host = hostOf(r.destination);
      let list = groups.get(host);
      if (!list) groups.set(host, (list = []));
      list.push({
        id,
        sequence: r.sequence,
        protocol: r.protocol,
        destination: r.destination,
        certain: r.model.certain,
        recorded: recordedText(r),
        nearest: r.nearMiss ? { rule: r.nearMiss.rule, reason: r.nearMiss.message, range: ruleRange(doc, r.nearMiss.rule) } : null,
        fix: r.fix ? { pointer: r.fix.pointer, value: r.fix.value, text: JSON.stringify(r.fix.value) } : null,
      });
    }
    if (!r.agrees) {
      const range = r.model.rule && r.model.rule !== 'default' ? ruleRange(doc, r.model.rule) : undefined;
      disagreements.push({
        id, sequence: r.sequence, destination: r.destination, sentence: verdictSentence(r),
        rule: range && r.model.rule ? { pointer: r.model.rule, range } : undefined,
      });
    }
  });
  // Most denied hosts first; within a host, trace order.
  const sorted = [...groups].sort((a, b) => b[1].length - a[1].length || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return {
    policy: names.policy,
    trace: names.trace,
    summary: report.summary,
    groups: sorted.map(([host, denials]) => ({ host, denials })),
    disagreements,
    opaquePresets: report.opaquePresets,
    lateDnsAnswers: report.lateDnsAnswers,
  };
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
`;

function denialHtml(d: ReportDenial): string {
  const parts = [
    `<li class="item${d.certain ? '' : ' uncertain'}" tabindex="-1" data-id="${d.id}">`,
    `<div class="dest">#${d.sequence} ${escapeHtml(d.destination)}</div>`,
    `<div class="why">Denied by the default${d.certain ? '' : ' (uncertain: an enabled opaque preset might allow it)'}; ${escapeHtml(d.recorded)}.</div>`,
  ];
  if (d.nearest) parts.push(`<div class="why">Nearest rule <code>${escapeHtml(d.nearest.rule)}</code>: ${escapeHtml(d.nearest.reason)}</div>`);
  const actions: string[] = [];
  if (d.nearest?.range) actions.push(`<button class="secondary" data-action="reveal" data-id="${d.id}" title="Select ${escapeHtml(d.nearest.rule)} in the policy">Reveal rule ${escapeHtml(d.nearest.rule)}</button>`);
  if (d.fix) actions.push(`<button data-action="fix" data-id="${d.id}" title="Add ${escapeHtml(d.fix.text)} at ${escapeHtml(d.fix.pointer)}">Apply fix: add <code>${escapeHtml(d.fix.text.length > 120 ? `${d.fix.text.slice(0, 117)}...` : d.fix.text)}</code> to <code>${escapeHtml(d.fix.pointer)}</code></button>`);
  if (actions.length) parts.push(`<div class="actions">${actions.join('')}</div>`);
  parts.push('</li>');
  return parts.join('');
}

/** The whole webview document: strict CSP, theme colours only, buttons for keyboard use. */
export function renderReportHtml(model: ReportModel, opts: { cspSource: string; nonce: string }): string {
  const s = model.summary;
  const denials = model.groups.reduce((n, g) => n + g.denials.length, 0);
  const body: string[] = [];
  body.push(`<h1>${escapeHtml(model.trace)} against ${escapeHtml(model.policy)}</h1>`);
  body.push(`<p class="summary">${s.observations} observations: ${s.allowed} allowed, ${s.denied} denied, ${s.none} without a verdict; ${s.disagreements} disagreement${s.disagreements === 1 ? '' : 's'} with the recorded verdicts.</p>`);
  if (model.opaquePresets.length) body.push(`<p class="note">Opaque presets (contents unknown, denials may be uncertain): ${model.opaquePresets.map(escapeHtml).join(', ')}</p>`);
  if (model.lateDnsAnswers) body.push('<p class="note">Some DNS answers arrived after connections to their addresses; those connections were judged without the names.</p>');
  body.push(`<h2 id="denials">Denials (${denials})</h2>`);
  if (denials === 0) body.push('<p class="ok">The policy allows every observation of this trace.</p>');
  for (const g of model.groups) {
    body.push(`<h3>${escapeHtml(g.host)} <span class="summary">(${g.denials.length})</span></h3><ul>${g.denials.map(denialHtml).join('')}</ul>`);
  }
  body.push(`<h2 id="disagreements">Recorded vs model (${model.disagreements.length})</h2>`);
  if (model.disagreements.length === 0) body.push('<p class="ok">The model agrees with every recorded verdict.</p>');
  else {
    body.push('<ul>');
    for (const d of model.disagreements) {
      body.push(`<li class="item disagree" tabindex="-1" data-id="${d.id}"><div class="dest">#${d.sequence} ${escapeHtml(d.destination)}</div><div class="why">${escapeHtml(d.sentence)}</div>${d.rule ? `<div class="actions"><button class="secondary" data-action="reveal-model" data-id="${d.id}">Reveal rule ${escapeHtml(d.rule.pointer)}</button></div>` : ''}</li>`);
    }
    body.push('</ul>');
  }
  const script = `
const vscode = acquireVsCodeApi();
document.addEventListener('click', (e) => {
  const b = e.target instanceof Element ? e.target.closest('button[data-action]') : null;
  if (!b || b.disabled) return;
  vscode.postMessage({ action: b.dataset.action, id: Number(b.dataset.id) });
  if (b.dataset.action === 'fix') b.disabled = true;
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
