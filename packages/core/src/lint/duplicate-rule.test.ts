import { describe, expect, test } from 'vitest';
import { duplicateRule } from './duplicate-rule';
import { shadowedRule } from './shadowed-rule';
import { redundantWithPreset } from './redundant-with-preset';
import { pointers, run } from './test-helpers';

describe('duplicate-rule', () => {
  test('a later source equal to an earlier one (key order ignored) is reported at the later one', () => {
    const policy = {
      presets: [],
      sources: [
        { oci: { urls: ['https://r.example'], operations: ['pull'], repositoryPatterns: ['a/b'] } },
        { npm: { urls: ['https://registry.npmjs.org'] } },
        { npm: { urls: ['https://npm.example'] } },
        { oci: { repositoryPatterns: ['a/b'], operations: ['pull'], urls: ['https://r.example'] } },
      ],
    };
    expect(run(duplicateRule, policy)).toEqual([{
      code: 'duplicate-rule',
      pointer: '/sources/3',
      message: expect.stringContaining('identical to /sources/0'),
      data: { kind: 'remove-element', title: 'Remove duplicate of /sources/0' },
      related: [{ pointer: '/sources/0', message: 'The earlier identical rule.' }],
      tags: ['unnecessary'],
    }]);
  });

  test('connections: every later copy points at the first one', () => {
    const tcp = { tcp: { hostPatterns: ['db.example'], ports: [5432] } };
    const findings = run(duplicateRule, { connections: [tcp, { icmp: { cidrs: ['192.0.2.1'] } }, structuredClone(tcp), structuredClone(tcp)] });
    expect(findings.map((f) => [f.pointer, f.message.includes('/connections/0')])).toEqual([['/connections/2', true], ['/connections/3', true]]);
  });

  test('an exact duplicate gets only duplicate-rule, not shadowed-rule or redundant-with-preset', () => {
    const policy = { sources: [{ pypi: { urls: ['https://pypi.example'] } }, { pypi: { urls: ['https://pypi.example'] } }, { npm: { urls: ['https://registry.npmjs.org'] } }, { npm: { urls: ['https://registry.npmjs.org'] } }] };
    expect(pointers(duplicateRule, policy)).toEqual(['/sources/1', '/sources/3']);
    expect(pointers(shadowedRule, policy)).toEqual([]);
    expect(pointers(redundantWithPreset, policy)).toEqual(['/sources/2']);
  });

  test('different values, item order inside arrays, a source and a connection with equal bodies pass', () => {
    expect(pointers(duplicateRule, {
      sources: [
        { pypi: { urls: ['https://a.example', 'https://b.example'] } },
        { pypi: { urls: ['https://b.example', 'https://a.example'] } },
        { npm: { urls: ['https://a.example', 'https://b.example'] } },
      ],
      connections: [{ udp: { cidrs: ['192.0.2.1'] } }, { icmp: { cidrs: ['192.0.2.1'] } }, { udp: { cidrs: ['192.0.2.1'], ports: [53] } }],
    })).toEqual([]);
    expect(pointers(duplicateRule, { sources: 'x', connections: [1, 1, null, null] })).toEqual([]);
    // Malformed entries (no single recognised kind) are left to the schema errors.
    expect(pointers(duplicateRule, { sources: [{}, {}, { pip: { urls: [] } }, { pip: { urls: [] } }], connections: [{ tls: 1 }, { tls: 1 }] })).toEqual([]);
  });
});
