/**
 * The unified diff that `check --fix` and `explain --apply` print, in time about linear in the
 * file. jsdiff's `createTwoFilesPatch` runs Myers' algorithm on the whole file: O(lines × changes),
 * and `check --fix` of a policy with a fix in every rule changes a line in every few (8,000 rules:
 * 60 s of a 74 s run in the diff). Here lines are matched as patience diff does (git's
 * `--patience`): common first and last lines taken off, then the lines found exactly once in each
 * side are the anchors (the longest run of them in the same order; failing those, lines found as
 * many times in each side, paired in order), and the stretches between anchors are diffed the same
 * way; a stretch with no such line goes to Myers (jsdiff's `diffArrays`) with the edit length
 * bounded, and past that bound is shown as removed and added whole. The hunks are made and printed as jsdiff makes them (`formatPatch`: same headers, ranges,
 * context and "\ No newline at end of file"); `applyPatch` of the result gives the new text.
 */
import { diffArrays, FILE_HEADERS_ONLY, formatPatch, type StructuredPatchHunk } from 'diff';

/** Stretches this deep in the recursion go to Myers directly (each level costs one pass over its stretches). */
const MAX_DEPTH = 24;
/** Myers' work in one stretch is about its length times this bound on its edit length. */
const MAX_EDIT_LENGTH = 64;

/** A run of lines: equal in both texts, removed from the old one or added by the new one. */
interface Run { kind: 'equal' | 'removed' | 'added'; from: number; to: number }

/** Lines as jsdiff's `diffLines` cuts them: each with its line break (`\n` or `\r\n`). */
export function splitLines(text: string): string[] {
  const lines: string[] = [];
  let start = 0;
  for (;;) {
    const nl = text.indexOf('\n', start);
    if (nl < 0) break;
    lines.push(text.slice(start, nl + 1));
    start = nl + 1;
  }
  if (start < text.length) lines.push(text.slice(start));
  return lines;
}

/** The unified diff of `before` and `after` under the names `oldName` and `newName` ('' when equal). */
export function unifiedLineDiff(oldName: string, newName: string, before: string, after: string, context = 3): string {
  if (before === after) return '';
  const oldLines = splitLines(before);
  const newLines = splitLines(after);
  // Lines as small integers: every comparison below is one of numbers.
  const ids = new Map<string, number>();
  const idsOf = (lines: string[]) => {
    const out = new Int32Array(lines.length);
    for (let i = 0; i < lines.length; i++) {
      let id = ids.get(lines[i]);
      if (id === undefined) ids.set(lines[i], (id = ids.size));
      out[i] = id;
    }
    return out;
  };
  const a = idsOf(oldLines);
  const b = idsOf(newLines);
  const runs: Run[] = [];
  diffRange(a, b, 0, a.length, 0, b.length, 0, runs);
  const hunks = toHunks(orderRuns(runs), oldLines, newLines, context);
  return formatPatch({ oldFileName: oldName, newFileName: newName, oldHeader: undefined, newHeader: undefined, hunks }, FILE_HEADERS_ONLY);
}

/** The line runs (old lines a0..a1 against new lines b0..b1), in order, appended to `out`. */
function diffRange(a: Int32Array, b: Int32Array, a0: number, a1: number, b0: number, b1: number, depth: number, out: Run[]): void {
  const start = a0;
  while (a0 < a1 && b0 < b1 && a[a0] === b[b0]) { a0++; b0++; }
  if (a0 > start) push(out, 'equal', start, a0);
  let tail = 0;
  while (a1 > a0 && b1 > b0 && a[a1 - 1] === b[b1 - 1]) { a1--; b1--; tail++; }
  if (a0 === a1 || b0 === b1) {
    push(out, 'removed', a0, a1);
    push(out, 'added', b0, b1);
  } else {
    const anchors = depth < MAX_DEPTH ? anchorsOf(a, b, a0, a1, b0, b1) : [];
    if (anchors.length === 0) myers(a, b, a0, a1, b0, b1, out);
    else {
      let i = a0;
      let j = b0;
      for (let k = 0; k < anchors.length; k += 2) {
        diffRange(a, b, i, anchors[k], j, anchors[k + 1], depth + 1, out);
        push(out, 'equal', anchors[k], anchors[k] + 1);
        i = anchors[k] + 1;
        j = anchors[k + 1] + 1;
      }
      diffRange(a, b, i, a1, j, b1, depth + 1, out);
    }
  }
  if (tail > 0) push(out, 'equal', a1, a1 + tail);
}

/**
 * Pairs (old index, new index), flattened, of matching lines to keep: the lines found exactly once
 * in each range (patience diff); if there is none, the lines found as many times in each range, the
 * k-th in one paired with the k-th in the other (the `{` and `],` of rules whose every other line
 * changed). Of those pairs, the longest chain in the same order in both (patience sorting: O(k log k)).
 */
function anchorsOf(a: Int32Array, b: Int32Array, a0: number, a1: number, b0: number, b1: number): number[] {
  const countA = new Map<number, number>();
  for (let i = a0; i < a1; i++) countA.set(a[i], (countA.get(a[i]) ?? 0) + 1);
  const inB = new Map<number, number[]>();
  for (let j = b0; j < b1; j++) {
    if (!countA.has(b[j])) continue;
    const at = inB.get(b[j]);
    if (at) at.push(j);
    else inB.set(b[j], [j]);
  }
  for (const once of [true, false]) {
    const pairsI: number[] = [];
    const pairsJ: number[] = [];
    const seen = new Map<number, number>();
    for (let i = a0; i < a1; i++) {
      const count = countA.get(a[i])!;
      const at = inB.get(a[i]);
      if (!at || at.length !== count || (once && count !== 1)) continue;
      const k = seen.get(a[i]) ?? 0;
      seen.set(a[i], k + 1);
      pairsI.push(i);
      pairsJ.push(at[k]);
    }
    if (pairsI.length > 0) return longestChain(pairsI, pairsJ);
  }
  return [];
}

/** The longest run of pairs increasing in both indexes (pairsI increases already): patience sorting. */
function longestChain(pairsI: number[], pairsJ: number[]): number[] {
  // tails[k]: the pair ending the best chain of k + 1 found so far.
  const tails: number[] = [];
  const previous = new Int32Array(pairsI.length);
  for (let p = 0; p < pairsJ.length; p++) {
    let lo = 0;
    let hi = tails.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (pairsJ[tails[mid]] < pairsJ[p]) lo = mid + 1;
      else hi = mid;
    }
    previous[p] = lo > 0 ? tails[lo - 1] : -1;
    tails[lo] = p;
  }
  const chain: number[] = new Array(tails.length * 2);
  for (let p = tails[tails.length - 1], k = tails.length - 1; p >= 0; p = previous[p], k--) {
    chain[2 * k] = pairsI[p];
    chain[2 * k + 1] = pairsJ[p];
  }
  return chain;
}

/** Myers' diff of a stretch with no unique common line, bounded; past the bound, all removed and all added. */
function myers(a: Int32Array, b: Int32Array, a0: number, a1: number, b0: number, b1: number, out: Run[]): void {
  const changes = diffArrays(Array.from(a.subarray(a0, a1)), Array.from(b.subarray(b0, b1)), { maxEditLength: MAX_EDIT_LENGTH });
  if (!changes) {
    push(out, 'removed', a0, a1);
    push(out, 'added', b0, b1);
    return;
  }
  let i = a0;
  let j = b0;
  for (const c of changes) {
    const n = c.count ?? c.value.length;
    if (c.removed) { push(out, 'removed', i, i + n); i += n; }
    else if (c.added) { push(out, 'added', j, j + n); j += n; }
    else { push(out, 'equal', i, i + n); i += n; j += n; }
  }
}

/** Appends a run, merged with the last one when of the same kind. Equal runs are in old-line numbers. */
function push(out: Run[], kind: Run['kind'], from: number, to: number): void {
  if (from >= to) return;
  const last = out[out.length - 1];
  if (last && last.kind === kind && last.to === from) last.to = to;
  else out.push({ kind, from, to });
}

/** Between two equal runs, the removed lines first, then the added ones (as jsdiff prints a change). */
function orderRuns(runs: Run[]): Run[] {
  const out: Run[] = [];
  for (let k = 0; k < runs.length;) {
    if (runs[k].kind === 'equal') { out.push(runs[k++]); continue; }
    const removed: Run[] = [];
    const added: Run[] = [];
    for (; k < runs.length && runs[k].kind !== 'equal'; k++) (runs[k].kind === 'removed' ? removed : added).push(runs[k]);
    for (const group of [removed, added]) {
      if (group.length === 0) continue;
      // Consecutive in their own text: one run.
      out.push({ kind: group[0].kind, from: group[0].from, to: group[group.length - 1].to });
    }
  }
  return out;
}

/** jsdiff's `structuredPatch` hunks from line runs (the same grouping: runs of equal lines up to 2 × context join two changes). */
function toHunks(runs: Run[], oldLines: string[], newLines: string[], context: number): StructuredPatchHunk[] {
  const hunks: StructuredPatchHunk[] = [];
  const linesOf = (r: Run) => (r.kind === 'added' ? newLines : oldLines).slice(r.from, r.to);
  let oldRangeStart = 0;
  let newRangeStart = 0;
  let current: string[] = [];
  let oldLine = 1;
  let newLine = 1;
  for (let i = 0; i < runs.length; i++) {
    const run = runs[i];
    const count = run.to - run.from;
    if (run.kind !== 'equal') {
      if (!oldRangeStart) {
        oldRangeStart = oldLine;
        newRangeStart = newLine;
        const previous = runs[i - 1];
        if (previous && context > 0) {
          current = linesOf({ ...previous, from: Math.max(previous.from, previous.to - context) }).map((l) => ` ${l}`);
          oldRangeStart -= current.length;
          newRangeStart -= current.length;
        } else current = [];
      }
      const sign = run.kind === 'added' ? '+' : '-';
      for (const line of linesOf(run)) current.push(sign + line);
      if (run.kind === 'added') newLine += count;
      else oldLine += count;
      continue;
    }
    if (oldRangeStart) {
      // jsdiff appends an empty sentinel run: an equal run that is not the last joins two changes when short.
      if (count <= context * 2 && i < runs.length - 1) for (const line of linesOf(run)) current.push(` ${line}`);
      else {
        const size = Math.min(count, context);
        for (const line of linesOf({ ...run, to: run.from + size })) current.push(` ${line}`);
        hunks.push({ oldStart: oldRangeStart, oldLines: oldLine - oldRangeStart + size, newStart: newRangeStart, newLines: newLine - newRangeStart + size, lines: current });
        oldRangeStart = 0;
        newRangeStart = 0;
        current = [];
      }
    }
    oldLine += count;
    newLine += count;
  }
  if (oldRangeStart) hunks.push({ oldStart: oldRangeStart, oldLines: oldLine - oldRangeStart, newStart: newRangeStart, newLines: newLine - newRangeStart, lines: current });
  for (const hunk of hunks) {
    const lines: string[] = [];
    for (const line of hunk.lines) {
      if (line.endsWith('\n')) lines.push(line.slice(0, -1));
      else lines.push(line, '\\ No newline at end of file');
    }
    hunk.lines = lines;
  }
  return hunks;
}
