import { describe, expect, test } from 'vitest';
import { wildcardPush } from './wildcard-push';
import { pointers, run } from './test-helpers';

describe('wildcard-push', () => {
  test('push without repositoryPatterns is reported at the operations array', () => {
    const findings = run(wildcardPush, { sources: [{ oci: { urls: ['https://r.example'], operations: ['pull', 'push'] } }] });
    expect(findings).toEqual([{
      code: 'wildcard-push',
      pointer: '/sources/0/oci/operations',
      message: expect.stringContaining('`push` without `repositoryPatterns`'),
    }]);
  });

  test('delete with a `**` pattern is reported at that pattern', () => {
    expect(pointers(wildcardPush, {
      sources: [
        { pypi: { urls: ['https://pypi.org'] } },
        { oci: { urls: ['https://r.example'], operations: ['delete'], repositoryPatterns: ['team/app', '**'] } },
        { oci: { urls: ['https://r.example'], operations: ['push'], repositoryPatterns: ['**/**'] } },
      ],
    })).toEqual(['/sources/1/oci/repositoryPatterns/1', '/sources/2/oci/repositoryPatterns/0']);
  });

  test('pull only, narrow patterns, and git sources pass', () => {
    expect(pointers(wildcardPush, {
      sources: [
        { oci: { urls: ['https://r.example'], operations: ['pull'] } },
        { oci: { urls: ['https://r.example'], operations: ['pull'], repositoryPatterns: ['**'] } },
        { oci: { urls: ['https://r.example'], operations: ['push', 'delete'], repositoryPatterns: ['team/**', 'team/*/app'] } },
        { git: { https: [{ baseUrl: 'https://git.example' }] } },
        { oci: { urls: ['https://r.example'], operations: 'push' } },
      ],
    })).toEqual([]);
  });
});
