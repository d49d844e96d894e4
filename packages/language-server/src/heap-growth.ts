/**
 * How far the Node server's heap may grow between full collections. Each keystroke in a big
 * policy makes a new text (a 2 MB flat string for a 10,000-rule file) that the next young
 * collection promotes; with V8's dynamic factor, which keeps the heap close to what is live when
 * collections are cheap, that made a full collection every five to ten edits, and their
 * incremental marking and finalisation landed on the completion and hover requests that follow
 * an edit (issue 29 item 6: 16-27 full collections per 200 edits, each one a request's tail).
 * A fixed factor of 3 (V8's own high-memory maximum is 4) makes them rare: 4-5 per 200 edits,
 * for a heap 12-18 MB larger on that file (45 MB after 200 edits, against 27-33 MB). A server
 * started with its own `--heap-growing-percent` (`=0`: V8's dynamic factor again) keeps it.
 */
export const HEAP_GROWING_PERCENT = 200;

const FLAG = /^--heap[-_]growing[-_]percent(?:=|$)/;

/**
 * Sets V8's heap growing factor for this process (`set`: `v8.setFlagsFromString`; V8 reads the
 * flag each time it computes the next limit) unless the process was started with one; true when set.
 */
export function tuneHeapGrowth(execArgv: readonly string[], set: (flags: string) => void): boolean {
  if (execArgv.some((a) => FLAG.test(a))) return false;
  set(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  return true;
}
