/**
 * Diagnostics quote the document: an unknown preset's name, a property's, a URL, a test's name, a
 * path; the outline names rules by their URLs and targets. A hostile repository can put control,
 * bidi and line-separator characters there (U+202E turns the rest of a line around in a list of
 * problems or in breadcrumbs). Every message and symbol name the service makes shows them as
 * escapes, as `netpolicy check` and `netpolicy test` print them; text without them is left as it is.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkPolicyTestFile, escapeControl, parsePolicyDocument, runPolicyTests, type Policy } from '@netpolicy/core';
import type { DocumentSymbol } from 'vscode-languageserver-types';
import { DEFAULT_SETTINGS, doValidation, findDocumentSymbols } from '../src/index';
import { policyTestBindingDiagnostic, policyTestDiagnostics } from '../src/policy-tests';

/** What must never reach a message unescaped: C0 and C1 controls, DEL, bidi marks and isolates, line and paragraph separators. */
const RAW = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
const HOSTILE = ['\u202e', '\u2066', '\u2069', '\u200f', '\u061c', '\n', '\r', '\t', '\u0000', '\u001b[31m', '\u0085', '\u2028', 'a', '.', '`'];
/** Strings that mix the hostile characters with ordinary ones. */
const hostile = fc.array(fc.oneof(fc.constantFrom(...HOSTILE), fc.string({ unit: 'grapheme', maxLength: 3 })), { minLength: 1, maxLength: 12 }).map((xs) => xs.join(''));

const policy = { default: 'deny', presets: [], sources: [{ npm: { urls: ['https://registry.npmjs.org'] } }] } as Policy;

describe('messages show the document\'s control and bidi characters as escapes', () => {
  it('a policy\'s diagnostics: an unknown preset and an unknown property named by hostile text', () => {
    fc.assert(fc.property(hostile, hostile, (preset, key) => {
      const text = JSON.stringify({ default: 'deny', presets: [preset], sources: [{ npm: { urls: ['https://registry.npmjs.org'], [key]: 1 } }] });
      const messages = doValidation(parsePolicyDocument(text, { fileName: 'p.netpolicy.json' }), 'file:///p.netpolicy.json', DEFAULT_SETTINGS).map((d) => d.message);
      expect(messages.length).toBeGreaterThan(0);
      for (const m of messages) expect(m).not.toMatch(RAW);
      expect(messages.filter((m) => m.startsWith('unknown preset'))).toHaveLength(1);
    }), { numRuns: 200 });
  });

  it('a failing test named by hostile text, and a binding problem quoting a hostile path', () => {
    fc.assert(fc.property(hostile, (name) => {
      const text = JSON.stringify({ tests: [{ name, http: { url: 'https://evil.example/' }, expect: 'allow' }] }, null, 2);
      const doc = parsePolicyDocument(text, { fileName: 'x.tests.json' });
      const results = runPolicyTests(policy, checkPolicyTestFile(doc.value));
      const [failure] = policyTestDiagnostics(doc, 'file:///x.tests.json', { results });
      expect(failure?.code).toBe('policy-test');
      expect(failure!.message).not.toMatch(RAW);
      expect(failure!.message.startsWith(`${escapeControl(name)}: expected allow`)).toBe(true);
      const binding = policyTestBindingDiagnostic(doc, `policy ${name} not read: it is a FIFO`);
      expect(binding.message).not.toMatch(RAW);
      expect(binding.message).toBe(`policy ${escapeControl(name)} not read: it is a FIFO`);
    }), { numRuns: 200 });
  });

  it('an unknown preset whose name turns the line around is named with the escape', () => {
    const text = JSON.stringify({ default: 'deny', presets: ['internal-\u202eipyp'], sources: [] });
    const [d] = doValidation(parsePolicyDocument(text, { fileName: 'p.netpolicy.json' }), 'u', DEFAULT_SETTINGS).filter((x) => x.code === 'unknown-preset');
    expect(d.message.startsWith('unknown preset `internal-\\u202eipyp`')).toBe(true);
  });

  it('outline: names and details quote the document with escapes, whether read by the scan or from the tree', () => {
    const all = (symbols: DocumentSymbol[]): DocumentSymbol[] => symbols.flatMap((x) => [x, ...all(x.children ?? [])]);
    fc.assert(fc.property(hostile, hostile, hostile, fc.boolean(), (url, preset, value, broken) => {
      const policy = { default: value, presets: [preset], sources: [{ npm: { urls: [`https://registry.example/${url}`] } }], connections: [{ tls: { serverNamePatterns: [url], ports: [443] } }], [value]: 1 };
      // A syntax error makes the outline come from jsonc-parser's tree instead of the scan.
      const text = JSON.stringify(policy, null, 2) + (broken ? ',' : '');
      const symbols = all(findDocumentSymbols(parsePolicyDocument(text, { fileName: 'p.netpolicy.json' })));
      expect(symbols.length).toBeGreaterThan(4);
      for (const x of symbols) {
        expect(x.name).not.toMatch(RAW);
        if (x.detail !== undefined) expect(x.detail).not.toMatch(RAW);
      }
    }), { numRuns: 200 });
    const [, presets, sources] = findDocumentSymbols(parsePolicyDocument(JSON.stringify({ default: 'deny', presets: ['a\u202eb'], sources: [{ npm: { urls: ['https://x.example/\u2066y'] } }] }), { fileName: 'p.netpolicy.json' }));
    expect(presets.children!.map((x) => x.name)).toEqual(['a\\u202eb']);
    expect(sources.children!.map((x) => x.name)).toEqual(['npm https://x.example/\\u2066y']);
  });

  it('leaves a message without such characters as it is', () => {
    const text = JSON.stringify({ default: 'deny', presets: ['pypy'], sources: [] });
    const [d] = doValidation(parsePolicyDocument(text, { fileName: 'p.netpolicy.json' }), 'u', DEFAULT_SETTINGS).filter((x) => x.code === 'unknown-preset');
    expect(d.message.startsWith('unknown preset `pypy`')).toBe(true);
  });
});
