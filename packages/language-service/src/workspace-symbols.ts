/**
 * Workspace symbols (`workspace/symbol`): the rules of every policy of the workspace, found by what
 * they permit ("which policy lets a job reach pypi.org?"). A query is read as an IP address or
 * prefix, a URL, a repository (`host/path`, `git@host:path`, `ssh://...`), a host name, or else
 * text (`parseSymbolQuery`).
 *
 * `WorkspaceSymbolIndex` keeps, per policy file, its text, where each rule is, and the keys core's
 * reading of its rules and enabled presets gives (`policyRules`: URL hosts, host patterns, SSH
 * hosts, CIDRs, URL prefixes), in maps shared by the whole workspace: a query looks its host up
 * exactly, then each suffix for a `*.` pattern (confirmed by core's `matchHostPattern`), its URL under
 * each prefix of its path, or its address under each prefix length in use. Whether a candidate rule
 * permits what the query names is core's answer for that rule alone, as core proves explain's fixes
 * (`anyPermits` on the item's `itemRules`; a preset: its compiled policy): one model of matching,
 * lookups instead of a scan of the rules. Only the weakest match, a substring of a rule's text,
 * searches the files' text, and only when the stronger ones leave room under the bound.
 *
 * Ranks, best first: 0, the rule permits what the query names (a GET of the URL, the repository over
 * HTTPS, SSH or as an OCI repository, a host named exactly, an address in a CIDR, the narrowest CIDR
 * first); 1, the rule reaches the query's host otherwise (a `*.` pattern, another path or transport
 * on that host); 2, the query is a substring of the rule's text. Then files by container, rules in
 * reporting order.
 */
import { CompiledPolicy, escapeIcons, type Access, type PolicyRules } from '@netpolicy/core';
import { anyPermits, clipped, parseUrl } from '@netpolicy/core/internal';
import { SymbolKind, type SymbolInformation } from 'vscode-languageserver-types';
import { ItemCache, PerRule, presetText, symbolName, type Found } from './symbol-names';
import { parseSymbolQuery, type SymbolQuery } from './symbol-query';
import { stateOf, type FileIndex, type IndexState, type WorkspaceSymbolIndex } from './workspace-symbol-index';

export { MAX_SYMBOL_QUERY_LENGTH, parseSymbolQuery, type SymbolQuery } from './symbol-query';
export { WorkspaceSymbolIndex, type WorkspaceSymbolFile } from './workspace-symbol-index';

/**
 * The most symbols one query answers (clients cap too; the best ranks are kept).
 * @public
 */
export const MAX_WORKSPACE_SYMBOLS = 256;

/** Files looked up, and matches confirmed, between two yields of `workspaceSymbolSteps`. */
const FILES_PER_SLICE = 64;
const CANDIDATES_PER_SLICE = 256;
/**
 * How `workspaceSymbolSteps` answers.
 * @public
 */
export interface WorkspaceSymbolOptions {
  /** At most this many symbols (default and most: MAX_WORKSPACE_SYMBOLS). */
  limit?: number;
}

/**
 * The workspace symbol query `query` over the indexed files, best first and at most
 * `options.limit` (MAX_WORKSPACE_SYMBOLS) of them, in slices: a yield every few dozen files or
 * candidates. See `parseSymbolQuery` for how the query is read and the module for the ranks. Names
 * are the rule's kind and what matched (`pypi https://pypi.org/simple`, `tls *.svc.example:443`,
 * `preset pypi (https://pypi.org)`), led by the query when they do not contain it (clients filter
 * names by the query: `10.1.2.3 via tcp 10.0.0.0/8:5432`); control, bidi and `$(` escaped.
 * @public
 */
export function* workspaceSymbolSteps(index: WorkspaceSymbolIndex, query: unknown, options: WorkspaceSymbolOptions = {}): Generator<void, SymbolInformation[]> {
  const limit = Math.max(0, Math.min(Math.floor(Number(options.limit ?? MAX_WORKSPACE_SYMBOLS)) || 0, MAX_WORKSPACE_SYMBOLS));
  const q = parseSymbolQuery(query);
  const state = stateOf(index);
  const items = new ItemCache(state);
  const best = yield* rankedSteps(state, q, limit, items);
  const out: SymbolInformation[] = [];
  for (const f of best) {
    const r = f.file.ranges;
    const at = f.order * 4;
    out.push({
      name: symbolName(f, q, items),
      kind: f.order < f.file.sources ? SymbolKind.Package : f.order < f.file.sources + f.file.connections ? SymbolKind.Interface : SymbolKind.EnumMember,
      location: { uri: f.file.uri, range: { start: { line: r[at], character: r[at + 1] }, end: { line: r[at + 2], character: r[at + 3] } } },
      containerName: escapeIcons(clipped(f.file.container, 300)),
    });
  }
  return out;
}

/**
 * `workspaceSymbolSteps` run to the end at once.
 * @public
 */
export function findWorkspaceSymbols(index: WorkspaceSymbolIndex, query: unknown, options: WorkspaceSymbolOptions = {}): SymbolInformation[] {
  return runAll(workspaceSymbolSteps(index, query, options));
}

/** The ranks of an answer (URI, rule order, rank), for the property tests that hold them to core's evaluator. */
export function ranksForTest(index: WorkspaceSymbolIndex, query: string): Array<{ uri: string; order: number; rank: number }> {
  const state = stateOf(index);
  return runAll(rankedSteps(state, parseSymbolQuery(query), MAX_WORKSPACE_SYMBOLS, new ItemCache(state))).map((f) => ({ uri: f.file.uri, order: f.order, rank: f.rank }));
}

function runAll<T>(steps: Generator<void, T>): T {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/** The best `limit` matches of the query, best first. */
function* rankedSteps(index: IndexState, q: SymbolQuery, limit: number, items: ItemCache): Generator<void, Found[]> {
  if (q.kind === 'none' || limit === 0) return [];
  const files = index.sorted();
  const found = new PerRule<Found>();
  const add = (f: Found): void => {
    const seen = found.get(f.file, f.order);
    if (seen && (seen.rank < f.rank || (seen.rank === f.rank && seen.specific >= f.specific))) return;
    found.set(f.file, f.order, f);
  };
  if (q.kind === 'all') {
    for (const file of files) {
      for (let order = 0; order < file.ruleCount && found.size < limit; order++) add({ file, order, rank: 0, specific: 0 });
      if (found.size >= limit) break;
    }
  } else if (q.kind === 'address') {
    let n = 0;
    for (const [file, order, prefix] of index.cidrCandidates(q.version, q.bytes, q.prefix)) {
      if (++n % CANDIDATES_PER_SLICE === 0) yield;
      add({ file, order, rank: 0, specific: prefix, cidr: { version: q.version, bytes: q.bytes, prefix } });
    }
  } else if (q.kind === 'host') {
    let n = 0;
    for (const [file, order, wild] of index.hostCandidates(q.host)) {
      if (++n % CANDIDATES_PER_SLICE === 0) yield;
      add({ file, order, rank: wild ? 1 : 0, specific: 0, host: q.host });
    }
  } else if (q.kind === 'url' || q.kind === 'repository') {
    // The rules that may permit what the query names (a source whose URL prefix covers a request it
    // names, a connection by name, a git source by SSH host), confirmed by core for the rule alone;
    // then every other rule on the host, rank 1.
    const host = q.kind === 'url' ? q.url.host : q.host;
    const accesses = probes(q);
    const confirmed = new PerRule<true>();
    let n = 0;
    const confirm = (file: FileIndex, order: number): void => {
      // Each rule once, whichever URL prefix or host found it.
      if (confirmed.get(file, order)) return;
      confirmed.set(file, order, true);
      const rules = items.rules(file, order);
      const permits = accesses.some((a) => (rules instanceof CompiledPolicy ? rules.firstPermitting(a) !== undefined : anyPermits(rules, a))) || sshPermits(rules, q);
      if (permits) add({ file, order, rank: 0, specific: 0, host });
    };
    for (const a of accesses) {
      const url = a.kind === 'http' ? parseUrl(a.url) : undefined;
      if (!url) continue;
      for (const [file, order] of index.urlCandidates(url)) {
        if (++n % CANDIDATES_PER_SLICE === 0) yield;
        confirm(file, order);
      }
    }
    for (const [file, order, , by] of index.hostCandidates(host)) {
      if (++n % CANDIDATES_PER_SLICE === 0) yield;
      if (by === 'name' || (by === 'ssh' && q.kind === 'repository')) confirm(file, order);
      if (!found.get(file, order)) add({ file, order, rank: 1, specific: 0, host });
    }
  }
  // The weakest match, a substring of a rule's text, only while there is room.
  if (q.kind !== 'all' && found.size < limit) {
    const needle = q.text.toLowerCase();
    for (let f = 0; f < files.length && found.size < limit; f++) {
      if (f % FILES_PER_SLICE === FILES_PER_SLICE - 1) yield;
      const file = files[f];
      for (const order of textMatches(file, needle)) {
        if (found.size >= limit) break;
        if (!found.get(file, order)) add({ file, order, rank: 2, specific: 0 });
      }
    }
  }
  return found.values().sort((a, b) => a.rank - b.rank || b.specific - a.specific || fileOrder(a.file, b.file) || a.order - b.order).slice(0, limit);
}

function fileOrder(a: FileIndex, b: FileIndex): number {
  return a === b ? 0 : a.container < b.container ? -1 : a.container > b.container ? 1 : a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0;
}

/**
 * The HTTP requests a URL or repository query names: a GET of the URL; for `host/path`, a GET of it
 * over HTTPS (git smart HTTP, or any source covering it) and of its OCI manifest. An SSH remote names
 * none (`sshPermits`): the same repository over HTTPS only reaches the host.
 */
function probes(q: Extract<SymbolQuery, { kind: 'url' | 'repository' }>): Access[] {
  const get = (url: string): Access => ({ kind: 'http', method: 'GET', url });
  if (q.kind === 'url') return [get(q.text)];
  return q.ssh ? [] : [get(`https://${q.host}/${q.path}`), get(`https://${q.host}/v2/${q.path.replace(/\/+$/, '')}/manifests/latest`)];
}

/** Does the rule permit the repository query over SSH (on the query's port and user, else any the rule names)? */
function sshPermits(rules: PolicyRules | CompiledPolicy, q: SymbolQuery): boolean {
  if (q.kind !== 'repository') return false;
  const entries = rules instanceof CompiledPolicy ? rules.rules.ssh : rules.ssh;
  return entries.some((e) => {
    const a: Access = { kind: 'ssh', host: q.host, port: q.port ?? e.port, user: q.user ?? e.user, repositoryPath: q.path };
    return rules instanceof CompiledPolicy ? rules.firstPermitting(a) !== undefined : anyPermits(rules, a);
  });
}

/** The rules of a file whose text holds `needle` (case ignored): its items as written, an enabled preset's name and contents. */
function* textMatches(file: FileIndex, needle: string): Generator<number> {
  const lower = (file.lower ??= file.text.toLowerCase());
  const seen = new Set<number>();
  for (let at = lower.indexOf(needle); at >= 0; at = lower.indexOf(needle, at + 1)) {
    // The item starting at or before the match, if the match ends inside it.
    let lo = 0, hi = file.byStart.length - 1, hit = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (file.spans[file.byStart[mid] * 2] <= at) { hit = file.byStart[mid]; lo = mid + 1; } else hi = mid - 1;
    }
    if (hit >= 0 && at + needle.length <= file.spans[hit * 2 + 1] && !seen.has(hit)) {
      seen.add(hit);
      yield hit;
    }
  }
  const base = file.sources + file.connections;
  for (let k = 0; k < file.presets.length; k++) if (!seen.has(base + k) && presetText(file.catalog, file.presets[k]).includes(needle)) yield base + k;
}

