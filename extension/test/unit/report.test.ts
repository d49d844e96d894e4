import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { explain, parsePolicyDocument, type Policy } from '@netpolicy/core';
import { applyDenialFix, buildReport, contentSecurityPolicy, escapeHtml, hostOf, renderReportHtml, ruleRange } from '../../src/report';

const root = new URL('../../../', import.meta.url);
const read = (p: string) => readFileSync(new URL(p, root), 'utf8');
const policyText = read('fixtures/traces/denials/policy.netpolicy.json');
const traceText = read('fixtures/traces/denials/trace.json');

async function report(text = policyText, trace = traceText) {
  const doc = parsePolicyDocument(text, { fileName: 'policy.json' });
  return { doc, model: buildReport(doc, await explain(doc.value as Policy, trace, { only: 'denied' }), { policy: 'policy.json', trace: 'trace.json' }) };
}

describe('hostOf', () => {
  it('takes the host of each kind of destination', () => {
    expect(hostOf('GET https://registry.yarnpkg.com/left-pad/-/x.tgz')).toBe('registry.yarnpkg.com');
    expect(hostOf('tls api.example.com:443')).toBe('api.example.com');
    expect(hostOf('tcp 10.0.0.5:5432')).toBe('10.0.0.5');
    expect(hostOf('ssh git@git.example.com:22 acme/app')).toBe('git.example.com');
    expect(hostOf('GET https://[2001:db8::1]:8443/x')).toBe('[2001:db8::1]');
    expect(hostOf('GET https://user@h.example/x')).toBe('h.example');
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
    for (const g of model.groups) for (const d of g.denials) expect(hostOf(d.destination)).toBe(g.host);
    for (let i = 1; i < model.groups.length; i++) expect(model.groups[i - 1].denials.length).toBeGreaterThanOrEqual(model.groups[i].denials.length);
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
