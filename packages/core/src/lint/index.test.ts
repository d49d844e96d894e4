import { describe, expect, test } from 'vitest';
import fc from 'fast-check';
import { lint, lintRules } from './index';
import { LINT_CODES } from '../validate/types';
import { cpuMs } from '../../../../test-support/cpu-time';

/** Resolves an RFC 6901 pointer; undefined when it names nothing. */
function resolve(value: unknown, pointer: string): unknown {
  if (pointer === '') return value;
  let node: any = value;
  for (const raw of pointer.slice(1).split('/')) {
    const token = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (node === null || typeof node !== 'object' || !Object.prototype.hasOwnProperty.call(node, token)) return undefined;
    node = node[token];
  }
  return node;
}

const problems = {
  default: 'allow',
  sources: [
    { pypi: { urls: ['https://pypi.org'] } },
    { npm: { urls: ['http://npm.example'] } },
    { npm: { urls: ['http://npm.example'] } },
    { npm: { urls: ['http://npm.example/pkg'] } },
    { oci: { urls: ['https://registry.example'], operations: ['pull', 'push'] } },
  ],
  connections: [
    { tcp: { cidrs: ['10.0.0.1/8'], hostPatterns: ['a..example'] } },
    { tcp: { cidrs: ['0.0.0.0/0'] } },
  ],
};

const clean = {
  default: 'deny',
  presets: ['pypi', 'npm'],
  sources: [
    { oci: { urls: ['https://registry.example'], operations: ['pull', 'push'], repositoryPatterns: ['team/app'] } },
    { git: { https: [{ baseUrl: 'https://git.example' }], ssh: [{ host: 'git.example', port: 22, user: 'git' }], repositoryPatterns: ['team/*'] } },
    { apt: { urls: ['https://deb.example/debian'], purlNamespace: 'example' } },
    { cargo: { indexUrl: 'https://index.example', downloadUrl: 'https://dl.example' } },
  ],
  connections: [
    { tls: { serverNamePatterns: ['*.api.example'], ports: [443], alpn: ['h2'] } },
    { tcp: { hostPatterns: ['db.example'], cidrs: ['192.0.2.0/24'], ports: [5432] } },
    { udp: { cidrs: ['192.0.2.53'], ports: [53] } },
    { icmp: { cidrs: ['192.0.2.0/24'] } },
  ],
};

describe('lint', () => {
  test('lintRules has one rule per lint code, named after it', () => {
    expect(lintRules.map((r) => r.code).sort()).toEqual([...LINT_CODES].sort());
    for (const r of lintRules) expect(r.description.length).toBeGreaterThan(10);
  });

  test('a policy with several problems: every finding, in document order of pointers', () => {
    expect(lint(problems).map((f) => [f.code, f.pointer])).toEqual([
      ['cidr-host-bits', '/connections/0/tcp/cidrs/0'],
      ['unmatchable-host-pattern', '/connections/0/tcp/hostPatterns/0'],
      ['broad-cidr', '/connections/1/tcp/cidrs/0'],
      ['metadata-address', '/connections/1/tcp/cidrs/0'],
      ['rules-unused-with-default-allow', '/default'],
      ['redundant-with-preset', '/sources/0'],
      ['insecure-url', '/sources/1/npm/urls/0'],
      ['duplicate-rule', '/sources/2'],
      ['insecure-url', '/sources/2/npm/urls/0'],
      ['shadowed-rule', '/sources/3'],
      ['insecure-url', '/sources/3/npm/urls/0'],
      ['wildcard-push', '/sources/4/oci/operations'],
    ]);
  });

  test('a clean policy has no findings; so do non-policy values', () => {
    expect(lint(clean)).toEqual([]);
    for (const v of [null, 1, 'x', [], [clean], {}, { sources: {}, connections: 'x', default: 3, presets: 'pypi' }]) expect(lint(v)).toEqual([]);
  });

  test('a document changed between two runs is linted afresh (no stale cache)', () => {
    const doc: any = { presets: [], sources: [{ npm: { urls: ['https://npm.example'] } }] };
    expect(lint(doc)).toEqual([]);
    doc.sources[0].npm.urls[0] = 'http://npm.example';
    doc.sources.push({ npm: { urls: ['http://npm.example'] } });
    expect(lint(doc).map((f) => [f.code, f.pointer])).toEqual([
      ['insecure-url', '/sources/0/npm/urls/0'], ['duplicate-rule', '/sources/1'], ['insecure-url', '/sources/1/npm/urls/0'],
    ]);
  });

  test('the catalog option is used (presets of a user catalog)', async () => {
    const { loadPresetCatalog } = await import('../presets/catalog');
    const catalog = loadPresetCatalog({ version: 1, presets: [{ name: 'pypi', description: 'emptied', opaque: true }] });
    expect(lint({ sources: [{ pypi: { urls: ['https://pypi.org'] } }] }, { catalog })).toEqual([]);
    expect(lint({ sources: [{ pypi: { urls: ['https://pypi.org'] } }] }).map((f) => f.code)).toEqual(['redundant-with-preset']);
  });
});

// ---------------------------------------------------------------------------------------------
// Property-based: random and mutated documents never throw, every pointer names a node, and each run is fast.

const interesting = fc.constantFrom(
  'https://pypi.org', 'http://a.example/x', 'https://a.example', 'https://a.example:8443/p/', 'https://[::1]:8080/x',
  '10.0.0.1/8', '0.0.0.0/0', '::/0', 'fd00:ec2::254', '169.254.169.254', '::ffff:169.254.169.254/96', '10.0.0.0/08',
  '*.a..b', '*.example.com', 'a.example', '-x.example', '**', 'a/**', 'team/*', 'pull', 'push', 'delete', 'allow', 'deny',
  'pypi', 'npm', 'oci', 'git', 'tls', 'tcp', 'udp', 'icmp', 'cargo', 'apt', 'h2', '', '~/', '__proto__', 'constructor',
);
const leaf = fc.oneof(interesting, fc.string(), fc.integer({ min: -2, max: 70000 }), fc.double(), fc.boolean(), fc.constant(null));
const anyJson = fc.oneof(leaf, fc.jsonValue({ maxDepth: 3 }), fc.array(interesting, { maxLength: 4 }), fc.array(leaf, { maxLength: 3 }));

/** All paths to nodes of a JSON value (root included). */
function paths(value: unknown, prefix: Array<string | number> = [], out: Array<Array<string | number>> = []): Array<Array<string | number>> {
  out.push(prefix);
  if (Array.isArray(value)) value.forEach((v, i) => paths(v, [...prefix, i], out));
  else if (value !== null && typeof value === 'object') for (const [k, v] of Object.entries(value)) paths(v, [...prefix, k], out);
  return out;
}

type Mutation = { at: number; kind: 'replace' | 'delete' | 'duplicate' | 'rename'; value: unknown; key: string };

function mutate(doc: unknown, mutations: Mutation[]): unknown {
  let root: any = structuredClone(doc);
  for (const m of mutations) {
    const all = paths(root);
    const path = all[m.at % all.length];
    if (path.length === 0) { if (m.kind === 'replace') root = m.value; continue; }
    const parent = path.slice(0, -1).reduce((n: any, t) => n[t], root);
    const last = path[path.length - 1];
    if (m.kind === 'replace') parent[last] = m.value;
    else if (m.kind === 'delete') { if (Array.isArray(parent)) parent.splice(last as number, 1); else delete parent[last]; }
    else if (m.kind === 'duplicate') { if (Array.isArray(parent)) parent.push(structuredClone(parent[last])); else parent[m.key] = structuredClone(parent[last]); }
    else if (!Array.isArray(parent)) { const v = parent[last]; delete parent[last]; parent[m.key] = v; }
  }
  return root;
}

const mutation = fc.record({
  at: fc.nat(),
  kind: fc.constantFrom('replace', 'delete', 'duplicate', 'rename') as fc.Arbitrary<Mutation['kind']>,
  value: anyJson,
  key: fc.oneof(interesting, fc.string({ maxLength: 6 })),
});

function checkRun(value: unknown): void {
  const { ms, result: findings } = cpuMs(() => lint(value));
  expect(ms).toBeLessThan(2000); // CPU time: catches blow-ups, not a benchmark
  for (const f of findings) {
    expect(LINT_CODES).toContain(f.code);
    expect(resolve(value, f.pointer)).not.toBeUndefined();
    expect(typeof f.message).toBe('string');
  }
}

describe('lint on hostile input', () => {
  test('random JSON values never throw', () => {
    fc.assert(fc.property(fc.jsonValue({ maxDepth: 6 }), (v) => { checkRun(v); }), { numRuns: 500 });
  });

  test('random policy-shaped values never throw', () => {
    const entry = fc.dictionary(interesting, fc.oneof(anyJson, fc.dictionary(interesting, fc.oneof(anyJson, fc.array(fc.dictionary(interesting, anyJson, { maxKeys: 3 }), { maxLength: 2 })), { maxKeys: 4 })), { maxKeys: 2 });
    const policy = fc.record({ default: anyJson, presets: anyJson, sources: fc.array(entry, { maxLength: 6 }), connections: fc.array(entry, { maxLength: 6 }) }, { requiredKeys: [] });
    fc.assert(fc.property(policy, (v) => { checkRun(v); }), { numRuns: 500 });
  });

  test('mutated valid and problem policies never throw, and pointers stay valid', () => {
    fc.assert(fc.property(fc.constantFrom(problems, clean), fc.array(mutation, { minLength: 1, maxLength: 6 }), (seed, ms) => {
      checkRun(mutate(seed, ms));
    }), { numRuns: 1000 });
  });
});

// ---------------------------------------------------------------------------------------------
// Indexed, not quadratic: 10,000 rules lint in well under a second of CPU.

/**
 * Times lint on a fresh copy: the first run is cold (includes JIT warm-up, what one CLI run pays),
 * the best of three later runs is the steady state (what an editor pays on each keystroke).
 * Measured in CPU time (test-support/cpu-time.ts), which a loaded machine hardly changes, with
 * bounds about ten times the quiet figures (250 ms cold, 70 ms warm): they catch a quadratic
 * algorithm (tens of seconds here), not a slowdown; the budget is `npm run bench`'s ("of
 * validate: lint (all rules)", 10,000 rules).
 */
function timed(value: unknown): { cold: number; warm: number; count: number } {
  const run = () => {
    const copy = structuredClone(value);
    const { ms, result: count } = cpuMs(() => lint(copy).length);
    return { ms, count };
  };
  const first = run();
  const warm = Math.min(run().ms, run().ms, run().ms);
  return { cold: first.ms, warm, count: first.count };
}

describe('lint on 10,000 rules', () => {
  test('a varied policy of 10,000 rules', () => {
    const sources = Array.from({ length: 5000 }, (_, i) => {
      switch (i % 5) {
        case 0: return { pypi: { urls: [`https://mirror${i}.example/simple`, `http://files${i % 300}.example/p/${i}`] } };
        case 1: return { npm: { urls: [`https://mirror${i - 1}.example/simple/pkg${i}`] } }; // shadowed by the previous one
        case 2: return { oci: { urls: [`https://registry${i % 50}.example`], operations: ['pull', 'push'], repositoryPatterns: [`team${i}/**`] } };
        case 3: return { git: { https: [{ baseUrl: `https://git${i % 40}.example` }], ssh: [{ host: `*.git${i % 40}.example`, port: 22 }], repositoryPatterns: [`org${i}/*`] } };
        default: return { cargo: { indexUrl: `https://index${i}.example`, downloadUrl: `https://dl${i}.example` } };
      }
    });
    const connections = Array.from({ length: 5000 }, (_, i) => {
      const a = (i >> 8) & 255, b = i & 255;
      switch (i % 4) {
        case 0: return { tcp: { hostPatterns: [`*.svc${i % 100}.example`], ports: [443 + (i % 7)] } };
        case 1: return { tls: { serverNamePatterns: [`h${i}.svc${(i - 1) % 100}.example`], cidrs: [`10.${a}.${b}.0/24`], ports: [443] } };
        case 2: return { tcp: { cidrs: [`10.${a}.0.0/16`, `2001:db8:${i.toString(16)}::/48`] } };
        default: return { udp: { cidrs: [`172.16.${b}.${a}`], ports: [53] } };
      }
    });
    const { cold, warm, count } = timed({ presets: ['pypi', 'npm'], sources, connections });
    console.log(`lint, 10,000 varied rules: ${cold.toFixed(0)} ms cold, ${warm.toFixed(0)} ms warm (CPU), ${count} findings`);
    expect(count).toBeGreaterThan(1000);
    expect(cold).toBeLessThan(3000);
    expect(warm).toBeLessThan(1000);
  });

  test('adversarial: 10,000 rules on one host, one network and one port', () => {
    const sources = Array.from({ length: 5000 }, (_, i) => ({ pypi: { urls: [`https://one.example/${'a/'.repeat(i % 20)}p${i}`] } }));
    const connections = Array.from({ length: 5000 }, (_, i) => (i % 2 === 0
      ? { tcp: { hostPatterns: ['*.one.example'], cidrs: [`10.0.${i % 256}.0/24`], ports: [i % 65535 + 1] } }
      : { tls: { serverNamePatterns: ['x.one.example'], cidrs: ['10.0.0.0/8'], ports: [443], alpn: [`p${i}`] } }));
    const { cold, warm } = timed({ presets: [], sources, connections });
    console.log(`lint, 10,000 adversarial rules: ${cold.toFixed(0)} ms cold, ${warm.toFixed(0)} ms warm (CPU)`);
    expect(cold).toBeLessThan(3000);
    expect(warm).toBeLessThan(1000);
  });
});
