import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { canonicalJson } from '../json/canonical';
import { PER_RULE_LINT_CODES } from '../lint/index';
import { defaultPresetCatalog } from '../presets/catalog';
import type { Policy } from '../policy/types';
import type { AnyObservation } from '../trace/types';
import { validate } from '../validate/validate';
import { diffFindings, diffRules, findingKey, PolicyDiffer } from './diff';

const catalog = defaultPresetCatalog;
const lintOf = (policy: unknown) => validate(JSON.stringify(policy), { fileName: 'p.json', catalog }).diagnostics.filter((d) => d.severity !== 'error');

const http = (sequence: number, url: string): AnyObservation => ({ sequence, protocol: 'http', method: 'GET', url } as AnyObservation);

describe('PolicyDiffer: the rules that decide traced accesses', () => {
  it('counts, under each policy, the accesses each rule decides', () => {
    const oldPolicy: Policy = { presets: [], sources: [{ npm: { urls: ['https://registry.npmjs.org'] } }] };
    const newPolicy: Policy = { presets: ['pypi'], sources: [{ npm: { urls: ['https://registry.yarnpkg.com'] } }, { npm: { urls: ['https://registry.npmjs.org'] } }] };
    const differ = new PolicyDiffer(oldPolicy, newPolicy, { catalog });
    const changes = [
      http(1, 'https://registry.npmjs.org/a'), http(2, 'https://registry.npmjs.org/b'),
      http(3, 'https://registry.yarnpkg.com/c'), http(4, 'https://pypi.org/simple/x/'), http(5, 'https://example.com/'),
    ].map((o) => differ.add(o)?.change);
    expect(changes).toEqual(['rule-changed', 'rule-changed', 'newly-allowed', 'newly-allowed', undefined]);
    expect(Object.fromEntries(differ.oldUses)).toEqual({ '/sources/0': 2, default: 3 });
    expect(Object.fromEntries(differ.newUses)).toEqual({ '/sources/1': 2, '/sources/0': 1, 'preset:pypi': 1, default: 1 });
  });
});

describe('diffRules', () => {
  it('matches rules by content: moved rules are not changes, a changed rule is removed and added, a copy is added', () => {
    const a = { url: { pypi: { urls: ['https://pypi.org'] } }, b: { npm: { urls: ['https://registry.npmjs.org'] } } };
    const oldPolicy = { presets: [], sources: [a.url, a.b], connections: [{ tcp: { hostPatterns: ['db'], ports: [5432] } }] } as Policy;
    const newPolicy = {
      presets: [],
      sources: [{ npm: { urls: ['https://registry.npmjs.org'] } }, { pypi: { urls: ['https://pypi.org'] } }, { npm: { urls: ['https://registry.npmjs.org'] } }],
      connections: [{ tcp: { ports: [5432], hostPatterns: ['db', 'db2'] } }],
    } as Policy;
    const d = diffRules(oldPolicy, newPolicy, catalog);
    expect(d.added).toEqual([
      { kind: 'source', rule: '/sources/2', pointer: '/sources/2', value: a.b, uses: undefined },
      { kind: 'connection', rule: '/connections/0', pointer: '/connections/0', value: { tcp: { ports: [5432], hostPatterns: ['db', 'db2'] } }, uses: undefined },
    ]);
    expect(d.removed).toEqual([{ kind: 'connection', rule: '/connections/0', pointer: '/connections/0', value: { tcp: { hostPatterns: ['db'], ports: [5432] } }, uses: undefined }]);
    expect(d.default).toBeUndefined();
    // Key order does not matter.
    expect(diffRules({ connections: [{ tcp: { ports: [1], hostPatterns: ['x'] } }] }, { connections: [{ tcp: { hostPatterns: ['x'], ports: [1] } }] }, catalog)).toEqual({ added: [], removed: [] });
  });

  it('compares the presets each policy enables (all of the catalog when presets is absent) and the default', () => {
    const d = diffRules({ presets: ['pypi', 'npm'] }, { default: 'allow', presets: ['npm', 'cargo'] }, catalog, { old: new Map([['preset:pypi', 3]]), new: new Map() });
    expect(d.added).toEqual([{ kind: 'preset', rule: 'preset:cargo', pointer: '/presets/1', value: 'cargo', uses: 0 }]);
    expect(d.removed).toEqual([{ kind: 'preset', rule: 'preset:pypi', pointer: '/presets/0', value: 'pypi', uses: 3 }]);
    expect(d.default).toEqual({ old: 'deny', new: 'allow' });
    const all = diffRules({ presets: ['npm'] }, {}, catalog);
    expect(all.added.map((r) => r.rule)).toEqual(catalog.presets.map((p) => `preset:${p.name}`).filter((r) => r !== 'preset:npm'));
    expect(all.added.every((r) => r.pointer === undefined)).toBe(true);
  });

  // Small alphabets so that rules repeat often.
  const source = fc.constantFrom<unknown>(
    { pypi: { urls: ['https://pypi.org'] } }, { npm: { urls: ['https://registry.npmjs.org'] } }, { npm: { urls: ['https://registry.npmjs.org', 'https://r.example'] } },
  );
  const connection = fc.constantFrom<unknown>({ tcp: { hostPatterns: ['db'], ports: [5432] } }, { tcp: { ports: [5432], hostPatterns: ['db'] } }, { udp: { cidrs: ['10.0.0.0/8'] } });
  const policy = fc.record({ sources: fc.array(source, { maxLength: 6 }), connections: fc.array(connection, { maxLength: 6 }) }).map((p) => ({ presets: [], ...p }) as Policy);
  const count = (xs: unknown[]) => {
    const m = new Map<string, number>();
    for (const x of xs) m.set(canonicalJson(x), (m.get(canonicalJson(x)) ?? 0) + 1);
    return m;
  };

  it('added and removed are the multiset differences of the rules (held to a count per content)', () => {
    fc.assert(fc.property(policy, policy, (a, b) => {
      const d = diffRules(a, b, catalog);
      for (const [member, kind] of [['sources', 'source'], ['connections', 'connection']] as const) {
        const before = count(a[member] ?? []), after = count(b[member] ?? []);
        const keys = new Set([...before.keys(), ...after.keys()]);
        const added = count(d.added.filter((r) => r.kind === kind).map((r) => r.value));
        const removed = count(d.removed.filter((r) => r.kind === kind).map((r) => r.value));
        for (const k of keys) {
          const diff = (after.get(k) ?? 0) - (before.get(k) ?? 0);
          expect([added.get(k) ?? 0, removed.get(k) ?? 0]).toEqual([Math.max(0, diff), Math.max(0, -diff)]);
        }
        // Each change names its own rule.
        for (const r of d.added.filter((x) => x.kind === kind)) expect(b[member]![Number(r.rule.split('/')[2])]).toBe(r.value);
        for (const r of d.removed.filter((x) => x.kind === kind)) expect(a[member]![Number(r.rule.split('/')[2])]).toBe(r.value);
      }
    }));
  });

  it('a policy with its rules shuffled has no rule changes', () => {
    fc.assert(fc.property(policy, fc.infiniteStream(fc.nat()), (a, random) => {
      const shuffle = <T>(xs: T[]) => {
        const out = xs.slice();
        for (let i = out.length - 1; i > 0; i--) {
          const j = random.next().value % (i + 1);
          [out[i], out[j]] = [out[j], out[i]];
        }
        return out;
      };
      expect(diffRules(a, { ...a, sources: shuffle(a.sources!), connections: shuffle(a.connections!) }, catalog)).toEqual({ added: [], removed: [] });
    }));
  });
});

describe('diffFindings: lint findings the change adds and resolves', () => {
  const base = {
    presets: [],
    sources: [{ pypi: { urls: ['http://pypi.example/simple'] } }, { npm: { urls: ['https://registry.npmjs.org'] } }],
    connections: [{ tcp: { cidrs: ['10.1.2.0/24'], ports: [5432] } }],
  };

  it('a finding keeps its identity when its rule moves or gains another URL', () => {
    const moved = { ...base, sources: [base.sources[1], { pypi: { urls: ['https://pypi.org/simple', 'http://pypi.example/simple'] } }] };
    const before = lintOf(base), after = lintOf(moved);
    expect(before.map((d) => [d.code, d.pointer])).toEqual([['insecure-url', '/sources/0/pypi/urls/0']]);
    expect(after.map((d) => [d.code, d.pointer])).toEqual([['insecure-url', '/sources/1/pypi/urls/1']]);
    expect(findingKey(before[0], base)).toBe(findingKey(after[0], moved));
    expect(diffFindings(before, base, after, moved)).toEqual({ added: [], resolved: [] });
  });

  it('a duplicate rule and a broad CIDR are added; removing the insecure URL resolves its finding', () => {
    const changed = { ...base, sources: [base.sources[1], base.sources[1]], connections: [{ tcp: { cidrs: ['0.0.0.0/0'], ports: [5432] } }] };
    const d = diffFindings(lintOf(base), base, lintOf(changed), changed);
    expect(d.added.map((f) => [f.code, f.pointer])).toEqual([['duplicate-rule', '/sources/1'], ['broad-cidr', '/connections/0/tcp/cidrs/0'], ['metadata-address', '/connections/0/tcp/cidrs/0']]);
    expect(d.resolved.map((f) => [f.code, f.pointer])).toEqual([['insecure-url', '/sources/0/pypi/urls/0']]);
  });

  it('a second finding with the same key is added once', () => {
    const twice = { ...base, sources: [...base.sources, base.sources[0]] };
    const d = diffFindings(lintOf(base), base, lintOf(twice), twice);
    expect(lintOf(twice).filter((f) => f.code === 'insecure-url')).toHaveLength(2);
    expect(d.added.map((f) => [f.code, f.pointer])).toEqual([['duplicate-rule', '/sources/2'], ['insecure-url', '/sources/2/pypi/urls/0']]);
    expect(d.resolved).toEqual([]);
  });

  it('findings outside a rule compare by pointer; a preset entry by its name', () => {
    expect(findingKey({ code: 'rules-unused-with-default-allow', pointer: '/default' }, {})).toBe(findingKey({ code: 'rules-unused-with-default-allow', pointer: '/default' }, { sources: [] }));
    expect(findingKey({ code: 'x', pointer: '/presets/0' }, { presets: ['npm', 'pypi'] })).toBe(findingKey({ code: 'x', pointer: '/presets/1' }, { presets: ['pypi', 'npm'] }));
    // A key holding `*` is not confused with an index left out.
    expect(findingKey({ code: 'x', pointer: '/sources/0/*' }, { sources: [{ '*': 1 }] })).not.toBe(findingKey({ code: 'x', pointer: '/sources/0/0' }, { sources: [[1]] }));
  });

  // Policies whose per-rule findings (insecure-url, broad-cidr, metadata-address, cidr-host-bits, ...) are many.
  const url = fc.constantFrom('http://a.example/x', 'https://a.example/x', 'http://b.example', 'https://pypi.org');
  const cidr = fc.constantFrom('10.0.0.0/8', '0.0.0.0/0', '169.254.169.254/32', '10.1.2.3/24', '192.168.0.0/16');
  const rule = fc.oneof(
    fc.uniqueArray(url, { minLength: 1, maxLength: 3 }).map((urls) => ({ pypi: { urls } })),
    fc.uniqueArray(url, { minLength: 1, maxLength: 3 }).map((urls) => ({ npm: { urls } })),
  );
  const connection = fc.uniqueArray(cidr, { minLength: 1, maxLength: 3 }).map((cidrs) => ({ udp: { cidrs } }));
  const policy = fc.record({ sources: fc.array(rule, { maxLength: 5 }), connections: fc.array(connection, { maxLength: 5 }) }).map((p) => ({ presets: [], ...p }));

  it('per-rule findings survive any reordering of rules and of their lists (property)', () => {
    const perRule = (p: unknown) => lintOf(p).filter((d) => PER_RULE_LINT_CODES.has(d.code as never));
    fc.assert(fc.property(policy, fc.infiniteStream(fc.nat()), (a, random) => {
      const shuffle = <T>(xs: T[]) => {
        const out = xs.slice();
        for (let i = out.length - 1; i > 0; i--) {
          const j = random.next().value % (i + 1);
          [out[i], out[j]] = [out[j], out[i]];
        }
        return out;
      };
      const b = {
        ...a,
        sources: shuffle(a.sources).map((s) => ('pypi' in s ? { pypi: { urls: shuffle(s.pypi.urls) } } : { npm: { urls: shuffle(s.npm.urls) } })),
        connections: shuffle(a.connections).map((c) => ({ udp: { cidrs: shuffle(c.udp.cidrs) } })),
      };
      expect(diffFindings(perRule(a), a, perRule(b), b)).toEqual({ added: [], resolved: [] });
    }));
  });

  it('added and resolved are the multiset difference of the finding keys (property)', () => {
    fc.assert(fc.property(policy, policy, (a, b) => {
      const fa = lintOf(a), fb = lintOf(b);
      const d = diffFindings(fa, a, fb, b);
      const keys = (fs: typeof fa, p: unknown) => {
        const m = new Map<string, number>();
        for (const f of fs) m.set(findingKey(f, p), (m.get(findingKey(f, p)) ?? 0) + 1);
        return m;
      };
      const before = keys(fa, a), after = keys(fb, b), added = keys(d.added, b), resolved = keys(d.resolved, a);
      for (const k of new Set([...before.keys(), ...after.keys()])) {
        const n = (after.get(k) ?? 0) - (before.get(k) ?? 0);
        expect([added.get(k) ?? 0, resolved.get(k) ?? 0]).toEqual([Math.max(0, n), Math.max(0, -n)]);
      }
      // Findings are handed back as given, in their order.
      expect(d.added.every((f) => fb.includes(f))).toBe(true);
      expect(d.added.map((f) => fb.indexOf(f))).toEqual(d.added.map((f) => fb.indexOf(f)).sort((x, y) => x - y));
    }), { numRuns: 200 });
  });
});
