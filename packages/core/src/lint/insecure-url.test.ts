import { describe, expect, test } from 'vitest';
import { insecureUrl } from './insecure-url';
import { pointers, run } from './test-helpers';

describe('insecure-url', () => {
  test('an http:// URL is reported at the URL string with the https:// form as fix', () => {
    const findings = run(insecureUrl, { sources: [{ pypi: { urls: ['https://pypi.org', 'http://mirror.example/simple'] } }] });
    expect(findings).toEqual([{
      code: 'insecure-url',
      pointer: '/sources/0/pypi/urls/1',
      message: expect.stringContaining('`http://mirror.example/simple`'),
      data: { kind: 'replace', value: 'https://mirror.example/simple', title: 'Change to https://mirror.example/simple' },
    }]);
  });

  test('every URL member: urls, cargo indexUrl and downloadUrl, git https[].baseUrl, oci and apt urls', () => {
    expect(pointers(insecureUrl, {
      sources: [
        { cargo: { indexUrl: 'http://index.example', downloadUrl: 'http://dl.example' } },
        { git: { https: [{ baseUrl: 'https://git.example' }, { baseUrl: 'http://git.example' }] } },
        { oci: { urls: ['http://registry.example'], operations: ['pull'] } },
        { apt: { urls: ['http://deb.example/debian'] } },
        { npm: { urls: ['http://npm.example'] } },
      ],
    })).toEqual([
      // lint() reports in pointer order (member names compared as text).
      '/sources/0/cargo/downloadUrl', '/sources/0/cargo/indexUrl', '/sources/1/git/https/1/baseUrl',
      '/sources/2/oci/urls/0', '/sources/3/apt/urls/0', '/sources/4/npm/urls/0',
    ]);
  });

  test('https URLs, malformed URLs and non-source members pass', () => {
    expect(pointers(insecureUrl, {
      sources: [
        { pypi: { urls: ['https://pypi.org', 'http://user@host.example', 'ftp://x', 3] } },
        { pypi: { urls: ['http://a.example'], extra: true }, npm: { urls: ['http://b.example'] } },
      ],
      connections: [{ tls: { serverNamePatterns: ['http'], ports: [443] } }],
    })).toEqual([]);
  });
});
