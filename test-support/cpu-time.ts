/**
 * CPU time of this process, for tests that guard against a blow-up (quadratic or backtracking work)
 * without timing the machine's load. `npm test` must pass under `nice` beside CPU-bound processes,
 * where the wall-clock time of the same work is ten or more times what it is on a quiet machine;
 * the CPU time the work takes grows far less (a few times at most, from caches shared with the
 * other processes). Bounds on it are about ten times the quiet figure or wider, and only where the
 * blow-up they catch is larger still (seconds, for work of milliseconds). Budgets belong in
 * `npm run bench`.
 */
export function cpuMs<T>(work: () => T): { ms: number; result: T } {
  const before = process.cpuUsage();
  const result = work();
  const { user, system } = process.cpuUsage(before);
  return { ms: (user + system) / 1000, result };
}
