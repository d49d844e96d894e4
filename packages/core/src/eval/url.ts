/** URLs as the evaluation model sees them (decisions.md D4, "URL prefix"). Hand-written: no URL normalisation. */
import { normaliseHost } from '../formats/host-pattern';

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

/** Parses `scheme://[userinfo@]host[:port][/path][?query][#fragment]`; undefined when it is not a URL. */
export function parseUrl(text: string): ParsedUrl | undefined {
  let scheme: string;
  let start: number;
  // Fast paths for the two schemes traces are made of.
  if (text.startsWith('https://')) { scheme = 'https'; start = 8; }
  else if (text.startsWith('http://')) { scheme = 'http'; start = 7; }
  else {
    const sep = text.indexOf('://');
    if (sep <= 0) return undefined;
    scheme = text.slice(0, sep).toLowerCase();
    start = sep + 3;
  }
  const n = text.length;
  // The authority ends at the first `/`, `?` or `#`. Native searches, not a character loop: a host
  // may be 100 MB long (check must stay fast on it), and `?`/`#` positions are reused for the path.
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
  // A name over 253 characters is no host name: normalised without a regex scan (it may be huge).
  if (host.length > 253 || hasUpperOrTrailingDot(host)) {
    host = normaliseHost(host);
    if (host.length === 0) return undefined;
  }
  let port = defaultPort(scheme);
  if (portText !== undefined && portText.length > 0) {
    if (portText.length > 5) return undefined;
    let value = 0;
    for (let i = 0; i < portText.length; i++) {
      const c = portText.charCodeAt(i);
      if (c < 48 || c > 57) return undefined;
      value = value * 10 + (c - 48);
    }
    if (value > 65535) return undefined;
    port = value;
  }
  if (end >= n || text.charCodeAt(end) !== 47) return { scheme, host, port, path: '/' };
  // The path ends at the first `?` or `#` (both after `end` here).
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
