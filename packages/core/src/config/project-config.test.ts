import { describe, expect, it } from 'vitest';
import { parseProjectConfig, resolvePath } from './project-config';
import { configSchema } from '../generated/data';
import { LINT_CODES } from '../validate/types';
import { validate } from '../validate/validate';

const covers = (text: string, d: { offset: number; length: number }) => text.slice(d.offset, d.offset + d.length);

describe('parseProjectConfig', () => {
  it('reads every member, paths relative to the config file', () => {
    const text = `{
      // comments are fine here
      "$schema": "https://netpolicy.dev/schemas/netpolicy-config.schema.json",
      "presetCatalog": "ci/presets.json",
      "filePatterns": ["policies/*.json"],
      "traces": ["../traces", "/abs/t.json"],
      "severity": {"broad-cidr": "error", "insecure-url": "off"},
    }`;
    const { config, diagnostics } = parseProjectConfig(text, '/repo/netpolicy.config.json');
    expect(diagnostics).toEqual([]);
    expect(config).toEqual({
      root: '/repo', presetCatalog: '/repo/ci/presets.json', filePatterns: ['policies/*.json'],
      traces: ['/traces', '/abs/t.json'], severity: { 'broad-cidr': 'error', 'insecure-url': 'off' },
    });
  });

  it('null members mean the defaults', () => {
    expect(parseProjectConfig('{"presetCatalog": null, "severity": null}', 'netpolicy.config.json')).toEqual({ config: { root: '.' }, diagnostics: [] });
  });

  it('a bad member is an error at its position, and is left out', () => {
    const text = '{"severity": {"broad-cidrs": "error", "insecure-url": "of"}, "traces": "t.json", "filePaterns": []}';
    const { config, diagnostics } = parseProjectConfig(text, 'netpolicy.config.json');
    expect(diagnostics.map((d) => ({ code: d.code, pointer: d.pointer, covers: covers(text, d), severity: d.severity }))).toEqual([
      { code: 'unknown-property', pointer: '/severity/broad-cidrs', covers: '"broad-cidrs"', severity: 'error' },
      { code: 'invalid-value', pointer: '/severity/insecure-url', covers: '"of"', severity: 'error' },
      { code: 'wrong-type', pointer: '/traces', covers: '"t.json"', severity: 'error' },
      { code: 'unknown-property', pointer: '/filePaterns', covers: '"filePaterns"', severity: 'error' },
    ]);
    expect(diagnostics[0].message).toContain('Did you mean `broad-cidr`?');
    expect(diagnostics[1].data).toEqual({ kind: 'replace', value: 'off', title: 'Change to off' });
    expect(diagnostics[3].data).toEqual({ kind: 'rename-key', candidates: ['filePatterns'] });
    expect(config).toEqual({ root: '.' });
  });

  it('syntax errors and a non-object are diagnostics too', () => {
    expect(parseProjectConfig('{"severity": ', 'c.json').diagnostics.map((d) => d.code)).toContain('json-syntax');
    expect(parseProjectConfig('[]', 'c.json').diagnostics.map((d) => d.code)).toEqual(['wrong-type']);
    expect(parseProjectConfig('{"__proto__": {"x": 1}}', 'c.json').diagnostics.map((d) => d.pointer)).toEqual(['/__proto__']);
  });

  it('the config severity is what validate takes', () => {
    const { config } = parseProjectConfig('{"severity": {"insecure-url": "off"}}', 'c.json');
    expect(validate('{"sources": [{"npm": {"urls": ["http://r.example"]}}]}', { severity: config.severity }).diagnostics).toEqual([]);
  });

  it('the schema lists exactly the lint codes', () => {
    expect(Object.keys(configSchema.properties.severity.properties).sort()).toEqual([...LINT_CODES].sort());
  });
});

describe('resolvePath', () => {
  it('joins and normalises', () => {
    expect(resolvePath('/repo/ci', '../a/./b.json')).toBe('/repo/a/b.json');
    expect(resolvePath('.', 'a.json')).toBe('a.json');
    expect(resolvePath('.', '../a.json')).toBe('../a.json');
    expect(resolvePath('C:\\repo', 'p\\x.json')).toBe('C:/repo/p/x.json');
    expect(resolvePath('/repo', 'C:\\abs.json')).toBe('C:\\abs.json');
    expect(resolvePath('/', '../../x')).toBe('/x');
  });
});

describe('parseProjectConfig: filePatterns a glob cannot take', () => {
  it('a pattern whose {} alternatives pass the limit is an error on it, and only it is left out', () => {
    const nine = '{a,b}'.repeat(9);
    const text = `{\n  "filePatterns": [\n    "ci/*.json",\n    "${nine}.json",\n    "${'{a,b}'.repeat(8)}.json"\n  ]\n}\n`;
    const { config, diagnostics } = parseProjectConfig(text, '/repo/netpolicy.config.json');
    expect(diagnostics.map((d) => ({ code: d.code, pointer: d.pointer, covers: covers(text, d), severity: d.severity }))).toEqual([
      { code: 'invalid-value', pointer: '/filePatterns/1', covers: `"${nine}.json"`, severity: 'error' },
    ]);
    expect(diagnostics[0].message).toContain('more than 256 patterns (the limit)');
    expect(diagnostics[0].message).toContain('`filePatterns.1`');
    // Eight groups of two make 256 patterns: at the limit, still taken.
    expect(config.filePatterns).toEqual(['ci/*.json', `${'{a,b}'.repeat(8)}.json`]);
  });
});
