import { describe, expect, it } from 'vitest';
import { readFileSync, readdirSync } from 'node:fs';
import { validate } from './validate';
import type { Diagnostic } from './types';
import { cpuMs } from '../../../../test-support/cpu-time';

/** Errors only (lint warnings are tested with the lint rules). */
function errors(text: string, fileName = 'p.json'): Diagnostic[] {
  return validate(text, { fileName }).diagnostics.filter((d) => d.severity === 'error');
}

/** code, pointer and the exact text the range covers. */
function summary(text: string, fileName = 'p.json') {
  return errors(text, fileName).map((d) => ({ code: d.code, pointer: d.pointer, covers: text.slice(d.offset, d.offset + d.length) }));
}

const src = (s: string) => `{"sources":[${s}]}`;
const conn = (c: string) => `{"connections":[${c}]}`;

interface Case { name: string; text: string; file?: string; expected: Array<{ code: string; pointer: string; covers: string }> }

const failing: Case[] = [
  { name: 'json-syntax', text: '{"default": }', expected: [{ code: 'json-syntax', pointer: '', covers: '}' }] },
  { name: 'comment-not-allowed in .json', text: '{ /* c */ "default": "deny" }', expected: [{ code: 'comment-not-allowed', pointer: '', covers: '/* c */' }] },
  { name: 'trailing-comma in .json', text: '{"presets": ["pypi",]}', expected: [{ code: 'trailing-comma', pointer: '', covers: ',' }] },
  { name: 'duplicate-key points at the later key', text: '{"default": "deny", "default": "allow"}', expected: [{ code: 'duplicate-key', pointer: '/default', covers: '"default"' }] },
  { name: 'unknown-property at root', text: '{"sourcse": []}', expected: [{ code: 'unknown-property', pointer: '/sourcse', covers: '"sourcse"' }] },
  { name: 'unknown-property in a source kind', text: src('{"pypi": {"urls": ["https://x.example"], "url": 1}}'), expected: [{ code: 'unknown-property', pointer: '/sources/0/pypi/url', covers: '"url"' }] },
  { name: 'unknown source kind gets unknown-property only', text: src('{"pypy": {"urls": ["https://x.example"]}}'), expected: [{ code: 'unknown-property', pointer: '/sources/0/pypy', covers: '"pypy"' }] },
  { name: 'missing-property under a member: the key', text: src('{"oci": {"urls": ["https://r.example"]}}'), expected: [{ code: 'missing-property', pointer: '/sources/0/oci', covers: '"oci"' }] },
  { name: 'missing-property without a member: the brace', text: conn('{"tls": {"serverNamePatterns": ["a.example"], "alpn": ["h2"]}}'), expected: [{ code: 'missing-property', pointer: '/connections/0/tls', covers: '"tls"' }] },
  { name: 'missing-property of an ssh transport (array item)', text: src('{"git": {"ssh": [{"host": "git.example"}]}}'), expected: [{ code: 'missing-property', pointer: '/sources/0/git/ssh/0', covers: '{' }] },
  { name: 'wrong-type', text: '{"sources": {}}', expected: [{ code: 'wrong-type', pointer: '/sources', covers: '{}' }] },
  { name: 'wrong-type of the document', text: '[]', expected: [{ code: 'wrong-type', pointer: '', covers: '[]' }] },
  { name: 'invalid-value', text: '{"default": "block"}', expected: [{ code: 'invalid-value', pointer: '/default', covers: '"block"' }] },
  { name: 'invalid-value of an oci operation', text: src('{"oci": {"urls": ["https://r.example"], "operations": ["pul"]}}'), expected: [{ code: 'invalid-value', pointer: '/sources/0/oci/operations/0', covers: '"pul"' }] },
  { name: 'unknown-preset', text: '{"presets": ["pypy"]}', expected: [{ code: 'unknown-preset', pointer: '/presets/0', covers: '"pypy"' }] },
  { name: 'source-kind with two kinds', text: src('{"pypi": {"urls": ["https://a.example"]}, "npm": {"urls": ["https://b.example"]}}'), expected: [{ code: 'source-kind', pointer: '/sources/0', covers: '{"pypi": {"urls": ["https://a.example"]}, "npm": {"urls": ["https://b.example"]}}' }] },
  { name: 'source-kind empty', text: src('{}'), expected: [{ code: 'source-kind', pointer: '/sources/0', covers: '{}' }] },
  { name: 'connection-kind', text: conn('{"udp": {"cidrs": ["10.0.0.0/8"]}, "icmp": {"cidrs": ["10.0.0.0/8"]}}'), expected: [{ code: 'connection-kind', pointer: '/connections/0', covers: '{"udp": {"cidrs": ["10.0.0.0/8"]}, "icmp": {"cidrs": ["10.0.0.0/8"]}}' }] },
  { name: 'invalid-url with a query', text: src('{"npm": {"urls": ["https://r.example/x?y=1"]}}'), expected: [{ code: 'invalid-url', pointer: '/sources/0/npm/urls/0', covers: '"https://r.example/x?y=1"' }] },
  { name: 'invalid-url of cargo indexUrl', text: src('{"cargo": {"indexUrl": "sparse+https://i.example", "downloadUrl": "https://d.example"}}'), expected: [{ code: 'invalid-url', pointer: '/sources/0/cargo/indexUrl', covers: '"sparse+https://i.example"' }] },
  { name: 'invalid-url of git baseUrl', text: src('{"git": {"https": [{"baseUrl": "https://user@git.example"}]}}'), expected: [{ code: 'invalid-url', pointer: '/sources/0/git/https/0/baseUrl', covers: '"https://user@git.example"' }] },
  { name: 'invalid-host-pattern', text: conn('{"tls": {"serverNamePatterns": ["*api.example"], "ports": [443]}}'), expected: [{ code: 'invalid-host-pattern', pointer: '/connections/0/tls/serverNamePatterns/0', covers: '"*api.example"' }] },
  { name: 'invalid-host-pattern of an ssh host', text: src('{"git": {"ssh": [{"host": "git.example:22", "port": 22}]}}'), expected: [{ code: 'invalid-host-pattern', pointer: '/sources/0/git/ssh/0/host', covers: '"git.example:22"' }] },
  { name: 'invalid-port above range', text: conn('{"tcp": {"cidrs": ["10.1.0.0/16"], "ports": [65536]}}'), expected: [{ code: 'invalid-port', pointer: '/connections/0/tcp/ports/0', covers: '65536' }] },
  { name: 'invalid-port zero in ssh', text: src('{"git": {"ssh": [{"host": "g.example", "port": 0}]}}'), expected: [{ code: 'invalid-port', pointer: '/sources/0/git/ssh/0/port', covers: '0' }] },
  { name: 'invalid-port not an integer', text: conn('{"udp": {"cidrs": ["10.1.0.0/16"], "ports": [53.5]}}'), expected: [{ code: 'invalid-port', pointer: '/connections/0/udp/ports/0', covers: '53.5' }] },
  { name: 'invalid-cidr octet', text: conn('{"tcp": {"cidrs": ["10.0.0.256"]}}'), expected: [{ code: 'invalid-cidr', pointer: '/connections/0/tcp/cidrs/0', covers: '"10.0.0.256"' }] },
  { name: 'invalid-cidr leading zero', text: conn('{"icmp": {"cidrs": ["010.0.0.1"]}}'), expected: [{ code: 'invalid-cidr', pointer: '/connections/0/icmp/cidrs/0', covers: '"010.0.0.1"' }] },
  { name: 'invalid-cidr prefix', text: conn('{"tls": {"cidrs": ["10.0.0.0/33"], "ports": [443]}}'), expected: [{ code: 'invalid-cidr', pointer: '/connections/0/tls/cidrs/0', covers: '"10.0.0.0/33"' }] },
  { name: 'invalid-cidr zone index', text: conn('{"tcp": {"cidrs": ["fe80::1%eth0"]}}'), expected: [{ code: 'invalid-cidr', pointer: '/connections/0/tcp/cidrs/0', covers: '"fe80::1%eth0"' }] },
  { name: 'ipv6-not-allowed', text: conn('{"udp": {"cidrs": ["2001:db8::/32"]}}'), expected: [{ code: 'ipv6-not-allowed', pointer: '/connections/0/udp/cidrs/0', covers: '"2001:db8::/32"' }] },
  { name: 'invalid-repository-pattern', text: src('{"oci": {"urls": ["https://r.example"], "repositoryPatterns": ["a**b"], "operations": ["pull"]}}'), expected: [{ code: 'invalid-repository-pattern', pointer: '/sources/0/oci/repositoryPatterns/0', covers: '"a**b"' }] },
  { name: 'invalid-purl-namespace', text: src('{"apt": {"urls": ["https://a.example"], "purlNamespace": "Debian"}}'), expected: [{ code: 'invalid-purl-namespace', pointer: '/sources/0/apt/purlNamespace', covers: '"Debian"' }] },
  { name: 'empty-array', text: src('{"npm": {"urls": []}}'), expected: [{ code: 'empty-array', pointer: '/sources/0/npm/urls', covers: '[]' }] },
  { name: 'duplicate-item points at the later item', text: '{"presets": ["npm", "pypi", "npm"]}', expected: [{ code: 'duplicate-item', pointer: '/presets/2', covers: '"npm"' }] },
  { name: 'duplicate-item of a repeated "__proto__" (which Ajv\'s own loop misses)', text: '{"sources": [{"git": {"repositoryPatterns": ["__proto__", "a/*", "__proto__"], "https": [{"baseUrl": "https://g.example"}]}}]}', expected: [{ code: 'duplicate-item', pointer: '/sources/0/git/repositoryPatterns/2', covers: '"__proto__"' }] },
  { name: 'missing-target tls', text: conn('{"tls": {"ports": [443]}}'), expected: [{ code: 'missing-target', pointer: '/connections/0/tls', covers: '"tls"' }] },
  { name: 'missing-target tcp', text: conn('{"tcp": {"ports": [22]}}'), expected: [{ code: 'missing-target', pointer: '/connections/0/tcp', covers: '"tcp"' }] },
  { name: 'missing-target git', text: src('{"git": {"repositoryPatterns": ["a/b"]}}'), expected: [{ code: 'missing-target', pointer: '/sources/0/git', covers: '"git"' }] },
];

describe('validate: each schema and syntax code', () => {
  for (const c of failing) {
    it(c.name, () => {
      expect(summary(c.text, c.file)).toEqual(c.expected);
    });
  }
});

describe('validate: what is valid stays valid', () => {
  const valid: Array<[string, string, string?]> = [
    ['comments and trailing commas in .jsonc', '{ // c\n "presets": ["pypi",],\n}', 'p.jsonc'],
    ['an empty preset list', '{"presets": []}'],
    ['a tcp rule with empty ports', conn('{"tcp": {"hostPatterns": ["db.example"], "ports": []}}')],
    ['a tls rule with an empty alpn list', conn('{"tls": {"cidrs": ["0.0.0.0/0"], "ports": [443], "alpn": []}}')],
    ['IPv6 forms', conn('{"tcp": {"cidrs": ["::", "::/0", "::ffff:192.0.2.1", "2001:db8::1/128", "fe80::/10"]}}')],
    ['uniqueness is exact JSON equality', conn('{"tcp": {"cidrs": ["10.0.0.1", "10.0.0.1/32"], "hostPatterns": ["A.example", "a.example"]}}')],
    ['an empty purl namespace', src('{"apt": {"urls": ["https://a.example"], "purlNamespace": ""}}')],
    ['repository patterns with ** segments', src('{"git": {"repositoryPatterns": ["**", "org/**/x", "a-b_c.d/*x*"], "https": [{"baseUrl": "https://g.example"}]}}')],
    ['a URL with a port and a path', src('{"npm": {"urls": ["http://localhost:4873/npm/"]}}')],
  ];
  for (const [name, text, file] of valid) {
    it(name, () => expect(errors(text, file)).toEqual([]));
  }

  it('every fixture policy except problems.* has no error', () => {
    const dir = new URL('../../../../fixtures/policies/', import.meta.url);
    const files = readdirSync(dir).filter((f) => !f.startsWith('problems'));
    expect(files.length).toBeGreaterThan(2);
    for (const f of files) {
      expect({ f, e: errors(readFileSync(new URL(f, dir), 'utf8'), f) }).toEqual({ f, e: [] });
    }
  });

  it('returns the parsed value and valid=true', () => {
    const r = validate('{"default":"allow"}');
    expect(r.valid).toBe(true);
    expect(r.value).toEqual({ default: 'allow' });
  });
});

describe('validate: messages a person can act on', () => {
  const message = (text: string) => errors(text)[0]?.message ?? '';
  it('names both kinds of a two-kind source and the rule', () => {
    const m = message(src('{"pypi": {"urls": ["https://a.example"]}, "npm": {"urls": ["https://b.example"]}}'));
    expect(m).toContain('`pypi` and `npm`');
    expect(m).toContain('exactly one of the ten kinds');
  });
  it('suggests the nearest property and preset', () => {
    expect(message('{"sourcse": []}')).toContain('Did you mean `sources`?');
    expect(message('{"presets": ["pypy"]}')).toMatch(/Did you mean `pypi`\? Presets: `pypi`/);
    expect(message(src('{"pypy": {"urls": ["https://x.example"]}}'))).toContain('Did you mean `pypi`?');
  });
  it('says what is wrong with an address', () => {
    expect(message(conn('{"tcp": {"cidrs": ["10.0.0.256"]}}'))).toContain('octet 256 is greater than 255');
    expect(message(conn('{"tcp": {"cidrs": ["10.0.0.0/33"]}}'))).toContain('prefix length 33 is greater than 32');
    expect(message(conn('{"tcp": {"cidrs": ["10.0.0.01"]}}'))).toContain('leading zero');
    expect(message(conn('{"tcp": {"cidrs": ["10.0.0.0/08"]}}'))).toContain('leading zero');
    expect(message(conn('{"udp": {"cidrs": ["::1"]}}'))).toContain('IPv4 addresses and prefixes only');
  });
  it('one diagnostic per problem: a wrong type hides nothing else and repeats nothing', () => {
    expect(summary(src('"pypi"')).map((d) => d.code)).toEqual(['wrong-type']);
  });
  it('ranges count UTF-16 code units', () => {
    const text = '{"default": "dény😀"}';
    const [d] = errors(text);
    expect(text.slice(d.offset, d.offset + d.length)).toBe('"dény😀"');
  });
});

describe('validate: hostile input', () => {
  it('__proto__ keys are reported as unknown properties and do not touch prototypes', () => {
    const r = validate('{"__proto__": {"polluted": true}, "default": "deny"}');
    expect(r.diagnostics.map((d) => [d.code, d.pointer])).toEqual([['unknown-property', '/__proto__']]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(r.value)).toBe(Object.prototype);
  });
  it('deep nesting is a syntax error, not a crash', () => {
    const deep = '['.repeat(100000) + ']'.repeat(100000);
    const r = validate(deep);
    expect(r.diagnostics.map((d) => d.code)).toEqual(['json-syntax']);
    expect(r.diagnostics[0].message).toContain('nesting deeper');
  });
  it('a 1 MB adversarial string in every pattern-checked field validates in well under a second of CPU', () => {
    const big = 'a'.repeat(1 << 20);
    const adversarial = [big + '!', '*.' + 'a.'.repeat(1 << 19) + '-', 'https://' + 'a'.repeat(1 << 20) + '?', '1'.repeat(1 << 20), ('a/'.repeat(1 << 19)) + '**x'];
    for (const s of adversarial) {
      const text = JSON.stringify({
        sources: [
          { npm: { urls: [s] } },
          { oci: { urls: ['https://r.example'], repositoryPatterns: [s], operations: ['pull'] } },
          { apt: { urls: ['https://a.example'], purlNamespace: s } },
          { git: { ssh: [{ host: s, port: 22 }] } },
        ],
        connections: [{ tcp: { hostPatterns: [s], cidrs: [s] } }, { udp: { cidrs: [s] } }],
      });
      const { ms, result: r } = cpuMs(() => validate(text));
      expect(r.valid).toBe(false);
      expect(ms).toBeLessThan(1000); // CPU time (the machine's load does not count); a backtracking pattern takes minutes
    }
  });
});

describe('closeMatches', () => {
  it('counts an adjacent transposition as one typo, nearest first, within a third of the length', async () => {
    const { closeMatches } = await import('./suggest-names');
    expect(closeMatches('pyip', ['npm', 'pypi', 'cargo'])).toEqual(['pypi']);
    expect(closeMatches('--stirct', ['--format', '--strict'])).toEqual(['--strict']);
    expect(closeMatches('xyz', ['pypi'])).toEqual([]);
  });
});
