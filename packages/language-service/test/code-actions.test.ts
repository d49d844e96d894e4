import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parsePolicyDocument, validate } from '@netpolicy/core';
import { DEFAULT_SETTINGS, FIX_ALL_KIND, doValidation, getCodeActions, policyDiagnostics } from '../src/index';
import { applyLspEdits } from './helpers';

const URI = 'file:///w/p.netpolicy.json';

/** One document per code with fix data (the rule in the middle of a valid policy). */
const CASES: Record<string, string> = {
  'cidr-host-bits': '{"presets":[],"connections":[{"tcp":{"cidrs":["10.0.0.1/8"],"ports":[5432]}}]}',
  'unknown-preset': '{"presets":["pypy"]}',
  'unknown-property': '{"presets":[],"sorces":[]}',
  'duplicate-item': '{"presets":["npm","npm"]}',
  'duplicate-rule': '{"presets":[],"sources":[{"npm":{"urls":["https://a.example"]}},{"npm":{"urls":["https://a.example"]}}]}',
  'shadowed-rule': '{"presets":[],"connections":[{"tls":{"serverNamePatterns":["*.c.example"],"ports":[443]}},{"tls":{"serverNamePatterns":["a.c.example"],"ports":[443]}}]}',
  'redundant-with-preset': '{"presets":["pypi"],"sources":[{"pypi":{"urls":["https://pypi.org"]}}]}',
  'insecure-url': '{"presets":[],"sources":[{"npm":{"urls":["http://a.example"]}}]}',
  'missing-property': '{"presets":[],"connections":[{"tls":{"serverNamePatterns":["a.example"]}}]}',
  'missing-target': '{"presets":[],"connections":[{"tcp":{"ports":[22]}}]}',
  'trailing-comma': '{"presets":[],}',
  'comment-not-allowed': '{"presets":[] /* note */}',
  'invalid-value': '{"default":"alow","presets":[]}',
};

function fixesFor(text: string, code: string, withDiagnostics: 'lsp' | 'lsp-without-data' | 'none') {
  const doc = parsePolicyDocument(text, { fileName: 'p.netpolicy.json' });
  const current = policyDiagnostics(doc, DEFAULT_SETTINGS);
  const lsp = doValidation(doc, URI, DEFAULT_SETTINGS).filter((d) => d.code === code);
  expect(lsp.length, `${code} in ${text}`).toBeGreaterThan(0);
  const context = withDiagnostics === 'none' ? { diagnostics: [] } : { diagnostics: lsp.map((d) => (withDiagnostics === 'lsp' ? d : { ...d, data: undefined })) };
  const actions = getCodeActions(doc, URI, lsp[0].range, context, current);
  return { doc, actions };
}

describe('quick fixes', () => {
  it.each(Object.keys(CASES))('%s: every action gives a document that parses and no longer has it', (code) => {
    for (const mode of ['lsp', 'lsp-without-data', 'none'] as const) {
      const { doc, actions } = fixesFor(CASES[code], code, mode);
      const quick = actions.filter((a) => a.kind === 'quickfix' && !a.title.startsWith('Fix all'));
      expect(quick.length, `${code} (${mode})`).toBeGreaterThan(0);
      expect(quick[0].isPreferred).toBe(true);
      for (const action of quick) {
        const fixed = applyLspEdits(doc, action.edit!.changes![URI]);
        const after = validate(fixed, { fileName: 'p.netpolicy.json' }).diagnostics;
        expect(after.some((d) => d.code === 'json-syntax'), `${action.title}: ${fixed}`).toBe(false);
        expect(after.filter((d) => d.code === code).length, `${action.title}: ${fixed}`).toBeLessThan(validate(CASES[code], { fileName: 'p.netpolicy.json' }).diagnostics.filter((d) => d.code === code).length);
      }
    }
  });

  it('names the fix: did-you-mean for unknown names, https for insecure URLs', () => {
    expect(fixesFor(CASES['unknown-preset'], 'unknown-preset', 'lsp').actions[0].title).toMatch(/pypi/);
    expect(fixesFor(CASES['unknown-property'], 'unknown-property', 'lsp').actions[0].title).toBe('Rename to `sources`');
    expect(fixesFor(CASES['insecure-url'], 'insecure-url', 'lsp').actions[0].title).toMatch(/https/);
  });

  it('offers no fix for a diagnostic from another version (its range no longer matches)', () => {
    const { actions } = fixesFor(CASES['cidr-host-bits'], 'cidr-host-bits', 'lsp');
    expect(actions.length).toBeGreaterThan(0);
    const doc = parsePolicyDocument(' ' + CASES['cidr-host-bits'], { fileName: 'p.netpolicy.json' });
    const stale = doValidation(parsePolicyDocument(CASES['cidr-host-bits'], { fileName: 'p.netpolicy.json' }), URI, DEFAULT_SETTINGS);
    expect(getCodeActions(doc, URI, stale[0].range, { diagnostics: stale }, policyDiagnostics(doc, DEFAULT_SETTINGS))).toEqual([]);
  });

  it('fixes all of a kind at once, and everything with source.fixAll', () => {
    const text = '{"presets":["npm","npm","pypi","pypi"],"connections":[{"tcp":{"cidrs":["10.0.0.1/8","192.168.1.1/16"]}}]}';
    const doc = parsePolicyDocument(text, { fileName: 'p.netpolicy.json' });
    const current = policyDiagnostics(doc, DEFAULT_SETTINGS);
    const lsp = doValidation(doc, URI, DEFAULT_SETTINGS).filter((d) => d.code === 'cidr-host-bits');
    const all = getCodeActions(doc, URI, lsp[0].range, { diagnostics: [lsp[0]] }, current).find((a) => a.title.startsWith('Fix all'))!;
    expect(all.title).toBe("Fix all 2 'cidr-host-bits' problems in this file");
    expect(JSON.parse(applyLspEdits(doc, all.edit!.changes![URI])).connections[0].tcp.cidrs).toEqual(['10.0.0.0/8', '192.168.0.0/16']);
    const [fixAll] = getCodeActions(doc, URI, lsp[0].range, { diagnostics: [], only: [FIX_ALL_KIND] }, current);
    expect(fixAll.kind).toBe(FIX_ALL_KIND);
    const after = validate(applyLspEdits(doc, fixAll.edit!.changes![URI]), { fileName: 'p.netpolicy.json' }).diagnostics.map((d) => d.code);
    expect(after).not.toContain('duplicate-item');
    expect(after).not.toContain('cidr-host-bits');
  });

  it('on any mix of defects, each offered fix parses and removes its diagnostic (property)', () => {
    const parts = Object.entries(CASES).filter(([c]) => !['trailing-comma', 'comment-not-allowed'].includes(c));
    fc.assert(fc.property(fc.constantFrom(...parts), fc.constantFrom('\n', '\r\n'), fc.constantFrom(0, 2, 4), ([code, text], eol, indent) => {
      const laid = indent === 0 ? text : JSON.stringify(JSON.parse(text), null, indent).replace(/\n/g, eol);
      const { doc, actions } = fixesFor(laid, code, 'lsp-without-data');
      for (const action of actions.filter((a) => a.kind === 'quickfix')) {
        const fixed = applyLspEdits(doc, action.edit!.changes![URI]);
        expect(() => JSON.parse(fixed)).not.toThrow();
      }
    }), { numRuns: 60 });
  });
});
