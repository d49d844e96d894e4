import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { defaultPort, parseUrl, pathCovers, urlCovers, type ParsedUrl } from './url';
import { normaliseHost } from '../formats/host-pattern';
import { cpuMs } from '../../../../test-support/cpu-time';

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

/**
 * The reference of the fast path: parseUrl as it was before its authority was read in one scan
 * (native searches for every delimiter).
 */
function parseUrlNative(text: string): ParsedUrl | undefined {
  let scheme: string;
  let start: number;
  if (text.startsWith('https://')) { scheme = 'https'; start = 8; }
  else if (text.startsWith('http://')) { scheme = 'http'; start = 7; }
  else {
    const sep = text.indexOf('://');
    if (sep <= 0) return undefined;
    scheme = text.slice(0, sep).toLowerCase();
    start = sep + 3;
  }
  const n = text.length;
  const query = text.indexOf('?', start);
  const fragment = text.indexOf('#', start);
  let end = text.indexOf('/', start);
  if (end < 0) end = n;
  if (query >= 0 && query < end) end = query;
  if (fragment >= 0 && fragment < end) end = fragment;
  const at = end > start ? text.lastIndexOf('@', end - 1) : -1;
  const hostStart = at >= start ? at + 1 : start;
  const colonAt = end > hostStart ? text.lastIndexOf(':', end - 1) : -1;
  const colon = colonAt >= hostStart ? colonAt : -1;
  let host: string;
  let portText: string | undefined;
  if (text.charCodeAt(hostStart) === 91) {
    const close = text.indexOf(']', hostStart);
    if (close < 0 || close >= end) return undefined;
    host = text.slice(hostStart + 1, close);
    if (close + 1 < end) {
      if (text.charCodeAt(close + 1) !== 58) return undefined;
      portText = text.slice(close + 2, end);
    }
  } else if (colon > hostStart) {
    host = text.slice(hostStart, colon);
    portText = text.slice(colon + 1, end);
  } else host = text.slice(hostStart, end);
  if (host.length === 0) return undefined;
  if (host.length > 253 || host.charCodeAt(host.length - 1) === 46 || /[A-Z]/.test(host)) {
    host = normaliseHost(host);
    if (host.length === 0) return undefined;
  }
  let port = defaultPort(scheme);
  if (portText !== undefined && portText.length > 0) {
    if (!/^[0-9]{1,5}$/.test(portText) || Number(portText) > 65535) return undefined;
    port = Number(portText);
  }
  if (end >= n || text.charCodeAt(end) !== 47) return { scheme, host, port, path: '/' };
  let pathEnd = query >= 0 ? query : n;
  if (fragment >= 0 && fragment < pathEnd) pathEnd = fragment;
  return { scheme, host, port, path: text.slice(end, pathEnd) };
}

describe('parseUrl against its reference', () => {
  // Texts made of the characters that delimit a URL, so every branch (userinfo, brackets, ports,
  // empty parts, query before path, long authorities) is reached often.
  const piece = fc.constantFrom('https://', 'http://', 'HTTP://', 'ftp://', '://', 'h', 'A', 'example.', 'com', '.', ':', ':80', ':99999', ':8a', '@', 'u:p@', '[', ']', '[::1]', '/', '//', '?', '#', 'x', '-', '%40', 'é');
  const text = fc.array(piece, { maxLength: 14 }).map((parts) => parts.join(''));
  const long = fc.tuple(fc.constantFrom('https://', 'http://', 'x://'), fc.nat(600), fc.constantFrom('', '@h', ':1', ':', '/p?q#f', '?q', '#f', 'A.')).map(([s, k, tail]) => `${s}${'a'.repeat(k)}${tail}`);

  it('gives the same parts as the native-search version on any text', () => {
    fc.assert(fc.property(fc.oneof(text, text.map((t) => `https://${t}`), text.map((t) => `http://${t}`), long, fc.string()), (t) => {
      expect(parseUrl(t)).toEqual(parseUrlNative(t));
    }), { numRuns: 5000 });
  });

  it('a 10 MB host is read by native searches, quickly', () => {
    const big = `https://${'a'.repeat(10_000_000)}:8080/x?y`;
    const { ms } = cpuMs(() => expect(parseUrl(big)).toEqual(parseUrlNative(big)));
    expect(ms).toBeLessThan(5000); // CPU time; catches a character loop over the whole host, not a benchmark
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
