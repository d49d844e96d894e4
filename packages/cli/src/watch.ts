/**
 * `--watch` (check, explain): run once, then again whenever one of the watched files changes,
 * until interrupted. Folders are watched, not file inodes, so an editor that saves by writing a
 * new file and renaming it over the old one is still seen. Changes are debounced.
 */
import { watch, type FSWatcher } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { statSync } from 'node:fs';
import { EXIT, UsageError, type Io } from './io';

/** Runs `once` now and after every change of `paths` (files or folders); resolves only when `signal` aborts. */
export async function watchAndRerun(name: string, paths: string[], once: () => Promise<number>, io: Io, options: { debounceMs?: number; signal?: AbortSignal } = {}): Promise<number> {
  if (paths.includes('-')) throw new UsageError('--watch needs files: standard input (`-`) cannot be watched');
  const runGuarded = async () => {
    try {
      return await once();
    } catch (error) {
      if (!(error instanceof UsageError)) throw error;
      io.stderr.write(`netpolicy ${name}: ${error.message}\n`);
      return error.exitCode;
    }
  };
  let last = await runGuarded();
  const watchers: FSWatcher[] = [];
  const byDir = new Map<string, { recursive: boolean; names: Set<string> | undefined }>();
  for (const p of paths) {
    const full = resolve(io.cwd, p);
    let isDir = false;
    try { isDir = statSync(full).isDirectory(); } catch {}
    if (isDir) byDir.set(full, { recursive: true, names: undefined });
    else {
      const dir = dirname(full);
      const entry = byDir.get(dir) ?? { recursive: false, names: new Set<string>() };
      entry.names?.add(basename(full));
      byDir.set(dir, entry);
    }
  }
  let timer: NodeJS.Timeout | undefined;
  let running = false;
  let again = false;
  const changed = (what: string) => {
    clearTimeout(timer);
    timer = setTimeout(async () => {
      if (running) { again = true; return; }
      running = true;
      do {
        again = false;
        io.stderr.write(`\nnetpolicy ${name}: ${what} changed, running again\n`);
        last = await runGuarded();
        io.stderr.write(`netpolicy ${name}: exit ${last}; watching for changes (Ctrl-C to stop)\n`);
      } while (again);
      running = false;
    }, options.debounceMs ?? 150);
  };
  for (const [dir, entry] of byDir) {
    try {
      watchers.push(watch(dir, { recursive: entry.recursive }, (_event, file) => {
        const f = file === null ? undefined : String(file);
        if (entry.names && (f === undefined || !entry.names.has(basename(f)))) return;
        changed(f ?? dir);
      }));
    } catch (error) {
      throw new UsageError(`cannot watch ${dir}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    }
  }
  io.stderr.write(`netpolicy ${name}: exit ${last}; watching ${paths.join(', ')} for changes (Ctrl-C to stop)\n`);
  await new Promise<void>((done) => {
    const stop = () => done();
    options.signal?.addEventListener('abort', stop, { once: true });
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  clearTimeout(timer);
  for (const w of watchers) w.close();
  return last === EXIT.ok ? EXIT.ok : last;
}
