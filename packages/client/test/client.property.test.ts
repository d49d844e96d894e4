import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ApiError, SelectorError, artifactQuery, checkArtifactRecordShape, checkTraceShape, jobQuery, parseRetryAfter } from '@netpolicy/client';
import { errorFromResponse } from '../src/http';
import { cpuMs } from '../../../test-support/cpu-time';

const MAX = 18446744073709551615n;

describe('client selectors (property-based)', () => {
  it('a job id is accepted exactly when it is a decimal from 0 to 2^64-1 without leading zeros', () => {
    fc.assert(fc.property(fc.oneof(fc.bigInt({ min: 0n, max: MAX * 2n }).map(String), fc.string({ maxLength: 22 }), fc.bigInt({ min: 0n, max: MAX }).map((n) => `0${n}`)), (id) => {
      const ok = /^(0|[1-9][0-9]*)$/.test(id) && BigInt(id) <= MAX;
      let accepted = true;
      try { jobQuery({ repo: 'acme/app', jobId: id }); } catch (e) { expect(e).toBeInstanceOf(SelectorError); accepted = false; }
      expect(accepted).toBe(ok);
    }));
  });

  it('a digest is accepted exactly when it is hex of the algorithm\'s length (ci_cache: sha256 and a repository)', () => {
    const hex = (n: number) => fc.stringMatching(new RegExp(`^[0-9a-fA-F]{${n}}$`));
    fc.assert(fc.property(
      fc.constantFrom('oci_manifest', 'oci_index', 'ci_cache'), fc.constantFrom('sha256', 'sha512'),
      fc.oneof(hex(64), hex(128), fc.string({ maxLength: 130 })), fc.option(fc.constant('acme/app'), { nil: undefined }),
      (kind, alg, value, repository) => {
        const lengthOk = /^[0-9a-fA-F]*$/.test(value) && value.length === (alg === 'sha256' ? 64 : 128);
        const ok = lengthOk && (kind === 'ci_cache' ? alg === 'sha256' && repository !== undefined : repository === undefined);
        let query: Record<string, string> | undefined;
        try { query = artifactQuery({ kind: kind as never, digestAlgorithm: alg as never, digestValue: value, repository }); } catch (e) { expect(e).toBeInstanceOf(SelectorError); }
        expect(query !== undefined).toBe(ok);
        if (query) expect(query.digest_value).toBe(value.toLowerCase());
      },
    ));
  });
});

describe('client response handling on hostile input (property-based)', () => {
  const json = fc.jsonValue({ maxDepth: 4 });
  it('shape checks return reasons, never throw', () => {
    fc.assert(fc.property(json, (doc) => {
      expect(Array.isArray(checkTraceShape(doc))).toBe(true);
      expect(Array.isArray(checkArtifactRecordShape(doc))).toBe(true);
    }), { numRuns: 500 });
  });

  it('an error response of any body gives an ApiError with the status and never the token', () => {
    const token = 'tok-SECRET-123';
    fc.assert(fc.property(
      fc.integer({ min: 400, max: 599 }),
      fc.constantFrom('application/problem+json', 'application/json', 'text/html', 'text/plain', ''),
      fc.oneof(fc.string(), json.map((v) => JSON.stringify(v)), fc.string().map((s) => `{"type":"about:blank","title":"${token}","status":401,"detail":"${s}"}`), fc.string().map((s) => `<html><title>${s}${token}</title>`)),
      (status, type, body) => {
        const headers = new Headers(type ? { 'content-type': type } : {});
        const error = errorFromResponse(status, headers, new TextEncoder().encode(body), token, 1);
        expect(error).toBeInstanceOf(ApiError);
        expect(error.status).toBe(status);
        expect(error.message).not.toContain(token);
        expect(JSON.stringify(error.reasons ?? [])).not.toContain(token);
      },
    ), { numRuns: 500 });
  });

  it('a hostile HTML body is summarised in linear time', () => {
    const body = new TextEncoder().encode('<title'.repeat(2_000_000));
    const { ms, result } = cpuMs(() => errorFromResponse(502, new Headers({ 'content-type': 'text/html' }), body, undefined, 1));
    expect(result.status).toBe(502);
    expect(ms).toBeLessThan(1000); // CPU time, tens of ms: a backtracking title search takes minutes
  });

  it('Retry-After: delta seconds or an HTTP date, anything else ignored', () => {
    fc.assert(fc.property(fc.nat(100000), (s) => { expect(parseRetryAfter(String(s))).toBe(s * 1000); }));
    expect(parseRetryAfter('Wed, 21 Oct 2015 07:28:00 GMT', Date.parse('Wed, 21 Oct 2015 07:27:00 GMT'))).toBe(60000);
    fc.assert(fc.property(fc.string().filter((s) => !/^\s*\d+\s*$/.test(s) && Number.isNaN(Date.parse(s.trim()))), (s) => { expect(parseRetryAfter(s)).toBeUndefined(); }));
  });
});
