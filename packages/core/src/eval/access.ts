/** What the evaluator decides about: one access, independent of the trace format. */
import type { AnyObservation } from '../trace/types';

export type Access =
  | { kind: 'http'; method: string; url: string; remoteIp?: string }
  /** A TCP connection carrying TLS (the trace recorded a server name or offered ALPN). */
  | { kind: 'tls'; serverName?: string; alpn?: string[]; remoteIp?: string; port: number; hostnames?: string[] }
  /** A plain TCP connection. `hostnames`: names that resolved to the address (trace and DNS). */
  | { kind: 'tcp'; remoteIp?: string; port: number; hostnames?: string[] }
  | { kind: 'ssh'; host: string; port: number; user?: string; repositoryPath?: string };

export type Verdict = 'allow' | 'deny';

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
 */
export function accessOf(o: AnyObservation, resolvedNames?: readonly string[]): Access | undefined {
  switch (o.protocol) {
    case 'http': {
      const h = o as Extract<AnyObservation, { protocol: 'http' }>;
      return { kind: 'http', method: h.method ?? 'GET', url: h.url, remoteIp: h.remoteIp };
    }
    case 'tcp': {
      const t = o as Extract<AnyObservation, { protocol: 'tcp' }>;
      let hostnames = t.hostnames;
      if (resolvedNames && resolvedNames.length) hostnames = hostnames ? [...hostnames, ...resolvedNames] : resolvedNames.slice();
      if (t.serverName !== undefined || (t.alpn !== undefined && t.alpn.length > 0)) {
        return { kind: 'tls', serverName: t.serverName, alpn: t.alpn, remoteIp: t.remoteIp, port: t.remotePort, hostnames };
      }
      return { kind: 'tcp', remoteIp: t.remoteIp, port: t.remotePort, hostnames };
    }
    case 'ssh_git': {
      const s = o as Extract<AnyObservation, { protocol: 'ssh_git' }>;
      return { kind: 'ssh', host: s.host, port: s.port, user: s.user, repositoryPath: s.repositoryPath };
    }
    default:
      return undefined;
  }
}

/** A short human description of an access: `GET https://x/y`, `tls x:443`, `ssh git@x:22 org/repo`. */
export function describeAccess(a: Access): string {
  switch (a.kind) {
    case 'http': return `${a.method} ${a.url}`;
    case 'tls': return `tls ${a.serverName ?? a.remoteIp ?? '?'}:${a.port}${a.serverName === undefined && a.alpn?.length ? ` (alpn ${a.alpn.join(',')})` : ''}`;
    case 'tcp': return `tcp ${a.hostnames?.[0] ?? a.remoteIp ?? '?'}:${a.port}`;
    case 'ssh': return `ssh ${a.user ? `${a.user}@` : ''}${a.host}:${a.port}${a.repositoryPath ? ` ${a.repositoryPath}` : ''}`;
  }
}
