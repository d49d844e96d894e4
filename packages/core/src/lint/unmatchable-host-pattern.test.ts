import { describe, expect, test } from 'vitest';
import { unmatchableHostPattern } from './unmatchable-host-pattern';
import { pointers, run } from './test-helpers';

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
});
