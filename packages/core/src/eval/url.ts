/** URLs as the evaluation model sees them (decisions.md D4, "URL prefix"). Hand-written: no URL normalisation. */
import { normaliseHost } from '../formats/host-pattern';

/**
 * A URL split as the evaluation model compares URLs (`parseUrl`): no other normalisation than case and the default port.
 * @public
 */
export interface ParsedUrl {
  /** Lower-case scheme. */
  scheme: string;
  /** Lower-case host, one trailing dot removed, IPv6 without brackets. */
  host: string;
  /** Explicit port, else 443 for https and 80 for http (0 for other schemes). */
  port: number;
  /** Path, always starting with `/`; query and fragment removed. */
  path: string;
}

/** The port a URL of this scheme means when it names none: 443 for https, 80 for http, 0 otherwise. */
export function defaultPort(scheme: string): number {
  return scheme === 'https' ? 443 : scheme === 'http' ? 80 : 0;
}

function hasUpperOrTrailingDot(host: string): boolean {
  if (host.charCodeAt(host.length - 1) === 46) return true;
  for (let i = 0; i < host.length; i++) {
    const c = host.charCodeAt(i);
    if (c >= 65 && c <= 90) return true;
  }
  return false;
}

/** normaliseHost without allocating when the name is already lower case without a trailing dot. */
export function normaliseHostFast(host: string): string {
  return hasUpperOrTrailingDot(host) ? normaliseHost(host) : host;
}

/**
 * An authority longer than this is found by native searches (a host may be 100 MB long: check
 * must stay fast on it); a shorter one, every host of a trace, by one scan of its characters.
 */
const SCANNED_AUTHORITY = 256;

/**
 * Parses `scheme://[userinfo@]host[:port][/path][?query][#fragment]`; undefined when it is not a URL.
 * Runs once per request of a trace: the scheme is compared character by character and a short
 * authority is read in one scan (its end, last `@`, last `:`), so a request costs two native
 * searches (the path's `?` and `#`) instead of six (profile of explain --only denied: parseUrl
 * was 5% of the run). Held to the former all-native version by url.test.ts.
 * @internal
 */
export function parseUrl(text: string): ParsedUrl | undefined {
  const n = text.length;
  let scheme: string;
  let start: number;
  // Fast paths for the two schemes traces are made of.
  if (n >= 8 && text.charCodeAt(0) === 104 && text.charCodeAt(1) === 116 && text.charCodeAt(2) === 116 && text.charCodeAt(3) === 112 && text.charCodeAt(4) === 115 && text.charCodeAt(5) === 58 && text.charCodeAt(6) === 47 && text.charCodeAt(7) === 47) { scheme = 'https'; start = 8; }
  else if (n >= 7 && text.charCodeAt(0) === 104 && text.charCodeAt(1) === 116 && text.charCodeAt(2) === 116 && text.charCodeAt(3) === 112 && text.charCodeAt(4) === 58 && text.charCodeAt(5) === 47 && text.charCodeAt(6) === 47) { scheme = 'http'; start = 7; }
  else {
    const sep = text.indexOf('://');
    if (sep <= 0) return undefined;
    scheme = text.slice(0, sep).toLowerCase();
    start = sep + 3;
  }
  // The authority ends at the first `/`, `?` or `#`; userinfo ends at its last `@`, the port
  // starts after the last `:`.
  let end = -1, at = -1, colonAt = -1;
  const limit = Math.min(n, start + SCANNED_AUTHORITY);
  let i = start;
  for (; i < limit; i++) {
    const c = text.charCodeAt(i);
    if (c === 47 || c === 63 || c === 35) { end = i; break; }
    if (c === 64) at = i;
    else if (c === 58) colonAt = i;
  }
  if (end < 0) {
    if (i >= n) end = n;
    else {
      // A long authority: native searches, as many characters as there are.
      end = n;
      for (const ch of ['/', '?', '#']) {
        const k = text.indexOf(ch, start);
        if (k >= 0 && k < end) end = k;
      }
      at = end > start ? text.lastIndexOf('@', end - 1) : -1;
      colonAt = end > start ? text.lastIndexOf(':', end - 1) : -1;
    }
  }
  const hostStart = at >= start ? at + 1 : start;
  const colon = colonAt >= hostStart ? colonAt : -1;
  const bracket = text.charCodeAt(hostStart) === 91;
  let host: string;
  let portText: string | undefined;
  if (bracket) {
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
  // A name over 253 characters is no host name: normalised without a scan for upper case (it may be huge).
  if (host.length > 253 || hasUpperOrTrailingDot(host)) {
    host = normaliseHost(host);
    if (host.length === 0) return undefined;
  }
  let port = defaultPort(scheme);
  if (portText !== undefined && portText.length > 0) {
    if (portText.length > 5) return undefined;
    let value = 0;
    for (let k = 0; k < portText.length; k++) {
      const c = portText.charCodeAt(k);
      if (c < 48 || c > 57) return undefined;
      value = value * 10 + (c - 48);
    }
    if (value > 65535) return undefined;
    port = value;
  }
  if (end >= n || text.charCodeAt(end) !== 47) return { scheme, host, port, path: '/' };
  // The path ends at the first `?` or `#` after it.
  const query = text.indexOf('?', end);
  const fragment = text.indexOf('#', end);
  let pathEnd = query >= 0 ? query : n;
  if (fragment >= 0 && fragment < pathEnd) pathEnd = fragment;
  return { scheme, host, port, path: text.slice(end, pathEnd) };
}

/**
 * A URL in the policy format (the service's rule, docs/decisions.md D3): `^https?://[^/?#@]+(/[^?#]*)?$`, checked by a scan.
 * Such a URL parses with `parseUrl` unless its port is not a number (then it permits nothing).
 */
export function isPolicyUrl(text: string): boolean {
  const start = text.startsWith('https://') ? 8 : text.startsWith('http://') ? 7 : -1;
  if (start < 0) return false;
  // Native searches (a URL may be 100 MB long): no `?` or `#` anywhere, no `@` before the path.
  const slash = text.indexOf('/', start);
  if (slash === start || text.length === start) return false;
  const at = text.indexOf('@', start);
  return (at < 0 || (slash >= 0 && at > slash)) && text.indexOf('?', start) < 0 && text.indexOf('#', start) < 0;
}

/** The origin as a policy URL: `scheme://host` with the port only when it is not the default. */
export function originUrl(u: ParsedUrl): string {
  const host = u.host.includes(':') ? `[${u.host}]` : u.host;
  return `${u.scheme}://${host}${u.port === defaultPort(u.scheme) ? '' : `:${u.port}`}`;
}

/** D4: the rule path is a prefix of the request path ending at a `/` boundary. */
export function pathCovers(rulePath: string, requestPath: string): boolean {
  if (!requestPath.startsWith(rulePath)) return false;
  return rulePath.endsWith('/') || requestPath.length === rulePath.length || requestPath.charCodeAt(rulePath.length) === 47;
}

/** Does rule URL `rule` cover request URL `request` (D4)? */
export function urlCovers(rule: ParsedUrl, request: ParsedUrl): boolean {
  return rule.scheme === request.scheme && rule.host === request.host && rule.port === request.port && pathCovers(rule.path, request.path);
}
