import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { LineIndex, explain, normaliseObservation, parsePolicyDocument, parseTrace, type ExplainResult, type Policy } from '@netpolicy/core';
import { ObservationPlaces, presetOccurrences, referenceTargetAt, ruleObservations, ruleRanges, testRuleRanges } from '../src/references';
import { MAX_TRACE_REFERENCES, addResult, emptyUsage, traceCodeLenses } from '../src/trace-usage';
import { withCursor } from './helpers';

const POLICY = `{
  "default": "deny",
  "presets": ["pypi", "npm"],
  "sources": [
    { "npm": { "urls": ["https://npm.internal.example"] } },
    { "pypi": { "urls": ["https://pypi.internal.example/simple"] } }
  ],
  "connections": [{ "tls": { "serverNamePatterns": ["*.cdn.example.net"], "ports": [443] } }]
}`;

const target = (marked: string) => {
  const { doc, position } = withCursor(marked);
  const t = referenceTargetAt(doc, position);
  return t && (t.kind === 'preset' ? { kind: t.kind, rule: t.rule, name: t.name } : t);
};

/** The text of a range of `text`. */
const textAt = (lines: LineIndex, r: { start: { line: number; character: number }; end: { line: number; character: number } }) => lines.text.slice(lines.offsetAt(r.start), lines.offsetAt(r.end));

describe('what a references request is about', () => {
  it('a rule from anywhere inside it, the default, a preset name, nothing elsewhere', () => {
    expect(target(POLICY.replace('{ "npm"', '|{ "npm"'))).toEqual({ kind: 'rule', rule: '/sources/0' });
    expect(target(POLICY.replace('pypi.internal', 'pypi.int|ernal'))).toEqual({ kind: 'rule', rule: '/sources/1' });
    expect(target(POLICY.replace('"ports"', '"po|rts"'))).toEqual({ kind: 'rule', rule: '/connections/0' });
    expect(target(POLICY.replace('"default"', '"def|ault"'))).toEqual({ kind: 'rule', rule: 'default' });
    expect(target(POLICY.replace('"deny"', '"de|ny"'))).toEqual({ kind: 'rule', rule: 'default' });
    expect(target(POLICY.replace('"npm"]', '"n|pm"]'))).toEqual({ kind: 'preset', rule: 'preset:npm', name: 'npm' });
    expect(target(POLICY.replace('"sources"', '"sour|ces"'))).toBeUndefined();
    expect(target(POLICY.replace('"presets"', '"pre|sets"'))).toBeUndefined();
    // The default's lens stands at the policy's first character when it has no `default` member.
    expect(target('|{ "sources": [] }')).toEqual({ kind: 'rule', rule: 'default' });
    expect(target(`|${POLICY}`)).toBeUndefined();
  });

  it('each lens with a count opens the references of what it counts', async () => {
    const doc = parsePolicyDocument(POLICY, { fileName: 'p.netpolicy.json' });
    const usage = emptyUsage();
    usage.traces.push('t.json');
    const observations = [
      { sequence: 1, protocol: 'http', method: 'GET', url: 'https://npm.internal.example/a', denied: false },
      { sequence: 2, protocol: 'http', method: 'GET', url: 'https://pypi.org/simple/x/', denied: false },
      { sequence: 3, protocol: 'tcp', remote_ip: '192.0.2.1', remote_port: 443, server_name: 'a.cdn.example.net', allowed: true },
      { sequence: 4, protocol: 'tcp', remote_ip: '192.0.2.2', remote_port: 22, allowed: false },
    ];
    await explain(doc.value as Policy, JSON.stringify({ observations }), { keep: false, onResult: (r) => addResult(usage, 't.json', r) });
    const lenses = traceCodeLenses(doc, usage, { command: 'netpolicy.showReferences', uri: 'file:///p.netpolicy.json' });
    const opened = lenses.filter((l) => l.command!.command === 'netpolicy.showReferences').map((l) => {
      const [uri, position] = l.command!.arguments!;
      expect(uri).toBe('file:///p.netpolicy.json');
      const t = referenceTargetAt(doc, position);
      return [l.command!.title.replace(/:.*/, ''), t?.rule, ruleObservations(usage, t!.rule).observations.map((o) => o.index)];
    });
    expect(opened).toEqual([
      ['1 traced access decided here', '/sources/0', [0]],
      ['1 traced access decided here', '/connections/0', [2]],
      ['1 traced access decided here', 'preset:pypi', [1]],
      ['default', 'default', [3]],
    ]);
    // Without the client's command, and on a rule nothing used, a lens is a title alone.
    expect(traceCodeLenses(doc, usage).every((l) => l.command!.command === '')).toBe(true);
    expect(lenses.find((l) => l.command!.title.startsWith('no traced access'))!.command).toEqual({ title: 'no traced access used this rule', command: '' });
  });
});

describe('where a policy and its test files name a rule', () => {
  it('the rule itself, the default member, each presets item', () => {
    const doc = parsePolicyDocument(POLICY, { fileName: 'p.netpolicy.json' });
    const lines = doc.lineIndex;
    expect(ruleRanges(doc, '/sources/1').map((r) => textAt(lines, r))).toEqual(['{ "pypi": { "urls": ["https://pypi.internal.example/simple"] } }']);
    expect(ruleRanges(doc, 'default').map((r) => textAt(lines, r))).toEqual(['"default"']);
    expect(ruleRanges(doc, 'preset:npm').map((r) => textAt(lines, r))).toEqual(['"npm"']);
    expect(ruleRanges(doc, '/sources/7')).toEqual([]);
    expect(ruleRanges(doc, '/sources/01')).toEqual([]);
    expect(presetOccurrences(doc, 'pip')).toEqual([]);
  });

  it('test files: the rule members naming exactly that rule', () => {
    const tests = `{
  "policy": "p.netpolicy.json",
  "tests": [
    { "name": "a", "http": { "url": "https://npm.internal.example/x" }, "expect": "allow", "rule": "/sources/0" },
    { "name": "b", "http": { "url": "https://pypi.org/simple/x/" }, "expect": "allow", "rule": "preset:pypi" },
    { "name": "c", "tcp": { "ip": "192.0.2.1", "port": 22 }, "expect": "deny", "rule": "default" },
    { "name": "d", "http": { "url": "https://npm.internal.example/y" }, "expect": "allow", "rule": "/sources/0" },
    { "name": "e", "http": { "url": "https://npm.internal.example/y" }, "expect": "allow", "rule": "/sources/00" }
  ]
}`;
    const doc = parsePolicyDocument(tests, { fileName: 'p.tests.json' });
    expect(testRuleRanges(doc, '/sources/0').map((r) => r.start.line)).toEqual([3, 6]);
    expect(testRuleRanges(doc, 'preset:pypi').map((r) => textAt(doc.lineIndex, r))).toEqual(['"preset:pypi"']);
    expect(testRuleRanges(doc, 'default').map((r) => r.start.line)).toEqual([5]);
    expect(testRuleRanges(doc, '/connections/0')).toEqual([]);
  });
});

// Observations of every protocol, with text of any script (graphemes: surrogate pairs too), quotes, backslashes and braces.
const text = fc.string({ unit: 'grapheme', maxLength: 10 });
const tricky = fc.constantFrom('é"\\{}[],', '\u2028\u2029', '😀\\u0041', '\\', '"', '}');
const note = fc.oneof(text, tricky);
const observation = fc.oneof(
  fc.record({ protocol: fc.constant('http'), sequence: fc.nat(), method: fc.constantFrom('GET', 'PUT'), url: fc.tuple(fc.constantFrom('npm.internal.example', 'pypi.internal.example', 'pypi.org', 'other.example'), text).map(([h, s]) => `https://${h}/simple/${encodeURIComponent(s)}`), denied: fc.boolean(), note }),
  fc.record({ protocol: fc.constant('tcp'), sequence: fc.nat(), allowed: fc.boolean(), remote_port: fc.constantFrom(443, 22), remote_ip: fc.oneof(fc.ipV4(), fc.ipV6()), server_name: fc.constantFrom('a.cdn.example.net', 'b.example.org'), extra: fc.array(note, { maxLength: 2 }) }),
  fc.record({ protocol: fc.constant('dns'), sequence: fc.nat(), query_name: fc.domain(), answers: fc.array(fc.ipV4(), { maxLength: 2 }) }),
  fc.record({ protocol: fc.constant('ssh_git'), sequence: fc.nat(), allowed: fc.boolean(), host: fc.constant('git.example.com'), port: fc.constant(22), repository_path: text }),
);
const layout = fc.record({
  indent: fc.constantFrom(undefined, 1, 2, '\t'),
  breaks: fc.array(fc.constantFrom('\n', '\r\n', '\r', '\n\n', ' \r\n'), { minLength: 1, maxLength: 4 }),
  bom: fc.boolean(),
  before: note,
  escapedKey: fc.boolean(),
  after: fc.boolean(),
});

interface Layout { indent?: number | string; breaks: string[]; bom: boolean; before: string; escapedKey: boolean; after: boolean }

/** A trace document's text: any indentation, line breaks of every kind (mixed), text of any script before the observations. */
function traceText(observations: object[], l: Layout): string {
  const doc = { schema_version: '1.0', job: { provider: 'ci', repository: `acme/${l.before}` }, observations, ...(l.after ? { z: [1, { y: '}' }] } : {}) };
  // JSON.stringify escapes every line break inside strings: the ones left are layout, each replaced by one of `breaks`.
  let k = 0;
  let out = JSON.stringify(doc, null, l.indent).replace(/\n/g, () => l.breaks[k++ % l.breaks.length]);
  if (l.escapedKey) out = out.replace('"observations"', '"observ\\u0061tions"');
  return (l.bom ? '\ufeff' : '') + out;
}

/** Cuts `s` into pieces at the given points. */
function piecesOf(s: string, cuts: number[]): string[] {
  const points = [...new Set(cuts.map((c) => c % (s.length + 1)))].sort((a, b) => a - b);
  const out: string[] = [];
  let at = 0;
  for (const p of points) { out.push(s.slice(at, p)); at = p; }
  out.push(s.slice(at));
  return out;
}

describe('where each observation of a trace is (property-based, held to core\'s reader)', () => {
  it('the text at each range is that observation: as many as the reader reads, the same ones, in any pieces', () => {
    fc.assert(fc.property(fc.array(observation, { maxLength: 12 }), layout, fc.array(fc.nat(), { maxLength: 12 }), (observations, l, cuts) => {
      const s = traceText(observations, l);
      const read = parseTrace(s).observations;
      const places = new ObservationPlaces();
      for (const piece of piecesOf(s, cuts)) places.write(piece);
      places.end();
      expect(places.complete).toBe(true);
      expect(places.count).toBe(read.length);
      const lines = new LineIndex(s);
      read.forEach((o, i) => {
        const at = textAt(lines, places.range(i)!);
        expect(at.startsWith('{') && at.endsWith('}')).toBe(true);
        expect(JSON.parse(at)).toEqual(observations[i]);
        expect(normaliseObservation(JSON.parse(at), i)).toEqual(o);
      });
      expect(places.range(read.length)).toBeUndefined();
      expect(places.range(-1)).toBeUndefined();
    }), { numRuns: 300 });
  });

  it('a document cut short keeps the observations read before the cut, never a wrong one', () => {
    fc.assert(fc.property(fc.array(observation, { minLength: 1, maxLength: 8 }), layout, fc.nat(), (observations, l, cut) => {
      const whole = traceText(observations, l);
      const s = whole.slice(0, cut % whole.length);
      const places = new ObservationPlaces();
      places.write(s);
      places.end();
      expect(places.complete).toBe(false);
      const lines = new LineIndex(s);
      for (let i = 0; i < places.count; i++) expect(JSON.parse(textAt(lines, places.range(i)!))).toEqual(observations[i]);
    }), { numRuns: 200 });
  });

  it('positions count UTF-16 code units after non-ASCII text, and lines end at CRLF', () => {
    const s = '{"job":{"repository":"é😀/ü"},\r\n "observations":[\r\n  {"protocol":"dns","sequence":1,"query_name":"a.example"},\r\n  {"protocol":"dns","note":"😀","sequence":2,"query_name":"b.example"}]}';
    const places = new ObservationPlaces();
    places.write(s);
    places.end();
    expect(places.range(0)).toEqual({ start: { line: 2, character: 2 }, end: { line: 2, character: 58 } });
    expect(places.range(1)).toEqual({ start: { line: 3, character: 2 }, end: { line: 3, character: 70 } });
    const one = '{"x":"😀","observations":[{"protocol":"dns","sequence":1,"query_name":"a.example"}]}';
    const p = new ObservationPlaces();
    p.write(one);
    expect(p.end().range(0)).toEqual({ start: { line: 0, character: 26 }, end: { line: 0, character: 82 } });
  });
});

describe('references from a rule are the observations explain says it decided (property-based)', () => {
  const policy: Policy = JSON.parse(POLICY);
  it('per rule: exactly explain\'s results for that rule, in order, each range the observation itself', async () => {
    await fc.assert(fc.asyncProperty(fc.array(observation, { maxLength: 40 }), layout, async (observations, l) => {
      const s = traceText(observations, l);
      const expected = new Map<string, number[]>();
      for (const r of (await explain(policy, s)).results as ExplainResult[]) {
        if (r.model.verdict === 'none') continue;
        const rule = r.model.rule ?? 'default';
        expected.set(rule, [...(expected.get(rule) ?? []), r.index]);
      }
      const usage = emptyUsage();
      await explain(policy, s, { keep: false, onResult: (r) => addResult(usage, 't.json', r) });
      const places = new ObservationPlaces();
      places.write(s);
      places.end();
      const lines = new LineIndex(s);
      expect([...usage.byRule.keys()].sort()).toEqual([...expected.keys()].sort());
      for (const [rule, indexes] of expected) {
        const { observations: refs, count } = ruleObservations(usage, rule);
        expect(count).toBe(indexes.length);
        expect(refs.map((o) => o.index)).toEqual(indexes);
        expect(refs.every((o) => o.trace === 't.json')).toBe(true);
        for (const o of refs) expect(JSON.parse(textAt(lines, places.range(o.index)!))).toEqual(observations[o.index]);
      }
    }), { numRuns: 150 });
  });

  it('a rule that decided more than MAX_TRACE_REFERENCES lists the first ones, and its lens says so', async () => {
    const many = Array.from({ length: 2500 }, (_, i) => ({ sequence: i + 1, protocol: 'http', method: 'GET', url: `https://npm.internal.example/p${i}`, denied: false }));
    const other = { sequence: 0, protocol: 'http', method: 'GET', url: 'https://pypi.internal.example/simple/x/', denied: false };
    const usage = emptyUsage();
    usage.traces.push('a.json', 'b.json');
    await explain(policy, JSON.stringify({ observations: [other, ...many.slice(0, 600)] }), { keep: false, onResult: (r) => addResult(usage, 'a.json', r) });
    await explain(policy, JSON.stringify({ observations: many.slice(600) }), { keep: false, onResult: (r) => addResult(usage, 'b.json', r) });
    const { observations: refs, count } = ruleObservations(usage, '/sources/0');
    expect(count).toBe(2500);
    expect(refs).toHaveLength(MAX_TRACE_REFERENCES);
    expect(refs.slice(598, 602)).toEqual([{ trace: 'a.json', index: 599 }, { trace: 'a.json', index: 600 }, { trace: 'b.json', index: 0 }, { trace: 'b.json', index: 1 }]);
    expect(usage.files).toEqual([{ path: 'a.json', observations: 601 }, { path: 'b.json', observations: 1900 }]);
    const doc = parsePolicyDocument(POLICY, { fileName: 'p.netpolicy.json' });
    expect(traceCodeLenses(doc, usage)[0].command!.title).toBe('2500 traced accesses decided here (first 1,000 listed): npm.internal.example');
  });
});
