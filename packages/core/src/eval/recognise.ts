/**
 * Recognising software sources from what a job did (URL shapes, SSH commands), shared by the
 * explainer's `fix` and by `suggest`. Prefers presets, then ecosystem sources, then narrow connections.
 */
import { isHostPattern, unmatchableHostProblem } from '../formats/host-pattern';
import { isRepositoryPattern } from '../formats/repository-pattern';
import { parseAddress } from '../formats/ip';
import type { Connection, Source } from '../policy/types';
import type { Access } from './access';
import { gitRepository, ociOperation, ociRepository } from './rules';
import { originUrl, parseUrl, type ParsedUrl } from './url';

/** A repository path as a literal repository pattern (leading `/` and trailing `.git` dropped), if it can be one. */
export function literalRepositoryPattern(path: string | undefined): string | undefined {
  if (path === undefined) return undefined;
  let p = path;
  while (p.startsWith('/')) p = p.slice(1);
  while (p.endsWith('/')) p = p.slice(0, -1);
  if (p.toLowerCase().endsWith('.git')) p = p.slice(0, -4);
  return p.length > 0 && !p.includes('*') && isRepositoryPattern(p) ? p : undefined;
}

export function isGitSmartHttpPath(path: string): boolean {
  return path.includes('/info/refs') || path.endsWith('/git-upload-pack') || path.endsWith('/git-receive-pack');
}

/** The ecosystem a URL's shape belongs to, if any. */
export function ecosystemOf(url: ParsedUrl): 'oci' | 'git' | 'pypi' | 'npm' | 'golang' | 'apt' | 'apk' | 'rubygems' | 'nix' | undefined {
  const p = url.path;
  if (ociRepository(p) !== undefined) return 'oci';
  if (isGitSmartHttpPath(p)) return 'git';
  if (p === '/simple' || p.startsWith('/simple/') || (p.startsWith('/packages/') && /\.(whl|tar\.gz|zip|egg)$/.test(p)) || p.startsWith('/pypi/')) return 'pypi';
  if (/\/-\/[^/]+\.tgz$/.test(p)) return 'npm';
  if (p.includes('/@v/') || p.endsWith('/@latest')) return 'golang';
  if (p.includes('/dists/') || p.includes('/pool/')) return 'apt';
  if (p.endsWith('/APKINDEX.tar.gz') || p.endsWith('.apk')) return 'apk';
  if ((p.startsWith('/gems/') && p.endsWith('.gem')) || p.startsWith('/api/v1/dependencies') || p.startsWith('/quick/')) return 'rubygems';
  if (p.endsWith('.narinfo') || p.startsWith('/nar/') || p === '/nix-cache-info') return 'nix';
  return undefined;
}

/** An ecosystem source that permits this one HTTP request, when its URL has a recognised shape. */
export function sourceForRequest(url: ParsedUrl, method: string): Source | undefined {
  const origin = originUrl(url);
  switch (ecosystemOf(url)) {
    case 'oci': {
      const name = ociRepository(url.path)!;
      const op = ociOperation(method);
      if (!op) return undefined;
      const pattern = name === '' ? undefined : literalRepositoryPattern(name);
      const oci: { urls: string[]; repositoryPatterns?: string[]; operations?: string[] } = { urls: [origin] };
      if (pattern) oci.repositoryPatterns = [pattern];
      oci.operations = [op];
      return { oci } as Source;
    }
    case 'git': {
      const pattern = literalRepositoryPattern(gitRepository('/', url.path));
      const git: { repositoryPatterns?: string[]; https?: { baseUrl: string }[] } = {};
      if (pattern) git.repositoryPatterns = [pattern];
      git.https = [{ baseUrl: origin }];
      return { git } as Source;
    }
    case undefined: return undefined;
    case 'pypi': return { pypi: { urls: [origin] } };
    case 'npm': return { npm: { urls: [origin] } };
    case 'golang': return { golang: { urls: [origin] } };
    case 'apt': return { apt: { urls: [origin] } };
    case 'apk': return { apk: { urls: [origin] } };
    case 'rubygems': return { rubygems: { urls: [origin] } };
    case 'nix': return { nix: { urls: [origin] } };
  }
}

function isIp(text: string): boolean {
  // Host names rarely start with a digit; skip the (throwing) address parser for them.
  const c = text.charCodeAt(0);
  if (!(c >= 48 && c <= 57) && !text.includes(':')) return false;
  return parseAddress(text) !== undefined;
}

function nameOrCidr(name: string | undefined, ip: string | undefined): { names?: string[]; cidrs?: string[] } | undefined {
  if (name !== undefined && !isIp(name) && isHostPattern(name)) return { names: [name.toLowerCase().replace(/\.$/, '')] };
  const address = name !== undefined && isIp(name) ? name : ip;
  if (address !== undefined && isIp(address)) return { cidrs: [address] };
  return undefined;
}

/**
 * `{ <names member>: names, ports }` or `{ cidrs, ports }`, written member by member (a spread
 * followed by members costs V8 microseconds per object, and this runs once per denied destination).
 */
function connectionBody(namesMember: 'serverNamePatterns' | 'hostPatterns', t: { names?: string[]; cidrs?: string[] }, port: number): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  if (t.names) body[namesMember] = t.names;
  else body.cidrs = t.cidrs;
  body.ports = [port];
  return body;
}

/**
 * The narrowest connection rule that permits an access (undefined when the trace gives no target).
 * `parsed`: an http access's URL already parsed (null when it does not parse), else parsed here.
 */
export function connectionFor(a: Access, parsed?: ParsedUrl | null): Connection | undefined {
  if (a.kind === 'http') {
    const url = parsed === undefined ? parseUrl(a.url) : parsed;
    if (!url) return undefined;
    const t = nameOrCidr(url.host, a.remoteIp);
    if (!t) return undefined;
    return (url.scheme === 'https' ? { tls: connectionBody('serverNamePatterns', t, url.port) } : { tcp: connectionBody('hostPatterns', t, url.port) }) as Connection;
  }
  if (a.kind === 'tls') {
    const t = nameOrCidr(a.serverName, a.remoteIp);
    if (!t) return undefined;
    if (t.names) return { tls: { serverNamePatterns: t.names, ports: [a.port] } };
    return { tls: { cidrs: t.cidrs, ports: [a.port] } };
  }
  if (a.kind === 'tcp') {
    // A name no rule can match (D3's length and label limits) is passed over: the address instead.
    const name = (a.hostnames ?? []).find((n) => { const h = n.replace(/\.$/, ''); return !isIp(n) && isHostPattern(h) && unmatchableHostProblem(h) === undefined; });
    const t = nameOrCidr(name, a.remoteIp);
    if (!t) return undefined;
    return { tcp: connectionBody('hostPatterns', t, a.port) } as Connection;
  }
  return undefined;
}

/** The git source that permits an SSH git command. */
export function sourceForSsh(a: Extract<Access, { kind: 'ssh' }>): Source | undefined {
  const host = a.host.toLowerCase().replace(/\.$/, '');
  if (!isHostPattern(host)) return undefined;
  const pattern = literalRepositoryPattern(a.repositoryPath);
  const transport: { host: string; port: number; user?: string } = { host, port: a.port };
  if (a.user !== undefined) transport.user = a.user;
  const git: { repositoryPatterns?: string[]; ssh?: (typeof transport)[] } = {};
  if (pattern) git.repositoryPatterns = [pattern];
  git.ssh = [transport];
  return { git } as Source;
}
