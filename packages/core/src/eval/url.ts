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

/** Parses `scheme://[userinfo@]host[:port][/path][?query][#fragment]`; undefined when it is not a URL. */
export function parseUrl(text: string): ParsedUrl | undefined {
  const sep = text.indexOf('://');
  if (sep <= 0) return undefined;
  const scheme = text.slice(0, sep).toLowerCase();
  const start = sep + 3;
  let end = start;
  const n = text.length;
  while (end < n) {
    const c = text.charCodeAt(end);
    if (c === 47 || c === 63 || c === 35) break;
    end++;
  }
  let authority = text.slice(start, end);
  const at = authority.lastIndexOf('@');
  if (at >= 0) authority = authority.slice(at + 1);
  let host: string;
  let portText: string | undefined;
  if (authority.charCodeAt(0) === 91) {
    const close = authority.indexOf(']');
    if (close < 0) return undefined;
    host = authority.slice(1, close);
    const after = authority.slice(close + 1);
    if (after.length > 0) {
      if (after[0] !== ':') return undefined;
      portText = after.slice(1);
    }
  } else {
    const colon = authority.lastIndexOf(':');
    if (colon >= 0) {
      host = authority.slice(0, colon);
      portText = authority.slice(colon + 1);
    } else host = authority;
  }
  host = normaliseHost(host);
  if (host.length === 0) return undefined;
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
  let pathEnd = end;
  while (pathEnd < n) {
    const c = text.charCodeAt(pathEnd);
    if (c === 63 || c === 35) break;
    pathEnd++;
  }
  const path = pathEnd > end && text.charCodeAt(end) === 47 ? text.slice(end, pathEnd) : '/';
  return { scheme, host, port, path };
}

/** `scheme://host:port`, the key URLs are grouped by. */
export function originKey(u: ParsedUrl): string {
  return `${u.scheme}://${u.host}:${u.port}`;
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
