import { describe, expect, it, vi } from 'vitest';
import { ConfigError, NetpolicyClient, SelectorError, artifactQuery, isLoopbackHost, jobQuery, parseDigest, parseRetryAfter } from '../src/index';

const hex64 = 'a'.repeat(64);
const hex128 = 'b'.repeat(128);

describe('job selector', () => {
  it('accepts well-formed selectors, 64-bit ids as strings', () => {
    expect(jobQuery({ repo: 'acme/web-app.v2', jobId: '18446744073709551615' })).toEqual({ provider: 'ciprovider', repo: 'acme/web-app.v2', job_id: '18446744073709551615' });
    expect(jobQuery({ repo: 'a/b', jobId: '0' }).job_id).toBe('0');
  });

  it.each([
    [{ repo: 'acme', jobId: '1' }, 'repo'],
    [{ repo: 'acme/web/app', jobId: '1' }, 'repo'],
    [{ repo: 'acme/..', jobId: '1' }, 'repo'],
    [{ repo: '/web', jobId: '1' }, 'repo'],
    [{ repo: 'acme/web app', jobId: '1' }, 'repo'],
    [{ repo: 'acme/web', jobId: '01' }, 'job_id'],
    [{ repo: 'acme/web', jobId: '-1' }, 'job_id'],
    [{ repo: 'acme/web', jobId: '1.0' }, 'job_id'],
    [{ repo: 'acme/web', jobId: '18446744073709551616' }, 'job_id'],
    [{ repo: 'acme/web', jobId: '' }, 'job_id'],
    [{ repo: 'acme/web', jobId: '1', provider: 'other' }, 'provider'],
  ])('refuses %j (%s)', (selector, field) => {
    expect(() => jobQuery(selector)).toThrow(SelectorError);
    try { jobQuery(selector); } catch (e) { expect((e as SelectorError).field).toBe(field); }
  });
});

describe('artifact selector', () => {
  it('accepts each kind with the right digest length, lowercasing the digest', () => {
    expect(artifactQuery({ kind: 'oci_manifest', digestAlgorithm: 'sha256', digestValue: hex64.toUpperCase() }).digest_value).toBe(hex64);
    expect(artifactQuery({ kind: 'oci_index', digestAlgorithm: 'sha512', digestValue: hex128 })).toEqual({ kind: 'oci_index', digest_algorithm: 'sha512', digest_value: hex128 });
    expect(artifactQuery({ kind: 'ci_cache', digestAlgorithm: 'sha256', digestValue: hex64, repository: 'acme/web' }).repository).toBe('acme/web');
  });

  it.each([
    [{ kind: 'docker', digestAlgorithm: 'sha256', digestValue: hex64 }, /kind must be one of/],
    [{ kind: 'oci_manifest', digestAlgorithm: 'md5', digestValue: hex64 }, /sha256 or sha512/],
    [{ kind: 'oci_manifest', digestAlgorithm: 'sha256', digestValue: hex128 }, /64 hexadecimal characters, got 128/],
    [{ kind: 'oci_manifest', digestAlgorithm: 'sha512', digestValue: hex64 }, /128 hexadecimal characters, got 64/],
    [{ kind: 'oci_manifest', digestAlgorithm: 'sha256', digestValue: 'g'.repeat(64) }, /hexadecimal/],
    [{ kind: 'oci_manifest', digestAlgorithm: 'sha256', digestValue: `sha256:${hex64}` }, /hexadecimal/],
    [{ kind: 'ci_cache', digestAlgorithm: 'sha512', digestValue: hex128, repository: 'a/b' }, /requires the sha256/],
    [{ kind: 'ci_cache', digestAlgorithm: 'sha256', digestValue: hex64 }, /requires a repository/],
    [{ kind: 'ci_cache', digestAlgorithm: 'sha256', digestValue: hex64, repository: 'nope' }, /OWNER\/REPOSITORY/],
    [{ kind: 'oci_manifest', digestAlgorithm: 'sha256', digestValue: hex64, repository: 'a/b' }, /only to ci_cache/],
  ])('refuses %j', (selector, message) => {
    expect(() => artifactQuery(selector as never)).toThrow(message);
  });

  it('parses ALG:HEX', () => {
    expect(parseDigest(`sha256:${hex64}`)).toEqual({ digestAlgorithm: 'sha256', digestValue: hex64 });
    expect(() => parseDigest(hex64)).toThrow(/ALG:HEX/);
    expect(() => parseDigest(`md5:${hex64}`)).toThrow(/sha256 or sha512/);
  });
});

describe('client set-up', () => {
  it('refuses a bad selector before any request', async () => {
    const fetch = vi.fn();
    const client = new NetpolicyClient({ baseUrl: 'https://svc.example', token: 'test-token-1', fetch });
    await expect(client.getSbom({ repo: 'acme', jobId: '1' })).rejects.toThrow(SelectorError);
    await expect(client.findArtifact({ kind: 'ci_cache', digestAlgorithm: 'sha256', digestValue: hex64 })).rejects.toThrow(SelectorError);
    expect(fetch).not.toHaveBeenCalled();
  });

  it('refuses plain http to a non-loopback host, allows loopback', () => {
    expect(() => new NetpolicyClient({ baseUrl: 'http://svc.example' })).toThrow(ConfigError);
    expect(() => new NetpolicyClient({ baseUrl: 'http://10.0.0.1:8080' })).toThrow(/plain http/);
    expect(() => new NetpolicyClient({ baseUrl: 'ftp://svc.example' })).toThrow(ConfigError);
    expect(() => new NetpolicyClient({ baseUrl: 'https://user:pw@svc.example' })).toThrow(/credentials/);
    expect(() => new NetpolicyClient({ baseUrl: 'not a url' })).toThrow(ConfigError);
    for (const url of ['http://localhost:8080', 'http://127.0.0.1', 'http://127.1.2.3:9', 'http://[::1]:8080', 'https://svc.example/base']) {
      expect(() => new NetpolicyClient({ baseUrl: url })).not.toThrow();
    }
  });

  it('knows loopback hosts', () => {
    expect(['localhost', '127.0.0.1', '127.255.255.255', '[::1]', '::1'].every(isLoopbackHost)).toBe(true);
    expect(['example.com', '128.0.0.1', '127.0.0.256', '10.0.0.1', 'localhost.example.com'].some(isLoopbackHost)).toBe(false);
  });

  it('sends the token as a Bearer header to the base path, and never puts it in an error', async () => {
    const calls: { url: string; init: RequestInit }[] = [];
    const fetch = vi.fn(async (url: string, init: RequestInit) => {
      calls.push({ url, init });
      return new Response(JSON.stringify({ type: 'about:blank', title: 'Unauthorized', status: 401, detail: 'token s3cr3t-t0ken rejected' }), { status: 401, headers: { 'content-type': 'application/problem+json' } });
    });
    const client = new NetpolicyClient({ baseUrl: 'https://svc.example/api', token: 's3cr3t-t0ken', fetch: fetch as never });
    const error = await client.getNetworkTrace({ repo: 'acme/web', jobId: '7' }).catch((e) => e);
    expect(calls[0].url).toBe('https://svc.example/api/v1preview1/network-trace?provider=ciprovider&repo=acme%2Fweb&job_id=7');
    expect((calls[0].init.headers as Record<string, string>).authorization).toBe('Bearer s3cr3t-t0ken');
    expect(calls[0].init.redirect).toBe('manual');
    expect(error.kind).toBe('authentication');
    expect(error.message).not.toContain('s3cr3t-t0ken');
    expect(error.detail).toBe('token [redacted] rejected');
  });

  it('parses Retry-After as seconds or an HTTP date', () => {
    expect(parseRetryAfter('3')).toBe(3000);
    expect(parseRetryAfter(new Date(Date.UTC(2030, 0, 1, 0, 0, 10)).toUTCString(), Date.UTC(2030, 0, 1))).toBe(10000);
    expect(parseRetryAfter('soon')).toBeUndefined();
    expect(parseRetryAfter(null)).toBeUndefined();
  });
});
