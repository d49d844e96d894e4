import { describe, expect, it } from 'vitest';
import { parsePolicyDocument } from '../validate/document';
import { validateDocument } from '../validate/validate';
import type { DiagnosticCode } from '../validate/types';
import { applyEdits, denialFixEdits, detectLayout, fixChoices, fixEdits } from './fix-edits';

/** Applies the `choice`-th fix of the first diagnostic with `code` and returns the new text. */
function fixed(text: string, code: DiagnosticCode, fileName = 'p.json', choice = 0): string {
  const doc = parsePolicyDocument(text, { fileName });
  const d = validateDocument(doc).find((x) => x.code === code);
  if (!d) throw new Error(`no ${code} in ${text}`);
  const edits = fixEdits(doc, d, choice);
  expect(edits.length).toBeGreaterThan(0);
  return applyEdits(text, edits);
}

describe('fixEdits', () => {
  it('trailing-comma: deletes the comma only', () => {
    expect(fixed('{"presets": ["pypi",]}', 'trailing-comma')).toBe('{"presets": ["pypi"]}');
  });

  it('comment-not-allowed: deletes the comment', () => {
    expect(fixed('{ /* c */ "default": "deny"}', 'comment-not-allowed')).toBe('{  "default": "deny"}');
  });

  it('duplicate-item: removes the element with its separator (no `, ]` left)', () => {
    expect(fixed('{"presets": ["npm", "pypi", "npm"]}', 'duplicate-item')).toBe('{"presets": ["npm", "pypi"]}');
  });

  it('duplicate-rule: removes the later rule, keeping the layout and comments', () => {
    const text = [
      '{',
      '  // mirrors',
      '  "sources": [',
      '    { "npm": { "urls": ["https://r.example"] } }, // first',
      '    { "npm": { "urls": ["https://r.example"] } }',
      '  ]',
      '}',
    ].join('\n');
    expect(fixed(text, 'duplicate-rule', 'p.jsonc')).toBe([
      '{',
      '  // mirrors',
      '  "sources": [',
      '    { "npm": { "urls": ["https://r.example"] } } // first',
      '  ]',
      '}',
    ].join('\n'));
  });

  it('missing-property: inserts a skeleton in the document\'s indentation', () => {
    const text = '{\n    "connections": [\n        {\n            "tls": {\n                "serverNamePatterns": ["a.example"]\n            }\n        }\n    ]\n}';
    const out = fixed(text, 'missing-property');
    expect(out).toBe('{\n    "connections": [\n        {\n            "tls": {\n                "serverNamePatterns": ["a.example"],\n                "ports": [\n                    443\n                ]\n            }\n        }\n    ]\n}');
  });

  it('missing-target: offers each target, preferred first', () => {
    const text = '{"connections": [{"tcp": {"ports": [22]}}]}';
    const doc = parsePolicyDocument(text, { fileName: 'p.json' });
    const d = validateDocument(doc).find((x) => x.code === 'missing-target')!;
    expect(fixChoices(doc, d).map((c) => c.title)).toEqual(['Add `hostPatterns`', 'Add `cidrs`']);
    expect(fixed(text, 'missing-target', 'p.json', 1)).toBe('{"connections": [{"tcp": {"ports": [22], "cidrs": ["192.0.2.0/24"]}}]}');
  });

  it('a port written as a string: the number', () => {
    expect(fixed('{"connections": [{"tcp": {"hostPatterns": ["db.example"], "ports": ["5432"]}}]}', 'wrong-type'))
      .toBe('{"connections": [{"tcp": {"hostPatterns": ["db.example"], "ports": [5432]}}]}');
  });

  it('unknown-property: renames the key, skipping a candidate already present', () => {
    expect(fixed('{"sourcse": []}', 'unknown-property')).toBe('{"sources": []}');
    const text = '{"sources": [{"oci": {"urls": ["https://r.example"], "operations": ["pull"], "operation": ["push"]}}]}';
    const doc = parsePolicyDocument(text, { fileName: 'p.json' });
    const d = validateDocument(doc).find((x) => x.code === 'unknown-property')!;
    expect(fixChoices(doc, d)).toEqual([]);
  });

  it('unknown-preset and cidr-host-bits: replace the value', () => {
    expect(fixed('{"presets": ["pypy"]}', 'unknown-preset')).toBe('{"presets": ["pypi"]}');
    expect(fixed('{"connections": [{"tcp": {"cidrs": ["10.0.0.1/8"]}}]}', 'cidr-host-bits')).toBe('{"connections": [{"tcp": {"cidrs": ["10.0.0.0/8"]}}]}');
  });

  it('no fix data, or a choice out of range: no edits', () => {
    const doc = parsePolicyDocument('{"default": 1}', { fileName: 'p.json' });
    const [d] = validateDocument(doc);
    expect(fixEdits(doc, d)).toEqual([]);
    const doc2 = parsePolicyDocument('{"presets": ["pypy"]}', { fileName: 'p.json' });
    expect(fixEdits(doc2, validateDocument(doc2)[0], 5)).toEqual([]);
  });
});

describe('denialFixEdits', () => {
  it('appends to /sources/- in the document layout', () => {
    const text = '{\n  "sources": [\n    { "npm": { "urls": ["https://r.example"] } }\n  ]\n}\n';
    const out = applyEdits(text, denialFixEdits(parsePolicyDocument(text, { fileName: 'p.json' }), { pointer: '/sources/-', value: { pypi: { urls: ['https://pypi.org'] } } }));
    expect(out).toBe('{\n  "sources": [\n    { "npm": { "urls": ["https://r.example"] } },\n    {\n      "pypi": {\n        "urls": [\n          "https://pypi.org"\n        ]\n      }\n    }\n  ]\n}\n');
  });

  it('creates the member when the policy has none, keeping comments', () => {
    const text = '{\n  // deny by default\n  "default": "deny"\n}';
    const out = applyEdits(text, denialFixEdits(parsePolicyDocument(text, { fileName: 'p.jsonc' }), { pointer: '/presets', value: ['pypi'] }));
    expect(out).toContain('// deny by default');
    expect(JSON.parse(out.replace('// deny by default', ''))).toEqual({ default: 'deny', presets: ['pypi'] });
  });

  it('replaces the rule being widened', () => {
    const text = '{"connections": [{"tcp": {"hostPatterns": ["a.example"]}}, {"udp": {"cidrs": ["10.0.0.0/8"]}}]}';
    const out = applyEdits(text, denialFixEdits(parsePolicyDocument(text, { fileName: 'p.json' }), { pointer: '/connections/0', value: { tcp: { hostPatterns: ['*.example'] } } }));
    expect(JSON.parse(out)).toEqual({ connections: [{ tcp: { hostPatterns: ['*.example'] } }, { udp: { cidrs: ['10.0.0.0/8'] } }] });
  });
});

describe('applyEdits and detectLayout', () => {
  it('applies edits in any order and refuses overlapping ones', () => {
    expect(applyEdits('abcdef', [{ offset: 4, length: 1, newText: 'E' }, { offset: 0, length: 1, newText: 'A' }])).toBe('AbcdEf');
    expect(() => applyEdits('abcdef', [{ offset: 0, length: 3, newText: '' }, { offset: 2, length: 1, newText: '' }])).toThrow(RangeError);
  });
  it('reads the layout of the document', () => {
    expect(detectLayout('{"a": 1}')).toEqual({ unit: '  ', eol: '\n' });
    expect(detectLayout('{\r\n\t"a": 1\r\n}')).toEqual({ unit: '\t', eol: '\r\n' });
    expect(detectLayout('{\n    "a": 1\n}')).toEqual({ unit: '    ', eol: '\n' });
  });
});
