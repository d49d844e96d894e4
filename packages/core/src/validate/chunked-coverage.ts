/**
 * Which rules of a policy read batch by batch may take part in coverage (chunked.ts, step 3): their
 * keys counted in constant memory as the batches go by, so that only the rules sharing a key with
 * another rule or a preset are parsed again and kept.
 */
import type { PresetCatalog } from '../presets/catalog';
import { KeyPass } from '../lint/coverage';
import type { CidrLengths } from '../lint/coverage-keys';
import { kindOf, type JsonObject } from '../lint/walk';
import { enabledPresets } from '../policy/rules-read';
import type { List } from './chunked-scan';

/**
 * Which items may take part in coverage: lint/coverage.ts's `participants` first pass, a batch at a
 * time. Every rule's keys (hosts, host patterns and their parent wildcards, CIDR networks) are
 * counted in count-min sketches (the presets' too); a rule is a candidate when it shares a key with
 * another rule or a preset, or has no key at all. Items are numbered over both lists, sources first.
 *
 * A CIDR looks up the networks of every shorter prefix length some CIDR of the policy has, so the
 * lengths are needed before the first rule is read: the scan gives a superset of them (every number
 * after a `/` in a string of `connections`, decoded when escaped, and /32 and /128 for bare
 * addresses). More lengths only mean more lookups, so more candidates, never fewer; the analysis of
 * the thinned policy filters again among the candidates: a superset gives the whole policy's analysis.
 */
export class CoverageKeys {
  private readonly pass: KeyPass;
  /** 1 for an item that is a walker entry (one recognised kind whose value is an object). */
  private readonly entry: Uint8Array;
  private next = 0;

  constructor(ordered: List[], root: JsonObject, catalog: PresetCatalog) {
    const n = ordered.reduce((sum, l) => sum + l.length, 0);
    // A superset of the prefix lengths of the policy's CIDRs, from the scan (and /32 and /128 for bare addresses).
    const lengths: CidrLengths = { 4: new Set([32]), 6: new Set([128]) };
    for (const list of ordered) {
      for (const length of list.prefixes ?? []) {
        if (length <= 32) lengths[4].add(length);
        lengths[6].add(length);
      }
    }
    // Sketches half the size lint's own pass takes (a sketch never counts too few): the refinement
    // of `candidates` removes what the extra collisions let through (pretty 200k rules: 8 MB less).
    this.pass = new KeyPass(n, lengths, enabledPresets(root, catalog), n);
    this.entry = new Uint8Array(n);
  }

  /** The next item (in the order of the numbering). */
  add(item: unknown, source: boolean): void {
    const e = this.next++;
    const kind = kindOf(item, source);
    if (kind !== undefined) this.entry[e] = 1;
    this.pass.add(source, kind, kind === undefined ? undefined : ((item as JsonObject)[kind] as JsonObject));
  }

  /**
   * 1 for each item that may take part. Sketches overcount (a third of a million rules' keys may
   * collide in them), and the kept rules are held in memory, so the count is refined: two rules that
   * share a key are both candidates, so counting the candidates' keys alone, in fresh sketches, still
   * finds every shared key, with fewer collisions. Repeated while it drops candidates (a few rounds).
   */
  candidates(): Uint8Array {
    const n = this.entry.length;
    const take = new Uint8Array(n);
    let count = 0;
    for (let e = 0; e < n; e++) if (this.entry[e] === 1) take[e] = 1, count++;
    for (let round = 0; round < 4; round++) {
      const kept = this.pass.filter(take, true);
      if (kept === count || kept === 0) break;
      count = kept;
      this.pass.recount((e) => take[e] === 1, count * 2);
    }
    return take;
  }
}
