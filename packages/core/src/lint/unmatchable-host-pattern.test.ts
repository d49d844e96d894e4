import { describe, expect, test } from 'vitest';
import fc from 'fast-check';
import { unmatchableHostPattern } from './unmatchable-host-pattern';
import { isPolicyUrl, parseUrl } from '../eval/url';
import { isHostPattern, unmatchableHostProblem } from '../formats/host-pattern';
import { quote } from './walk';
import { pointers, run } from './test-helpers';
import { cpuMs } from '../../../../test-support/cpu-time';

describe('unmatchable-host-pattern', () => {
  test('empty label, label edge hyphen and over-long label are reported at the pattern', () => {
    const long = `${'a'.repeat(64)}.example`;
    const policy = {
      connections: [
        { tls: { serverNamePatterns: ['ok.example', 'a..example'], ports: [443] } },
        { tcp: { hostPatterns: ['*.a.-bad.example', long] } },
      ],
      sources: [{ git: { ssh: [{ host: 'git-.example', port: 22 }] } }],
    };
    const findings = run(unmatchableHostPattern, policy);
    expect(findings.map((f) => f.pointer)).toEqual([
      '/connections/0/tls/serverNamePatterns/1', '/connections/1/tcp/hostPatterns/0',
      '/connections/1/tcp/hostPatterns/1', '/sources/0/git/ssh/0/host',
    ]);
    expect(findings[0]).toMatchObject({ code: 'unmatchable-host-pattern', message: expect.stringContaining('empty label') });
    expect(findings[1].message).toContain('`-bad`');
    expect(findings[3].message).toContain('`git-`');
  });

  test('matchable patterns and patterns the schema rejects are not reported', () => {
    expect(pointers(unmatchableHostPattern, {
      connections: [
        { tls: { serverNamePatterns: ['*.example.com', 'xn--bcher-kva.example', 'a-b.c'], ports: [443] } },
        { tcp: { hostPatterns: ['-bad.example', 'bad.example.', '*..x'] } }, // invalid-host-pattern, not a lint
      ],
      sources: [{ git: { ssh: [{ host: 'git.example', port: 22 }] } }],
    })).toEqual([]);
  });

  test('the host of a source URL is checked the same way (D3), at the URL', () => {
    const findings = run(unmatchableHostPattern, {
      sources: [
        { npm: { urls: ['https://a..example/x', 'https://ok.example', `https://${'b'.repeat(64)}.example`] } },
        { cargo: { indexUrl: 'https://index-.example', downloadUrl: `http://${'a.'.repeat(127)}example:8080/dl` } },
        { git: { https: [{ baseUrl: 'https://git.example./org' }, { baseUrl: 'https://[2001:db8::1]/x' }, { baseUrl: 'https://192.0.2.1' }] } },
      ],
    });
    expect(findings.map((f) => [f.pointer, f.message.replace(/^.*never be a host name: /, '')])).toEqual([
      ['/sources/0/npm/urls/0', 'it has an empty label (`..`). Fix the typo; as written this URL allows nothing.'],
      ['/sources/0/npm/urls/2', expect.stringContaining('longer than 63 characters')],
      ['/sources/1/cargo/downloadUrl', expect.stringContaining('at most 253 characters')],
      ['/sources/1/cargo/indexUrl', expect.stringContaining('`index-` starts or ends with `-`')],
    ]);
  });

  test('a 100 MB URL host is reported quickly, with the URL shortened in the message', () => {
    const url = `https://${'a'.repeat(100 * 1024 * 1024)}/x`;
    const { ms, result: findings } = cpuMs(() => run(unmatchableHostPattern, { sources: [{ npm: { urls: [url] } }] }));
    // Linear: about half a second of CPU (the machine's load does not count); a backtracking or quadratic scan of 100 MB takes minutes.
    expect(ms).toBeLessThan(10_000);
    expect(findings).toHaveLength(1);
    expect(findings[0].message.length).toBeLessThan(300);
  });
});

describe('unmatchable-host-pattern on URL hosts: the in-place label check of plain hosts', () => {
  // The reference: every URL through parseUrl and unmatchableHostProblem, as before the fast path.
  const reference = (text: string): string[] => {
    const host = parseUrl(text)?.host;
    if (host === undefined || host.includes(':')) return [];
    const problem = unmatchableHostProblem(host);
    return problem && isPolicyUrl(text) ? [`The host of URL ${quote(text)} can never be a host name: ${problem}. Fix the typo; as written this URL allows nothing.`] : [];
  };
  const label = fc.oneof(fc.constantFrom('', '-', 'a-', '-a', 'ab', 'A', 'x1'), fc.string({ unit: fc.constantFrom('a', '-', 'z', '0'), minLength: 60, maxLength: 66 }));
  const url = fc.oneof(
    fc.tuple(fc.constantFrom('https://', 'http://', 'HTTP://', 'https://u@'), fc.array(label, { minLength: 1, maxLength: 5 }), fc.constantFrom('', '/', '/x', '?q', '#f', ':443', '.', './x'))
      .map(([scheme, labels, tail]) => `${scheme}${labels.join('.')}${tail}`),
    fc.integer({ min: 250, max: 256 }).map((n) => `https://${'a.'.repeat(n).slice(0, n)}/`),
    fc.string({ maxLength: 30 }),
  );
  test('reports what parseUrl and the label scan report', () => {
    fc.assert(fc.property(url, (text) => {
      const findings = run(unmatchableHostPattern, { sources: [{ pypi: { urls: [text] } }, { cargo: { indexUrl: text } }, { git: { https: [{ baseUrl: text }] } }] });
      const expected = reference(text);
      expect(findings.map((f) => f.message)).toEqual([...expected, ...expected, ...expected]);
    }), { numRuns: 3000 });
  });
});

describe('unmatchable-host-pattern on host patterns: the native check of fine patterns', () => {
  const reference = (pattern: string): string[] => {
    if (!isHostPattern(pattern)) return [];
    const problem = unmatchableHostProblem(pattern);
    return problem ? [`Host pattern ${quote(pattern)} can never match a host name: ${problem}. Fix the typo; as written this entry allows nothing.`] : [];
  };
  const label = fc.oneof(fc.constantFrom('', '-', 'a-', '-a', 'ab', 'A', 'x1', 'B-c', '_', '*', '\u212Aa', '\u017F', 'é'), fc.string({ unit: fc.constantFrom('a', '-', 'Z', '0'), minLength: 60, maxLength: 66 }));
  const pattern = fc.oneof(
    fc.tuple(fc.constantFrom('', '*.', '*', '.'), fc.array(label, { minLength: 1, maxLength: 5 }), fc.constantFrom('', '.', '-', ' ')).map(([head, labels, tail]) => `${head}${labels.join('.')}${tail}`),
    fc.integer({ min: 250, max: 256 }).map((n) => `*.${'a.'.repeat(n).slice(0, n)}`),
    fc.integer({ min: 250, max: 256 }).map((n) => 'B.'.repeat(n).slice(0, n)),
    fc.string({ maxLength: 20 }),
  );
  test('reports what isHostPattern and the label scan report', () => {
    fc.assert(fc.property(pattern, (p) => {
      const findings = run(unmatchableHostPattern, { connections: [{ tls: { serverNamePatterns: [p] } }, { tcp: { hostPatterns: [p] } }], sources: [{ git: { ssh: [{ host: p }] } }] });
      const expected = reference(p);
      expect(findings.map((f) => f.message)).toEqual([...expected, ...expected, ...expected]);
    }), { numRuns: 3000 });
  });
});
