/**
 * How a workspace symbol query is read (`parseSymbolQuery`): an IP address or prefix, a URL, a
 * repository, a host name, or else text.
 */
import { type ParsedUrl } from '@netpolicy/core';
import { parseCidr, parseUrl } from '@netpolicy/core/internal';

/**
 * A longer query (after trimming) is answered with nothing: no host, URL or address is that long.
 * @public
 */
export const MAX_SYMBOL_QUERY_LENGTH = 2048;

/**
 * What a workspace symbol query asks for (`parseSymbolQuery`); `text` is the query trimmed.
 * @public
 */
export type SymbolQuery =
  /** The empty query (clients send it first): every rule, up to the bound. */
  | { kind: 'all'; text: string }
  /** An IP address or prefix: the connections whose CIDRs contain it. */
  | { kind: 'address'; text: string; version: 4 | 6; bytes: number[]; prefix: number }
  /** An `http(s)://` URL: the rules that permit a GET of it, then those that reach its host. */
  | { kind: 'url'; text: string; url: ParsedUrl }
  /**
   * A repository: `host/path` (over HTTPS or SSH, or an OCI repository), `git@host:path` or
   * `ssh://[user@]host[:port]/path` (over SSH).
   */
  | { kind: 'repository'; text: string; host: string; path: string; ssh: boolean; user?: string; port?: number }
  /** A host name: the rules that reach it (exactly named first, then by a wildcard). */
  | { kind: 'host'; text: string; host: string }
  /** Anything else: a substring of the rules' text. */
  | { kind: 'text'; text: string }
  /** Not a string, or longer than MAX_SYMBOL_QUERY_LENGTH: nothing. */
  | { kind: 'none'; text: string };

/**
 * How a workspace symbol query is read: an IP address or prefix (`10.1.2.3`, `2001:db8::1`,
 * `10.0.0.0/16`, `[2001:db8::1]`); an `http://` or `https://` URL; a repository (`git@host:path`,
 * `ssh://[user@]host[:port]/path`, or `host/path` with a dot in the host); a host name (one
 * trailing dot and case ignored); else text. Empty (or blank) is every rule.
 * @public
 */
export function parseSymbolQuery(query: unknown): SymbolQuery {
  if (typeof query !== 'string') return { kind: 'none', text: '' };
  const text = query.trim();
  if (text.length > MAX_SYMBOL_QUERY_LENGTH) return { kind: 'none', text };
  if (text === '') return { kind: 'all', text };
  const bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  const cidr = parseCidr(bare);
  if (cidr) return { kind: 'address', text, version: cidr.version, bytes: cidr.bytes, prefix: cidr.prefix };
  if (/^https?:\/\//i.test(text)) {
    const url = parseUrl(text);
    return url && url.host !== '' ? { kind: 'url', text, url } : { kind: 'text', text };
  }
  // ssh://[user@]host[:port]/path
  const ssh = /^ssh:\/\/(?:([^@/\s]+)@)?([^:/\s]+)(?::(\d{1,5}))?\/(.+)$/i.exec(text);
  if (ssh) {
    const host = hostOf(ssh[2]);
    const port = ssh[3] === undefined ? undefined : Number(ssh[3]);
    if (host && (port === undefined || (port >= 1 && port <= 65535))) return { kind: 'repository', text, host, path: ssh[4], ssh: true, ...(ssh[1] !== undefined ? { user: ssh[1] } : {}), ...(port !== undefined ? { port } : {}) };
    return { kind: 'text', text };
  }
  // user@host:path (scp-like, as git remotes are written)
  const scp = /^([^@/:\s]+)@([^:/\s]+):\/?([^\s]+)$/.exec(text);
  if (scp) {
    const host = hostOf(scp[2]);
    return host ? { kind: 'repository', text, host, path: scp[3], ssh: true, user: scp[1] } : { kind: 'text', text };
  }
  const slash = text.indexOf('/');
  if (slash > 0) {
    const host = hostOf(text.slice(0, slash));
    const path = text.slice(slash + 1).replace(/^\/+/, '');
    return host && host.includes('.') && path !== '' && !/\s/.test(path) ? { kind: 'repository', text, host, path, ssh: false } : { kind: 'text', text };
  }
  const host = hostOf(text);
  return host ? { kind: 'host', text, host } : { kind: 'text', text };
}

/** A host name (lower case, one trailing dot removed), or undefined when the text is not one (a wildcard pattern is not). */
function hostOf(text: string): string | undefined {
  const h = (text.endsWith('.') ? text.slice(0, -1) : text).toLowerCase();
  return /^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/.test(h) && !h.includes('..') ? h : undefined;
}

