/**
 * The workspace symbol index: per policy file its text, where each rule is, and the keys core's
 * reading of its rules and enabled presets gives (`policyRules`), in maps shared by the workspace
 * (sources' URL hosts and prefixes, connections' name patterns, git sources' SSH hosts, CIDRs).
 * The ranking and the names are workspace-symbols.ts' and symbol-names.ts'.
 */
import { matchHostPattern, type ParsedUrl, type Policy, type PolicyDocument, type PolicyRules, type PresetCatalog } from '@netpolicy/core';
import { BoundedCache, parseCidr, policyRules, readConnection } from '@netpolicy/core/internal';
import { type Range } from 'vscode-languageserver-types';
import { offsetOf } from './ranges';
import { findDocumentSymbols } from './structure';

/** A rule's order in a reference (`file id * ORDERS + order`): up to 4 million rules a file. */
const ORDERS = 2 ** 22;
/** Rule items kept read between queries (a generation of the cache: about 1 KB each). */
const READS_KEPT = 2048;
/** The key of the built-in catalog in the caches by catalog (a file indexed without one). */
export const BUILT_IN = {};

/**
 * How a file is indexed (`WorkspaceSymbolIndex.set`).
 * @public
 */
export interface WorkspaceSymbolFile {
  /** What its symbols show as their container (the file's path relative to its workspace folder). */
  container: string;
  /** The catalog in force for the file (its enabled presets are rules too); the built-in one by default. */
  catalog?: PresetCatalog;
}

export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** One indexed file: its text, where its rules are, and the keys it put in the shared maps. */
export class FileIndex {
  /** The text in lower case, made at the first text query. */
  lower: string | undefined;
  constructor(
    readonly id: number,
    readonly uri: string,
    readonly container: string,
    readonly catalog: PresetCatalog | undefined,
    readonly text: string,
    /** Sources, then connections, then enabled presets (reporting order). */
    readonly sources: number,
    readonly connections: number,
    readonly presets: readonly string[],
    /** The policy has no `presets` member: every preset of the catalog is enabled. */
    readonly implicit: boolean,
    /** Per rule: start line, character, end line, character. */
    readonly ranges: Int32Array,
    /** Per rule: its item's start and end offset in the text (-1: none, a preset enabled by default). */
    readonly spans: Int32Array,
    /** Rule orders by their item's start offset (for the text match). */
    readonly byStart: Int32Array,
    /** The keys it added: [map, key] pairs, so that they can be taken out again. */
    readonly keys: Array<[Map<string, number[]>, string]>,
    /** The CIDR prefix lengths it added (`version/prefix`). */
    readonly lengths: string[],
  ) {}

  get ruleCount(): number {
    return this.sources + this.connections + this.presets.length;
  }
}

type KeyKind = 'urls' | 'prefixes' | 'names' | 'wildNames' | 'ssh' | 'wildSsh' | 'cidrs';

/**
 * The keys of rules as core reads them (`rules`), each with the rule's id: sources' URL hosts and
 * prefixes, git sources' SSH hosts, connections' name patterns and CIDRs (udp and icmp CIDRs read
 * from `connections`: core's model matches no access to them, but an address query finds them).
 */
function ruleKeys(rules: PolicyRules, connections: readonly unknown[], emit: (kind: KeyKind, key: string, id: string) => void): void {
  const pattern = (exact: KeyKind, wild: KeyKind, p: string, id: string) => (p.startsWith('*.') ? emit(wild, p.slice(2), id) : emit(exact, p, id));
  const cidr = (raw: string, id: string) => {
    const c = parseCidr(raw);
    if (c) emit('cidrs', cidrKey(c.version, c.bytes, c.prefix), id);
  };
  for (const e of rules.urls) {
    emit('urls', e.url.host, e.id);
    emit('prefixes', prefixKey(e.url, e.url.path), e.id);
  }
  for (const e of rules.ssh) pattern('ssh', 'wildSsh', e.host, e.id);
  for (const e of rules.conns) {
    for (const n of e.names ?? []) pattern('names', 'wildNames', n, e.id);
    for (const raw of e.rawCidrs ?? []) cidr(raw, e.id);
  }
  connections.forEach((item, j) => {
    if (!isObject(item) || !('udp' in item || 'icmp' in item)) return;
    const c = readConnection(item);
    if (c && (c.kind === 'udp' || c.kind === 'icmp')) for (const raw of c.rawCidrs ?? []) cidr(raw, `/connections/${j}`);
  });
}

/** The presets a `presets` member enables under a catalog, and their keys (by index among them): read once per catalog and member. */
const presetKeyCache = new WeakMap<object, BoundedCache<string, { names: string[]; keys: Array<[KeyKind, string, number]> }>>();
function presetKeys(catalog: PresetCatalog | undefined, presets: unknown): { names: string[]; keys: Array<[KeyKind, string, number]> } {
  let cache = presetKeyCache.get(catalog ?? BUILT_IN);
  if (!cache) presetKeyCache.set(catalog ?? BUILT_IN, (cache = new BoundedCache(64)));
  const member = presets === undefined ? '' : JSON.stringify(presets) ?? '';
  let found = cache.get(member);
  if (!found) {
    const read = policyRules({ presets } as Policy, { catalog });
    const names = read.refs.map((r) => r.id.slice(7));
    const at = new Map(names.map((n, k) => [`preset:${n}`, k]));
    const keys: Array<[KeyKind, string, number]> = [];
    ruleKeys(read, [], (kind, key, id) => keys.push([kind, key, at.get(id)!]));
    cache.set(member, (found = { names, keys }));
  }
  return found;
}

/** A URL prefix's key: scheme, host, port and a path. */
function prefixKey(u: ParsedUrl, path: string): string {
  return `${u.scheme}://${u.host}:${u.port}${path}`;
}

/** A CIDR's key: version, prefix and its network's bytes (the bits past the prefix cleared). */
export function cidrKey(version: number, bytes: readonly number[], prefix: number): string {
  let key = `${version}/${prefix}/`;
  for (let i = 0; i * 8 < prefix; i++) {
    const bits = Math.min(8, prefix - i * 8);
    key += ((bytes[i] & ((0xff << (8 - bits)) & 0xff)) + 256).toString(16).slice(1);
  }
  return key;
}

/**
 * The rules of every policy file of a workspace, indexed for `workspaceSymbolSteps`: `set` a file
 * when it is read or edited (again to replace it), `delete` it when it goes. It keeps each file's
 * text and the places of its rules, not its parse.
 * @public
 */
export class WorkspaceSymbolIndex {
  constructor() {
    states.set(this, new IndexState());
  }

  /** How many files it holds. */
  get size(): number {
    return stateOf(this).size;
  }

  /** Indexes (or indexes again) the policy `doc` of `uri`. */
  set(uri: string, doc: PolicyDocument, file: WorkspaceSymbolFile): void {
    stateOf(this).set(uri, doc, file);
  }

  /** Forgets the file of `uri`. */
  delete(uri: string): void {
    stateOf(this).delete(uri);
  }

  /** Whether the file of `uri` is indexed. */
  has(uri: string): boolean {
    return stateOf(this).has(uri);
  }
}

/** Each index's state, out of its public surface. */
const states = new WeakMap<WorkspaceSymbolIndex, IndexState>();
export function stateOf(index: WorkspaceSymbolIndex): IndexState {
  const state = states.get(index);
  if (!state) throw new TypeError('not a WorkspaceSymbolIndex');
  return state;
}

/** What a `WorkspaceSymbolIndex` holds: the files, and the maps of their keys. */
export class IndexState {
  private readonly files = new Map<string, FileIndex>();
  private readonly byId = new Map<number, FileIndex>();
  private nextId = 1;
  /**
   * Rule references by key: sources' URL hosts (`urls`) and URL prefixes (`prefixes`:
   * scheme://host:port/path); connections' name patterns (`names`) and git sources' SSH hosts
   * (`ssh`), exact, and for `*.` patterns by what follows `*.` (`wildNames`, `wildSsh`).
   */
  private readonly urls = new Map<string, number[]>();
  private readonly prefixes = new Map<string, number[]>();
  private readonly names = new Map<string, number[]>();
  private readonly wildNames = new Map<string, number[]>();
  private readonly ssh = new Map<string, number[]>();
  private readonly wildSsh = new Map<string, number[]>();
  /** CIDRs by `cidrKey` → rule references; the prefix lengths in use, with how many files use each. */
  private readonly cidrs = new Map<string, number[]>();
  private readonly lengths = new Map<string, number>();
  /** The files by container, then URI; undefined when one was added or removed. */
  private sortedFiles: FileIndex[] | undefined;
  /**
   * Rule items as queries parsed and read them, by their text (the same rule in many
   * files, or a query typed a character at a time, reads it once): at most 2 x READS_KEPT.
   */
  readonly reads = new BoundedCache<string, { value: unknown; rules?: PolicyRules }>(READS_KEPT);

  /** How many files it holds. */
  get size(): number {
    return this.files.size;
  }

  /** Indexes (or indexes again) the policy `doc` of `uri`. */
  set(uri: string, doc: PolicyDocument, file: WorkspaceSymbolFile): void {
    this.delete(uri);
    const value = isObject(doc.value) ? doc.value : {};
    const sources = Array.isArray(value.sources) ? value.sources : [];
    const connections = Array.isArray(value.connections) ? value.connections : [];
    // Core's reading of the rules (lenient on any JSON: members of the wrong type are left out, as the
    // evaluator does); the enabled presets read once per catalog and `presets` member.
    const read = policyRules({ presets: [], sources, connections } as Policy);
    const enabled = presetKeys(file.catalog, value.presets);
    const presets = enabled.names;
    const count = sources.length + connections.length + presets.length;
    const ranges = new Int32Array(count * 4);
    const spans = new Int32Array(count * 2).fill(-1);
    const outline = (() => {
      try {
        return findDocumentSymbols(doc);
      } catch {
        return [];
      }
    })();
    const place = (order: number, range: Range) => {
      ranges[order * 4] = range.start.line;
      ranges[order * 4 + 1] = range.start.character;
      ranges[order * 4 + 2] = range.end.line;
      ranges[order * 4 + 3] = range.end.character;
      spans[order * 2] = offsetOf(doc, range.start);
      spans[order * 2 + 1] = offsetOf(doc, range.end);
    };
    for (const s of outline) {
      if ((s.name === 'sources' || s.name === 'connections') && s.children) {
        const [base, length] = s.name === 'sources' ? [0, sources.length] : [sources.length, connections.length];
        for (const c of s.children) {
          const i = Number(c.detail?.slice(s.name.length + 2));
          if (Number.isInteger(i) && i >= 0 && i < length) place(base + i, c.range);
        }
      } else if (s.name === 'presets' && s.children && Array.isArray(value.presets)) {
        const list = value.presets;
        s.children.forEach((c, i) => {
          const k = presets.indexOf(list[i] as string);
          if (k >= 0 && spans[(sources.length + connections.length + k) * 2] < 0) place(sources.length + connections.length + k, c.range);
        });
      }
    }
    const byStart = Int32Array.from([...Array(count).keys()].filter((o) => spans[o * 2] >= 0).sort((a, b) => spans[a * 2] - spans[b * 2]));
    const id = this.nextId++;
    const index = new FileIndex(id, uri, file.container, file.catalog, doc.text, sources.length, connections.length, presets, value.presets === undefined, ranges, spans, byStart, [], []);
    const maps = { urls: this.urls, prefixes: this.prefixes, names: this.names, wildNames: this.wildNames, ssh: this.ssh, wildSsh: this.wildSsh, cidrs: this.cidrs };
    const add = (kind: KeyKind, key: string, order: number) => {
      const map = maps[kind];
      const ref = id * ORDERS + order;
      let refs = map.get(key);
      if (!refs) map.set(key, (refs = []));
      else if (refs[refs.length - 1] === ref) return;
      // This file's references are added together, after any other file's: the last one says whether it has the key already.
      if (refs.length === 0 || Math.floor(refs[refs.length - 1] / ORDERS) !== id) index.keys.push([map, key]);
      refs.push(ref);
      if (kind === 'cidrs') {
        const length = key.slice(0, key.lastIndexOf('/'));
        if (!index.lengths.includes(length)) {
          index.lengths.push(length);
          this.lengths.set(length, (this.lengths.get(length) ?? 0) + 1);
        }
      }
    };
    ruleKeys(read, connections, (kind, key, id) => add(kind, key, Number(id.slice(id.indexOf('/', 1) + 1)) + (id.startsWith('/sources/') ? 0 : sources.length)));
    const base = sources.length + connections.length;
    for (const [kind, key, k] of enabled.keys) add(kind, key, base + k);
    this.files.set(uri, index);
    this.byId.set(id, index);
    this.sortedFiles = undefined;
  }

  /** Forgets the file of `uri`. */
  delete(uri: string): void {
    const index = this.files.get(uri);
    if (!index) return;
    for (const [map, key] of index.keys) {
      const refs = map.get(key)!.filter((r) => Math.floor(r / ORDERS) !== index.id);
      if (refs.length > 0) map.set(key, refs);
      else map.delete(key);
    }
    for (const length of index.lengths) {
      const n = this.lengths.get(length)! - 1;
      if (n > 0) this.lengths.set(length, n);
      else this.lengths.delete(length);
    }
    this.files.delete(uri);
    this.byId.delete(index.id);
    this.sortedFiles = undefined;
  }

  has(uri: string): boolean {
    return this.files.has(uri);
  }

  sorted(): FileIndex[] {
    return (this.sortedFiles ??= [...this.files.values()].sort((a, b) => (a.container < b.container ? -1 : a.container > b.container ? 1 : a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0)));
  }

  /** The files and rules of a list of references. */
  *referenced(refs: readonly number[] | undefined): Generator<[FileIndex, number]> {
    if (!refs) return;
    for (const ref of refs) {
      const file = this.byId.get(Math.floor(ref / ORDERS));
      if (file) yield [file, ref % ORDERS];
    }
  }

  /**
   * Rules that name `host`: sources by a URL's host, connections by a name pattern, git
   * sources by an SSH host (`by`), exactly (`wild` false), then by a `*.` pattern on each suffix.
   */
  *hostCandidates(host: string): Generator<[FileIndex, number, boolean, 'url' | 'name' | 'ssh']> {
    for (const [f, o] of this.referenced(this.urls.get(host))) yield [f, o, false, 'url'];
    for (const [f, o] of this.referenced(this.names.get(host))) yield [f, o, false, 'name'];
    for (const [f, o] of this.referenced(this.ssh.get(host))) yield [f, o, false, 'ssh'];
    for (let dot = host.indexOf('.'); dot >= 0; dot = host.indexOf('.', dot + 1)) {
      const suffix = host.slice(dot + 1);
      // The map finds the candidates; core's matcher says whether the pattern matches (one model).
      if (!matchHostPattern(`*.${suffix}`, host)) continue;
      for (const [f, o] of this.referenced(this.wildNames.get(suffix))) yield [f, o, true, 'name'];
      for (const [f, o] of this.referenced(this.wildSsh.get(suffix))) yield [f, o, true, 'ssh'];
    }
  }

  /** Sources with a URL whose prefix may cover `url` (one per prefix of its path; core's predicates decide). */
  *urlCandidates(url: ParsedUrl): Generator<[FileIndex, number]> {
    const seen = new Set<string>();
    const path = url.path;
    for (let end = path.indexOf('/'); end >= 0; end = path.indexOf('/', end + 1)) {
      for (const prefix of [path.slice(0, end), path.slice(0, end + 1)]) {
        if (prefix === '' || seen.has(prefix)) continue;
        seen.add(prefix);
        yield* this.referenced(this.prefixes.get(prefixKey(url, prefix)));
      }
    }
    if (!seen.has(path)) yield* this.referenced(this.prefixes.get(prefixKey(url, path)));
  }

  /** Rules with a CIDR holding the whole of the address or prefix, with that CIDR's prefix. */
  *cidrCandidates(version: number, bytes: readonly number[], prefix: number): Generator<[FileIndex, number, number]> {
    for (const length of this.lengths.keys()) {
      const [v, p] = length.split('/').map(Number);
      if (v !== version || p > prefix) continue;
      for (const [f, o] of this.referenced(this.cidrs.get(cidrKey(version, bytes, p)))) yield [f, o, p];
    }
  }
}

