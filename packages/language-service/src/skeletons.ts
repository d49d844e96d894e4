/**
 * Skeletons of each source and connection kind: the smallest valid rule of that kind, with
 * placeholder values a user types over. `snippetOf` turns one into an LSP snippet whose leaves
 * are tab stops. A test validates every skeleton against the schema.
 */
import type { ConnectionKind, SourceKind } from '@netpolicy/core';

/**
 * The smallest valid source of each kind, with placeholder values (example.com hosts).
 * @public
 */
export const SOURCE_SKELETONS: Record<SourceKind, Record<string, unknown>> = {
  pypi: { urls: ['https://pypi.example.com'] },
  npm: { urls: ['https://npm.example.com'] },
  rubygems: { urls: ['https://gems.example.com'] },
  apk: { urls: ['https://apk.example.com'] },
  golang: { urls: ['https://goproxy.example.com'] },
  nix: { urls: ['https://nix-cache.example.com'] },
  oci: { urls: ['https://registry.example.com'], repositoryPatterns: ['org/*'], operations: ['pull'] },
  git: { repositoryPatterns: ['org/*'], https: [{ baseUrl: 'https://git.example.com' }] },
  apt: { urls: ['https://deb.example.com/debian'] },
  cargo: { indexUrl: 'https://index.crates.example.com', downloadUrl: 'https://static.crates.example.com' },
};

/**
 * The smallest valid connection of each kind, with placeholder values (documentation addresses and example.com hosts).
 * @public
 */
export const CONNECTION_SKELETONS: Record<ConnectionKind, Record<string, unknown>> = {
  tls: { serverNamePatterns: ['api.example.com'], ports: [443] },
  tcp: { hostPatterns: ['db.example.com'], ports: [5432] },
  udp: { cidrs: ['192.0.2.0/24'], ports: [53] },
  icmp: { cidrs: ['192.0.2.0/24'] },
};

/** Ports people allow, with what usually runs there. */
export const COMMON_PORTS: ReadonlyArray<[number, string]> = [
  [443, 'HTTPS, TLS'], [80, 'HTTP'], [22, 'SSH (Git over SSH)'], [53, 'DNS'], [8443, 'HTTPS (alternate)'],
  [8080, 'HTTP (alternate)'], [9418, 'Git protocol'], [5432, 'PostgreSQL'], [3306, 'MySQL'], [6379, 'Redis'],
  [27017, 'MongoDB'], [11371, 'OpenPGP keyserver (HKP)'], [123, 'NTP'],
];

/** ALPN protocol ids (IANA registry) people meet in CI. */
export const COMMON_ALPN: ReadonlyArray<[string, string]> = [
  ['h2', 'HTTP/2 over TLS'], ['http/1.1', 'HTTP/1.1'], ['h3', 'HTTP/3'], ['acme-tls/1', 'ACME TLS-ALPN challenge'],
  ['postgresql', 'PostgreSQL direct TLS'], ['imap', 'IMAP'], ['smtp', 'SMTP'],
];

function escapeSnippet(text: string): string {
  return text.replace(/[\\$}]/g, (c) => `\\${c}`);
}

/**
 * A one-line snippet of `value` whose string and number leaves are tab stops, in order.
 * @public
 */
export function snippetOf(value: unknown, next: { n: number } = { n: 1 }): string {
  if (typeof value === 'string') return `"\${${next.n++}:${escapeSnippet(value)}}"`;
  if (typeof value === 'number') return `\${${next.n++}:${value}}`;
  if (Array.isArray(value)) return `[${value.map((v) => snippetOf(v, next)).join(', ')}]`;
  if (value && typeof value === 'object') {
    const members = Object.entries(value).map(([k, v]) => `${escapeSnippet(JSON.stringify(k))}: ${snippetOf(v, next)}`);
    return `{ ${members.join(', ')} }`;
  }
  return escapeSnippet(JSON.stringify(value));
}

/** A snippet as plain text, every placeholder accepted (for clients without snippet support). */
export function snippetToText(snippet: string): string {
  let out = '';
  for (let i = 0; i < snippet.length; i++) {
    const c = snippet[i];
    if (c === '\\' && i + 1 < snippet.length) { out += snippet[++i]; continue; }
    if (c === '$') {
      const rest = snippet.slice(i);
      const choice = /^\$\{\d+\|([^,|]*)[^}]*\|\}/.exec(rest);
      if (choice) { out += choice[1]; i += choice[0].length - 1; continue; }
      const placeholder = /^\$\{\d+:/.exec(rest);
      if (placeholder) {
        let depth = 1;
        let j = i + placeholder[0].length;
        let inner = '';
        for (; j < snippet.length; j++) {
          if (snippet[j] === '\\') { inner += snippet[j] + snippet[j + 1]; j++; continue; }
          if (snippet[j] === '{') depth++;
          if (snippet[j] === '}' && --depth === 0) break;
          inner += snippet[j];
        }
        out += snippetToText(inner);
        i = j;
        continue;
      }
      const tab = /^\$\d+|^\$\{\d+\}/.exec(rest);
      if (tab) { i += tab[0].length - 1; continue; }
    }
    out += c;
  }
  return out;
}
