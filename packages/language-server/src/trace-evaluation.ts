/**
 * Trace evaluation: every trace configured for a document's folder is explained against the
 * policy (core's `explain`, streamed from the file), into the usage behind code lenses, unused
 * rule hints and `netpolicy/denials`. The open documents (documents.ts) say when, and keep the
 * result; this module reads and evaluates, and gives up as soon as its result would be stale (a
 * newer version, a close, trust withdrawn, shutdown).
 */
import { LINT_CODES, explain, type Diagnostic, type Policy, type PolicyDocument } from '@netpolicy/core';
import { ObservationPlaces, addResult, emptyUsage, type TraceUsage } from '@netpolicy/language-service';
import { MAX_LOGGED_PATHS } from './file-problems';
import { FileProblem, type ServerHost } from './host';
import { SLICE_MS } from './slices';
import { Cancelled, type Session } from './session';
import type { Folder, Workspace } from './workspace';

/**
 * Quiet time after an edit before re-evaluating traces (heavier, less urgent).
 * @public
 */
export const TRACE_DEBOUNCE_MS = 500;

/** Lint findings do not stop trace evaluation (a severity override may make one an error); a policy that is not valid does. */
const LINT = new Set<string>(LINT_CODES);

/** Whether a policy with these diagnostics is evaluated (as `netpolicy explain`: a valid policy, whatever its lint findings). */
export function evaluable(doc: PolicyDocument, diagnostics: readonly Diagnostic[]): boolean {
  return !doc.syntaxFailed && !diagnostics.some((d) => d.severity === 'error' && !LINT.has(d.code));
}

/** The first few of a long list of paths, and how many more (a log line for 100,000 traces stays a line). */
function listed(paths: readonly string[], shown = 3): string {
  return paths.length <= shown ? paths.join(', ') : `${paths.slice(0, shown).join(', ')} and ${paths.length - shown} more`;
}

/** One byte in this many goes into a trace's stamp (with its length): about 3 ms for a 55 MB trace. */
const STAMP_STRIDE = 16;

/**
 * What tells a trace file's bytes from other bytes, cheaply: their length and an FNV-1a hash of
 * one byte in 16 (at fixed offsets, whatever the chunks). The places of observations found in a
 * file of the same stamp as the one evaluated are taken for that file's.
 */
export class TraceStamp {
  private bytes = 0;
  private hash = 0x811c9dc5;

  add(chunk: Uint8Array): void {
    let hash = this.hash;
    for (let i = (STAMP_STRIDE - (this.bytes % STAMP_STRIDE)) % STAMP_STRIDE; i < chunk.length; i += STAMP_STRIDE) hash = Math.imul(hash ^ chunk[i], 0x01000193);
    this.hash = hash;
    this.bytes += chunk.length;
  }

  get value(): string {
    return `${this.bytes}:${(this.hash >>> 0).toString(16)}`;
  }
}

/** Passes the chunks on, adding each to `stamp`. */
async function* stamped(chunks: AsyncIterable<Uint8Array>, stamp: TraceStamp): AsyncGenerator<Uint8Array> {
  for await (const chunk of chunks) {
    stamp.add(chunk);
    yield chunk;
  }
}

/**
 * The most observations whose places are kept, over every trace file (16 bytes each: 64 MB); the
 * least recently used file's are forgotten first.
 */
const MAX_PLACED_OBSERVATIONS = 4_000_000;

export class TraceEvaluator {
  /** The places of the observations of trace files (by path), built on the first references request into them, with the stamp of the bytes they were found in. */
  private readonly places = new Map<string, { stamp: string; places: Promise<ObservationPlaces | undefined>; count: number }>();

  constructor(private readonly host: ServerHost, private readonly session: Session, private readonly workspace: Workspace) {}

  /** Whether the host can read traces at all (a browser cannot). */
  get available(): boolean {
    return !!this.host.listTraceFiles && !!this.host.readChunks;
  }

  /** Whether traces are evaluated for a document: some are configured for its folder, and the workspace is trusted. */
  followed(uri: string): boolean {
    return this.session.trusted && this.workspace.folderOf(uri).traces.length > 0;
  }

  /** In Restricted Mode: says once that the traces configured for the folder of `uri` are not read. */
  sayUnread(uri: string): void {
    const { traces } = this.workspace.folderOf(uri);
    if (!this.session.trusted && traces.length > 0) this.session.logOnce(`the workspace is not trusted: traces ${listed(traces)} not read`);
  }

  /**
   * Explains every trace of the folder of `uri` against `doc`; undefined when `stale` said so on
   * the way. The file problems met are said together (100,000 missing traces: one notification).
   * `progress` hears of each trace file done, of how many known so far (a folder of traces counts once it is listed).
   */
  async evaluate(uri: string, doc: PolicyDocument, stale: () => boolean, progress?: (done: number, total: number) => void): Promise<TraceUsage | undefined> {
    const usage = emptyUsage();
    const folder = this.workspace.folderOf(uri);
    const within = this.session.confined(folder.root);
    const release = this.workspace.problems.hold();
    let invalid: TraceUsage['errors'];
    try {
      invalid = await this.evaluateTracesOf(doc, folder, within, usage, stale, progress);
    } finally {
      release();
    }
    if (stale()) return undefined;
    // Files that could not be used were said by `problems` (once); traces not valid are said here, in a bounded number of lines.
    for (const err of invalid.slice(0, MAX_LOGGED_PATHS)) this.session.log(`trace ${err.trace}: ${err.message}`);
    if (invalid.length > MAX_LOGGED_PATHS) this.session.log(`... and ${invalid.length - MAX_LOGGED_PATHS} more traces not valid (netpolicy/denials lists them)`);
    return usage;
  }

  /**
   * Explains each trace of `folder` against `doc` into `usage` (returns early once `stale`);
   * returns the errors of traces that were read but are not valid traces.
   */
  private async evaluateTracesOf(doc: PolicyDocument, folder: Folder, within: string | undefined, usage: TraceUsage, stale: () => boolean, progress?: (done: number, total: number) => void): Promise<TraceUsage['errors']> {
    const { host, workspace } = this;
    const { problems } = workspace;
    const invalid: TraceUsage['errors'] = [];
    if (!host.listTraceFiles || !host.readChunks) return invalid;
    const failed = (trace: string, err: unknown) => {
      const error = { trace, message: err instanceof FileProblem ? err.problem : err instanceof Error ? err.message : String(err) };
      usage.errors.push(error);
      // A file opened fine but not a valid trace is the trace's business (the log, `errors`), not a file problem.
      if (err instanceof FileProblem) workspace.fileProblem('trace', err.path, err);
      else {
        invalid.push(error);
        problems.clear(trace);
      }
    };
    let sliceStart = Date.now();
    let [done, total] = [0, folder.traces.length];
    for (const t of folder.traces) {
      // 100,000 entries are worked through in slices: edits, requests and publishes go in between.
      if (Date.now() - sliceStart >= SLICE_MS) {
        await new Promise((resolve) => setTimeout(resolve, 0));
        if (stale()) return invalid;
        sliceStart = Date.now();
      }
      let files: string[];
      try {
        files = await host.listTraceFiles(t);
      } catch (err) {
        if (stale()) return invalid;
        failed(t, err);
        progress?.(++done, total);
        continue;
      }
      total += files.length - 1;
      if (files.length !== 1 || files[0] !== t) problems.clear(t);
      for (const file of files) {
        if (stale()) return invalid;
        try {
          const sbom = await workspace.sbomBeside(file, within, doc.value as Policy);
          if (stale()) return invalid;
          const stamp = new TraceStamp();
          const read = { path: file, observations: 0, stamp: undefined as string | undefined };
          usage.files.push(read);
          await explain(doc.value as Policy, stamped(host.readChunks(file, within), stamp), {
            catalog: folder.service.catalog, keep: false,
            onResult: (r) => {
              if (stale()) throw new Cancelled();
              addResult(usage, file, r, sbom);
            },
          });
          read.stamp = stamp.value;
          usage.traces.push(file);
          problems.clear(file);
        } catch (err) {
          if (err instanceof Cancelled || stale()) return invalid;
          failed(file, err);
        }
        progress?.(++done, total);
      }
    }
    return invalid;
  }

  /**
   * Where each observation of a trace file is, for references into it: found on the first request
   * (the file read again, its structure scanned; about 0.3 s for 200,000 observations) and kept
   * while the file's bytes keep the stamp they had when evaluated. Undefined when the file changed
   * since (its evaluation is coming), cannot be read, or the workspace is not trusted.
   */
  observationPlaces(file: string, stamp: string | undefined, within: string | undefined): Promise<ObservationPlaces | undefined> {
    if (stamp === undefined || !this.host.readChunks || !this.session.trusted) return Promise.resolve(undefined);
    const kept = this.places.get(file);
    if (kept && kept.stamp === stamp) {
      // Most recently used last.
      this.places.delete(file);
      this.places.set(file, kept);
      return kept.places;
    }
    const entry = { stamp, places: this.findPlaces(file, stamp, within), count: 0 };
    this.places.set(file, entry);
    void entry.places.then((found) => {
      entry.count = found?.count ?? 0;
      this.forgetOldest();
    });
    return entry.places;
  }

  private async findPlaces(file: string, stamp: string, within: string | undefined): Promise<ObservationPlaces | undefined> {
    const found = new TraceStamp();
    const places = new ObservationPlaces();
    // As core's reader decodes (a byte order mark dropped, as editors show the file).
    const decoder = new TextDecoder('utf-8', { fatal: true });
    try {
      for await (const chunk of this.host.readChunks!(file, within)) {
        found.add(chunk);
        places.write(decoder.decode(chunk, { stream: true }));
      }
      places.write(decoder.decode());
    } catch (err) {
      this.session.log(`trace ${file}: not read for references: ${err instanceof FileProblem ? err.problem : err instanceof Error ? err.message : String(err)}`);
      this.places.delete(file);
      return undefined;
    }
    places.end();
    if (found.value !== stamp) {
      // Changed since it was evaluated: its observations are elsewhere now, and its evaluation is on its way.
      this.session.log(`trace ${file} changed since it was evaluated: its observations are listed once it is evaluated again`);
      this.places.delete(file);
      return undefined;
    }
    return places;
  }

  /** Forgets the least recently used places past MAX_PLACED_OBSERVATIONS (the newest are always kept). */
  private forgetOldest(): void {
    let total = 0;
    for (const entry of this.places.values()) total += entry.count;
    for (const [file, entry] of [...this.places].slice(0, -1)) {
      if (total <= MAX_PLACED_OBSERVATIONS) break;
      this.places.delete(file);
      total -= entry.count;
    }
  }
}
