/**
 * What a workspace symbol shows: a rule's kind and what matched of it (`symbolName`), from the rule
 * read again at the query (its item parsed from the file's text, read by core; through the index's
 * cache of them), and the text a preset is matched by.
 */
import { CompiledPolicy, escapeIcons, matchHostPattern, parsePolicyDocument, type ParsedUrl, type Policy, type PolicyRules, type PresetCatalog } from '@netpolicy/core';
import { clipped, itemRules, parseCidr, policyRules, readConnection, type ParsedCidr } from '@netpolicy/core/internal';
import type { SymbolQuery } from './symbol-query';
import { BUILT_IN, cidrKey, isObject, type FileIndex, type IndexState } from './workspace-symbol-index';

/** A match: its file, rule, rank, how specific it is (a CIDR's prefix) and what matched, when known. */
export interface Found {
  file: FileIndex;
  order: number;
  rank: number;
  specific: number;
  /** The host or CIDR key that matched (names show the rule's part that holds it). */
  host?: string;
  cidr?: { version: number; bytes: readonly number[]; prefix: number };
}

/** A preset's name and what it permits, lower case, for the text match (once per catalog). */
const presetTexts = new WeakMap<object, Map<string, string>>();
export function presetText(catalog: PresetCatalog | undefined, name: string): string {
  let texts = presetTexts.get(catalog ?? BUILT_IN);
  if (!texts) presetTexts.set(catalog ?? BUILT_IN, (texts = new Map()));
  let text = texts.get(name);
  if (text === undefined) {
    const read = policyRules({ presets: [name] } as Policy, { catalog });
    text = [`preset ${name}`, ...read.urls.map((e) => urlText(e.url)), ...read.ssh.map((e) => e.host), ...read.conns.flatMap((e) => [...(e.names ?? []), ...(e.rawCidrs ?? [])])].join(' ').toLowerCase();
    texts.set(name, text);
  }
  return text;
}

/** Something per rule of the index, for one query (by file, then order: no key to make). */
export class PerRule<T> {
  private readonly byFile = new Map<FileIndex, Map<number, T>>();
  size = 0;

  get(file: FileIndex, order: number): T | undefined {
    return this.byFile.get(file)?.get(order);
  }

  has(file: FileIndex, order: number): boolean {
    return this.byFile.get(file)?.has(order) ?? false;
  }

  set(file: FileIndex, order: number, value: T): void {
    let m = this.byFile.get(file);
    if (!m) this.byFile.set(file, (m = new Map()));
    if (!m.has(order)) this.size++;
    m.set(order, value);
  }

  values(): T[] {
    return [...this.byFile.values()].flatMap((m) => [...m.values()]);
  }
}

/** Rule items parsed from their text and read by core, for one query (through the index's cache of them). */
export class ItemCache {
  private readonly entries = new PerRule<{ value: unknown; rules?: PolicyRules }>();

  constructor(private readonly index: IndexState) {}

  private entry(file: FileIndex, order: number): { value: unknown; rules?: PolicyRules } {
    let e = this.entries.get(file, order);
    if (e) return e;
    const start = file.spans[order * 2], end = file.spans[order * 2 + 1];
    const text = start >= 0 ? file.text.slice(start, end) : '';
    e = this.index.reads.get(text);
    if (!e) {
      let value: unknown;
      if (start >= 0) {
        try {
          value = JSON.parse(text);
        } catch {
          // JSONC (comments, trailing commas) or a document with syntax errors: the tolerant parser.
          value = parsePolicyDocument(text, { jsonc: true }).value;
        }
      }
      this.index.reads.set(text, (e = { value }));
    }
    this.entries.set(file, order, e);
    return e;
  }

  /** The rule's item (a source or connection), parsed from the file's text. */
  item(file: FileIndex, order: number): unknown {
    return this.entry(file, order).value;
  }

  /** The rule as core reads it: a source's or connection's entries alone (`itemRules`); a preset, compiled alone (once per catalog). */
  rules(file: FileIndex, order: number): PolicyRules | CompiledPolicy {
    if (order >= file.sources + file.connections) return presetPolicy(file.catalog, file.presets[order - file.sources - file.connections]);
    const e = this.entry(file, order);
    // By member: the same text is not the same rule as a source and as a connection.
    const member = order < file.sources ? 'sources' : 'connections';
    if (!e.rules || e.rules.refs[0]?.id !== `/${member}/0`) e.rules = itemRules(member, e.value);
    return e.rules;
  }
}

/** Each preset of a catalog as a policy enabling it alone, compiled once. */
const presetPolicies = new WeakMap<object, Map<string, CompiledPolicy>>();
function presetPolicy(catalog: PresetCatalog | undefined, name: string): CompiledPolicy {
  let byName = presetPolicies.get(catalog ?? BUILT_IN);
  if (!byName) presetPolicies.set(catalog ?? BUILT_IN, (byName = new Map()));
  let c = byName.get(name);
  if (!c) byName.set(name, (c = new CompiledPolicy({ default: 'deny', presets: [name] } as Policy, { catalog })));
  return c;
}

/** A URL as the model reads it (scheme, host, port when not the scheme's, path). */
function urlText(u: ParsedUrl): string {
  const port = (u.scheme === 'https' && u.port === 443) || (u.scheme === 'http' && u.port === 80) ? '' : `:${u.port}`;
  return `${u.scheme}://${u.host.includes(':') ? `[${u.host}]` : u.host}${port}${u.path === '/' ? '' : u.path}`;
}

/** The parts of a rule a name can show, each with the host or CIDR it stands for. */
interface Part {
  text: string;
  host?: string;
  url?: ParsedUrl;
  ssh?: boolean;
  cidr?: ParsedCidr;
}

function targetsOf(read: PolicyRules | CompiledPolicy, item: unknown): Part[] {
  const rules = read instanceof CompiledPolicy ? read.rules : read;
  const out: Part[] = [];
  for (const e of rules.urls) out.push({ text: urlText(e.url), host: e.url.host, url: e.url });
  for (const e of rules.ssh) out.push({ text: `ssh ${e.user !== undefined ? `${e.user}@` : ''}${e.host}:${e.port}`, host: e.host, ssh: true });
  for (const e of rules.conns) {
    for (const n of e.names ?? []) out.push({ text: n, host: n });
    for (const raw of e.rawCidrs ?? []) out.push({ text: raw, cidr: parseCidr(raw) });
  }
  const c = rules.conns.length === 0 ? readConnection(item) : undefined;
  if (c && (c.kind === 'udp' || c.kind === 'icmp')) for (const raw of c.rawCidrs ?? []) out.push({ text: raw, cidr: parseCidr(raw) });
  return out;
}

/** Of the parts on the query's host: an SSH transport for an SSH remote, the URL covering most of a URL's path, else the first. */
function bestForHost(parts: Part[], q: SymbolQuery): Part | undefined {
  if (q.kind === 'repository' && q.ssh) return parts.find((p) => p.ssh) ?? parts[0];
  const path = q.kind === 'url' ? q.url.path : q.kind === 'repository' ? `/${q.path}` : undefined;
  if (path === undefined) return parts[0];
  let best: Part | undefined;
  for (const p of parts) if (p.url && path.startsWith(p.url.path) && (!best?.url || p.url.path.length > best.url.path.length)) best = p;
  return best ?? parts[0];
}

/** Does the part stand for the host (a URL or SSH host, a pattern matching it)? */
function holdsHost(part: { host?: string }, host: string): boolean {
  return part.host !== undefined && (part.host === host || matchHostPattern(part.host, host));
}

/** The symbol's name: the rule's kind and what matched (or its first part), led by the query when it does not contain it. */
export function symbolName(f: Found, q: SymbolQuery, items: ItemCache): string {
  const { file, order } = f;
  const preset = order >= file.sources + file.connections ? file.presets[order - file.sources - file.connections] : undefined;
  const item = preset === undefined ? items.item(file, order) : undefined;
  const parts = targetsOf(items.rules(file, order), item);
  const needle = q.text.toLowerCase();
  const shown = f.cidr ? parts.find((p) => p.cidr && p.cidr.version === f.cidr!.version && p.cidr.prefix === f.cidr!.prefix && cidrKey(p.cidr.version, p.cidr.bytes, p.cidr.prefix) === cidrKey(f.cidr!.version, f.cidr!.bytes, f.cidr!.prefix))
    : f.host !== undefined ? bestForHost(parts.filter((p) => holdsHost(p, f.host!)), q)
    : f.rank === 2 ? parts.find((p) => p.text.toLowerCase().includes(needle)) : undefined;
  let name: string;
  if (preset !== undefined) {
    name = `preset ${preset}${shown ? ` (${shown.text})` : ''}${file.implicit ? ' (enabled: no presets member)' : ''}`;
  } else {
    const what = isObject(item) ? Object.keys(item)[0] ?? '' : '';
    const body = isObject(item) && isObject(item[what]) ? item[what] : {};
    const target = (shown ?? parts[0])?.text ?? '';
    const ports = order >= file.sources && Array.isArray(body.ports) ? body.ports.filter((p): p is number => typeof p === 'number').join(',') : '';
    const patterns = order < file.sources && Array.isArray(body.repositoryPatterns) ? body.repositoryPatterns.filter((p): p is string => typeof p === 'string') : [];
    // A connection's ports after its target (an IPv6 CIDR in brackets); a source's repository patterns.
    const at = ports === '' ? target : target.includes(':') ? `[${target}]:${ports}` : `${target}:${ports}`;
    name = [what || 'rule', at, patterns.length === 0 ? '' : `${patterns[0]}${patterns.length > 1 ? ` (+${patterns.length - 1})` : ''}`].filter((s) => s !== '').join(' ');
  }
  if (q.text !== '' && !name.toLowerCase().includes(needle)) name = `${q.text.length > 200 ? `${q.text.slice(0, 200)}…` : q.text} via ${name}`;
  return escapeIcons(clipped(name, 600));
}
