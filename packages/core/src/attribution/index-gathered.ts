/**
 * The candidates of one access, as `indexSbom`'s index gathers them from its lists (index-maps.ts):
 * each component once, at most `maxCandidates`, in the order the lists were wanted. One `Gathered`
 * serves every access of an index, emptied before each (attribution is synchronous).
 */
import type { Held, List } from './index-maps';

/** Candidates gathered before `Gathered` keeps a set of them (a scan of a few is cheaper than a set per access). */
const SCANNED = 8;

/** The candidates of one access: each once, at most `max`. */
export class Gathered {
  readonly list: List = [];
  /** Made once the list is longer than `SCANNED`: most accesses gather one list of one or two. */
  private seen: Set<Held> | undefined;
  full = false;

  /** Lists wanted (`want`), taken in order by `takeWanted`; `count` of them. */
  private readonly wanted: List[] = [];
  private count = 0;

  constructor(private readonly max: number) {}

  /** Empty again: one `Gathered` serves every access of an index (attribution is synchronous). */
  reset(): void {
    this.list.length = 0;
    this.seen = undefined;
    this.full = false;
    this.count = 0;
  }

  /**
   * A list to take after those wanted before it (`takeWanted`): `take`'s loop then has one call
   * site, where `candidates` had a copy of it at each of its look-ups (TurboFan compiled it for
   * 100-180 ms of CPU, twice when it deoptimised).
   */
  want(list: List | undefined): void {
    if (list === undefined) return;
    if (this.count < this.wanted.length) this.wanted[this.count] = list;
    else this.wanted.push(list);
    this.count++;
  }

  /** `take` of each list wanted, in order. */
  takeWanted(): void {
    for (let i = 0; i < this.count && !this.full; i++) this.take(this.wanted[i]);
    this.count = 0;
  }

  take(list: List | undefined): void {
    if (list === undefined || this.full) return;
    for (const c of list) {
      if (this.seen !== undefined ? this.seen.has(c) : this.list.includes(c)) continue;
      if (this.list.length >= this.max) { this.full = true; return; }
      this.list.push(c);
      if (this.seen !== undefined) this.seen.add(c);
      else if (this.list.length > SCANNED) this.seen = new Set(this.list);
    }
  }
}
