import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parseUrl, pathCovers, urlCovers } from './url';

/** The reference: WHATWG URL where it agrees with D4 (no normalisation of paths is compared). */
describe('parseUrl', () => {
  it('splits scheme, host, port and path; drops userinfo, query and fragment', () => {
    expect(parseUrl('https://pypi.org')).toEqual({ scheme: 'https', host: 'pypi.org', port: 443, path: '/' });
    expect(parseUrl('HTTP://User:pw@Example.COM.:8080/a/b?x=1#f')).toEqual({ scheme: 'http', host: 'example.com', port: 8080, path: '/a/b' });
    expect(parseUrl('https://[2001:db8::1]:8443/v2/')).toEqual({ scheme: 'https', host: '2001:db8::1', port: 8443, path: '/v2/' });
    expect(parseUrl('https://[::1]/x')).toEqual({ scheme: 'https', host: '::1', port: 443, path: '/x' });
    expect(parseUrl('https://h?q')).toEqual({ scheme: 'https', host: 'h', port: 443, path: '/' });
    expect(parseUrl('https://h:/x')).toEqual({ scheme: 'https', host: 'h', port: 443, path: '/x' });
    expect(parseUrl('ftp://h/x')).toEqual({ scheme: 'ftp', host: 'h', port: 0, path: '/x' });
    expect(parseUrl('https://h:99999/')).toBeUndefined();
    expect(parseUrl('https://h:8a/')).toBeUndefined();
    expect(parseUrl('https:///x')).toBeUndefined();
    expect(parseUrl('no-scheme')).toBeUndefined();
  });

  it('agrees with WHATWG URL on host, port and path for plain URLs', () => {
    // No `xn--` labels: WHATWG decodes punycode (and rejects bad punycode such as `xn--a`), while D4
    // compares raw hosts. Filtered in the generator, so every run checks what it generated.
    const label = fc.stringMatching(/^[a-z]([a-z0-9-]{0,6}[a-z0-9])?$/).filter((l) => !l.startsWith('xn--'));
    const arb = fc.tuple(fc.constantFrom('http', 'https'), fc.array(label, { minLength: 1, maxLength: 4 }), fc.option(fc.integer({ min: 1, max: 65535 }), { nil: undefined }), fc.array(fc.stringMatching(/^[a-z0-9._-]{0,6}$/).filter((seg) => seg !== '.' && seg !== '..'), { maxLength: 4 }), fc.boolean());
    fc.assert(fc.property(arb, ([scheme, labels, port, segs, query]) => {
      const text = `${scheme}://${labels.join('.')}${port ? `:${port}` : ''}${segs.length ? '/' + segs.join('/') : ''}${query ? '?a=/b' : ''}`;
      const ours = parseUrl(text)!;
      const ref = new URL(text);
      expect(ours.host).toBe(ref.hostname);
      expect(ours.port).toBe(ref.port === '' ? (scheme === 'https' ? 443 : 80) : Number(ref.port));
      expect(ours.path).toBe(ref.pathname);
    }), { numRuns: 2000 });
  });
});

describe('URL prefix coverage (D4)', () => {
  it('ends at a / boundary', () => {
    expect(pathCovers('/simple', '/simple')).toBe(true);
    expect(pathCovers('/simple', '/simple/x')).toBe(true);
    expect(pathCovers('/simple', '/simplex')).toBe(false);
    expect(pathCovers('/simple/', '/simple')).toBe(false);
    expect(pathCovers('/', '/anything')).toBe(true);
    expect(urlCovers(parseUrl('https://a.example/x')!, parseUrl('https://A.example:443/x/y?z')!)).toBe(true);
    expect(urlCovers(parseUrl('https://a.example/x')!, parseUrl('http://a.example/x/y')!)).toBe(false);
  });
});

describe('property tests report their seed', () => {
  it('a failing fc.assert names the seed and path that reproduce it (every property test here uses fc.assert)', () => {
    expect(() => fc.assert(fc.property(fc.integer(), (n) => n < 10), { seed: 42 })).toThrow(/seed: 42, path: "[\d:]+"/);
  });
});
