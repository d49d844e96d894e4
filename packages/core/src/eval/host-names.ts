/** A connection's host names with those DNS answers gave its address (internal to the evaluator, not exported by the package). */
import { normaliseHostFast } from './url';

/**
 * A connection's host names: its own (the trace's `hostnames`), then the names DNS answers gave
 * its address that it does not already name (compared as host names: case and a trailing dot do
 * not count), each once. The connection's own array when DNS adds nothing to it; `resolved` itself
 * when the connection names none and `copy` is false (evaluation only reads the list).
 */
export function withResolvedNames(own: string[] | undefined, resolved: readonly string[], copy: boolean): string[] {
  if (!own || own.length === 0) return copy ? resolved.slice() : (resolved as string[]);
  let out: string[] | undefined;
  for (let i = 0; i < resolved.length; i++) {
    const name = resolved[i];
    if (namesHost(own, name)) continue;
    (out ??= own.slice()).push(name);
  }
  return out ?? own;
}

/** Whether `names` holds `host` (a normalised name), compared as host names. */
export function namesHost(names: readonly string[], host: string): boolean {
  for (let i = 0; i < names.length; i++) if (names[i] === host || normaliseHostFast(names[i]) === host) return true;
  return false;
}
