import { loadPresetCatalog, parsePolicyDocument, reparsePolicyDocument } from '@netpolicy/core';
import { documentItemSpans } from '@netpolicy/core/internal';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_INLAY_HINTS, getInlayHints, treeInlayHints } from '../src/inlay-hints';
import { DEFAULT_SETTINGS } from '../src/settings';
import { emptyUsage } from '../src/trace-usage';

// Inlay hints of a plain JSON policy are read by its item spans, without the document's tree;
// held here to the tree reading on generated policies, ranges and options.

const catalog = loadPresetCatalog({ presets: [{ name: 'internal', description: 'Our mirror. More.', opaque: true }] });
const settings = { ...DEFAULT_SETTINGS, catalog };

const key = fc.constantFrom('cidrs', 'ports', 'port', 'presets', 'sources', 'connections', 'host', 'tcp', 'ssh', 'https', 'urls', 'x');
const cidr = fc.oneof(fc.constantFrom('10.0.0.0/8', '2001:db8::/32', '192.0.2.1/32', '::/0', '1.2.3.4', 'a/b', '10.0.0.0/40'), fc.string({ maxLength: 6 }));
const scalar = fc.oneof(cidr, fc.constantFrom(22, 443, 5432, 1, -1, 2.5, 70000, 'pypi', 'internal', 'npm', true, false, null), fc.integer());
const value: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  node: fc.oneof({ depthSize: 'small', withCrossShrink: true }, scalar, fc.array(tie('node'), { maxLength: 4 }), fc.dictionary(key, tie('node'), { maxKeys: 3 })),
})).node;
const rule = fc.dictionary(key, value, { maxKeys: 3 });
const root = fc.record({
  presets: fc.array(fc.oneof(fc.constantFrom('pypi', 'internal', 'npm', 'nope'), scalar), { maxLength: 4 }),
  sources: fc.array(fc.oneof(rule, rule, scalar, fc.array(value, { maxLength: 3 })), { maxLength: 6 }),
  connections: fc.array(fc.oneof(rule, rule, scalar), { maxLength: 6 }),
  port: fc.oneof(fc.constant(undefined), scalar),
  extra: fc.oneof(fc.constant(undefined), fc.array(value, { maxLength: 3 }), scalar),
}, { requiredKeys: [] });
const layout = fc.constantFrom(undefined, 0, 1, 2, '\t');
const options = fc.record({ addresses: fc.boolean(), services: fc.boolean(), presets: fc.boolean(), traceHits: fc.boolean() }, { requiredKeys: [] });

function usageFor(text: string) {
  const usage = emptyUsage();
  usage.traces.push('t.json');
  for (let i = 0; i < 6; i++) usage.byRule.set(`/sources/${i}`, { count: i, hosts: [] });
  usage.byRule.set('/connections/1', { count: 1, hosts: [] });
  usage.byRule.set('preset:pypi', { count: text.length, hosts: [] });
  return usage;
}

describe('inlay hints read by spans', () => {
  it('equal the tree reading, for any plain policy, range and options', () => {
    let bySpans = 0;
    fc.assert(fc.property(root, layout, fc.constantFrom('\n', '\r\n', '\r'), fc.nat(), fc.nat(), options, fc.boolean(), (policy, indent, eol, a, b, opts, traced) => {
      const json = JSON.stringify(policy, null, indent as any);
      // Line ends as editors write them: LF, CRLF, or a lone CR.
      const text = eol === '\n' ? json : json.replaceAll('\n', eol);
      const doc = parsePolicyDocument(text);
      if (documentItemSpans(doc)) bySpans++;
      const [from, to] = [a % (text.length + 1), b % (text.length + 1)].sort((x, y) => x - y);
      const range = { start: doc.lineIndex.positionAt(from), end: doc.lineIndex.positionAt(to) };
      const usage = traced ? usageFor(text) : undefined;
      expect(getInlayHints(doc, range, settings, opts, usage)).toEqual(treeInlayHints(doc, range, settings, opts, usage));
    }), { numRuns: 600 });
    expect(bySpans).toBeGreaterThan(500);
  });

  it('equal the tree reading after edits reparsed one rule at a time, whatever was asked of the versions before', () => {
    // The rules an edit leaves alone keep their parsed values, and with them the hints recorded for
    // them by an earlier request (made with other options or another range): held to the tree here.
    const edit = fc.tuple(fc.nat(), cidr, fc.boolean(), fc.nat(), fc.nat(), options);
    fc.assert(fc.property(root, layout, fc.array(edit, { minLength: 1, maxLength: 6 }), (policy, indent, edits) => {
      // On one line (no indent), an edit moves the rules after it along their line.
      let text = JSON.stringify(policy, null, indent as any);
      let doc = parsePolicyDocument(text);
      for (const [at, insert, newLine, a, b, opts] of edits) {
        let start: number, end: number, replacement: string;
        if (newLine) {
          // Line breaks inserted after a comma or bracket (often inside one rule): later rules move down.
          const marks = [...text.matchAll(/[,{[]/g)];
          if (marks.length === 0) return;
          start = end = marks[at % marks.length]!.index! + 1;
          replacement = ['\n\n   ', '\r\n ', '\r'][at % 3]!;
        } else {
          // A string value replaced by another, of another length.
          const quotes = [...text.matchAll(/"[^"\\]*"(?!\s*:)/g)];
          if (quotes.length === 0) return;
          const m = quotes[at % quotes.length]!;
          start = m.index!;
          end = start + m[0].length;
          replacement = JSON.stringify(insert);
        }
        const next = text.slice(0, start) + replacement + text.slice(end);
        doc = reparsePolicyDocument(doc, next, { start, end, newEnd: start + replacement.length });
        text = next;
        const [from, to] = [a % (text.length + 1), b % (text.length + 1)].sort((x, y) => x - y);
        const some = { start: doc.lineIndex.positionAt(from), end: doc.lineIndex.positionAt(to) };
        expect(getInlayHints(doc, some, settings, opts)).toEqual(treeInlayHints(doc, some, settings, opts));
        const all = { start: { line: 0, character: 0 }, end: doc.lineIndex.positionAt(text.length) };
        expect(getInlayHints(doc, all, settings, {}, usageFor(text))).toEqual(treeInlayHints(doc, all, settings, {}, usageFor(text)));
      }
    }), { numRuns: 300 });
  });

  it('read by spans with hit counts too: the document\'s tree is never built', () => {
    // The hit counts are a first pass over the same rules: the second finds their spans again.
    const text = JSON.stringify({ presets: ['pypi'], sources: [{ git: { ssh: [{ port: 443 }] } }, 'x', { npm: {} }], connections: [{ tcp: { cidrs: ['10.0.0.0/8'], ports: [5432] } }] }, null, 2);
    const doc = parsePolicyDocument(text);
    const range = { start: { line: 0, character: 0 }, end: doc.lineIndex.positionAt(text.length) };
    const hints = getInlayHints(doc, range, settings, {}, usageFor(text));
    expect((doc as unknown as { tree: unknown }).tree).toBeNull(); // core's lazy tree, still unbuilt
    expect(hints).toEqual(treeInlayHints(doc, range, settings, {}, usageFor(text)));
    expect(hints.map((h) => h.label)).toEqual(['The Python Package Index (pypi.org, files.pythonhosted.org)', `${text.length} hits`, '0 hits', '1 hit', '2 hits', 'https', '0 hits', '16,777,216 addresses', 'postgres']);
  });

  it('a rule moved along its line by an edit before it is hinted where it now is', () => {
    // One line: lengthening the first rule's CIDR moves the second rule's hints one character on.
    let text = JSON.stringify({ connections: [{ tcp: { cidrs: ['10.0.0.0/8'] } }, { tcp: { cidrs: ['10.0.0.0/16'], ports: [5432] } }] });
    let doc = parsePolicyDocument(text);
    const all = () => ({ start: { line: 0, character: 0 }, end: doc.lineIndex.positionAt(text.length) });
    const before = getInlayHints(doc, all(), settings);
    const start = text.indexOf('"10.0.0.0/8"');
    const next = `${text.slice(0, start)}"10.0.0.0/24"${text.slice(start + 12)}`;
    doc = reparsePolicyDocument(doc, next, { start, end: start + 12, newEnd: start + 13 });
    text = next;
    const after = getInlayHints(doc, all(), settings);
    expect(after).toEqual(treeInlayHints(doc, all(), settings));
    expect(after.slice(1).map((h) => h.position.character)).toEqual(before.slice(1).map((h) => h.position.character + 1));
  });

  it('stop at the cap, in document order, both readings alike', () => {
    const rules = Array.from({ length: 2 * MAX_INLAY_HINTS }, (_, i) => ({ tcp: { cidrs: [`10.${i >> 8 & 255}.${i & 255}.0/24`], ports: [5432] } }));
    const text = JSON.stringify({ presets: ['pypi'], connections: rules }, null, 2);
    const doc = parsePolicyDocument(text);
    expect(documentItemSpans(doc)).toBeDefined();
    const range = { start: { line: 0, character: 0 }, end: doc.lineIndex.positionAt(text.length) };
    const hints = getInlayHints(doc, range, settings);
    expect(hints).toHaveLength(MAX_INLAY_HINTS);
    expect(hints).toEqual(treeInlayHints(doc, range, settings));
    expect(hints.slice(0, 3).map((h) => h.label)).toEqual(['The Python Package Index (pypi.org, files.pythonhosted.org)', '256 addresses', 'postgres']);
  });

  it('escaped member names and strings, CRLF line ends and non-ASCII text read as the tree reads them', () => {
    const text = '{\r\n  "presets": ["\\u0070ypi", "é"],\r\n  "connections": [\r\n    { "tcp": { "\\u0063idrs": ["10.0.0.0\\/8", "é"], "p\\u006frts": [ 22 , 5432 ] } },\r\n    { "ssh": { "port": 22, "x": { "port": 443 } } }\r\n  ]\r\n}';
    const doc = parsePolicyDocument(text);
    expect(documentItemSpans(doc)).toBeDefined();
    const range = { start: { line: 0, character: 0 }, end: doc.lineIndex.positionAt(text.length) };
    const hints = getInlayHints(doc, range, settings);
    expect(hints).toEqual(treeInlayHints(doc, range, settings));
    expect(hints.map((h) => h.label)).toEqual(['The Python Package Index (pypi.org, files.pythonhosted.org)', '16,777,216 addresses', 'ssh', 'postgres', 'https']); // no 'ssh' on the port under "ssh": the member already says it
  });

  it('a document with comments or a root member holding an object is read from its tree', () => {
    for (const text of ['{ "connections": [ { "tcp": { "ports": [22] } } ] // c\n}', '{ "meta": { "port": 22 }, "connections": [ { "tcp": { "ports": [22] } } ] }']) {
      const doc = parsePolicyDocument(text, { fileName: 'p.netpolicy.jsonc' });
      const range = { start: { line: 0, character: 0 }, end: doc.lineIndex.positionAt(text.length) };
      expect(getInlayHints(doc, range, settings).map((h) => h.label)).toEqual(text.includes('meta') ? ['ssh', 'ssh'] : ['ssh']);
    }
  });
});
