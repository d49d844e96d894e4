/** Lint findings through `validate`: severity warning, and the range covers what the pointer names. */
import { describe, expect, test } from 'vitest';
import { validate } from '../validate/validate';

const text = `{
  "default": "allow",
  "sources": [
    { "pypi": { "urls": ["https://pypi.org"] } },
    { "npm": { "urls": ["http://npm.example"] } },
    { "npm": { "urls": ["http://npm.example"] } },
    { "npm": { "urls": ["http://npm.example/pkg"] } },
    { "oci": { "urls": ["https://r.example"], "operations": ["pull", "push"] } },
    { "oci": { "urls": ["https://r.example"], "operations": ["delete"], "repositoryPatterns": ["**"] } }
  ],
  "connections": [
    { "tcp": { "cidrs": ["10.0.0.1/8"], "hostPatterns": ["a..example"] } },
    { "tcp": { "cidrs": ["0.0.0.0/0"] } }
  ]
}`;

function slice(d: { offset: number; length: number }): string {
  return text.slice(d.offset, d.offset + d.length);
}

describe('lint findings through validate', () => {
  const result = validate(text, { fileName: 'p.netpolicy.json' });
  const lints = result.diagnostics.map((d) => [d.code, d.severity, d.pointer, slice(d)]);

  test('the document is valid (lint findings are warnings)', () => {
    expect(result.valid).toBe(true);
    expect(result.diagnostics.every((d) => d.severity === 'warning')).toBe(true);
  });

  test('each code with its pointer and the exact text its range covers', () => {
    expect(lints).toEqual(expect.arrayContaining([
      ['rules-unused-with-default-allow', 'warning', '/default', '"allow"'],
      ['redundant-with-preset', 'warning', '/sources/0', '{ "pypi": { "urls": ["https://pypi.org"] } }'],
      ['insecure-url', 'warning', '/sources/1/npm/urls/0', '"http://npm.example"'],
      ['duplicate-rule', 'warning', '/sources/2', '{ "npm": { "urls": ["http://npm.example"] } }'],
      ['shadowed-rule', 'warning', '/sources/3', '{ "npm": { "urls": ["http://npm.example/pkg"] } }'],
      ['wildcard-push', 'warning', '/sources/4/oci/operations', '["pull", "push"]'],
      ['wildcard-push', 'warning', '/sources/5/oci/repositoryPatterns/0', '"**"'],
      ['cidr-host-bits', 'warning', '/connections/0/tcp/cidrs/0', '"10.0.0.1/8"'],
      ['unmatchable-host-pattern', 'warning', '/connections/0/tcp/hostPatterns/0', '"a..example"'],
      ['broad-cidr', 'warning', '/connections/1/tcp/cidrs/0', '"0.0.0.0/0"'],
      ['metadata-address', 'warning', '/connections/1/tcp/cidrs/0', '"0.0.0.0/0"'],
    ]));
    expect(lints).toHaveLength(13); // plus insecure-url on /sources/2 and /sources/3
  });

  test('the cidr-host-bits fix data reaches the diagnostic', () => {
    const d = result.diagnostics.find((x) => x.code === 'cidr-host-bits');
    expect(d?.data).toEqual({
      kind: 'choices',
      fixes: [
        { kind: 'replace', value: '10.0.0.0/8', title: 'Change to 10.0.0.0/8 (the network)' },
        { kind: 'replace', value: '10.0.0.1/32', title: 'Change to 10.0.0.1/32 (the single address)' },
      ],
    });
  });

  test('coverage findings carry related places and the unnecessary tag through validate', () => {
    const d = result.diagnostics.find((x) => x.code === 'duplicate-rule');
    expect(d?.related).toEqual([{ pointer: '/sources/1', message: 'The earlier identical rule.' }]);
    expect(d?.tags).toEqual(['unnecessary']);
  });

  test('lint: false and a clean policy give no warnings', () => {
    expect(validate(text, { lint: false }).diagnostics).toEqual([]);
    expect(validate('{"default":"deny","presets":[],"sources":[{"pypi":{"urls":["https://pypi.org"]}}]}').diagnostics).toEqual([]);
  });
});
