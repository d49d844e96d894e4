/**
 * Workspace symbols (`workspace/symbol`): the rules of every policy of the workspace, found by what
 * they permit ("which policy lets a job reach pypi.org?"). A query is read as an IP address or
 * prefix, a URL, a repository (`host/path`, `git@host:path`, `ssh://...`), a host name, or else
 * text (`parseSymbolQuery`).
 *
 * Each policy file is indexed once (`policySymbols`, when it is checked or edited) with core's own
 * reading of its rules and enabled presets (`policyRules`), in core's indexes (host trie, URL
 * prefix trie, CIDR trie); a query looks each file up and confirms a candidate with core's
 * predicates (`urlEntryPermits`, `connPermitsRequest`, `sshPermits`): one model of matching, and
 * lookups per file rather than a scan of the rules. Only the weakest match, a substring of a rule's
 * text, scans, and only when the stronger ones leave room under the bound.
 *
 * Ranks, best first: 0, the rule permits what the query names (a URL, a repository, a host named
 * exactly, an address inside a CIDR, the narrowest CIDR first); 1, the rule reaches the query's host
 * otherwise (a wildcard pattern, another path or transport on that host); 2, the query is a
 * substring of the rule's text. Then files in the order given, rules in reporting order.
 */
import { escapeIcons, type ParsedUrl, type Policy, type PolicyDocument, type PresetCatalog } from '@netpolicy/core';
import {
  CidrTrie, HostTrie, UrlTrie, clipped, connPermitsRequest, parseCidr, parseUrl, policyRules, readConnection, sshPermits, urlEntryPermits,
  type ConnEntry, type ParsedCidr, type SshEntry, type UrlEntry,
} from '@netpolicy/core/internal';
import { SymbolKind, type DocumentSymbol, type Range, type SymbolInformation } from 'vscode-languageserver-types';
import { findDocumentSymbols } from './structure';

/**
 * The most symbols one query answers (clients cap too; the best ranks are kept).
 * @public
 */
export const MAX_WORKSPACE_SYMBOLS = 500;

/**
 * A longer query (after trimming) is answered with nothing: no host, URL or address is that long.
 * @public
 */
export const MAX_SYMBOL_QUERY_LENGTH = 2048;

/** Characters of a rule's text kept for the substring match (a hostile rule is not kept whole). */
const MAX_RULE_TEXT = 4096;
/** Files looked up, and rules compared as text, between two yields of `workspaceSymbolSteps`. */
const FILES_PER_SLICE = 256;
const RULES_PER_SLICE = 4000;

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
 * One policy file's rules indexed for workspace symbol queries (`policySymbols`). Opaque: build a
 * new one when the file changes.
 * @public
 */
export interface PolicySymbols {
  /** The document's URI (the symbols' location). */
  readonly uri: string;
  /** What symbols show as their container (the file's path relative to its workspace folder). */
  readonly container: string;
  /** How many rules (sources, connections, enabled presets) it holds. */
  readonly ruleCount: number;
}

/**
 * How `policySymbols` indexes a file.
 * @public
 */
export interface PolicySymbolsOptions {
  uri: string;
  container: string;
  /** The catalog in force for the file (the enabled presets are its rules too); the built-in one by default. */
  catalog?: PresetCatalog;
}

/**
 * How `workspaceSymbolSteps` answers.
 * @public
 */
export interface WorkspaceSymbolOptions {
  /** At most this many symbols (default and most: MAX_WORKSPACE_SYMBOLS). */
  limit?: number;
}

/** A rule of the file: where it is and what describes it. */
interface RuleSymbol {
  order: number;
  /** The preset's name, for a preset. */
  preset?: string;
  kind: SymbolKind;
  range: Range;
  /** `pypi`, `tls`, ... (the rule's member); `preset`. */
  what: string;
  /** Its URLs, ssh transports, host patterns and CIDRs as names show them (the first when no part matched in particular). */
  targets: string[];
  /** After the target: a connection's ports, an oci or git source's repository patterns. */
  ports: string;
  patterns: string;
  /** A preset enabled because the policy has no `presets` member. */
  implicit: boolean;
  /** The rule's strings, lower case, for the substring match. */
  text: string;
}

/** One way a rule permits: a URL, host pattern, ssh transport or CIDR of it, with the entry core reads it as. */
interface Hit {
  rule: RuleSymbol;
  /** Undefined for a udp or icmp CIDR (core's model matches no access to them). */
  entry: UrlEntry | ConnEntry | SshEntry | undefined;
  /** The URL, pattern, transport or CIDR as the name shows it. */
  target: string;
  wild: boolean;
  cidr?: ParsedCidr;
}

class FileSymbols implements PolicySymbols {
  readonly rules: RuleSymbol[] = [];
  readonly hosts = new HostTrie<Hit>();
  readonly urls = new UrlTrie<Hit>();
  readonly cidrs = new CidrTrie<Hit>();
  constructor(readonly uri: string, readonly container: string) {}
  get ruleCount(): number {
    return this.rules.length;
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const START: Range = { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };

/** A URL as the model reads it (scheme, host, port when not the scheme's, path). */
function urlText(u: ParsedUrl): string {
  const port = (u.scheme === 'https' && u.port === 443) || (u.scheme === 'http' && u.port === 80) ? '' : `:${u.port}`;
  return `${u.scheme}://${u.host.includes(':') ? `[${u.host}]` : u.host}${port}${u.path === '/' ? '' : u.path}`;
}

function sshText(e: SshEntry): string {
  return `ssh ${e.user !== undefined ? `${e.user}@` : ''}${e.host}:${e.port}`;
}

/** The first member of a rule item (its kind), or '' (the policy is checked elsewhere; a symbol still names it). */
function kindOf(item: unknown): string {
  if (!isObject(item)) return '';
  for (const key in item) if (Object.prototype.hasOwnProperty.call(item, key)) return key;
  return '';
}

/** The strings and numbers of a rule, lower case, joined; at most MAX_RULE_TEXT characters. */
function ruleText(item: unknown): string {
  const parts: string[] = [];
  let length = 0;
  const visit = (v: unknown, depth: number): void => {
    if (length >= MAX_RULE_TEXT || depth > 8) return;
    if (typeof v === 'string' || typeof v === 'number') {
      const s = String(v);
      parts.push(s);
      length += s.length + 1;
    } else if (Array.isArray(v)) for (const x of v) visit(x, depth + 1);
    else if (isObject(v)) for (const key in v) if (Object.prototype.hasOwnProperty.call(v, key)) { parts.push(key); length += key.length + 1; visit(v[key], depth + 1); }
  };
  visit(item, 0);
  return parts.join(' ').slice(0, MAX_RULE_TEXT).toLowerCase();
}

function patternsText(patterns: readonly string[] | undefined): string {
  if (!patterns || patterns.length === 0) return '';
  return `${patterns[0]}${patterns.length > 1 ? ` (+${patterns.length - 1})` : ''}`;
}

function portsText(ports: Iterable<unknown> | undefined): string {
  if (!ports) return '';
  return [...ports].filter((p): p is number => typeof p === 'number').join(',');
}

/** The ranges of the rules from the document's outline (one scan of a document that parsed): `/sources/N`, `/connections/N`, and each preset name's first item. */
function ruleRanges(doc: PolicyDocument, presets: unknown): { items: Map<string, Range>; presets: Map<string, Range> } {
  const items = new Map<string, Range>();
  const named = new Map<string, Range>();
  let outline: DocumentSymbol[];
  try {
    outline = findDocumentSymbols(doc);
  } catch {
    outline = [];
  }
  for (const s of outline) {
    if ((s.name === 'sources' || s.name === 'connections') && s.children) {
      for (const c of s.children) if (c.detail) items.set(c.detail, c.range);
    } else if (s.name === 'presets' && s.children && Array.isArray(presets)) {
      s.children.forEach((c, i) => {
        const name = presets[i];
        if (typeof name === 'string' && !named.has(name)) named.set(name, c.range);
      });
    }
  }
  return { items, presets: named };
}

/**
 * One policy file's rules, indexed for `workspaceSymbolSteps`: its sources and connections and
 * the presets it enables (all of the catalog's when it has no `presets` member), each with the
 * range of its item in the document (a preset: its name in `presets`, else the document's start).
 * @public
 */
export function policySymbols(doc: PolicyDocument, options: PolicySymbolsOptions): PolicySymbols {
  const value = isObject(doc.value) ? doc.value : {};
  const sources = Array.isArray(value.sources) ? value.sources : [];
  const connections = Array.isArray(value.connections) ? value.connections : [];
  // The model's reading (lenient on any JSON): members of the wrong type are left out, as the evaluator does.
  const policy = { default: value.default, presets: value.presets, sources, connections } as Policy;
  const read = policyRules(policy, { catalog: options.catalog });
  const ranges = ruleRanges(doc, value.presets);
  const implicit = value.presets === undefined;
  const file = new FileSymbols(options.uri, options.container);
  const byId = new Map<string, RuleSymbol>();
  for (const ref of read.refs) {
    let rule: RuleSymbol;
    if (ref.id.startsWith('preset:')) {
      const name = ref.id.slice(7);
      rule = { order: ref.order, preset: name, kind: SymbolKind.EnumMember, range: ranges.presets.get(name) ?? START, what: 'preset', targets: [], ports: '', patterns: '', implicit, text: `preset ${name}`.toLowerCase() };
    } else {
      const source = ref.id.startsWith('/sources/');
      const item = (source ? sources : connections)[Number(ref.id.slice(source ? 9 : 13))];
      const what = kindOf(item);
      const body = isObject(item) && isObject(item[what]) ? item[what] : {};
      rule = {
        order: ref.order, kind: source ? SymbolKind.Package : SymbolKind.Interface, range: ranges.items.get(ref.id) ?? START, what, targets: [],
        ports: source ? '' : portsText(Array.isArray(body.ports) ? body.ports : undefined),
        patterns: source && Array.isArray(body.repositoryPatterns) ? patternsText(body.repositoryPatterns.filter((p): p is string => typeof p === 'string')) : '',
        implicit: false, text: ruleText(item),
      };
      // udp and icmp: core's model matches no access to them, but an address query finds them by their CIDRs.
      if (!source && (what === 'udp' || what === 'icmp')) {
        for (const raw of readConnection(item)?.rawCidrs ?? []) {
          rule.targets.push(raw);
          const cidr = parseCidr(raw);
          if (cidr) file.cidrs.add(cidr, { rule, entry: undefined, target: raw, wild: false, cidr });
        }
      }
    }
    byId.set(ref.id, rule);
    file.rules.push(rule);
  }
  for (const e of read.urls) {
    const rule = byId.get(e.id)!;
    const target = urlText(e.url);
    rule.targets.push(target);
    const hit: Hit = { rule, entry: e, target, wild: false };
    file.urls.add(e.url, hit);
    file.hosts.add(e.url.host, hit);
  }
  for (const e of read.ssh) {
    const rule = byId.get(e.id)!;
    const target = sshText(e);
    rule.targets.push(target);
    file.hosts.add(e.host, { rule, entry: e, target, wild: e.host.startsWith('*.') });
  }
  for (const e of read.conns) {
    const rule = byId.get(e.id)!;
    for (const name of e.names ?? []) {
      rule.targets.push(name);
      file.hosts.add(name, { rule, entry: e, target: name, wild: name.startsWith('*.') });
    }
    for (const raw of e.rawCidrs ?? []) {
      rule.targets.push(raw);
      const cidr = parseCidr(raw);
      if (cidr) file.cidrs.add(cidr, { rule, entry: e, target: raw, wild: false, cidr });
    }
  }
  // A preset's text is its name and what it permits (a host typed half way finds it).
  for (const rule of file.rules) if (rule.preset !== undefined) rule.text = `preset ${rule.preset} ${rule.targets.join(' ')}`.slice(0, MAX_RULE_TEXT).toLowerCase();
  return file;
}

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

/** A match of the query: its rule, rank, how specific it is (a CIDR's prefix) and what matched. */
interface Found {
  file: FileSymbols;
  /** The file's position in the list (files are listed in the order given). */
  at: number;
  rule: RuleSymbol;
  rank: number;
  specific: number;
  target: string | undefined;
}

/**
 * The workspace symbol query `query` over the indexed files (`policySymbols`), best first and at
 * most `options.limit` (MAX_WORKSPACE_SYMBOLS) of them, in slices: a yield every few hundred
 * files. See `parseSymbolQuery` for how the query is read and the module for the ranks. Names are
 * the rule's kind and what matched (`pypi https://pypi.org/simple`, `tls *.svc.example:443`,
 * `preset pypi (https://pypi.org/simple)`), led by the query when they do not contain it (clients
 * filter names by the query: `10.1.2.3 via tcp 10.0.0.0/8:5432`); control, bidi and `$(`
 * characters escaped.
 * @public
 */
export function* workspaceSymbolSteps(files: readonly PolicySymbols[], query: unknown, options: WorkspaceSymbolOptions = {}): Generator<void, SymbolInformation[]> {
  const limit = Math.max(0, Math.min(Math.floor(Number(options.limit ?? MAX_WORKSPACE_SYMBOLS)) || 0, MAX_WORKSPACE_SYMBOLS));
  const q = parseSymbolQuery(query);
  const best = yield* rankedSteps(files, q, limit);
  return best.map((f) => ({
    name: symbolName(f, q),
    kind: f.rule.kind,
    location: { uri: f.file.uri, range: f.rule.range },
    containerName: escapeIcons(clipped(f.file.container, 300)),
  }));
}

/** The ranks of an answer (URI, rule order, rank), for the property tests that hold them to core's evaluator. */
export function ranksForTest(files: readonly PolicySymbols[], query: string): Array<{ uri: string; order: number; rank: number }> {
  const steps = rankedSteps(files, parseSymbolQuery(query), MAX_WORKSPACE_SYMBOLS);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value.map((f) => ({ uri: f.file.uri, order: f.rule.order, rank: f.rank }));
  }
}

/** The best `limit` matches of the query, best first. */
function* rankedSteps(files: readonly PolicySymbols[], q: SymbolQuery, limit: number): Generator<void, Found[]> {
  if (q.kind === 'none' || limit === 0) return [];
  const list = files.filter((f): f is FileSymbols => f instanceof FileSymbols);
  const found = new Map<RuleSymbol, Found>();
  const add = (file: FileSymbols, at: number, rule: RuleSymbol, rank: number, specific: number, target: string | undefined): void => {
    const seen = found.get(rule);
    if (seen && (seen.rank < rank || (seen.rank === rank && seen.specific >= specific))) return;
    found.set(rule, { file, at, rule, rank, specific, target });
  };
  if (q.kind === 'all') {
    for (let at = 0; at < list.length && found.size < limit; at++) {
      for (const rule of list[at].rules) {
        if (found.size >= limit) break;
        add(list[at], at, rule, 0, 0, undefined);
      }
    }
  } else if (q.kind !== 'text') {
    for (let at = 0; at < list.length; at++) {
      if (at % FILES_PER_SLICE === FILES_PER_SLICE - 1) yield;
      lookUp(list[at], at, q, add);
    }
  }
  // The weakest match, a substring of a rule's text, only while there is room.
  if (q.kind !== 'all' && found.size < limit) {
    const needle = q.text.toLowerCase();
    let compared = 0;
    outer: for (let at = 0; at < list.length; at++) {
      for (const rule of list[at].rules) {
        if (++compared % RULES_PER_SLICE === 0) yield;
        if (found.has(rule) || !rule.text.includes(needle)) continue;
        add(list[at], at, rule, 2, 0, undefined);
        if (found.size >= limit) break outer;
      }
    }
  }
  const sorted = [...found.values()].sort((a, b) => a.rank - b.rank || b.specific - a.specific || a.at - b.at || a.rule.order - b.rule.order);
  return sorted.slice(0, limit);
}

/**
 * `workspaceSymbolSteps` run to the end at once.
 * @public
 */
export function findWorkspaceSymbols(files: readonly PolicySymbols[], query: unknown, options: WorkspaceSymbolOptions = {}): SymbolInformation[] {
  const steps = workspaceSymbolSteps(files, query, options);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

type Add = (file: FileSymbols, at: number, rule: RuleSymbol, rank: number, specific: number, target: string | undefined) => void;

/** Scratch arrays of the trie lookups (queries run one at a time, synchronously between yields). */
const urlHits: Hit[] = [];
const cidrHits: Hit[] = [];

/** The rules of one file that permit what the query names (rank 0) or reach its host (rank 1). */
function lookUp(file: FileSymbols, at: number, q: Exclude<SymbolQuery, { kind: 'all' | 'text' | 'none' }>, add: Add): void {
  switch (q.kind) {
    case 'address': {
      cidrHits.length = 0;
      file.cidrs.lookup({ version: q.version, bytes: q.bytes }, cidrHits);
      // The trie gives the prefixes holding the query's first address; those holding all of it are wanted.
      for (const h of cidrHits) if (h.cidr!.prefix <= q.prefix) add(file, at, h.rule, 0, h.cidr!.prefix, h.target);
      return;
    }
    case 'host':
      for (const h of file.hosts.lookup(q.host)) add(file, at, h.rule, h.wild ? 1 : 0, 0, h.target);
      return;
    case 'url': {
      const n = file.urls.lookup(q.url, urlHits);
      for (let i = 0; i < n; i++) {
        const h = urlHits[i];
        add(file, at, h.rule, urlEntryPermits(h.entry as UrlEntry, 'GET', q.url) ? 0 : 1, 0, h.target);
      }
      // Connections by name: a request over the connection they permit (no address known: one stating CIDRs only reaches the host).
      for (const h of file.hosts.lookup(q.url.host)) {
        const e = h.entry;
        add(file, at, h.rule, e !== undefined && isConn(e) && connPermitsRequest(e, q.url, undefined, true) ? 0 : 1, 0, h.target);
      }
      return;
    }
    case 'repository': {
      // Over HTTPS (git smart HTTP, or any source covering the URL) and as an OCI repository, unless the query is an SSH remote.
      const probes: Array<ParsedUrl | undefined> = [parseUrl(`https://${q.host}/${q.path}`), parseUrl(`https://${q.host}/v2/${q.path.replace(/\/+$/, '')}/manifests/latest`)];
      for (const url of probes) {
        if (!url) continue;
        const n = file.urls.lookup(url, urlHits);
        for (let i = 0; i < n; i++) {
          const h = urlHits[i];
          const e = h.entry as UrlEntry;
          // The OCI probe is for oci sources only; the HTTPS one for the others.
          if ((url === probes[1]) !== (e.kind === 'oci')) continue;
          add(file, at, h.rule, urlEntryPermits(e, 'GET', url) ? (q.ssh ? 1 : 0) : 1, 0, h.target);
        }
      }
      for (const h of file.hosts.lookup(q.host)) {
        const e = h.entry;
        const permits = e !== undefined && isSsh(e) && sshPermits(e, { host: q.host, port: q.port ?? e.port, user: q.user ?? e.user, repositoryPath: q.path });
        add(file, at, h.rule, permits ? 0 : 1, 0, h.target);
      }
      return;
    }
  }
}

function isConn(e: UrlEntry | ConnEntry | SshEntry): e is ConnEntry {
  return (e as ConnEntry).kind === 'tls' || (e as ConnEntry).kind === 'tcp';
}

function isSsh(e: UrlEntry | ConnEntry | SshEntry): e is SshEntry {
  return !('url' in e) && !('kind' in e);
}

/** The symbol's name: the rule's kind and what matched (or its first target), led by the query when it does not contain it. */
function symbolName(f: Found, q: SymbolQuery): string {
  const r = f.rule;
  let name: string;
  // A text match shows the target holding the text, when one does.
  const shown = f.target ?? (f.rank === 2 ? r.targets.find((t) => t.toLowerCase().includes(q.text.toLowerCase())) : undefined);
  if (r.preset !== undefined) {
    name = `preset ${r.preset}${shown !== undefined ? ` (${shown})` : ''}${r.implicit ? ' (enabled: no presets member)' : ''}`;
  } else {
    const target = shown ?? r.targets[0] ?? '';
    // A connection's ports after its target (an IPv6 CIDR in brackets).
    const at = r.ports === '' ? target : target.includes(':') ? `[${target}]:${r.ports}` : `${target}:${r.ports}`;
    name = [r.what || 'rule', at, r.patterns].filter((s) => s !== '').join(' ');
  }
  if (q.text !== '' && !name.toLowerCase().includes(q.text.toLowerCase())) name = `${q.text.length > 200 ? `${q.text.slice(0, 200)}…` : q.text} via ${name}`;
  return escapeIcons(clipped(name, 600));
}
