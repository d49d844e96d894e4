import { describe, expect, test } from 'vitest';
import fc from 'fast-check';
import { shadowedRule } from './shadowed-rule';
import { redundantWithPreset } from './redundant-with-preset';
import { pointers, run } from './test-helpers';
import { cpuMs } from '../../../../test-support/cpu-time';

const shadowed = (policy: object) => pointers(shadowedRule, { presets: [], ...policy });

describe('shadowed-rule: sources', () => {
  test('a source whose URLs sit under an earlier source URL is reported at the covered source, naming the earlier one', () => {
    const policy = {
      presets: [],
      sources: [
        { pypi: { urls: ['https://mirror.example/simple', 'https://files.example'] } },
        { pypi: { urls: ['https://mirror.example/simple/requests', 'https://FILES.example/packages/'] } },
      ],
    };
    expect(run(shadowedRule, policy)).toEqual([{
      code: 'shadowed-rule',
      pointer: '/sources/1',
      message: expect.stringContaining('already allowed by the earlier rule /sources/0'),
      data: { kind: 'remove-element', title: 'Remove shadowed rule' },
      related: [{ pointer: '/sources/0', message: 'An earlier rule that allows what the shadowed rule allows.' }],
      tags: ['unnecessary'],
    }]);
  });

  test('coverage may combine several earlier rules; all are named', () => {
    const findings = run(shadowedRule, {
      presets: [],
      sources: [
        { npm: { urls: ['https://a.example'] } },
        { pypi: { urls: ['https://b.example'] } },
        { nix: { urls: ['https://a.example/x', 'https://b.example/y'] } },
      ],
    });
    expect(findings.map((f) => f.pointer)).toEqual(['/sources/2']);
    expect(findings[0].message).toContain('the earlier rules /sources/0 and /sources/1');
  });

  test('http, oci and git sources under an HTTP-kind source URL; cargo; apt', () => {
    expect(shadowed({
      sources: [
        { apk: { urls: ['https://host.example'] } },
        { oci: { urls: ['https://host.example/v2'], operations: ['pull', 'push'], repositoryPatterns: ['a/b'] } },
        { git: { https: [{ baseUrl: 'https://host.example/git' }] } },
        { cargo: { indexUrl: 'https://host.example/index', downloadUrl: 'https://host.example/dl' } },
        { apt: { urls: ['https://host.example/debian'] } },
      ],
    })).toEqual(['/sources/1', '/sources/2', '/sources/3', '/sources/4']);
  });

  test('oci: same URL, operations and repository patterns a subset', () => {
    expect(shadowed({
      sources: [
        { oci: { urls: ['https://r.example'], operations: ['pull', 'push'], repositoryPatterns: ['team/**', 'other/app'] } },
        { oci: { urls: ['https://r.example'], operations: ['pull'], repositoryPatterns: ['team/app', 'team/*/x', 'OTHER/APP'] } },
        { oci: { urls: ['https://r.example'], operations: ['pull'], repositoryPatterns: ['other/**'] } }, // wider than other/app
        { oci: { urls: ['https://r.example'], operations: ['delete'], repositoryPatterns: ['team/app'] } }, // delete not allowed before
        { oci: { urls: ['https://r.example'], operations: ['pull'] } }, // any repository: wider
        { oci: { urls: ['https://r.example/sub'], operations: ['pull'], repositoryPatterns: ['team/app'] } }, // other base: left alone
        { oci: { urls: ['https://r.example'], operations: ['push'], repositoryPatterns: ['x/y'] } }, // after any-repo pull only
      ],
    })).toEqual(['/sources/1']);
  });

  test('git: https base and ssh transports', () => {
    expect(shadowed({
      sources: [
        { git: { https: [{ baseUrl: 'https://git.example' }], ssh: [{ host: '*.git.example', port: 22 }] } },
        { git: { https: [{ baseUrl: 'https://git.example/org' }], repositoryPatterns: ['team/*'] } },
        { git: { ssh: [{ host: 'eu.git.example', port: 22, user: 'git' }], repositoryPatterns: ['a/b'] } },
        { git: { ssh: [{ host: 'git.example', port: 22 }] } }, // *.git.example never matches git.example
        { git: { ssh: [{ host: 'eu.git.example', port: 2222 }] } }, // other port
      ],
    })).toEqual(['/sources/1', '/sources/2']);
    expect(shadowed({
      sources: [
        { git: { ssh: [{ host: 'git.example', port: 22, user: 'git' }], repositoryPatterns: ['org/**'] } },
        { git: { ssh: [{ host: 'git.example', port: 22 }], repositoryPatterns: ['org/a'] } }, // any user: wider
        { git: { ssh: [{ host: 'git.example', port: 22, user: 'git' }], repositoryPatterns: ['org/a', 'org/b/c'] } },
        { git: { ssh: [{ host: 'git.example', port: 22, user: 'git' }], repositoryPatterns: ['org2/a'] } },
      ],
    })).toEqual(['/sources/2']);
  });

  test('no false positives: prefix boundaries, schemes, ports, hosts, partial cover', () => {
    expect(shadowed({
      sources: [
        { pypi: { urls: ['https://mirror.example/simple'] } },
        { pypi: { urls: ['https://mirror.example/simplex'] } },
        { pypi: { urls: ['http://mirror.example/simple/x'] } },
        { pypi: { urls: ['https://mirror.example:8443/simple/x'] } },
        { pypi: { urls: ['https://sub.mirror.example/simple/x'] } },
        { pypi: { urls: ['https://mirror.example/simple/x', 'https://elsewhere.example'] } },
        { pypi: { urls: ['https://mirror.example/'] } }, // wider than /simple
        { apt: { urls: ['https://mirror.example/simple/deb'], purlNamespace: 'debian' } }, // namespaced apt needs apt with the same namespace
      ],
    })).toEqual([]);
  });

  test('an explicit default port equals the implied one', () => {
    expect(shadowed({ sources: [{ npm: { urls: ['https://npm.example'] } }, { npm: { urls: ['https://npm.example:443/pkg'] } }] })).toEqual(['/sources/1']);
  });

  test('a malformed earlier rule never covers anything', () => {
    expect(shadowed({
      sources: [
        { pypi: { urls: ['https://mirror.example'], extra: 1 } },
        { pypi: { urls: ['https://mirror.example/x'] }, npm: { urls: ['https://mirror.example'] } },
        { pypi: { urls: ['https://mirror.example/y'] } },
      ],
    })).toEqual([]);
  });
});

describe('shadowed-rule: connections', () => {
  test('tcp and tls rules whose every criterion is a subset of an earlier rule', () => {
    expect(shadowed({
      connections: [
        { tcp: { hostPatterns: ['*.example.com'], ports: [443, 8443] } },
        { tcp: { hostPatterns: ['api.example.com', '*.eu.example.com'], ports: [443] } },
        { tcp: { hostPatterns: ['api.example.com'] } }, // any port: wider
        { tcp: { hostPatterns: ['example.com'], ports: [443] } }, // *.example.com never matches example.com
        { tls: { serverNamePatterns: ['*.example.org'], cidrs: ['10.0.0.0/8'], ports: [443] } },
        { tls: { serverNamePatterns: ['a.example.org'], cidrs: ['10.1.0.0/16', '10.2.3.4'], ports: [443], alpn: ['h2'] } },
        { tls: { serverNamePatterns: ['a.example.org'], ports: [443] } }, // no cidrs: wider
      ],
    })).toEqual(['/connections/1', '/connections/5']);
  });

  test('a tcp rule without host patterns covers tls rules in its networks and ports; with host patterns it does not', () => {
    expect(shadowed({
      connections: [
        { tcp: { cidrs: ['192.0.2.0/24'] } },
        { tls: { serverNamePatterns: ['x.example'], cidrs: ['192.0.2.10'], ports: [443] } },
        { tcp: { hostPatterns: ['x.example'], ports: [443] } },
        { tls: { serverNamePatterns: ['x.example'], ports: [443] } }, // tls matches the server name, tcp resolved names
        { tls: { cidrs: ['198.51.100.0/24'], ports: [443] } },
      ],
    })).toEqual(['/connections/1']);
  });

  test('tls alpn: a rule stating alpn never matches requests, so it covers only rules with alpn', () => {
    expect(shadowed({
      connections: [
        { tls: { serverNamePatterns: ['x.example'], ports: [443], alpn: ['h2', 'http/1.1'] } },
        { tls: { serverNamePatterns: ['x.example'], ports: [443] } }, // matches requests too: not covered
        { tls: { serverNamePatterns: ['y.example'], ports: [443], alpn: ['h3'] } },
        { tls: { serverNamePatterns: ['x.example'], ports: [443], alpn: ['h2'] } }, // covered by /connections/0 (and /1)
        { tls: { serverNamePatterns: ['y.example'], ports: [443], alpn: ['h2', 'h3'] } }, // h2 not offered before for y
      ],
    })).toEqual(['/connections/3']);
    // A rule without alpn permits every ALPN: it covers rules that state one.
    expect(run(shadowedRule, {
      presets: [],
      connections: [
        { tls: { serverNamePatterns: ['x.example'], ports: [443] } },
        { tls: { serverNamePatterns: ['x.example'], ports: [443], alpn: ['h3'] } },
      ],
    }).map((f) => f.pointer)).toEqual(['/connections/1']);
  });

  test('udp and icmp compare networks and ports; IPv6 prefixes too', () => {
    expect(shadowed({
      connections: [
        { udp: { cidrs: ['10.0.0.0/8'], ports: [53, 123] } },
        { udp: { cidrs: ['10.9.0.0/16'], ports: [53] } },
        { udp: { cidrs: ['10.9.0.0/16'] } }, // any port: wider
        { icmp: { cidrs: ['10.9.0.0/16'] } }, // other protocol
        { icmp: { cidrs: ['10.9.1.1'] } },
        { tcp: { cidrs: ['2001:db8::/32'] } },
        { tcp: { cidrs: ['2001:db8:1::/48'], ports: [22] } },
        { tcp: { cidrs: ['2001:db9::/48'] } },
      ],
    })).toEqual(['/connections/1', '/connections/4', '/connections/6']);
  });

  test('a cover split over two earlier networks is not claimed (sound, not complete)', () => {
    expect(shadowed({ connections: [{ tcp: { cidrs: ['10.0.0.0/9'] } }, { tcp: { cidrs: ['10.128.0.0/9'] } }, { tcp: { cidrs: ['10.0.0.0/8'] } }] })).toEqual([]);
  });

  test('a connection covered by a known preset fragment names the preset', async () => {
    const { loadPresetCatalog } = await import('../presets/catalog');
    const catalog = loadPresetCatalog({ version: 1, presets: [{ name: 'yocto', description: 'filled in', known: { connections: [{ tcp: { hostPatterns: ['*.yocto.example'] } }] } }] });
    const findings = run(shadowedRule, { connections: [{ tcp: { hostPatterns: ['dl.yocto.example'], ports: [443] } }] }, catalog);
    expect(findings.map((f) => f.pointer)).toEqual(['/connections/0']);
    expect(findings[0].message).toContain('preset `yocto`');
    expect(pointers(shadowedRule, { presets: ['pypi'], connections: [{ tcp: { hostPatterns: ['dl.yocto.example'] } }] }, catalog)).toEqual([]);
  });
});

describe('shadowed-rule: tls rules covered by sources (sources imply connections to their hosts, D4)', () => {
  test('a tls rule for the host and port of a root https source, or of a preset', () => {
    const findings = run(shadowedRule, {
      sources: [{ npm: { urls: ['https://npm.example'] } }, { pypi: { urls: ['https://mirror.example:8443'] } }],
      connections: [
        { tls: { serverNamePatterns: ['NPM.example', 'mirror.example'], ports: [443] } }, // mirror.example:443 not a source
        { tls: { serverNamePatterns: ['npm.example'], ports: [443] } },
        { tls: { serverNamePatterns: ['npm.example'], ports: [443, 8443] } }, // npm.example:8443 is not a source
        { tls: { serverNamePatterns: ['mirror.example'], ports: [8443], cidrs: ['192.0.2.0/24'] } },
        { tls: { serverNamePatterns: ['pypi.org', 'files.pythonhosted.org'], ports: [443] } },
      ],
    });
    expect(findings.map((f) => f.pointer)).toEqual(['/connections/1', '/connections/3', '/connections/4']);
    expect(findings[0].message).toContain('the earlier rule /connections/0'); // a whole earlier tls rule
    expect(findings[1].message).toContain('the earlier rule /sources/1');
    expect(findings[2].message).toContain('preset `pypi`');
    expect(pointers(shadowedRule, { presets: [], sources: [{ npm: { urls: ['https://npm.example'] } }], connections: [{ tls: { serverNamePatterns: ['npm.example'], ports: [443] } }] }))
      .toEqual(['/connections/0']);
  });

  test('a source with a path covers only the connection, so only tls rules stating alpn (which match no request)', () => {
    expect(shadowed({
      sources: [{ oci: { urls: ['https://registry.example'], operations: ['pull'] } }, { pypi: { urls: ['https://pypi.example/simple'] } }],
      connections: [
        { tls: { serverNamePatterns: ['registry.example'], ports: [443] } }, // any path: the oci source allows only registry calls
        { tls: { serverNamePatterns: ['pypi.example'], ports: [443] } },
        { tls: { serverNamePatterns: ['registry.example', 'pypi.example'], ports: [443], alpn: ['h2'] } },
        { tls: { serverNamePatterns: ['*.pypi.example'], ports: [443], alpn: ['h2'] } }, // wildcards are never covered by sources
        { tcp: { hostPatterns: ['pypi.example'], ports: [443] } }, // tcp also allows http:// on any path
      ],
    })).toEqual(['/connections/2']);
  });
});

describe('shadowed-rule and redundant-with-preset do not both report one rule', () => {
  test('covered by presets alone: redundant-with-preset; by an earlier rule: shadowed-rule', () => {
    const policy = {
      sources: [
        { pypi: { urls: ['https://pypi.org', 'https://mirror.example'] } },
        { pypi: { urls: ['https://pypi.org/simple'] } },
        { pypi: { urls: ['https://mirror.example/x', 'https://files.pythonhosted.org'] } },
      ],
    };
    expect(pointers(redundantWithPreset, policy)).toEqual(['/sources/1']);
    const findings = run(shadowedRule, policy);
    expect(findings.map((f) => f.pointer)).toEqual(['/sources/2']);
    expect(findings[0].message).toContain('/sources/0 and preset `pypi`');
  });
});

describe('shadowed-rule: soundness of URL prefix coverage (property)', () => {
  // D4, written independently: scheme and host equal (host case-insensitive), ports equal (80/443
  // implied), rule path a prefix of the request path ending at a `/` boundary.
  function covers(rule: string, request: string): boolean {
    const parse = (u: string) => {
      const m = /^(https?):\/\/([^/?#@]+)(\/[^?#]*)?$/.exec(u)!;
      const [, scheme, authority, path = '/'] = m;
      const pm = /^(.*):(\d+)$/.exec(authority);
      return { scheme, host: (pm ? pm[1] : authority).toLowerCase(), port: pm ? Number(pm[2]) : scheme === 'https' ? 443 : 80, path };
    };
    const r = parse(rule), q = parse(request);
    if (r.scheme !== q.scheme || r.host !== q.host || r.port !== q.port) return false;
    if (!q.path.startsWith(r.path)) return false;
    return r.path.endsWith('/') || q.path.length === r.path.length || q.path[r.path.length] === '/';
  }
  const origin = fc.constantFrom('https://h.example', 'https://H.example:443', 'http://h.example', 'https://h.example:8443', 'https://g.example');
  const path = fc.array(fc.constantFrom('a', 'b', 'ab', ''), { maxLength: 3 }).map((s) => (s.length ? `/${s.join('/')}` : ''));
  const url = fc.tuple(origin, path, fc.boolean()).map(([o, p, slash]) => `${o}${p}${slash ? '/' : ''}`);

  test('when a source is reported as shadowed, every request under its URL is covered by the earlier one', () => {
    fc.assert(fc.property(url, url, fc.array(fc.constantFrom('a', 'b', 'x', ''), { maxLength: 3 }), (a, b, suffix) => {
      const found = pointers(shadowedRule, { presets: [], sources: [{ pypi: { urls: [a] } }, { npm: { urls: [b] } }] });
      if (!found.includes('/sources/1')) return;
      const requests = [b, `${b}/${suffix.join('/')}`, `${b}${b.endsWith('/') ? '' : '/'}x`];
      for (const request of requests) if (covers(b, request)) expect(covers(a, request)).toBe(true);
    }), { numRuns: 3000 });
  });
});

describe('shadowed-rule: repository pattern lists of thousands', () => {
  const many = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => `${prefix}-${i}/repo`);
  const oci = (patterns: string[]) => ({ oci: { urls: ['https://registry.example'], repositoryPatterns: patterns, operations: ['pull'] } });

  test('are compared in linear time: the same patterns (in another order and case) are covered, one more is not', () => {
    const patterns = many(20000, 'org');
    const { ms } = cpuMs(() => {
      expect(shadowed({ sources: [oci([...patterns].reverse()), oci(patterns.map((p) => p.toUpperCase()))] })).toEqual(['/sources/1']);
      expect(shadowed({ sources: [oci(patterns), oci([...patterns.slice(1), 'other/repo'])] })).toEqual([]);
    });
    // Compared pair by pair, two lists of 20,000 took minutes (CPU time: the machine's load does not count).
    expect(ms).toBeLessThan(5000);
  });

  test('`**` in a long list covers every pattern', () => {
    expect(shadowed({ sources: [oci([...many(5000, 'a'), '**']), oci(many(5000, 'b'))] })).toEqual(['/sources/1']);
  });
});

