import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { explain, parsePolicyDocument, type Policy } from '@netpolicy/core';
import { accessHost } from '@netpolicy/core/internal';
import { ReportBuilder, allowedNow, applyDenialFix, buildReport, contentSecurityPolicy, escapeHtml, markAllowed, renderReportHtml, ruleRange } from '../../src/report';

const root = new URL('../../../', import.meta.url);
const read = (p: string) => readFileSync(new URL(p, root), 'utf8');
const policyText = read('fixtures/traces/denials/policy.netpolicy.json');
const traceText = read('fixtures/traces/denials/trace.json');

async function report(text = policyText, trace = traceText) {
  const doc = parsePolicyDocument(text, { fileName: 'policy.json' });
  return { doc, model: buildReport(doc, await explain(doc.value as Policy, trace, { only: 'denied' }), { policy: 'policy.json', trace: 'trace.json' }) };
}

describe('accessHost (grouping)', () => {
  it('takes the parsed host of each kind of access, never a split of the text', () => {
    expect(accessHost({ kind: 'http', method: 'GET', url: 'https://registry.yarnpkg.com/left-pad/-/x.tgz' })).toBe('registry.yarnpkg.com');
    expect(accessHost({ kind: 'tls', serverName: 'api.example.com', port: 443 })).toBe('api.example.com');
    expect(accessHost({ kind: 'tcp', remoteIp: '10.0.0.5', port: 5432 })).toBe('10.0.0.5');
    expect(accessHost({ kind: 'ssh', host: 'git.example.com', port: 22, user: 'git' })).toBe('git.example.com');
    expect(accessHost({ kind: 'http', method: 'GET', url: 'https://[2001:db8::1]:8443/x' })).toBe('[2001:db8::1]');
    expect(accessHost({ kind: 'http', method: 'GET', url: 'https://user@h.example/x' })).toBe('h.example');
    // A path with spaces and markup is not a host: the whole report groups it under its host.
    expect(accessHost({ kind: 'http', method: 'GET', url: 'https://h.example/<svg src=x onload=1>' })).toBe('h.example');
  });
});

describe('buildReport', () => {
  it('lists every model denial once, grouped by host, most denied host first', async () => {
    const { doc, model } = await report();
    const all = await explain(doc.value as Policy, traceText);
    const denied = all.results.filter((r) => r.model.verdict === 'deny').map((r) => r.sequence).sort((a, b) => a - b);
    const listed = model.groups.flatMap((g) => g.denials.map((d) => d.sequence)).sort((a, b) => a - b);
    expect(denied.length).toBeGreaterThan(0);
    expect(listed).toEqual(denied);
    const hostBySequence = new Map(all.results.filter((r) => r.access).map((r) => [r.sequence, accessHost(r.access!)]));
    for (const g of model.groups) for (const d of g.denials) expect(hostBySequence.get(d.sequence)).toBe(g.host);
    for (let i = 1; i < model.groups.length; i++) expect(model.groups[i - 1].count).toBeGreaterThanOrEqual(model.groups[i].count);
    expect(model.totalDenials).toBe(denied.length);
    expect(model.disagreements.map((d) => d.sequence).sort()).toEqual(all.results.filter((r) => !r.agrees).map((r) => r.sequence).sort());
  });

  it('points each nearest rule at its text in the policy', async () => {
    const { doc, model } = await report();
    const withRule = model.groups.flatMap((g) => g.denials).filter((d) => d.nearest?.range);
    expect(withRule.length).toBeGreaterThan(0);
    for (const d of withRule) {
      const { offset, length } = d.nearest!.range!;
      const text = policyText.slice(offset, offset + length);
      if (d.nearest!.rule.startsWith('/')) {
        const value = d.nearest!.rule.split('/').slice(1).reduce((v: any, k) => v[k], doc.value);
        expect(JSON.parse(text)).toEqual(value);
      } else expect(JSON.parse(text)).toBe(d.nearest!.rule.slice('preset:'.length));
    }
  });

  it('each fix, applied to the text, makes the model allow that observation', async () => {
    const { doc, model } = await report();
    const fixes = model.groups.flatMap((g) => g.denials).filter((d) => d.fix);
    expect(fixes.length).toBeGreaterThan(0);
    for (const d of fixes) {
      const applied = applyDenialFix(doc, d.fix!);
      expect(applied, `fix of #${d.sequence}`).toBeDefined();
      const after = await explain(JSON.parse(applied!.text), traceText);
      expect(after.results.find((r) => r.sequence === d.sequence)?.model.verdict).toBe('allow');
    }
  });

  it('finds presets and misses gone rules', () => {
    const doc = parsePolicyDocument('{"default":"deny","presets":["npm","pypi"]}', { fileName: 'p.json' });
    const r = ruleRange(doc, 'preset:pypi');
    expect(doc.text.slice(r!.offset, r!.offset + r!.length)).toBe('"pypi"');
    expect(ruleRange(doc, '/sources/3')).toBeUndefined();
  });
});

describe('renderReportHtml', () => {
  it('escapes what comes from the trace and allows only its own nonce\'d script', async () => {
    const hostile = traceText.replace('https://registry.yarnpkg.com/left-pad', 'https://registry.yarnpkg.com/<img src=x onerror=alert(1)>\\"\'');
    const { model } = await report(policyText, hostile);
    const html = renderReportHtml(model, { cspSource: 'https://webview.test', nonce: 'abc123' });
    expect(html).not.toContain('<img');
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;&quot;&#39;');
    const csp = contentSecurityPolicy('https://webview.test', 'abc123');
    expect(csp).toMatch(/default-src 'none'/);
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|\*/);
    expect(html).toContain(escapeHtml(csp));
    expect([...html.matchAll(/<script([^>]*)>/g)].map((m) => m[1])).toEqual([' nonce="abc123"']);
    expect(html).not.toMatch(/<[a-zA-Z][^<>]*\son[a-z]+=/);
  });

  it('puts denials before disagreements, with a reveal and a fix button per denial', async () => {
    const { model } = await report();
    const html = renderReportHtml(model, { cspSource: 'x', nonce: 'n' });
    expect(html.indexOf('id="denials"')).toBeLessThan(html.indexOf('id="disagreements"'));
    const denials = model.groups.flatMap((g) => g.denials);
    expect((html.match(/data-action="fix"/g) ?? []).length).toBe(denials.filter((d) => d.fix).length);
    expect((html.match(/data-action="reveal"/g) ?? []).length).toBe(denials.filter((d) => d.nearest?.range).length);
  });
});

/** A trace of `n` denied HTTP requests to `hosts` hosts (every URL distinct). */
function manyDenials(n: number, hosts: number): string {
  const observations = [];
  for (let i = 0; i < n; i++) observations.push({ sequence: i + 1, protocol: 'http', method: 'GET', url: `https://h${i % hosts}.example/pkg/${i}.tgz`, denied: true });
  return JSON.stringify({ observations });
}

describe('a bounded report', () => {
  const policy = { default: 'deny', sources: [{ npm: { urls: ['https://registry.npmjs.org'] } }] } as unknown as Policy;
  const doc = parsePolicyDocument(JSON.stringify(policy), { fileName: 'p.json' });

  async function page(trace: string, p: number, size: number) {
    const b = new ReportBuilder(doc, { policy: 'p', trace: 't' }, p, size);
    const report = await explain(policy, trace, { only: 'denied', keep: false, onResult: (r) => b.add(r) });
    expect(report.results).toEqual([]);
    return b.finish(report);
  }

  it('counts every denial per host but keeps one page of details', async () => {
    const trace = manyDenials(2500, 7);
    const first = await page(trace, 0, 1000);
    expect(first.totalDenials).toBe(2500);
    expect(first.groups.reduce((k, g) => k + g.denials.length, 0)).toBe(1000);
    expect(first.hostCount).toBe(7);
    expect(first.topHosts.reduce((k, h) => k + h.count, 0)).toBe(2500);
    for (const g of first.groups) expect(g.count).toBe(first.topHosts.find((h) => h.host === g.host)!.count);
    const last = await page(trace, 2, 1000);
    const seqs = last.groups.flatMap((g) => g.denials.map((d) => d.sequence)).sort((a, b) => a - b);
    expect(seqs[0]).toBe(2001);
    expect(seqs.length).toBe(500);
    const html = renderReportHtml(last, { cspSource: 'x', nonce: 'n' });
    expect(html).toContain('Showing denials 2,001–2,500 of 2,500');
    expect(html).toContain('data-action="page" data-id="1"');
    expect(html).not.toContain('data-action="page" data-id="3"');
  });

  it('renders a page of a 100,000-denial trace in bounded size', async () => {
    const model = await page(manyDenials(100_000, 100_000), 0, 1000);
    const html = renderReportHtml(model, { cspSource: 'x', nonce: 'n' });
    expect(model.totalDenials).toBe(100_000);
    expect((html.match(/class="item/g) ?? []).length).toBe(1000);
    expect(html.length).toBeLessThan(3_000_000);
    expect(html).toContain('99,000 more');
  });

  it('marks the denials a fix allows, so the same rule is not offered twice', async () => {
    const trace = JSON.stringify({ observations: [1, 2].map((i) => ({ sequence: i, protocol: 'http', method: 'GET', url: 'https://files.example/a.tgz', denied: true })) });
    const model = await page(trace, 0, 1000);
    const [a, b] = model.groups[0].denials;
    expect(a.fix).not.toBeNull();
    const applied = applyDenialFix(doc, a.fix!)!;
    const after = JSON.parse(applied.text) as Policy;
    expect(allowedNow(after, b)).toBeDefined();
    expect(markAllowed(model, after)).toBe(2);
    const html = renderReportHtml(model, { cspSource: 'x', nonce: 'n' });
    expect((html.match(/data-action="fix"[^>]* disabled/g) ?? []).length).toBe(2);
    expect(html).toContain('Allowed now by');
    expect(allowedNow(policy, b)).toBeUndefined();
  });
});

describe('outside text is shown, not interpreted', () => {
  it('shows bidi controls and line breaks escaped in destinations and hosts', async () => {
    const host = '\u202egro.sjmpn.yrtsiger';
    const trace = JSON.stringify({ observations: [{ sequence: 1, protocol: 'tcp', remoteIp: '192.0.2.1', remotePort: 443, serverName: host, allowed: false }, { sequence: 2, protocol: 'http', method: 'GET', url: 'https://x.example/a\u2028b', denied: true }] });
    const policy = { default: 'deny' } as unknown as Policy;
    const d = parsePolicyDocument(JSON.stringify(policy), { fileName: 'p.json' });
    const b = new ReportBuilder(d, { policy: 'p', trace: 'evil\u202etrace' });
    const report = await explain(policy, trace, { only: 'denied', keep: false, onResult: (r) => b.add(r) });
    const html = renderReportHtml(b.finish(report), { cspSource: 'x', nonce: 'n' });
    expect(html).not.toMatch(/[\u202e\u2028]/);
    expect(html).toContain('\\u202egro.sjmpn.yrtsiger');
    expect(html).toContain('evil\\u202etrace');
  });
});

describe('components behind denials (an SBOM beside the trace)', () => {
  it('names the SBOM component each denied download fetched, and counts the rest', async () => {
    const dir = 'fixtures/attribution/npm/';
    const sbom = JSON.parse(read(`${dir}sbom.cdx.json`));
    const trace = read(`${dir}trace.json`);
    const policy = { default: 'deny' } as unknown as Policy;
    const d = parsePolicyDocument(JSON.stringify(policy), { fileName: 'p.json' });
    const { indexSbom } = await import('@netpolicy/core');
    const b = new ReportBuilder(d, { policy: 'p', trace: 't', sbom: 'trace.cdx.json' }, 0, 1000, indexSbom(sbom));
    const report = await explain(policy, trace, { only: 'denied', keep: false, onResult: (r) => b.add(r) });
    const model = b.finish(report);
    const denials = model.groups.flatMap((g) => g.denials);
    const attributed = denials.filter((x) => x.components?.length);
    expect(attributed.length).toBeGreaterThan(0);
    expect(model.sbom).toEqual({ file: 'trace.cdx.json', attributed: attributed.length, unattributed: denials.length - attributed.length });
    const html = renderReportHtml(model, { cspSource: 'x', nonce: 'n' });
    expect(html).toContain('Component: <code>pkg:npm/');
    expect(html).toContain('denials attributed to an SBOM component');
  });
});
