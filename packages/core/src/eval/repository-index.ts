/**
 * Repository-pattern entries (oci and git sources) of one place (one URL, one SSH host pattern),
 * indexed by the first segment of their patterns (internal to the evaluator). A company's policy
 * names its own registry or Git server many times, a source per team (`team-a/*`, `team-b/**`):
 * trying each of them on every request to that host was a rule scan (a 1,000-rule policy with 140
 * oci sources on one registry: 40 ms of pattern matches per 200,000 observations,
 * docs/performance.md, issue 20 round 4). A pattern whose first segment is literal matches only a
 * path whose first segment is that very segment (case-insensitive), so an entry all of whose
 * patterns start with a literal segment is looked at only for such paths.
 */
import { normaliseRepositoryPath, type CompiledRepositoryPattern } from '../formats/repository-pattern';

const NONE: readonly never[] = Object.freeze([]);
/** Up to this many indexed entries `few` says to try them all. */
const FEW = 4;

export class RepositoryIndex<T extends { repositoryMatchers?: readonly CompiledRepositoryPattern[] }> {
  /**
   * Entries any repository path may concern, in the order added: no patterns (any repository), or
   * a pattern whose first segment has a wildcard (`*`, `**`, `team-*`).
   */
  readonly plain: T[] = [];
  /** Every other entry, once, in the order added. */
  readonly indexed: T[] = [];
  /** Those entries by the (lower-case) first segment of each of their patterns. */
  private readonly bySegment = new Map<string, T[]>();

  add(entry: T): void {
    const matchers = entry.repositoryMatchers;
    const firsts = new Set<string>();
    if (matchers !== undefined) {
      for (const m of matchers) {
        const first = m.segments[0];
        if (first === undefined || first.includes('*')) { firsts.clear(); break; }
        firsts.add(first);
      }
    }
    if (firsts.size === 0) { this.plain.push(entry); return; }
    this.indexed.push(entry);
    for (const first of firsts) {
      const list = this.bySegment.get(first);
      if (list) list.push(entry);
      else this.bySegment.set(first, [entry]);
    }
  }

  /**
   * Whether the indexed entries are few enough to try them all: reading the path's first segment
   * and looking it up cost more than trying two or three entries (the common case: a source per
   * registry).
   */
  get few(): boolean {
    return this.indexed.length <= FEW;
  }

  /** The indexed entries a repository path may match (the plain ones are the caller's to try too). */
  candidates(repositoryPath: string | undefined): readonly T[] {
    if (repositoryPath === undefined || this.bySegment.size === 0) return NONE;
    const first = firstSegment(repositoryPath);
    return first === undefined ? NONE : this.bySegment.get(first) ?? NONE;
  }
}

/**
 * The first segment of a repository path as the patterns see it (`normaliseRepositoryPath`:
 * leading `/`s and a trailing `.git` dropped, lower case); undefined for a path with none. Read in
 * place for ASCII (one slice, lower-cased only when it has capitals); `firstSegmentSlow` is the
 * definition, and the reference of `repository-index.property.test.ts`.
 */
export function firstSegment(repositoryPath: string): string | undefined {
  const n = repositoryPath.length;
  let from = 0;
  while (from < n && repositoryPath.charCodeAt(from) === 47) from++;
  let end = from;
  let upper = false;
  for (; end < n; end++) {
    const c = repositoryPath.charCodeAt(end);
    if (c === 47) break;
    if (c > 127) return firstSegmentSlow(repositoryPath);
    if (c >= 65 && c <= 90) upper = true;
  }
  // `.git` is dropped only at the very end of the path (a `/` after it keeps it).
  let to = end;
  if (end === n && to - from >= 4 && repositoryPath.charCodeAt(to - 4) === 46 && (repositoryPath.charCodeAt(to - 3) | 32) === 103
    && (repositoryPath.charCodeAt(to - 2) | 32) === 105 && (repositoryPath.charCodeAt(to - 1) | 32) === 116) to -= 4;
  if (to === from) return end === n ? undefined : firstSegmentSlow(repositoryPath);
  const segment = from === 0 && to === n ? repositoryPath : repositoryPath.slice(from, to);
  return upper ? segment.toLowerCase() : segment;
}

/** `firstSegment` by its definition. */
export function firstSegmentSlow(repositoryPath: string): string | undefined {
  const p = normaliseRepositoryPath(repositoryPath);
  if (p.length === 0) return undefined;
  const slash = p.indexOf('/');
  return slash < 0 ? p : p.slice(0, slash);
}
