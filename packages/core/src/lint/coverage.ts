/**
 * Rule coverage for `duplicate-rule`, `shadowed-rule` and `redundant-with-preset` (decisions.md D4).
 *
 * Each well-shaped rule is split into atoms (rule-atoms.ts). A rule is covered when every atom is
 * covered by ONE atom of an earlier rule (sources in document order, then connections) or of an
 * enabled known preset. Coverage is only claimed when D4 guarantees it, so a finding is never a false
 * positive; when in doubt (unions of rules, overlapping wildcards, differing URL bases of oci/git
 * sources, tcp rules against sources) nothing is reported. Earlier atoms live in an AtomIndex,
 * so a policy of n rules costs O(n x path length), never O(n^2).
 */
import { enabledPresets } from '../policy/rules-read';
import type { EnabledPreset } from '../policy/rules-read';
import type { LintContext } from './types';
import { AtomIndex } from './atom-index';
import { addCidrLengths, KeyCounts, RuleKeys } from './coverage-keys';
import type { CidrLengths, KeyList } from './coverage-keys';
import type { TlsPiece } from './atom-index';
import { atomsOfConnection, atomsOfSource, connectionAtoms, sourceAtoms } from './rule-atoms';
import type { Atom, Coverer } from './rule-atoms';
import { isObject, readOf, soleKey, viewOf } from './walk';
import type { ConnectionEntry, SourceEntry } from './walk';
import { jsonEquivalent, jsonHash } from '../json/canonical';
import type { JsonObject } from './walk';

export interface Coverage {
  /** Pointer of the covered rule, its kind, and what covers it. */
  pointer: string;
  kind: string;
  /** Earlier rules of the policy (pointers), in document order. */
  rules: string[];
  /** Enabled known presets. */
  presets: string[];
}

export interface CoverageAnalysis {
  /** Later exact duplicate -> the earlier rule it repeats. */
  duplicates: Array<{ pointer: string; kind: string; earlier: string }>;
  /** Rules covered by presets alone (sources only: `redundant-with-preset`). */
  redundant: Coverage[];
  /** Rules covered by earlier rules (possibly together with presets): `shadowed-rule`. */
  shadowed: Coverage[];
  /** True when `presets` is omitted (every preset enabled). */
  presetsOmitted: boolean;
  /** Index in `presets` of each enabled preset (-1 when `presets` is omitted). */
  presetIndexes: Map<string, number>;
}

/** An index of the enabled known presets (the evaluator's reading of which are enabled). */
function presetIndex(presets: EnabledPreset[]): AtomIndex {
  const index = new AtomIndex();
  let order = 0;
  for (const preset of presets) {
    if (!preset.known) continue;
    const label = `preset:${preset.name}`;
    const rank = order++;
    for (const s of preset.known.sources ?? []) for (const atom of sourceAtoms(s) ?? []) index.add(label, rank, atom);
    for (const c of preset.known.connections ?? []) for (const atom of connectionAtoms(c) ?? []) index.add(label, rank, atom);
  }
  return index;
}

const cache = new WeakMap<object, CoverageAnalysis>();

interface Entry { pointer: string; raw: JsonObject }

/** The analysis of one lint context (cached: three rules ask for it). */
export function analyseCoverage(context: LintContext): CoverageAnalysis {
  const cached = cache.get(context);
  if (cached) return cached;
  const analysis = analyse(context, true);
  cache.set(context, analysis);
  return analysis;
}

/** The analysis with every rule read, indexed and looked up: the reference of the key filter (tests). */
export function analyseCoverageInFull(context: LintContext): CoverageAnalysis {
  return analyse(context, false);
}

/**
 * Which entries take part (coverage-keys.ts): 0 not at all, 1 in duplicate detection only, 2 fully;
 * and the canonical JSON hash of each entry that takes part. Sources first, then connections.
 */
interface Participants { take: Uint8Array; hashes: Int32Array }

/** Items of the enabled known presets, as kind and body. */
function presetItems(presets: EnabledPreset[], list: 'sources' | 'connections'): Array<{ kind: string; body: JsonObject }> {
  const out: Array<{ kind: string; body: JsonObject }> = [];
  for (const preset of presets) {
    for (const item of preset.known?.[list] ?? []) {
      const kind = soleKey(item as unknown as JsonObject);
      const body = kind === undefined ? undefined : (item as unknown as JsonObject)[kind];
      if (kind !== undefined && isObject(body)) out.push({ kind, body });
    }
  }
  return out;
}

/** The keys of every entry, read once: one flat list, entry `e`'s from `start[e]` to `start[e + 1]`. */
interface KeyTable { list: KeyList; start: Int32Array }

/**
 * Step 1 of `participants`, a rule at a time (validate/chunked.ts feeds it batch by batch): every
 * rule's keys into two flat lists, counted in count-min sketches (the enabled presets index theirs
 * too). `lengths` holds the CIDR prefix lengths of the policy (the presets' are added): a CIDR looks
 * up the networks of those lengths only.
 */
export class KeyPass {
  readonly indexedKeys: KeyTable;
  readonly lookedKeys: KeyTable;
  /** Counts of the keys rules index and look up; made on the first count, sized by the keys there are. */
  indexed: KeyCounts | undefined;
  looked: KeyCounts | undefined;
  /** A rule with too many keys to list its lookups (`forced`) may look up any other's: then every rule takes part. */
  everyRule = false;
  private readonly presetKeys: number[] = [];
  private readonly keys: RuleKeys;
  private next = 0;
  private countedIndexed = 0;
  private countedLooked = 0;

  /** The least number of keys each sketch is sized for. */
  private readonly sketchSize: number;

  constructor(n: number, lengths: CidrLengths, presets: EnabledPreset[], sketchSize = n * 2) {
    this.sketchSize = sketchSize;
    const presetSources = presetItems(presets, 'sources'), presetConnections = presetItems(presets, 'connections');
    for (const c of presetConnections) addCidrLengths(lengths, c.body);
    const keys = (this.keys = new RuleKeys(lengths));
    for (const s of presetSources) { keys.reset(); keys.source(s.kind, s.body); this.presetKeys.push(...keys.indexed); }
    for (const c of presetConnections) { keys.reset(); keys.connection(c.kind, c.body); this.presetKeys.push(...keys.indexed); }
    // Every rule's keys into the same two lists, one after the other.
    keys.reset();
    this.indexedKeys = { list: keys.indexedList, start: new Int32Array(n + 1) };
    this.lookedKeys = { list: keys.lookedList, start: new Int32Array(n + 1) };
  }

  /** The next rule's keys; `kind` undefined for an item that is no entry (it has no key). */
  add(source: boolean, kind: string | undefined, body: JsonObject | undefined): void {
    const e = this.next++;
    const keys = this.keys;
    keys.next();
    if (kind !== undefined && body !== undefined) {
      if (source) keys.source(kind, body);
      else keys.connection(kind, body);
      if (keys.forced) this.everyRule = true;
    }
    this.indexedKeys.start[e + 1] = keys.indexedList.length;
    this.lookedKeys.start[e + 1] = keys.lookedList.length;
  }

  /**
   * Counts the keys added since the last call: one long loop over each list (rather than a short
   * one per rule, which would run unoptimised for most of a policy).
   */
  private count(): void {
    const ix = this.indexedKeys.list, lk = this.lookedKeys.list;
    const { indexed, looked } = this.indexed === undefined || this.looked === undefined
      ? this.sketches(this.sketchSize, ix.length, lk.length)
      : { indexed: this.indexed, looked: this.looked };
    if (ix.length > this.countedIndexed) { indexed.addAll(ix.buffer, this.countedIndexed, ix.length); this.countedIndexed = ix.length; }
    if (lk.length > this.countedLooked) { looked.addAll(lk.buffer, this.countedLooked, lk.length); this.countedLooked = lk.length; }
  }

  /**
   * Fresh sketches for `indexedKeys` and `lookedKeys` keys (at least `sketchSize` each), the presets'
   * keys counted. Sized by the keys the rules have (a rule may have several): sketches too small for
   * them collide, and every collision makes a rule a candidate (and, in validateChunked, one kept).
   */
  private sketches(sketchSize: number, indexedKeys: number, lookedKeys: number): { indexed: KeyCounts; looked: KeyCounts } {
    const indexed = (this.indexed = new KeyCounts(Math.max(sketchSize, indexedKeys + this.presetKeys.length)));
    const looked = (this.looked = new KeyCounts(Math.max(sketchSize, lookedKeys)));
    for (const k of this.presetKeys) indexed.add(k);
    return { indexed, looked };
  }

  /**
   * Keeps (`keep[e]` 1) each marked rule that shares a key with another counted rule or a preset, or
   * (`keyless`) has no key at all; clears the others' marks and returns how many stay. Counts include
   * a rule's own keys, once each. One loop over the flat lists with no call per rule: it runs over
   * every rule, and a loop is optimised early where small calls stay slow (the whole pass runs once).
   */
  filter(keep: Uint8Array, keyless: boolean): number {
    this.count();
    const n = keep.length;
    let kept = 0;
    if (this.everyRule) {
      for (let e = 0; e < n; e++) if (keep[e] !== 0) kept++;
      return kept;
    }
    const ib = this.indexedKeys.list.buffer, lb = this.lookedKeys.list.buffer;
    const is = this.indexedKeys.start, ls = this.lookedKeys.start;
    const indexed = this.indexed!, looked = this.looked!;
    for (let e = 0; e < n; e++) {
      if (keep[e] === 0) continue;
      const i0 = is[e], i1 = is[e + 1], l0 = ls[e], l1 = ls[e + 1];
      let shares = keyless && i0 === i1 && l0 === l1;
      for (let i = l0; i < l1 && !shares; i++) {
        const k = lb[i];
        let own = 0;
        for (let j = i0; j < i1; j++) if (ib[j] === k) { own = 1; break; }
        if (indexed.count(k) > own) shares = true;
      }
      for (let i = i0; i < i1 && !shares; i++) {
        const k = ib[i];
        let own = 0;
        for (let j = l0; j < l1; j++) if (lb[j] === k) { own = 1; break; }
        if (looked.count(k) > own) shares = true;
      }
      if (shares) kept++;
      else keep[e] = 0;
    }
    return kept;
  }

  /** Counts again, in fresh sketches of `sketchSize`, the keys of the rules `kept` (and the presets'). */
  recount(kept: (e: number) => boolean, sketchSize: number): void {
    const { indexedKeys, lookedKeys } = this;
    let indexedCount = 0, lookedCount = 0;
    for (let e = 0; e + 1 < indexedKeys.start.length; e++) {
      if (!kept(e)) continue;
      indexedCount += indexedKeys.start[e + 1] - indexedKeys.start[e];
      lookedCount += lookedKeys.start[e + 1] - lookedKeys.start[e];
    }
    const { indexed, looked } = this.sketches(sketchSize, indexedCount, lookedCount);
    for (let e = 0; e + 1 < indexedKeys.start.length; e++) {
      if (!kept(e)) continue;
      indexed.addAll(indexedKeys.list.buffer, indexedKeys.start[e], indexedKeys.start[e + 1]);
      looked.addAll(lookedKeys.list.buffer, lookedKeys.start[e], lookedKeys.start[e + 1]);
    }
    this.countedIndexed = indexedKeys.list.length;
    this.countedLooked = lookedKeys.list.length;
  }
}

function participants(sources: SourceEntry[], connections: ConnectionEntry[], presets: EnabledPreset[]): Participants {
  const n = sources.length + connections.length;
  const rawOf = (e: number): JsonObject => (e < sources.length ? sources[e].raw : connections[e - sources.length].raw);
  // 1. The keys of every entry, read once and counted; the prefix lengths present first.
  const lengths: CidrLengths = { 4: new Set(), 6: new Set() };
  for (let i = 0; i < connections.length; i++) addCidrLengths(lengths, connections[i].body);
  const pass = new KeyPass(n, lengths, presets);
  for (const s of sources) pass.add(true, s.kind, s.body);
  for (const c of connections) pass.add(false, c.kind, c.body);
  // 2. Candidates: entries sharing a key with another, and entries with no key at all. Equal entries
  //    have equal keys, so every exact duplicate and its original are candidates.
  const take = new Uint8Array(n);
  const hashes = new Int32Array(n);
  const candidate = new Uint8Array(n).fill(1);
  pass.filter(candidate, true);
  const candidates: number[] = [];
  for (let e = 0; e < n; e++) if (candidate[e] === 1) candidates.push(e);
  // 3. Exact duplicates among the candidates (an earlier entry of the same list with equal canonical
  //    JSON): reported, and their originals take part in duplicate detection. A duplicate never
  //    reads, indexes or looks up atoms, so its keys are not counted again.
  const duplicate = new Uint8Array(n);
  const firsts = new Map<number, number | number[]>();
  let inConnections = false;
  for (const e of candidates) {
    if (!inConnections && e >= sources.length) { firsts.clear(); inConnections = true; }
    const raw = rawOf(e);
    const hash = (hashes[e] = jsonHash(raw));
    const bucket = firsts.get(hash);
    let original: number | undefined;
    if (bucket === undefined) firsts.set(hash, e);
    else if (typeof bucket === 'number') {
      if (jsonEquivalent(rawOf(bucket), raw)) original = bucket;
      else firsts.set(hash, [bucket, e]);
    } else {
      original = bucket.find((x) => jsonEquivalent(rawOf(x), raw));
      if (original === undefined) bucket.push(e);
    }
    if (original !== undefined) {
      duplicate[e] = 1;
      take[e] = 1;
      take[original] = 1;
    }
  }
  firsts.clear();
  // 4. Counted again without duplicates: candidates that still share a key with another take part fully.
  for (const e of candidates) if (duplicate[e] === 1) candidate[e] = 0;
  pass.recount((e) => candidate[e] === 1, n * 2);
  pass.filter(candidate, false);
  for (const e of candidates) if (candidate[e] === 1) take[e] = 2;
  return { take, hashes };
}

function analyse(context: LintContext, filter: boolean): CoverageAnalysis {
  const view = viewOf(context);
  const enabled = enabledPresets(view.root, context.catalog);
  const analysis: CoverageAnalysis = {
    duplicates: [], redundant: [], shadowed: [], presetsOmitted: view.root?.presets === undefined,
    presetIndexes: new Map(enabled.map((p) => [p.name, p.index])),
  };
  const chosen = filter ? participants(view.sources, view.connections, enabled) : undefined;
  const presets = presetIndex(enabled);
  const policy = new AtomIndex();
  let order = 0;
  let e = 0;
  // Only entries with one recognised kind whose value is an object take part (schema errors cover the rest).
  const groups: Array<[Array<SourceEntry | ConnectionEntry>, boolean]> = [[view.sources, true], [view.connections, false]];
  for (const [entries, isSource] of groups) {
    // Earlier distinct entries by hash (an array only once two share a hash): equal canonical JSON
    // (key order ignored) is a duplicate.
    const seen = new Map<number, Entry | Entry[]>();
    for (let i = 0; i < entries.length; i++, e++) {
      if (chosen && chosen.take[e] === 0) continue;
      const entry = entries[i];
      const { pointer, kind, raw } = entry;
      const hash = chosen ? chosen.hashes[e] : jsonHash(raw);
      const bucket = seen.get(hash);
      const earlier = bucket === undefined ? undefined
        : Array.isArray(bucket) ? bucket.find((x) => jsonEquivalent(x.raw, raw))
        : jsonEquivalent(bucket.raw, raw) ? bucket : undefined;
      if (earlier !== undefined) {
        analysis.duplicates.push({ pointer, kind, earlier: earlier.pointer });
        continue;
      }
      if (bucket === undefined) seen.set(hash, entry);
      else if (Array.isArray(bucket)) bucket.push(entry);
      else seen.set(hash, [bucket, entry]);
      if (chosen && chosen.take[e] === 1) continue;
      const atoms = isSource ? atomsOfSource(readOf(entry as SourceEntry)) : atomsOfConnection(readOf(entry as ConnectionEntry));
      if (!atoms || atoms.length === 0) continue;
      // Loops, not map/every with closures: this runs for every rule, and most rules stop at their
      // first atom (nothing earlier covers it). Same answers as: byPresets = atoms.map(presets.find);
      // redundant when every one is defined (sources); else coverers = policy.find ?? byPresets.
      let byPresets: Array<Coverer | undefined> | undefined;
      let allByPresets = isSource;
      for (let j = 0; j < atoms.length && allByPresets; j++) {
        const p = presets.find(atoms[j]);
        if (p === undefined) allByPresets = false;
        else (byPresets ??= []).push(p);
      }
      if (allByPresets) {
        analysis.redundant.push({ pointer, kind, rules: [], presets: presetNames(uniqueLabels(byPresets as Coverer[])) });
      } else {
        let coverers: Array<Coverer | undefined> | undefined = [];
        for (let j = 0; j < atoms.length; j++) {
          const c = policy.find(atoms[j]) ?? (byPresets !== undefined && j < byPresets.length ? byPresets[j] : presets.find(atoms[j]));
          if (c === undefined) { coverers = undefined; break; }
          coverers.push(c);
        }
        if (coverers === undefined) {
          const pieces = tlsPieces(atoms);
          if (pieces) coverers = pieces.map((p) => policy.findEndpoint(p) ?? presets.findEndpoint(p));
        }
        if (coverers !== undefined && coverers.every((c) => c !== undefined)) {
          const labels = uniqueLabels(coverers as Coverer[]);
          const rules = labels.filter((c) => !c.label.startsWith('preset:')).sort((x, y) => x.order - y.order).map((c) => c.label);
          analysis.shadowed.push({ pointer, kind, rules, presets: presetNames(labels) });
        }
      }
      const rank = order++;
      for (const atom of atoms) policy.add(pointer, rank, atom);
    }
  }
  return analysis;
}

/**
 * The related place of an enabled preset: its item in `presets`, or the document (pointer "") when
 * `presets` is omitted and every preset is enabled. The message names it `preset:<name>`, as traces do.
 */
export function presetRelated(analysis: CoverageAnalysis, name: string): { pointer: string; message: string } {
  const index = analysis.presetIndexes.get(name) ?? -1;
  return index >= 0
    ? { pointer: `/presets/${index}`, message: `preset:${name} allows what this rule allows.` }
    : { pointer: '', message: `preset:${name} (enabled because \`presets\` is omitted) allows what this rule allows.` };
}

function presetNames(coverers: Coverer[]): string[] {
  const out: string[] = [];
  for (const c of coverers) if (c.label.startsWith('preset:')) out.push(c.label.slice('preset:'.length));
  return out;
}

/**
 * A `tls` rule naming exact server names (no wildcard) split into one piece per name and port, each of
 * which sources may cover (D4: sources imply the connections to their hosts). Undefined otherwise.
 */
function tlsPieces(atoms: Atom[]): TlsPiece[] | undefined {
  const [atom] = atoms;
  if (atoms.length !== 1 || atom.shape !== 'conn' || atom.kind !== 'tls' || !atom.hosts || !atom.ports) return undefined;
  if (atom.hosts.some((h) => h.startsWith('*.')) || atom.hosts.length * atom.ports.length > 256) return undefined;
  const requests = !atom.alpn || atom.alpn.length === 0;
  return atom.hosts.flatMap((host) => atom.ports!.map((port) => ({ host, port, requests })));
}

/** The first coverer of each label, in order of appearance. */
function uniqueLabels(items: Coverer[]): Coverer[] {
  const seen = new Set<string>();
  return items.filter((c) => !seen.has(c.label) && seen.add(c.label));
}
