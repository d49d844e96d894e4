/** What the evaluator decides about: one access, independent of the trace format. */
import { isKnownObservation, type AnyObservation } from '../trace/types';
import { withResolvedNames } from './host-names';
import { parseUrl } from './url';

/**
 * One network access as the evaluator sees it, whatever trace it came from (`accessOf` makes one
 * from an observation): an HTTP request, a TLS or plain TCP connection, or Git over SSH.
 * @public
 */
export type Access =
  | { kind: 'http'; method: string; url: string; remoteIp?: string }
  /** A TCP connection carrying TLS (the trace recorded a server name or offered ALPN). */
  | { kind: 'tls'; serverName?: string; alpn?: string[]; remoteIp?: string; port: number; hostnames?: string[] }
  /** A plain TCP connection. `hostnames`: names that resolved to the address (trace and DNS). */
  | { kind: 'tcp'; remoteIp?: string; port: number; hostnames?: string[] }
  | { kind: 'ssh'; host: string; port: number; user?: string; repositoryPath?: string };

/**
 * Whether a policy permits an access.
 * @public
 */
export type Verdict = 'allow' | 'deny';

/**
 * A policy's decision on one access: the verdict, the rule that decided it, and whether it is certain.
 * @public
 */
export interface Decision {
  verdict: Verdict;
  /** The deciding rule: `/sources/N`, `/connections/N`, `preset:<name>`, or `default`. */
  rule: string;
  /** False for a denial while an enabled preset is opaque (it might have permitted the access). */
  certain: boolean;
}

/**
 * The access an observation records, or undefined for DNS and unknown protocols (no verdict).
 * `resolvedNames` are names that DNS observations of the trace resolved to the remote address.
 * @public
 */
export function accessOf(observation: AnyObservation, resolvedNames?: readonly string[]): Access | undefined {
  // Narrowed to the known protocols (a discriminated union): no cast per protocol.
  const o = isKnownObservation(observation) ? observation : undefined;
  switch (o?.protocol) {
    case 'http':
      return { kind: 'http', method: o.method ?? 'GET', url: o.url, remoteIp: o.remoteIp };
    case 'tcp': {
      const hostnames = resolvedNames && resolvedNames.length ? withResolvedNames(o.hostnames, resolvedNames, true) : o.hostnames;
      if (o.serverName !== undefined || (o.alpn !== undefined && o.alpn.length > 0)) {
        return { kind: 'tls', serverName: o.serverName, alpn: o.alpn, remoteIp: o.remoteIp, port: o.remotePort, hostnames };
      }
      return { kind: 'tcp', remoteIp: o.remoteIp, port: o.remotePort, hostnames };
    }
    case 'ssh_git':
      return { kind: 'ssh', host: o.host, port: o.port, user: o.user, repositoryPath: o.repositoryPath };
    default:
      return undefined;
  }
}

/**
 * A short human description of an access: `GET https://x/y`, `tls x:443`, `ssh git@x:22 org/repo`.
 * @public
 */
export function describeAccess(a: Access): string {
  switch (a.kind) {
    case 'http': return `${a.method} ${a.url}`;
    case 'tls': return `tls ${a.serverName ?? a.remoteIp ?? '?'}:${a.port}${a.serverName === undefined && a.alpn?.length ? ` (alpn ${a.alpn.join(',')})` : ''}`;
    case 'tcp': return `tcp ${a.hostnames?.[0] ?? a.remoteIp ?? '?'}:${a.port}`;
    case 'ssh': return `ssh ${a.user ? `${a.user}@` : ''}${a.host}:${a.port}${a.repositoryPath ? ` ${a.repositoryPath}` : ''}`;
  }
}

/**
 * The host an access went to, parsed (never by splitting the description): a URL's host
 * (lower case, IPv6 in brackets), a TLS server name, a TCP connection's first name or address, an
 * SSH host. For grouping and showing; outside text, to be escaped where it is shown.
 * @internal
 */
export function accessHost(a: Access): string {
  switch (a.kind) {
    case 'http': {
      const u = parseUrl(a.url);
      if (!u) return a.remoteIp ?? '(unparsable URL)';
      return u.host.includes(':') ? `[${u.host}]` : u.host;
    }
    case 'tls': return a.serverName ?? a.remoteIp ?? '?';
    case 'tcp': return a.hostnames?.[0] ?? a.remoteIp ?? '?';
    case 'ssh': return a.host;
  }
}
