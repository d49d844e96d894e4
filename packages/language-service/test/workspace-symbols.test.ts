import { defaultPresetCatalog, evaluate, loadPresetCatalog, parsePolicyDocument, type Access, type Policy, type PresetCatalog } from '@netpolicy/core';
import { SymbolKind } from 'vscode-languageserver-types';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  MAX_SYMBOL_QUERY_LENGTH, MAX_WORKSPACE_SYMBOLS, WorkspaceSymbolIndex, findWorkspaceSymbols, parseSymbolQuery, ranksForTest, workspaceSymbolSteps,
} from '../src/workspace-symbols';

const CI = `{
  "presets": ["pypi"],
  "sources": [
    { "npm": { "urls": ["https://registry.npmjs.org", "https://npm.corp.example/team-a"] } },
    { "git": { "repositoryPatterns": ["org/*"], "https": [{ "baseUrl": "https://github.com" }], "ssh": [{ "host": "github.com", "port": 22, "user": "git" }] } },
    { "oci": { "urls": ["https://ghcr.io"], "repositoryPatterns": ["org/app"], "operations": ["pull"] } }
  ],
  "connections": [
    { "tls": { "serverNamePatterns": ["*.pypi.org"], "ports": [443] } },
    { "tcp": { "cidrs": ["10.0.0.0/8", "2001:db8::/32"], "ports": [5432] } },
    { "tcp": { "cidrs": ["10.1.0.0/16"], "ports": [5432, 5433] } },
    { "udp": { "cidrs": ["10.1.2.0/24"], "ports": [53] } }
  ]
}`;
const DEPLOY = `{
  "sources": [{ "pypi": { "urls": ["https://pypi.org/simple"] } }]
}`;

/** An index of these files: [uri, container, text, catalog]. */
function indexOf(files: Array<[string, string, string, PresetCatalog?]>): WorkspaceSymbolIndex {
  const index = new WorkspaceSymbolIndex();
  for (const [uri, container, text, catalog] of files) index.set(uri, parsePolicyDocument(text, { fileName: uri }), { container, catalog });
  return index;
}

function files(): WorkspaceSymbolIndex {
  return indexOf([['file:///ws/deploy/network-policy.json', 'deploy/network-policy.json', DEPLOY], ['file:///ws/ci.netpolicy.json', 'ci.netpolicy.json', CI]]);
}

/** Each symbol as `container name` (line of the rule). */
function query(q: string, list: WorkspaceSymbolIndex = files()): string[] {
  return findWorkspaceSymbols(list, q).map((s) => `${s.containerName}: ${s.name} @${s.location.range.start.line}`);
}

describe('workspace symbols', () => {
  it('a host finds what reaches it: named exactly (a source, a preset, one enabled by default), then by a wildcard', () => {
    expect(query('pypi.org')).toEqual([
      'ci.netpolicy.json: preset pypi (https://pypi.org) @1',
      'deploy/network-policy.json: pypi https://pypi.org/simple @1',
      // A policy without `presets` enables every preset of the catalog: the symbol is the document's start.
      'deploy/network-policy.json: preset pypi (https://pypi.org) (enabled: no presets member) @0',
      'ci.netpolicy.json: tls *.pypi.org:443 @8',
    ]);
    // Case and a trailing dot do not matter; a name under the wildcard is found by it alone.
    expect(query('Files.PyPI.org.')).toEqual(['ci.netpolicy.json: Files.PyPI.org. via tls *.pypi.org:443 @8']);
    expect(query('files.pythonhosted.org')).toEqual([
      'ci.netpolicy.json: preset pypi (https://files.pythonhosted.org) @1',
      'deploy/network-policy.json: preset pypi (https://files.pythonhosted.org) (enabled: no presets member) @0',
    ]);
  });

  it('a URL finds the rules that permit a GET of it, then those that only reach its host', () => {
    expect(query('https://registry.npmjs.org/lodash')).toEqual([
      'ci.netpolicy.json: https://registry.npmjs.org/lodash via npm https://registry.npmjs.org @3',
      'deploy/network-policy.json: https://registry.npmjs.org/lodash via preset npm (https://registry.npmjs.org) (enabled: no presets member) @0',
    ]);
    // The path matters (D4's `/` boundary): /team-a covers /team-a/left-pad; /team-b only reaches the host.
    const ranked = (q: string) => findWorkspaceSymbols(files(), q);
    expect(query('https://npm.corp.example/team-a/left-pad')).toEqual(['ci.netpolicy.json: https://npm.corp.example/team-a/left-pad via npm https://npm.corp.example/team-a @3']);
    expect(query('https://npm.corp.example/team-b')).toEqual(['ci.netpolicy.json: https://npm.corp.example/team-b via npm https://npm.corp.example/team-a @3']);
    expect(ranked('https://npm.corp.example/team-b')).toHaveLength(1);
    // A tls rule permits HTTPS requests to the names it matches; over plain http it only reaches the host.
    expect(query('https://upload.pypi.org/legacy/')).toEqual(['ci.netpolicy.json: https://upload.pypi.org/legacy/ via tls *.pypi.org:443 @8']);
    expect(query('https://pypi.org/simple/requests/')).toEqual([
      'ci.netpolicy.json: https://pypi.org/simple/requests/ via preset pypi (https://pypi.org) @1',
      'deploy/network-policy.json: https://pypi.org/simple/requests/ via pypi https://pypi.org/simple @1',
      'deploy/network-policy.json: https://pypi.org/simple/requests/ via preset pypi (https://pypi.org) (enabled: no presets member) @0',
    ]);
  });

  it('ranks what permits the query before what reaches its host', () => {
    const doc = parsePolicyDocument(JSON.stringify({
      presets: [],
      sources: [{ npm: { urls: ['https://reg.example/other'] } }, { npm: { urls: ['https://reg.example/pkgs'] } }],
      connections: [{ tls: { serverNamePatterns: ['reg.example'], cidrs: ['10.0.0.0/8'], ports: [443] } }, { tls: { serverNamePatterns: ['*.example'], ports: [443] } }],
    }));
    const list = indexOf([['file:///r.netpolicy.json', 'r.netpolicy.json', doc.text]]);
    // The second source covers the URL; the first names another path; the tls rule with CIDRs needs an address the URL does not give.
    expect(findWorkspaceSymbols(list, 'https://reg.example/pkgs/a').map((s) => s.name)).toEqual([
      'https://reg.example/pkgs/a via npm https://reg.example/pkgs',
      // `*.example` matches reg.example: the rule permits HTTPS requests to it.
      'https://reg.example/pkgs/a via tls *.example:443',
      'https://reg.example/pkgs/a via npm https://reg.example/other',
      'https://reg.example/pkgs/a via tls reg.example:443',
    ]);
    // A host: exact names (sources' URLs, patterns without `*.`), then wildcards.
    expect(findWorkspaceSymbols(list, 'reg.example').map((s) => s.name)).toEqual(['npm https://reg.example/other', 'npm https://reg.example/pkgs', 'tls reg.example:443', 'reg.example via tls *.example:443']);
    expect(findWorkspaceSymbols(list, 'a.reg.example').map((s) => s.name)).toEqual(['a.reg.example via tls *.example:443']);
  });

  it('a repository finds the git and oci sources whose patterns take it, over HTTPS or SSH', () => {
    expect(query('github.com/org/repo')).toEqual(['ci.netpolicy.json: github.com/org/repo via git https://github.com org/* @4']);
    expect(query('git@github.com:org/repo.git')).toEqual(['ci.netpolicy.json: git@github.com:org/repo.git via git ssh git@github.com:22 org/* @4']);
    expect(query('ssh://git@github.com:22/org/repo.git')).toHaveLength(1);
    expect(query('ghcr.io/org/app')).toEqual(['ci.netpolicy.json: ghcr.io/org/app via oci https://ghcr.io org/app @5']);
    // Another repository on the host: the source still reaches the host, ranked after those that take it.
    const doc = parsePolicyDocument(JSON.stringify({ presets: [], sources: [{ git: { repositoryPatterns: ['a/*'], https: [{ baseUrl: 'https://git.example' }] } }, { git: { repositoryPatterns: ['b/*'], ssh: [{ host: 'git.example', port: 2222 }] } }] }));
    const list = indexOf([['file:///g.netpolicy.json', 'g.netpolicy.json', doc.text]]);
    expect(findWorkspaceSymbols(list, 'git.example/b/x').map((s) => s.name)).toEqual(['git.example/b/x via git ssh git.example:2222 b/*', 'git.example/b/x via git https://git.example a/*']);
    expect(findWorkspaceSymbols(list, 'ssh://git.example:22/b/x').map((s) => s.name)).toEqual(['ssh://git.example:22/b/x via git https://git.example a/*', 'ssh://git.example:22/b/x via git ssh git.example:2222 b/*']);
  });

  it('an address finds the connections whose CIDRs hold it, the narrowest first, IPv6 too and udp as well', () => {
    expect(query('10.1.2.3')).toEqual([
      'ci.netpolicy.json: 10.1.2.3 via udp 10.1.2.0/24:53 @11',
      'ci.netpolicy.json: 10.1.2.3 via tcp 10.1.0.0/16:5432,5433 @10',
      'ci.netpolicy.json: 10.1.2.3 via tcp 10.0.0.0/8:5432 @9',
    ]);
    expect(query('2001:db8::1')).toEqual(['ci.netpolicy.json: 2001:db8::1 via tcp [2001:db8::/32]:5432 @9']);
    expect(query('[2001:db8::1]')).toHaveLength(1);
    // A prefix: the CIDRs holding all of it.
    expect(query('10.1.0.0/20')).toEqual([
      'ci.netpolicy.json: 10.1.0.0/20 via tcp 10.1.0.0/16:5432,5433 @10',
      'ci.netpolicy.json: 10.1.0.0/20 via tcp 10.0.0.0/8:5432 @9',
    ]);
    expect(query('192.0.2.1')).toEqual([]);
  });

  it('text is the weakest match: a substring of a rule, showing the part that holds it', () => {
    expect(query('corp')).toEqual(['ci.netpolicy.json: npm https://npm.corp.example/team-a @3']);
    expect(query('npm')).toEqual(['ci.netpolicy.json: npm https://registry.npmjs.org @3', 'deploy/network-policy.json: preset npm (https://registry.npmjs.org) (enabled: no presets member) @0']);
    // A host typed half way: found by the text of the rules, presets' contents included.
    expect(query('pypi.o')).toEqual([
      'ci.netpolicy.json: tls *.pypi.org:443 @8',
      'ci.netpolicy.json: preset pypi (https://pypi.org) @1',
      'deploy/network-policy.json: pypi https://pypi.org/simple @1',
      'deploy/network-policy.json: preset pypi (https://pypi.org) (enabled: no presets member) @0',
    ]);
  });

  it('the empty query lists every rule in order, up to the bound; symbols carry kind, location and container', () => {
    const all = findWorkspaceSymbols(files(), '');
    // 3 sources, 4 connections, 1 preset; then 1 source and every preset of the catalog.
    expect(all.slice(0, 9).map((s) => s.name)).toEqual([
      'npm https://registry.npmjs.org', 'git https://github.com org/*', 'oci https://ghcr.io org/app',
      'tls *.pypi.org:443', 'tcp 10.0.0.0/8:5432', 'tcp 10.1.0.0/16:5432,5433', 'udp 10.1.2.0/24:53', 'preset pypi', 'pypi https://pypi.org/simple',
    ]);
    expect(all).toHaveLength(9 + defaultPresetCatalog.presets.length);
    // The range of the rule's item.
    const line = CI.split('\n')[3];
    expect(all[0]).toEqual({
      name: 'npm https://registry.npmjs.org', kind: SymbolKind.Package, containerName: 'ci.netpolicy.json',
      location: { uri: 'file:///ws/ci.netpolicy.json', range: { start: { line: 3, character: line.indexOf('{') }, end: { line: 3, character: line.lastIndexOf('}') + 1 } } },
    });
    expect(all[3].kind).toBe(SymbolKind.Interface);
    expect(all[7]).toMatchObject({ kind: SymbolKind.EnumMember, location: { range: { start: { line: 1, character: 14 }, end: { line: 1, character: 20 } } } });
    expect(findWorkspaceSymbols(files(), '', { limit: 2 })).toHaveLength(2);
    expect(findWorkspaceSymbols(files(), '', { limit: 10 ** 9 })).toHaveLength(all.length);
    expect(findWorkspaceSymbols(files(), '   ')).toHaveLength(all.length);
  });

  it('uses the catalog in force: a catalog preset is found by its contents', () => {
    const catalog = loadPresetCatalog({ presets: [{ name: 'mirror', description: 'Our mirror', known: { sources: [{ pypi: { urls: ['https://mirror.corp.example/pypi'] } }] } }] });
    const doc = parsePolicyDocument('{ "presets": ["mirror"] }');
    const list = indexOf([['file:///a.netpolicy.json', 'a.netpolicy.json', doc.text, catalog]]);
    expect(query('mirror.corp.example', list)).toEqual(['a.netpolicy.json: preset mirror (https://mirror.corp.example/pypi) @0']);
  });

  it('hostile input: control and bidi characters escaped, huge queries answered with nothing, __proto__ is a name like any other', () => {
    const doc = parsePolicyDocument(JSON.stringify({ presets: [], sources: [{ npm: { urls: ['https://__proto__.example/\u202e$(x)'] } }], connections: [{ tls: { serverNamePatterns: ['__proto__'], ports: [443] } }, { '__proto__\u001b[31m': {} }] }));
    const list = indexOf([['file:///x.netpolicy.json', 'team\u202e/x.netpolicy.json', doc.text]]);
    // Not a host name (underscores): text, in rule order.
    expect(findWorkspaceSymbols(list, '__proto__').map((s) => s.name)).toEqual(['npm https://__proto__.example/\\u202e\\$(x)', 'tls __proto__:443', '__proto__\\u001b[31m']);
    expect(findWorkspaceSymbols(list, '__proto__')[0].containerName).toBe('team\\u202e/x.netpolicy.json');
    expect(findWorkspaceSymbols(list, '\u202e').map((s) => s.name)).toEqual(['npm https://__proto__.example/\\u202e\\$(x)']);
    // The query leads a name that lacks it, escaped too.
    expect(findWorkspaceSymbols(list, '10.0.0.1\u202e')).toEqual([]);
    expect(findWorkspaceSymbols(list, 'proto__.example/\u202e$').map((s) => s.name)).toEqual(['npm https://__proto__.example/\\u202e\\$(x)']);
    expect(findWorkspaceSymbols(list, '').map((s) => s.name)).toContain('__proto__\\u001b[31m');
    expect(findWorkspaceSymbols(list, 'x'.repeat(MAX_SYMBOL_QUERY_LENGTH + 1))).toEqual([]);
    expect(findWorkspaceSymbols(list, { toString: () => 'npm' })).toEqual([]);
    expect(parseSymbolQuery(`https://${'a'.repeat(2000)}`)).toMatchObject({ kind: 'url' });
  });

  it('reads queries as addresses, URLs, repositories, hosts or text', () => {
    expect(parseSymbolQuery('  10.0.0.1 ')).toEqual({ kind: 'address', text: '10.0.0.1', version: 4, bytes: [10, 0, 0, 1], prefix: 32 });
    expect(parseSymbolQuery('https://Example.com:8443/a?b#c')).toEqual({ kind: 'url', text: 'https://Example.com:8443/a?b#c', url: { scheme: 'https', host: 'example.com', port: 8443, path: '/a' } });
    expect(parseSymbolQuery('git@github.com:org/repo.git')).toEqual({ kind: 'repository', text: 'git@github.com:org/repo.git', host: 'github.com', path: 'org/repo.git', ssh: true, user: 'git' });
    expect(parseSymbolQuery('ssh://git@git.example:2222/a/b')).toEqual({ kind: 'repository', text: 'ssh://git@git.example:2222/a/b', host: 'git.example', path: 'a/b', ssh: true, user: 'git', port: 2222 });
    expect(parseSymbolQuery('ghcr.io/org/app')).toEqual({ kind: 'repository', text: 'ghcr.io/org/app', host: 'ghcr.io', path: 'org/app', ssh: false });
    expect(parseSymbolQuery('PyPI.org.')).toEqual({ kind: 'host', text: 'PyPI.org.', host: 'pypi.org' });
    expect(parseSymbolQuery('*.pypi.org')).toEqual({ kind: 'text', text: '*.pypi.org' });
    expect(parseSymbolQuery('team/a')).toEqual({ kind: 'text', text: 'team/a' });
    expect(parseSymbolQuery('')).toEqual({ kind: 'all', text: '' });
    expect(parseSymbolQuery(null)).toEqual({ kind: 'none', text: '' });
  });

  it('a file indexed again replaces its rules; one deleted takes them out', () => {
    const index = files();
    expect(index.size).toBe(2);
    index.set('file:///ws/ci.netpolicy.json', parsePolicyDocument('{ "presets": [], "connections": [{ "tcp": { "cidrs": ["10.9.0.0/16"] } }] }'), { container: 'ci.netpolicy.json' });
    expect(query('10.1.2.3', index)).toEqual([]);
    expect(query('10.9.8.7', index)).toEqual(['ci.netpolicy.json: 10.9.8.7 via tcp 10.9.0.0/16 @0']);
    expect(query('github.com', index)).toEqual([]);
    index.delete('file:///ws/deploy/network-policy.json');
    index.delete('file:///nowhere');
    expect(index.has('file:///ws/deploy/network-policy.json')).toBe(false);
    expect(query('pypi.org', index)).toEqual([]);
    expect(findWorkspaceSymbols(index, '')).toHaveLength(1);
  });

  it('after any sequence of sets and deletes, answers as an index built afresh from the files left', () => {
    const texts = [CI, DEPLOY, '{ "connections": [{ "tls": { "serverNamePatterns": ["*.pypi.org", "github.com"], "cidrs": ["10.1.0.0/16"], "ports": [443] } }] }', '{ "presets": ["npm", "pypi"] }'];
    const uris = ['file:///a.netpolicy.json', 'file:///b.netpolicy.json', 'file:///c.netpolicy.json'];
    const op = fc.oneof(fc.tuple(fc.constant('set' as const), fc.nat(uris.length - 1), fc.nat(texts.length - 1)), fc.tuple(fc.constant('delete' as const), fc.nat(uris.length - 1), fc.constant(0)));
    const queries = ['pypi.org', 'files.pypi.org', '10.1.2.3', 'github.com/org/x', 'git@github.com:org/x', 'https://registry.npmjs.org/x', 'npm', ''];
    fc.assert(fc.property(fc.array(op, { maxLength: 12 }), (ops) => {
      const index = new WorkspaceSymbolIndex();
      const left = new Map<string, string>();
      for (const [kind, u, t] of ops) {
        if (kind === 'set') {
          index.set(uris[u], parsePolicyDocument(texts[t]), { container: uris[u] });
          left.set(uris[u], texts[t]);
        } else {
          index.delete(uris[u]);
          left.delete(uris[u]);
        }
      }
      const fresh = indexOf([...left].map(([uri, text]): [string, string, string] => [uri, uri, text]));
      for (const q of queries) expect(findWorkspaceSymbols(index, q), q).toEqual(findWorkspaceSymbols(fresh, q));
    }), { numRuns: 100 });
  });

  it('yields in slices on a large workspace and answers alike', () => {
    const text = JSON.stringify({ presets: [], connections: Array.from({ length: 50 }, (_, i) => ({ tcp: { cidrs: [`10.${i}.0.0/16`] } })) });
    const list = indexOf(Array.from({ length: 600 }, (_, i): [string, string, string] => [`file:///p${i}.netpolicy.json`, `p${String(i).padStart(3, '0')}.netpolicy.json`, text]));
    const steps = workspaceSymbolSteps(list, '10.3.0.1');
    let yields = 0;
    let step = steps.next();
    while (!step.done) { yields++; step = steps.next(); }
    expect(yields).toBeGreaterThan(0);
    expect(step.value).toHaveLength(MAX_WORKSPACE_SYMBOLS);
    expect(step.value[0].containerName).toBe('p000.netpolicy.json');
    expect(findWorkspaceSymbols(list, '10.3.0.1').map((s) => s.location.uri)).toEqual(step.value.map((s) => s.location.uri));
  });
});

// ---- One model of matching: the ranks held to core's evaluator, rule by rule ------------------

const HOSTS = ['a.example', 'b.a.example', 'c.example'];
const PATTERNS = [...HOSTS, '*.example', '*.a.example'];
const url = fc.tuple(fc.constantFrom('https', 'http'), fc.constantFrom(...HOSTS), fc.constantFrom('', '/x', '/x/', '/x/y', '/v2/', '/team')).map(([s, h, p]) => `${s}://${h}${p}`);
const urls = fc.uniqueArray(url, { minLength: 1, maxLength: 3 });
const repositoryPatterns = fc.option(fc.uniqueArray(fc.constantFrom('team/*', 'team/app', '**', 'other/*'), { minLength: 1, maxLength: 2 }), { nil: undefined });
const ports = (min: number) => fc.uniqueArray(fc.constantFrom(80, 443, 8443, 5432), { minLength: min, maxLength: 2 });
const cidrs = fc.uniqueArray(fc.constantFrom('10.0.0.0/8', '10.1.0.0/16', '10.1.2.3', '2001:db8::/32', '192.0.2.0/24'), { minLength: 1, maxLength: 2 });
const names = fc.uniqueArray(fc.constantFrom(...PATTERNS), { minLength: 1, maxLength: 2 });
const defined = <T extends Record<string, unknown>>(o: T): T => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;

const source = fc.oneof(
  fc.tuple(fc.constantFrom('npm', 'pypi', 'apt'), urls).map(([k, u]) => ({ [k]: { urls: u } })),
  fc.tuple(urls, repositoryPatterns, fc.uniqueArray(fc.constantFrom('pull', 'push', 'delete'), { minLength: 1, maxLength: 3 })).map(([u, r, o]) => ({ oci: defined({ urls: u, repositoryPatterns: r, operations: o }) })),
  fc.tuple(fc.option(url, { nil: undefined }), fc.option(fc.record({ host: fc.constantFrom(...PATTERNS), port: fc.constantFrom(22, 2222), user: fc.option(fc.constant('git'), { nil: undefined }) }), { nil: undefined }), repositoryPatterns)
    .filter(([u, t]) => u !== undefined || t !== undefined)
    .map(([u, t, r]) => ({ git: defined({ https: u === undefined ? undefined : [{ baseUrl: u }], ssh: t === undefined ? undefined : [defined(t)], repositoryPatterns: r }) })),
);
const connection = fc.oneof(
  fc.tuple(fc.option(names, { nil: undefined }), fc.option(cidrs, { nil: undefined }), ports(1), fc.option(fc.constant(['h2']), { nil: undefined }))
    .filter(([n, c]) => n !== undefined || c !== undefined)
    .map(([n, c, p, a]) => ({ tls: defined({ serverNamePatterns: n, cidrs: c, ports: p, alpn: a }) })),
  fc.tuple(fc.option(names, { nil: undefined }), fc.option(cidrs, { nil: undefined }), fc.option(ports(0), { nil: undefined }))
    .filter(([n, c]) => n !== undefined || c !== undefined)
    .map(([n, c, p]) => ({ tcp: defined({ hostPatterns: n, cidrs: c, ports: p }) })),
);
const policy = fc.record({ sources: fc.array(source, { maxLength: 5 }), connections: fc.array(connection, { maxLength: 5 }) }).map((p) => ({ default: 'deny' as const, presets: [], ...p }));

/** The rule's rank in the answer, or undefined when it is not in it. */
function rankOf(list: WorkspaceSymbolIndex, q: string, order: number): number | undefined {
  return ranksForTest(list, q).find((r) => r.order === order)?.rank;
}

/** Does the policy holding this one rule alone permit the access (core's evaluate)? */
function permits(member: 'sources' | 'connections', rule: unknown, access: Access): boolean {
  return evaluate({ default: 'deny', presets: [], [member]: [rule] } as Policy, access).verdict === 'allow';
}

describe('workspace symbols against core\'s evaluator', () => {
  it('a URL: rank 0 exactly for the rules that permit a GET of it', () => {
    const query = fc.tuple(fc.constantFrom('https', 'http'), fc.constantFrom(...HOSTS, 'd.example'), fc.constantFrom('/', '/x', '/x/y', '/xy', '/v2/', '/v2/team/app/manifests/1', '/team/app.git/info/refs', '/other/a/git-upload-pack')).map(([s, h, p]) => `${s}://${h}${p}`);
    fc.assert(fc.property(policy, query, (p, q) => {
      const list = indexOf([['file:///p.netpolicy.json', 'p.netpolicy.json', JSON.stringify(p)]]);
      const rules: Array<['sources' | 'connections', unknown]> = [...p.sources.map((r): ['sources', unknown] => ['sources', r]), ...p.connections.map((r): ['connections', unknown] => ['connections', r])];
      rules.forEach(([member, rule], order) => {
        expect(rankOf(list, q, order) === 0).toBe(permits(member, rule, { kind: 'http', method: 'GET', url: q }));
      });
    }), { numRuns: 300 });
  });

  it('an address: rank 0 exactly for the connections that permit a connection to it (on a port they name)', () => {
    const address = fc.constantFrom('10.1.2.3', '10.2.0.1', '10.1.200.1', '2001:db8::1', '2001:db9::1', '192.0.2.9', '198.51.100.1');
    const cidrOnly = fc.oneof(
      fc.tuple(cidrs, ports(1)).map(([c, p]) => ({ tls: { cidrs: c, ports: p } })),
      fc.tuple(cidrs, fc.option(ports(1), { nil: undefined })).map(([c, p]) => ({ tcp: defined({ cidrs: c, ports: p }) })),
    );
    fc.assert(fc.property(fc.array(cidrOnly, { minLength: 1, maxLength: 6 }), address, (connections, q) => {
      const list = indexOf([['file:///p.netpolicy.json', 'p.netpolicy.json', JSON.stringify({ presets: [], connections })]]);
      connections.forEach((rule, order) => {
        const [kind, body] = Object.entries(rule)[0] as ['tls' | 'tcp', { ports?: number[] }];
        const access: Access = { kind, remoteIp: q, port: body.ports?.[0] ?? 1 };
        expect(rankOf(list, q, order) === 0).toBe(permits('connections', rule, access));
      });
    }), { numRuns: 300 });
  });

  it('a host: found exactly for the rules that permit some connection or git command because it goes to that host', () => {
    fc.assert(fc.property(policy, fc.constantFrom(...HOSTS, 'd.example', 'example'), (p, host) => {
      const list = indexOf([['file:///p.netpolicy.json', 'p.netpolicy.json', JSON.stringify(p)]]);
      const found = new Map(ranksForTest(list, host).filter((r) => r.rank < 2).map((r) => [r.order, r.rank]));
      const rules: Array<['sources' | 'connections', unknown]> = [...p.sources.map((r): ['sources', unknown] => ['sources', r]), ...p.connections.map((r): ['connections', unknown] => ['connections', r])];
      rules.forEach(([member, rule], order) => {
        // Some access to the host the rule permits because of the host: TLS or TCP to it (sources imply them) on
        // one of the ports in play, from an address in its CIDRs when it names some, that it does not permit to
        // another host (a rule of CIDRs alone permits any name).
        const body = Object.values(rule as object)[0] as { cidrs?: string[] };
        const remoteIp = body.cidrs?.[0]?.split('/')[0];
        const byName = (to: (h: string) => Access) => permits(member, rule, to(host)) && !permits(member, rule, to('elsewhere.invalid'));
        const reaches = [80, 443, 8443, 5432, 1].some((port) =>
          byName((h) => ({ kind: 'tls', serverName: h, hostnames: [h], alpn: ['h2'], port, remoteIp })) || byName((h) => ({ kind: 'tcp', hostnames: [h], port, remoteIp })))
          || [22, 2222].some((port) => ['team/app', 'other/a'].some((repositoryPath) => byName((h) => ({ kind: 'ssh', host: h, port, user: 'git', repositoryPath }))));
        expect(found.has(order)).toBe(reaches);
      });
    }), { numRuns: 300 });
  });
});
