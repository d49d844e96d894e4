/**
 * Every fix yields a document that parses and no longer has that diagnostic: generated policies
 * with one defect of each code that has fix data, in every layout (compact, indented with spaces
 * or tabs, CRLF, JSONC with comments), each fix choice applied and the result validated again.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parsePolicyDocument } from '../validate/document';
import { validateDocument } from '../validate/validate';
import type { DiagnosticCode } from '../validate/types';
import { applyEdits, fixChoices, fixEdits, denialFixEdits } from './fix-edits';
import { applyFixes } from './fix-all';

type Policy = { default?: string; presets?: string[]; sources?: unknown[]; connections?: unknown[] } & Record<string, unknown>;

const sourceArb = fc.constantFrom<unknown>(
  { npm: { urls: ['https://registry.example'] } },
  { oci: { urls: ['https://r.example'], repositoryPatterns: ['team/*'], operations: ['pull'] } },
  { git: { https: [{ baseUrl: 'https://git.example' }] } },
  { apt: { urls: ['https://deb.example'], purlNamespace: 'debian' } },
  { cargo: { indexUrl: 'https://index.example', downloadUrl: 'https://dl.example' } },
);
const connectionArb = fc.constantFrom<unknown>(
  { tls: { serverNamePatterns: ['api.example'], ports: [443] } },
  { tcp: { cidrs: ['10.1.0.0/16'], ports: [5432] } },
  { udp: { cidrs: ['10.2.0.0/16'], ports: [53] } },
  { icmp: { cidrs: ['10.3.0.0/16'] } },
);
const baseArb = fc.record(
  {
    default: fc.constantFrom('deny', 'allow'),
    presets: fc.subarray(['npm', 'debian', 'cargo', 'golang']),
    sources: fc.array(sourceArb, { maxLength: 3 }),
    connections: fc.array(connectionArb, { maxLength: 3 }),
  },
  { requiredKeys: ['presets'] },
);

/** Value-level defects: each puts (at least) one diagnostic with fix data into the policy. */
const defects: Record<string, (p: Policy, at: number) => void> = {
  // Idempotent: applied twice, the second must not undo the first (`presest` = undefined would vanish).
  'unknown-property': (p) => { if ('presets' in p) { p.presest = p.presets; delete p.presets; } },
  'unknown-property in a rule': (p, at) => insert(p, 'sources', at, { npm: { url: ['https://x.example'] } }),
  'missing-property (tls ports)': (p, at) => insert(p, 'connections', at, { tls: { serverNamePatterns: ['a.example'] } }),
  'missing-property (oci operations)': (p, at) => insert(p, 'sources', at, { oci: { urls: ['https://r2.example'] } }),
  'missing-property (ssh port)': (p, at) => insert(p, 'sources', at, { git: { ssh: [{ host: 'g.example' }] } }),
  'missing-target (tcp)': (p, at) => insert(p, 'connections', at, { tcp: { ports: [22] } }),
  'missing-target (git)': (p, at) => insert(p, 'sources', at, { git: { repositoryPatterns: ['a/b'] } }),
  'port as a string': (p, at) => insert(p, 'connections', at, { tcp: { hostPatterns: ['db.example'], ports: ['5432'] } }),
  'unknown-preset': (p, at) => insert(p, 'presets', at, 'pypy'),
  'duplicate-item': (p) => { p.presets = [...(p.presets ?? []), 'rubygems', 'rubygems']; },
  'invalid-value': (p) => { p.default = 'alow'; },
  'cidr-host-bits': (p, at) => insert(p, 'connections', at, { tcp: { cidrs: ['10.9.0.1/16'] } }),
  'insecure-url': (p, at) => insert(p, 'sources', at, { npm: { urls: ['http://plain.example'] } }),
  'duplicate-rule': (p, at) => { insert(p, 'sources', at, { nix: { urls: ['https://nix.example'] } }); insert(p, 'sources', at + 1, { nix: { urls: ['https://nix.example'] } }); },
  'shadowed-rule': (p, at) => { insert(p, 'connections', at, { tls: { serverNamePatterns: ['*.corp.example'], ports: [443] } }); (p.connections ??= []).push({ tls: { serverNamePatterns: ['a.corp.example'], ports: [443] } }); },
  'redundant-with-preset': (p, at) => { p.presets = [...(p.presets ?? []), 'pypi']; insert(p, 'sources', at, { pypi: { urls: ['https://pypi.org'] } }); },
};

function insert(p: Policy, member: 'sources' | 'connections' | 'presets', at: number, item: unknown) {
  const list = ((p[member] as unknown[] | undefined) ??= []);
  list.splice(at % (list.length + 1), 0, item);
}

const layoutArb = fc.record({ indent: fc.constantFrom('', '  ', '    ', '\t'), crlf: fc.boolean(), jsonc: fc.boolean(), comments: fc.boolean() });

function render(p: Policy, layout: { indent: string; crlf: boolean; jsonc: boolean; comments: boolean }): string {
  let text = layout.indent === '' ? JSON.stringify(p) : JSON.stringify(p, null, layout.indent);
  if (layout.jsonc && layout.comments && layout.indent !== '') {
    // A line comment after every opening bracket and a block comment before every closing one.
    text = text.replace(/([[{])\n/g, '$1 // open\n').replace(/\n(\s*)([\]}])/g, '\n$1/* close */ $2');
  }
  return layout.crlf ? text.replace(/\n/g, '\r\n') : text;
}

const count = (ds: { code: string }[], code: string) => ds.filter((d) => d.code === code).length;

describe('fixEdits: every fix yields a document that parses and no longer has that diagnostic', () => {
  const codesSeen = new Set<DiagnosticCode>();

  it('on generated policies with one defect each, in every layout', () => {
    fc.assert(
      fc.property(baseArb, fc.constantFrom(...Object.keys(defects)), fc.nat(10), layoutArb, fc.constantFrom('none', 'trailing-comma', 'comment'), (base, defect, at, layout, textDefect) => {
        const policy = structuredClone(base) as Policy;
        defects[defect](policy, at);
        let text = render(policy, layout);
        const fileName = layout.jsonc ? 'p.netpolicy.jsonc' : 'p.netpolicy.json';
        if (!layout.jsonc && textDefect === 'trailing-comma') text = text.replace(/("presets":\s*\[[^\]]*?)(\s*\])/, '$1,$2').replace('[,', '[');
        if (!layout.jsonc && textDefect === 'comment') text = text.replace(/^\{/, '{ /* note */');
        const doc = parsePolicyDocument(text, { fileName });
        const before = validateDocument(doc);
        expect(before.some((d) => d.code === 'json-syntax')).toBe(false);
        const fixable = before.filter((d) => d.data !== undefined);
        expect(fixable.length).toBeGreaterThan(0);
        for (const d of fixable) {
          const choices = fixChoices(doc, d);
          for (let i = 0; i < choices.length; i++) {
            const after = applyEdits(text, fixEdits(doc, d, i));
            const diagnostics = validateDocument(parsePolicyDocument(after, { fileName }));
            const context = `${d.code} at ${d.pointer}, "${choices[i].title}":\n${text}\n-->\n${after}`;
            expect(diagnostics.filter((x) => x.code === 'json-syntax'), context).toEqual([]);
            expect(count(diagnostics, d.code), context).toBeLessThan(count(before, d.code));
            codesSeen.add(d.code);
          }
        }
      }),
      { numRuns: 300 },
    );
    // Each code that has fix data was exercised.
    expect([...codesSeen].sort()).toEqual([
      'cidr-host-bits', 'comment-not-allowed', 'duplicate-item', 'duplicate-rule', 'insecure-url', 'invalid-value',
      'missing-property', 'missing-target', 'redundant-with-preset', 'rules-unused-with-default-allow', 'shadowed-rule', 'trailing-comma', 'unknown-preset',
      'unknown-property', 'wrong-type',
    ]);
  });

  it('denial fixes: appending to or creating a list keeps the document valid JSON with the value added', () => {
    fc.assert(
      fc.property(baseArb, layoutArb, fc.constantFrom<'sources' | 'connections' | 'presets'>('sources', 'connections', 'presets'), (base, layout, member) => {
        const text = render(base as Policy, layout);
        const doc = parsePolicyDocument(text, { fileName: layout.jsonc ? 'p.jsonc' : 'p.json' });
        const item = member === 'presets' ? 'rubygems' : member === 'sources' ? { pypi: { urls: ['https://pypi.example'] } } : { tcp: { hostPatterns: ['new.example'] } };
        const exists = (base as Policy)[member] !== undefined;
        const fix = exists ? { pointer: `/${member}/-`, value: item } : { pointer: `/${member}`, value: [item] };
        const after = applyEdits(text, denialFixEdits(doc, fix));
        const value = parsePolicyDocument(after, { fileName: layout.jsonc ? 'p.jsonc' : 'p.json' });
        expect(value.syntaxDiagnostics).toEqual([]);
        expect(value.value).toEqual({ ...base, [member]: [...(((base as Policy)[member] as unknown[]) ?? []), item] });
      }),
      { numRuns: 200 },
    );
  });
});

describe('applyFixes (fix all)', () => {
  it('applies every preferred fix; what is left has no fix data, and the text still parses', () => {
    fc.assert(
      fc.property(baseArb, fc.array(fc.constantFrom(...Object.keys(defects)), { minLength: 1, maxLength: 4 }), fc.nat(10), layoutArb, (base, chosen, at, layout) => {
        const policy = structuredClone(base) as Policy;
        for (const defect of chosen) defects[defect](policy, at);
        const text = render(policy, layout);
        const fileName = layout.jsonc ? 'p.jsonc' : 'p.json';
        const result = applyFixes(text, { fileName, maxRounds: 20 });
        expect(result.diagnostics.filter((d) => d.code === 'json-syntax')).toEqual([]);
        const doc = parsePolicyDocument(result.text, { fileName });
        expect(result.diagnostics.filter((d) => fixChoices(doc, d).length > 0), result.text).toEqual([]);
        expect(result.applied).toBeGreaterThan(0);
      }),
      { numRuns: 100 },
    );
  });
});

describe('hostile input', () => {
  const fixture = JSON.stringify({
    default: 'deny', presets: ['npm', 'pypy', 'npm'],
    sources: [{ npm: { urls: ['http://r.example'] } }, { npm: { urls: ['http://r.example'] } }, { oci: { urls: ['https://r.example'] } }],
    connections: [{ tcp: { cidrs: ['10.0.0.1/8'], ports: ['22'] } }, { tls: { ports: [443] } }],
    sourcse: [],
  }, null, 2);

  it('fixes on mutated (possibly broken) documents never throw and stay in range', () => {
    const mutation = fc.array(fc.record({ at: fc.nat(fixture.length), del: fc.nat(6), ins: fc.constantFrom('', ',', '"', '{', ']', '//', '/*', ' ', '\n', ':', '__proto__') }), { minLength: 1, maxLength: 3 });
    fc.assert(fc.property(mutation, fc.boolean(), (edits, jsonc) => {
      let text = fixture;
      for (const e of edits) text = text.slice(0, e.at) + e.ins + text.slice(e.at + e.del);
      const fileName = jsonc ? 'p.jsonc' : 'p.json';
      const doc = parsePolicyDocument(text, { fileName });
      for (const d of validateDocument(doc)) {
        for (let i = 0; i < fixChoices(doc, d).length; i++) {
          const out = fixEdits(doc, d, i);
          for (const e of out) expect(e.offset + e.length).toBeLessThanOrEqual(text.length);
          applyEdits(text, out);
        }
      }
    }), { numRuns: 300 });
  });

  it('a diagnostic from an older version of the document gives no edits or edits that apply', () => {
    const old = parsePolicyDocument(fixture, { fileName: 'p.json' });
    const stale = validateDocument(old);
    const changed = parsePolicyDocument('{"presets": []}', { fileName: 'p.json' });
    stale.push({ code: 'trailing-comma', severity: 'error', message: '', pointer: '', offset: 500, length: 1, data: { kind: 'delete-text', title: 'Remove' } });
    stale.push({ code: 'trailing-comma', severity: 'error', message: '', pointer: '', offset: 2, length: 1, data: { kind: 'delete-text', title: 'Remove' } });
    expect(fixEdits(changed, stale[stale.length - 1])).toEqual([]);
    for (const d of stale) {
      const edits = fixEdits(changed, d);
      expect(() => applyEdits(changed.text, edits)).not.toThrow();
    }
  });
});
