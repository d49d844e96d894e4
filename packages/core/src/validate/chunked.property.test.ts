/**
 * `validateChunked` (a large policy checked batch by batch, issue 10 item 8) gives exactly the
 * diagnostics of `validate`: same codes, pointers, offsets, lengths, messages, data, related, tags
 * and order. Batches of one to three items, so that batch boundaries fall everywhere. Policies are
 * generated as text: valid and invalid rules, copies (duplicate-rule), rules inside earlier ones
 * (shadowed-rule), preset URLs (redundant-with-preset), `__proto__` keys, duplicate keys inside
 * rules, deep nesting inside a rule, non-ASCII, compact and pretty layouts; some are mutated into
 * shapes that must fall back (comments, trailing commas, syntax errors, duplicate top-level keys).
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { validate, type ValidateOptions } from './validate';
import { validateChunked } from './chunked';
import type { SeverityOptions } from './types';

/** A JSON value as text is written: objects as member lists (so duplicate keys and `__proto__` survive). */
type Raw = string | number | boolean | null | Raw[] | { members: Array<[string, Raw]> };

function toRaw(v: unknown): Raw {
  if (Array.isArray(v)) return v.map(toRaw);
  if (v !== null && typeof v === 'object') return { members: Object.entries(v).filter(([, x]) => x !== undefined).map(([k, x]) => [k, toRaw(x)]) };
  return v as Raw;
}

type Layout = 'compact' | 'pretty' | 'spacey' | 'escaped';
/** A string as JSON; `escaped` writes `/` as `\/` and `8` as `\u0038` (CIDR prefixes must be read after decoding). */
const str = (text: string, layout: Layout) => (layout === 'escaped' ? JSON.stringify(text).replace(/\//g, '\\/').replace(/8/g, '\\u0038') : JSON.stringify(text));
function write(raw: Raw, layout: Layout, indent = ''): string {
  const inner = indent + '  ';
  const nl = layout === 'pretty' ? `\n${inner}` : layout === 'spacey' ? ' \t' : '';
  const end = layout === 'pretty' ? `\n${indent}` : layout === 'spacey' ? '\r\n' : '';
  const colon = layout === 'compact' ? ':' : ': ';
  if (Array.isArray(raw)) return raw.length === 0 ? '[]' : `[${nl}${raw.map((x) => write(x, layout, inner)).join(`,${nl}`)}${end}]`;
  if (raw !== null && typeof raw === 'object') {
    return raw.members.length === 0 ? '{}' : `{${nl}${raw.members.map(([k, x]) => `${str(k, layout)}${colon}${write(x, layout, inner)}`).join(`,${nl}`)}${end}}`;
  }
  return typeof raw === 'string' ? str(raw, layout) : JSON.stringify(raw);
}

const opt = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });
const few = <T>(arb: fc.Arbitrary<T>, max = 2) => fc.array(arb, { minLength: 1, maxLength: max });

// Small alphabets, so that rules collide (duplicates, shadowing) and lint rules fire.
const host = fc.constantFrom('a.example', 'x.a.example', 'pypi.org', 'registry.npmjs.org', 'bücher.example', 'a..example', '-a.example');
const url = fc.tuple(fc.constantFrom('https://', 'https://', 'http://', 'ftp://'), host, fc.constantFrom('', '/simple', '/org/x')).map(([s, h, p]) => `${s}${h}${p}`);
const pattern = fc.constantFrom('a.example', '*.example', '*.a.example', 'x.a.example', 'a..b', 'ü.example', '*.svc-1.example');
const cidr = fc.constantFrom('10.0.0.0/8', '10.1.2.3/32', '10.1.2.3', '10.0.0.1/8', '0.0.0.0/0', '169.254.0.0/16', '192.168.1.0/24', 'fd00:ec2::/32', '::/0', 'not-a-cidr', '10.1.0.0/16');
const port = fc.constantFrom(22, 443, 443, 5432, 0, 70000, '443');

const source = fc.oneof(
  fc.record({ pypi: fc.record({ urls: few(url) }) }),
  fc.record({ npm: fc.record({ urls: few(url) }) }),
  fc.record({ oci: fc.record({ urls: few(url), repositoryPatterns: opt(few(fc.constantFrom('org/*', '**', 'org/**', '**/**'))), operations: few(fc.constantFrom('pull', 'push', 'delete', 'pul')) }, { requiredKeys: ['urls'] }) }),
  fc.record({ git: fc.record({ https: opt(few(url.map((baseUrl) => ({ baseUrl })))), ssh: opt(few(fc.record({ host: pattern, port, user: opt(fc.constantFrom('git', 'bot')) }, { requiredKeys: ['host'] }))) }, { requiredKeys: [] }) }),
  fc.record({ cargo: fc.record({ indexUrl: url, downloadUrl: url }, { requiredKeys: ['indexUrl'] }) }),
  fc.record({ apt: fc.record({ urls: few(url), purlNamespace: opt(fc.constantFrom('debian', 'Debian')) }, { requiredKeys: ['urls'] }) }),
  fc.constantFrom<unknown>(
    { pypi: { urls: ['https://pypi.org/simple'] } },
    { npm: { urls: ['https://registry.npmjs.org'] } },
    { golang: { urls: ['https://proxy.golang.org/x'] } },
    { pypi: { urls: ['https://a.example'] }, npm: { urls: ['https://a.example'] } },
    { pypy: { urls: ['https://a.example'] } },
    {},
  ),
);

const connection = fc.oneof(
  fc.record({ tls: fc.record({ serverNamePatterns: opt(few(pattern)), cidrs: opt(few(cidr)), ports: opt(few(port)), alpn: opt(fc.array(fc.constantFrom('h2', ''), { maxLength: 2 })) }, { requiredKeys: [] }) }),
  fc.record({ tcp: fc.record({ hostPatterns: opt(few(pattern)), cidrs: opt(few(cidr)), ports: opt(fc.array(port, { maxLength: 2 })) }, { requiredKeys: [] }) }),
  fc.record({ udp: fc.record({ cidrs: few(cidr), ports: opt(few(port)) }, { requiredKeys: ['cidrs'] }) }),
  fc.record({ icmp: fc.record({ cidrs: few(cidr) }) }),
  fc.constantFrom<unknown>({ tcp: { cidrs: ['10.0.0.0/8'], ports: [443] } }, { tcp: { cidrs: ['10.1.2.3/32'], ports: [443] } }, { tls: 'x' }, 'tls', null, [], { sctp: {} }),
);

/** Any JSON value in the policy's vocabulary: wrong types and shapes anywhere inside a rule. */
const anyValue = fc.letrec((tie) => ({
  node: fc.oneof({ depthSize: 'small' }, fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null), cidr, url), fc.array(tie('node'), { maxLength: 3 }),
    fc.dictionary(fc.constantFrom('tls', 'tcp', 'pypi', 'urls', 'cidrs', 'ports', '__proto__', 'constructor', 'x'), tie('node'), { maxKeys: 3 })),
})).node;

/** A rule nested `depth` arrays deep (past 126 the whole document is too deep: the fallback reports it). */
const deep = fc.oneof(fc.integer({ min: 1, max: 12 }), fc.integer({ min: 120, max: 128 })).map((depth) => {
  let v: unknown = 'h2';
  for (let i = 0; i < depth; i++) v = [v];
  return { tls: { serverNamePatterns: ['a.example'], ports: [443], alpn: v } };
});

/** What may happen to an item's text: nothing, a duplicated member, a `__proto__` member. */
const itemTwist = fc.constantFrom('none', 'none', 'none', 'dup-key', 'proto');
function twist(raw: Raw, how: string): Raw {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return raw;
  if (how === 'dup-key' && raw.members.length > 0) {
    const [k, v] = raw.members[0];
    const inner = v !== null && typeof v === 'object' && !Array.isArray(v) && v.members.length > 0 ? { members: [v.members[0], ...v.members] } : v;
    return { members: [[k, 'first'], [k, inner], ...raw.members.slice(1)] };
  }
  if (how === 'proto') return { members: [...raw.members, ['__proto__', { members: [['tls', { members: [] }]] }]] };
  return raw;
}

/** Later items copied from earlier ones (duplicate-rule; with the small alphabets, shadowed-rule too). */
function withCopies(items: unknown[], copies: number[]): unknown[] {
  const out = items.slice();
  for (const c of copies) if (out.length > 0) out.push(JSON.parse(JSON.stringify(out[c % out.length])));
  return out;
}

const list = (item: fc.Arbitrary<unknown>) => fc.tuple(
  fc.array(fc.oneof({ arbitrary: item, weight: 12 }, { arbitrary: anyValue, weight: 2 }, { arbitrary: deep, weight: 1 }), { maxLength: 7 }),
  fc.array(fc.nat(20), { maxLength: 4 }),
  fc.array(itemTwist, { maxLength: 12 }),
).map(([items, copies, twists]) => withCopies(items, copies).map((x, i) => twist(toRaw(x), twists[i] ?? 'none')));

const topKey = fc.constantFrom('default', 'presets', 'sources', 'connections', 'extra');
const policyText = fc.record({
  default: opt(fc.constantFrom<unknown>('deny', 'allow', 'alow', 1)),
  presets: opt(fc.array(fc.constantFrom<unknown>('pypi', 'npm', 'golang', 'pypy', 'forge-a', 3), { maxLength: 3 })),
  sources: opt(fc.oneof({ arbitrary: list(source), weight: 8 }, { arbitrary: fc.constant<Raw>('none'), weight: 1 })),
  connections: opt(fc.oneof({ arbitrary: list(connection), weight: 8 }, { arbitrary: fc.constant<Raw>({ members: [] }), weight: 1 })),
  order: fc.shuffledSubarray(['default', 'presets', 'sources', 'connections', 'extra'] as const, { minLength: 5, maxLength: 5 }),
  extra: fc.boolean(),
  duplicateTop: fc.oneof({ arbitrary: fc.constant(undefined), weight: 9 }, { arbitrary: topKey, weight: 1 }),
  layout: fc.constantFrom<Layout>('compact', 'compact', 'pretty', 'spacey', 'escaped'),
  bom: fc.boolean(),
}, { requiredKeys: ['sources', 'connections', 'order', 'extra', 'layout', 'bom'] }).map((r) => {
  const members: Array<[string, Raw]> = [];
  for (const key of r.order) {
    if (key === 'extra') { if (r.extra) members.push(['__proto__', { members: [['default', 'allow']] }]); continue; }
    const v = r[key];
    if (v === undefined) continue;
    members.push([key, key === 'sources' || key === 'connections' ? (v as Raw) : toRaw(v)]);
  }
  if (r.duplicateTop && members.length > 0) members.push([r.duplicateTop === 'extra' ? 'default' : r.duplicateTop, members[0][1]]);
  return (r.bom ? '\ufeff' : '') + write({ members }, r.layout);
});

/** Edits that make the text something else than plain JSON: a comment, a trailing comma, a cut, a stray character. */
const mutation = fc.oneof({ arbitrary: fc.constant(undefined), weight: 5 }, { arbitrary: fc.record({ at: fc.nat(), how: fc.constantFrom('comment', 'comma', 'cut', 'char') }), weight: 1 });
function mutate(text: string, m: { at: number; how: string } | undefined): string {
  if (!m) return text;
  const at = m.at % (text.length + 1);
  switch (m.how) {
    case 'comment': return `${text.slice(0, at)}/* c */${text.slice(at)}`;
    case 'comma': { const close = text.indexOf(']', at); return close < 0 ? text : `${text.slice(0, close)},${text.slice(close)}`; }
    case 'cut': return text.slice(0, at) + text.slice(at + 3);
    default: return `${text.slice(0, at)}x${text.slice(at)}`;
  }
}

const severity: fc.Arbitrary<SeverityOptions | undefined> = opt(fc.dictionary(
  fc.constantFrom('duplicate-rule', 'shadowed-rule', 'redundant-with-preset', 'rules-unused-with-default-allow', 'cidr-host-bits', 'insecure-url', 'broad-cidr'),
  fc.constantFrom('off', 'error', 'hint'),
  { maxKeys: 3 },
) as fc.Arbitrary<SeverityOptions>);

/** Codes seen in batched runs (the generator must reach every kind of finding the batches compute). */
const seen = new Set<string>();

function expectSame(text: string, options: ValidateOptions, batchItems: number): boolean {
  const expected = validate(text, options).diagnostics;
  const got = validateChunked(text, { ...options, batchItems });
  expect(got.diagnostics).toEqual(expected);
  expect(got.valid).toBe(!expected.some((d) => d.severity === 'error'));
  if (got.batched) for (const d of got.diagnostics) seen.add(d.code);
  return got.batched;
}

describe('validateChunked gives the diagnostics of validate', () => {
  it('on generated policies, batches of one to three items', () => {
    let batched = 0, runs = 0;
    fc.assert(
      fc.property(policyText, mutation, fc.integer({ min: 1, max: 3 }), fc.boolean(), severity, fc.boolean(), (text, m, batchItems, jsonc, sev, noLint) => {
        const options: ValidateOptions = { fileName: jsonc ? 'p.netpolicy.jsonc' : 'p.netpolicy.json', ...(sev ? { severity: sev } : {}), ...(noLint ? { lint: false } : {}) };
        runs++;
        if (expectSame(mutate(text, m), options, batchItems)) batched++;
      }),
      { numRuns: 600 },
    );
    // Most generated texts are the batched shape: the property is about batches, not the fallback.
    expect(batched).toBeGreaterThan(runs / 2);
    for (const code of ['duplicate-key', 'unknown-property', 'wrong-type', 'source-kind', 'missing-property', 'unknown-preset', 'invalid-url', 'invalid-cidr',
      'duplicate-rule', 'shadowed-rule', 'redundant-with-preset', 'rules-unused-with-default-allow', 'cidr-host-bits', 'broad-cidr', 'metadata-address',
      'insecure-url', 'wildcard-push', 'unmatchable-host-pattern']) expect(seen, code).toContain(code);
  });

  it('on the shapes that fall back to validate, and says so', () => {
    const cases = [
      '{"sources": [{"pypi": {"urls": ["https://a.example"]}},]}',
      '{"sources": [] /* c */}',
      '{"sources": [], "sources": []}',
      '{"default": "deny", "default": "allow", "connections": []}',
      '[{"sources": []}]',
      '{"sources": {"a": 1}}',
      '{"sources": [1 2]}',
      '{"sources": [1,,2]}',
      '{"sources": ["\u0001"]}',
      '{"sources": [{]}',
      '{"sources": [tru]}',
      '{"sources": []} x',
      '{"sources": ["a\\"]}',
      '',
      '{"default": "deny"}',
      `{"connections": [${'['.repeat(127)}${']'.repeat(127)}]}`,
    ];
    for (const text of cases) expect(expectSame(text, {}, 1), text).toBe(false);
    expect(expectSame(`{"connections": [${'['.repeat(126)}${']'.repeat(126)}]}`, {}, 1)).toBe(true);
    expect(expectSame('\ufeff{"sources": [{"pypi": {"urls": ["http://a.example"]}}], "connections": [{"tcp": {"cidrs": ["10.0.0.1/8"]}}, {"tcp": {"cidrs": ["10.0.0.1/8"]}}]}', {}, 1)).toBe(true);
  });

  it('finds rules covered through bare addresses (implicit /32 and /128) and escaped prefixes', () => {
    for (const [a, b] of [['10.1.2.3', '10.1.2.3'], ['2001:db8::1', '2001:db8::1'], ['10.0.0.0\\/8', '10.1.2.3'], ['10.0.0.0\\u002f8', '10.1.2.3\\/32']]) {
      const text = `{"connections": [{"tcp": {"cidrs": ["${a}"]}}, {"udp": {"cidrs": ["192.0.2.1"]}}, {"tcp": {"cidrs": ["${b}"], "ports": [443]}}]}`;
      expect(expectSame(text, {}, 1), text).toBe(true);
      expect(validateChunked(text, { batchItems: 1 }).diagnostics.map((d) => `${d.code} ${d.pointer}`), text).toContain('shadowed-rule /connections/2');
    }
  });

  it('keeps a duplicate key inside a rule, with the rule\'s real pointer and offset', () => {
    const text = '{"connections": [{"tcp": {"cidrs": ["10.0.0.0/8"]}}, {"tcp": {"ports": [1], "ports": [2], "cidrs": ["10.1.0.0/16"]}}]}';
    expectSame(text, {}, 1);
    const d = validateChunked(text, { batchItems: 1 }).diagnostics.find((x) => x.code === 'duplicate-key');
    expect(d?.pointer).toBe('/connections/1/tcp/ports');
    expect(text.slice(d!.offset, d!.offset + d!.length)).toBe('"ports"');
  });
});
