/**
 * Hover: the schema's description of a member; a preset's contents (or that it is opaque); a
 * CIDR's family, network, first and last address and exact size; what a host pattern matches
 * and does not; which requests a URL covers; what a whole rule permits under D4.
 *
 * Every value from outside (the policy's keys and values, a preset catalog's names, descriptions and
 * rules: workspace files) reaches the markdown through `code` (core's `markdownCode`: a span nothing
 * inside can close) or `escaped` (`markdownText`), never inside `**…**` (marked before 12 lets
 * a `*` in a wider span pair with it). VS Code renders hovers in Restricted Mode too.
 */
import { type PolicyDocument, type PresetEntry } from '@netpolicy/core';
import { formatAddress, markdownCode, markdownText, nodeAt, parseCidr, parseUrl, prefixSize, schemaAt, toPointer, valueAt } from '@netpolicy/core/internal';
import { scanLocation, scanMemo } from './location';
import { COMMON_PORTS } from './skeletons';
import { MarkupKind, type Hover, type Position } from 'vscode-languageserver-types';
import { offsetOf, rangeOf } from './ranges';
import { markdownToText, type ServiceSettings } from './settings';

const code = (s: unknown) => markdownCode(String(s));
const escaped = (s: unknown) => markdownText(String(s));
const list = (items: unknown, fallback: string) => (Array.isArray(items) && items.length > 0 ? items.map(code).join(', ') : fallback);

/**
 * A CIDR's facts: family, network, first and last address, exact size.
 * @public
 */
export function describeCidr(text: string): string | undefined {
  const cidr = parseCidr(text);
  if (!cidr) return undefined;
  const first = cidr.bytes.slice();
  const last = cidr.bytes.slice();
  for (let bit = cidr.prefix; bit < cidr.bytes.length * 8; bit++) {
    first[bit >> 3] &= ~(0x80 >> (bit & 7));
    last[bit >> 3] |= 0x80 >> (bit & 7);
  }
  const size = prefixSize(cidr);
  const lines = [
    `**${cidr.version === 4 ? 'IPv4' : 'IPv6'} ${cidr.explicitPrefix ? 'prefix' : 'address'}** ${code(`${formatAddress(first)}/${cidr.prefix}`)}`,
    '',
    `- first address: ${code(formatAddress(first))}`,
    `- last address: ${code(formatAddress(last))}`,
    `- size: ${BigInt(size).toLocaleString('en-US')} address${size === '1' ? '' : 'es'}`,
  ];
  if (formatAddress(first) !== formatAddress(cidr.bytes) && cidr.explicitPrefix) lines.push('', `Host bits are set: the network is ${code(`${formatAddress(first)}/${cidr.prefix}`)}.`);
  return lines.join('\n');
}

/**
 * What a host pattern matches and what it does not (apex vs `*.`).
 * @public
 */
export function describeHostPattern(pattern: string): string {
  if (pattern.startsWith('*.')) {
    const rest = pattern.slice(2);
    return `Matches any host name ending in ${code(`.${rest}`)} with one or more labels before it (${code(`a.${rest}`)}, ${code(`a.b.${rest}`)}), case-insensitive.\n\nDoes **not** match ${code(rest)} itself: add it separately if the job uses it.`;
  }
  return `Matches exactly ${code(pattern)} (case-insensitive, a trailing dot ignored).\n\nDoes **not** match its subdomains (${code(`a.${pattern}`)}): use ${code(`*.${pattern}`)} for those.`;
}

/**
 * Which requests a policy URL covers (D4's `/` boundary).
 * @public
 */
export function describeUrl(text: string): string | undefined {
  const u = parseUrl(text);
  if (!u || (u.scheme !== 'http' && u.scheme !== 'https')) return undefined;
  const base = u.path.endsWith('/') ? u.path : `${u.path}/`;
  const lines = [`Covers ${u.scheme.toUpperCase()} requests to host ${code(u.host)} on port ${u.port} whose path is ${u.path === '/' ? 'anything' : `${code(u.path)} or starts with ${code(base)}`}; query and fragment are ignored.`];
  if (u.path !== '/' && !u.path.endsWith('/')) lines.push('', `Not ${code(`${u.path}x`)}: a path matches only at a \`/\` boundary.`);
  if (u.scheme === 'http') lines.push('', 'Plain `http://` can be read and changed in transit: prefer `https://`.');
  return lines.join('\n');
}

function presetHover(preset: PresetEntry | undefined, name: string): string {
  if (!preset) return `Unknown preset ${code(name)} in the catalog in force.`;
  const lines = [`**preset** ${code(preset.name)}`];
  if (preset.description) lines.push('', escaped(preset.description));
  if (preset.opaque || !preset.known) {
    lines.push('', 'Contents unknown (opaque): a denial while it is enabled is reported as uncertain, since it might have permitted it. A preset catalog file can fill it in.');
  } else {
    lines.push('', 'Contents:');
    for (const s of preset.known.sources ?? []) lines.push(`- ${ruleSummaryMarkdown(s)}`);
    for (const c of preset.known.connections ?? []) lines.push(`- ${ruleSummaryMarkdown(c)}`);
  }
  return lines.join('\n');
}

/** A rule's kind, its first URL, host or CIDR, and how many more URLs it has. */
function ruleParts(rule: unknown): { kind: string; first?: unknown; more: string } {
  if (!rule || typeof rule !== 'object') return { kind: 'rule', more: '' };
  const [kind, body] = Object.entries(rule as Record<string, any>)[0] ?? [];
  if (!kind) return { kind: 'empty rule', more: '' };
  const b = (body ?? {}) as Record<string, any>;
  const first = b.urls?.[0] ?? b.indexUrl ?? b.https?.[0]?.baseUrl ?? b.ssh?.[0]?.host ?? b.serverNamePatterns?.[0] ?? b.hostPatterns?.[0] ?? b.cidrs?.[0];
  const more = (b.urls?.length ?? 0) > 1 ? ` (+${b.urls.length - 1})` : '';
  return { kind, first, more };
}

/**
 * A rule in one line: its kind and its first URL, host or CIDR.
 * @public
 */
export function ruleSummary(rule: unknown): string {
  const { kind, first, more } = ruleParts(rule);
  return first === undefined ? kind : `${kind} ${first}${more}`;
}

/** `ruleSummary` as markdown: a catalog's rule is outside text (its kind escaped, its target a code span). */
function ruleSummaryMarkdown(rule: unknown): string {
  const { kind, first, more } = ruleParts(rule);
  return first === undefined ? escaped(kind) : `${escaped(kind)} ${code(first)}${more}`;
}

/**
 * What a source or connection permits, in D4's words.
 * @public
 */
export function describePermits(kind: string, body: Record<string, any>): string {
  const repos = list(body.repositoryPatterns, 'any repository');
  const ports = (p: unknown) => list(p, 'any port');
  switch (kind) {
    case 'pypi': case 'npm': case 'rubygems': case 'apk': case 'golang': case 'nix': case 'apt':
      return `Permits HTTP requests (any method) to each URL and the paths below it: ${list(body.urls, '(none)')}; and TLS/TCP connections to those hosts on the URL's port (sources imply their connections).`;
    case 'cargo':
      return `Permits HTTP requests under the index ${code(body.indexUrl)} and the download location ${code(body.downloadUrl)}, and connections to their hosts on the URL's port.`;
    case 'oci': {
      const ops = Array.isArray(body.operations) ? body.operations : [];
      const methods = ops.map((o: string) => (o === 'pull' ? 'pull (GET, HEAD)' : o === 'push' ? 'push (POST, PUT, PATCH)' : o === 'delete' ? 'delete (DELETE)' : code(o)));
      return `Permits registry API requests (\`/v2/<name>/manifests|blobs|tags|referrers/…\`, and \`/v2/\` itself) under ${list(body.urls, '(none)')} for repositories matching ${repos}; operations: ${methods.join(', ') || '(none)'}.`;
    }
    case 'git': {
      const https = Array.isArray(body.https) ? body.https.map((h: any) => h?.baseUrl) : [];
      const ssh = Array.isArray(body.ssh) ? body.ssh.map((s: any) => `${s?.user ? `${s.user}@` : ''}${s?.host}:${s?.port}`) : [];
      return `Permits Git over smart HTTPS under ${list(https, '(no HTTPS base URL)')} and over SSH to ${list(ssh, '(no SSH transport)')}, for repositories matching ${repos}.`;
    }
    case 'tls':
      return `Permits TLS connections whose server name matches ${list(body.serverNamePatterns, 'any name')}, address in ${list(body.cidrs, 'any address')}, port in ${ports(body.ports)}${Array.isArray(body.alpn) && body.alpn.length ? `, offering one of ALPN ${list(body.alpn, '')}` : ''}; also \`https\` requests to those names${Array.isArray(body.alpn) && body.alpn.length ? ' (not with `alpn` stated: a request records no ALPN)' : ''}. Every criterion stated must match.`;
    case 'tcp':
      return `Permits TCP connections (and whatever runs over them: TLS, HTTP) to hosts matching ${list(body.hostPatterns, 'any name')}, addresses in ${list(body.cidrs, 'any address')}, on ${ports(body.ports)}. Every criterion stated must match.`;
    case 'udp': case 'icmp':
      return `Validated and linted, never matched: traces record no ${kind.toUpperCase()} observations.`;
    default:
      return '';
  }
}

/**
 * The hover at a position: a member's description, a preset's contents, what a URL, host pattern, CIDR or whole rule covers; null when there is nothing to say.
 * @public
 */
export function doHover(doc: PolicyDocument, position: Position, settings: ServiceSettings): Hover | null {
  if (!position || !(position.line >= 0) || !(position.character >= 0) || position.line > doc.lineIndex.positionAt(doc.text.length).line) return null;
  const offset = offsetOf(doc, position);
  // Keys and scalars from one scan of the text before the cursor; anything else from the tree.
  const fast = scanLocation(doc.text, offset, scanMemo(doc, doc.text, doc.fileName));
  let at: { path: Array<string | number>; pointer: string; isKey: boolean; node: { type: string; value?: unknown; offset: number; length: number } } | undefined;
  if (fast?.token) {
    const t = fast.token;
    at = { path: fast.path, pointer: toPointer(fast.path), isKey: t.isKey, node: { type: typeof t.value === 'string' ? 'string' : 'other', value: t.value, offset: t.offset, length: t.length } };
  } else at = nodeAt(doc, offset);
  if (!at) return null;
  const { path, node, isKey } = at;
  const range = rangeOf(doc, node.offset, node.length);
  const markdown = (value: string): Hover => (settings.client?.hoverMarkdown === false
    ? { contents: { kind: MarkupKind.PlainText, value: markdownToText(value) }, range }
    : { contents: { kind: MarkupKind.Markdown, value }, range });
  const schema = schemaAt(at.pointer, settings.catalog);
  const description = typeof schema?.description === 'string' ? schema.description : undefined;

  if (isKey) {
    const parts = [code(path[path.length - 1])];
    if (description) parts.push('', description);
    if (path.length === 3 && (path[0] === 'sources' || path[0] === 'connections')) {
      const body = valueAt(doc.value, at.pointer);
      if (body && typeof body === 'object') parts.push('', describePermits(String(path[2]), body as Record<string, any>));
    }
    return schema || parts.length > 1 ? markdown(parts.join('\n')) : null;
  }
  if (node.type === 'string' && typeof node.value === 'string') {
    const value: string = node.value;
    const key = typeof path[path.length - 1] === 'number' ? path[path.length - 2] : path[path.length - 1];
    if (path[0] === 'presets' && path.length === 2) return markdown(presetHover(settings.catalog.byName.get(value), value));
    if (key === 'cidrs') { const d = describeCidr(value); if (d) return markdown(d); }
    if (key === 'serverNamePatterns' || key === 'hostPatterns' || (key === 'host' && path.includes('ssh'))) return markdown(describeHostPattern(value));
    if (key === 'urls' || key === 'indexUrl' || key === 'downloadUrl' || key === 'baseUrl') { const d = describeUrl(value); if (d) return markdown(d); }
  }
  if (typeof node.value === 'number') {
    const key = typeof path[path.length - 1] === 'number' ? path[path.length - 2] : path[path.length - 1];
    if (key === 'ports' || key === 'port') {
      const known = COMMON_PORTS.find(([p]) => p === node.value);
      return markdown(`Port ${node.value}${known ? `: usually ${known[1]}` : ''}.${description ? `\n\n${description}` : ''}`);
    }
  }
  return description ? markdown(description) : null;
}
