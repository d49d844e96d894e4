/**
 * A streaming reader of the trace document. It never builds the whole parsed document, and reads
 * at close to the speed of one `JSON.parse` of the file:
 *
 * - Batches (the fast path): when a chunk arrives, the run of whole observations it holds is
 *   parsed with ONE `JSON.parse('[' + run + ']')`. The run ends at the last `}` followed by `,`
 *   or `]`; the run starts at an observation's first character, so the parse succeeds exactly
 *   when the run is a list of complete values (a `}` inside a string or a nested object makes it
 *   fail). Parsing many observations at once costs what parsing the file does; parsing them one
 *   slice at a time cost twice as much (measured: bench/explain.bench.mjs, docs/trace-format.md).
 * - The scanner (the exact path): a small hand-written scanner finds the boundaries of each
 *   element (tracking strings, escapes and nesting depth) and parses that element alone. It reads
 *   the tail of a chunk (the observation cut in two), and any run whose batch failed or broke a
 *   limit (nesting depth, a member of the wrong type), so every error names its observation and
 *   place exactly as if there were no fast path.
 *
 * Other top-level members are small and parsed whole. Text arrives in chunks of any size.
 */
import { addHeaderMember, normaliseObservation, TraceError } from './normalise';
import type { AnyObservation, TraceHeader } from './types';

/**
 * Limits of a `TraceReader`: past them the trace is an error rather than a reason to run out of memory.
 * @public
 */
export interface TraceReaderOptions {
  /** Deepest nesting allowed inside one value (default 64). */
  maxDepth?: number;
  /** Largest text of one observation or top-level member, in characters (default 16 MiB). */
  maxValueLength?: number;
  /** About how many characters one batch parses at most (default 64 KiB; see `batch`). */
  batchLength?: number;
}

/**
 * Batches end at the last observation within this many characters of their start. A batch's
 * observations all stay alive until the last is handled: a whole 1 MiB chunk at once kept about
 * 4,000 of them alive across young-generation collections, which copied and promoted them
 * (profile of explain on a trace of 300,000 distinct URLs: 123 scavenges, 0.8 s); a JSON.parse
 * of 64 KiB costs per character what one of 1 MiB does.
 */
const BATCH_LENGTH = 64 * 1024;

/** Pending text (a value cut by a chunk boundary) is completed on this many characters of the next chunk. */
const JOIN_HEAD = 16 * 1024;

const START = 0, KEY = 1, COLON = 2, VALUE = 3, ELEMENTS = 4, DONE = 5;

function isSpace(c: number): boolean {
  return c === 32 || c === 10 || c === 13 || c === 9;
}

/** Whether the members of `object` nest deeper than `levels` (the object itself is level 0). */
function deeperThan(object: Record<string, unknown>, levels: number): boolean {
  for (const key in object) if (depthOver(object[key], levels)) return true;
  return false;
}

function depthOver(value: unknown, levels: number): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (levels <= 0) return true;
  if (Array.isArray(value)) {
    for (const item of value) if (depthOver(item, levels - 1)) return true;
    return false;
  }
  return deeperThan(value as Record<string, unknown>, levels - 1);
}

/**
 * The push side of the streaming trace reader: `write` each chunk of text as it arrives, then
 * `end`. Observations are emitted as soon as they are complete, so memory does not grow with the
 * trace; errors are `TraceError`s naming the observation and member. `streamTrace` and
 * `readObservations` wrap it for chunk iterables.
 * @public
 */
export class TraceReader {
  /** Top-level members other than `observations`, complete once `end()` has returned. */
  readonly header: TraceHeader = {};
  /** Number of observations read so far. */
  count = 0;
  private buf = '';
  private pos = 0;
  private dropped = 0;
  private phase = START;
  private afterMember = false;
  private afterElement = false;
  private key = '';
  private sawObservations = false;
  private capturing = false;
  private capStart = 0;
  private capDepth = 0;
  private capInStr = false;
  private capPrimitive = false;
  private readonly maxDepth: number;
  private readonly maxValueLength: number;
  private readonly batchLength: number;
  /** Absolute position before which no batch is tried again (a failed batch leaves its run to the scanner). */
  private noBatchBefore = 0;

  constructor(options: TraceReaderOptions = {}) {
    this.maxDepth = options.maxDepth ?? 64;
    this.maxValueLength = options.maxValueLength ?? 16 * 1024 * 1024;
    this.batchLength = Math.max(1, options.batchLength ?? BATCH_LENGTH);
  }

  /** Feeds text; calls `emit` for every observation completed by it, in order. */
  write(text: string, emit: (observation: AnyObservation) => void): void {
    // After the previous write the buffer starts at the first character still needed.
    const pending = this.buf.length;
    if (pending > 0 && pending <= JOIN_HEAD && text.length > 2 * JOIN_HEAD) {
      // The value cut by the chunk boundary is completed on a short head (the pending text and
      // the chunk's first characters); reading then goes on in the chunk itself. Appending the
      // whole chunk to the pending text made a string that was copied whole (flattened) at its
      // first read: the file copied once more (profile of explain, 1,000,000 observations).
      this.buf += text.slice(0, JOIN_HEAD);
      this.run(emit, false);
      const keep = this.capturing ? this.capStart : this.pos;
      if (keep >= pending) {
        // All that is still needed lies in the chunk, from `keep - pending` on.
        this.drop(keep, text.slice(keep - pending));
      } else {
        this.buf += text.slice(JOIN_HEAD);
      }
    } else {
      this.buf += text;
    }
    this.run(emit, false);
    const keep = this.capturing ? this.capStart : this.pos;
    if (this.capturing && this.buf.length - this.capStart > this.maxValueLength) {
      throw this.error(`a value longer than ${this.maxValueLength} characters (observation ${this.count})`);
    }
    if (keep > 0) this.drop(keep, this.buf.slice(keep));
  }

  /** Forgets the first `keep` characters of the buffer; `rest` is the text from there on. */
  private drop(keep: number, rest: string): void {
    this.buf = rest;
    this.dropped += keep;
    this.pos -= keep;
    this.capStart -= keep;
  }

  /** Ends the input: checks that the document is complete. */
  end(emit: (observation: AnyObservation) => void = () => {}): TraceHeader {
    this.run(emit, true);
    if (this.phase !== DONE) throw this.error('the trace ends before the document is complete (truncated file?)');
    if (!this.sawObservations) throw new TraceError('the trace has no `observations` array');
    return this.header;
  }

  private error(message: string): TraceError {
    return new TraceError(`invalid trace JSON at character ${this.dropped + this.pos}: ${message}`);
  }

  private run(emit: (observation: AnyObservation) => void, final: boolean): void {
    const buf = this.buf;
    const n = buf.length;
    while (true) {
      if (this.capturing) {
        if (!this.scanCapture(final)) return;
        this.capturing = false;
        const text = buf.slice(this.capStart, this.pos);
        let value: unknown;
        try {
          value = JSON.parse(text);
        } catch (e) {
          const what = this.phase === ELEMENTS ? `observation ${this.count}` : `member \`${this.key}\``;
          throw new TraceError(`invalid trace JSON in ${what}: ${(e as Error).message}`, this.phase === ELEMENTS ? this.count : undefined);
        }
        if (this.phase === ELEMENTS) {
          emit(normaliseObservation(value, this.count++, true));
          this.afterElement = true;
        } else {
          addHeaderMember(this.header, this.key, value);
          this.phase = KEY;
          this.afterMember = true;
        }
        continue;
      }
      let i = this.pos;
      while (i < n && isSpace(buf.charCodeAt(i))) i++;
      this.pos = i;
      if (i >= n) return;
      const c = buf.charCodeAt(i);
      switch (this.phase) {
        case START:
          if (c === 0xfeff) { this.pos = i + 1; break; } // a byte order mark
          if (c !== 123) throw this.error('a trace document is a JSON object (`{`)');
          this.phase = KEY;
          this.pos = i + 1;
          break;
        case KEY: {
          if (c === 125) { this.phase = DONE; this.pos = i + 1; break; }
          if (c === 44 && this.afterMember) { this.afterMember = false; this.pos = i + 1; break; }
          if (c !== 34 || this.afterMember) throw this.error('expected a member name or `}`');
          const close = this.stringEnd(i + 1);
          if (close < 0) return; // wait for the rest of the name
          try {
            this.key = JSON.parse(buf.slice(i, close + 1));
          } catch (e) {
            throw this.error(`invalid member name: ${(e as Error).message}`);
          }
          this.phase = COLON;
          this.pos = close + 1;
          break;
        }
        case COLON:
          if (c !== 58) throw this.error('expected `:`');
          this.phase = VALUE;
          this.pos = i + 1;
          break;
        case VALUE:
          if (this.key === 'observations') {
            if (c !== 91) throw new TraceError('`observations` must be an array');
            this.sawObservations = true;
            this.phase = ELEMENTS;
            this.afterElement = false;
            this.pos = i + 1;
          } else {
            this.startCapture(i, c);
          }
          break;
        case ELEMENTS:
          if (c === 93) { this.phase = KEY; this.afterMember = true; this.pos = i + 1; break; }
          if (c === 44 && this.afterElement) { this.afterElement = false; this.pos = i + 1; break; }
          if (this.afterElement) throw this.error('expected `,` or `]` after an observation');
          if (c === 123 && this.dropped + i >= this.noBatchBefore && this.batch(i, emit)) break;
          this.startCapture(i, c);
          break;
        case DONE:
          throw this.error('unexpected text after the end of the document');
      }
    }
  }

  /**
   * The fast path: parses the whole observations from `start` (an element's first character) to
   * the last plausible end of an element in the buffer in one JSON.parse, normalises them all,
   * then emits them. False (nothing consumed, nothing emitted) when the run does not parse or one
   * of its observations breaks a rule: the scanner then reads that run and reports the error.
   */
  private batch(start: number, emit: (observation: AnyObservation) => void): boolean {
    const buf = this.buf;
    const n = buf.length;
    let cut = -1;
    let from = Math.min(n - 1, start + this.batchLength);
    for (let attempt = 0; attempt < 4 && from > start; attempt++) {
      const close = buf.lastIndexOf('}', from);
      if (close <= start) break;
      let j = close + 1;
      while (j < n && isSpace(buf.charCodeAt(j))) j++;
      if (j < n && (buf.charCodeAt(j) === 44 || buf.charCodeAt(j) === 93)) { cut = close + 1; break; }
      from = close - 1;
    }
    if (cut < 0 || cut - start > this.maxValueLength) return false;
    const fail = () => { this.noBatchBefore = this.dropped + cut; return false; };
    let values: unknown;
    try {
      values = JSON.parse('[' + buf.slice(start, cut) + ']');
    } catch {
      return fail();
    }
    const list = values as unknown[];
    const observations: AnyObservation[] = new Array(list.length);
    try {
      for (let k = 0; k < list.length; k++) {
        const o = normaliseObservation(list[k], this.count + k, true);
        // Known members nest two levels at most; only unknown ones can break the depth limit.
        if (o.extra !== undefined && deeperThan(o.extra, this.maxDepth - 1)) return fail();
        observations[k] = o;
      }
    } catch {
      return fail();
    }
    this.count += list.length;
    this.pos = cut;
    this.afterElement = true;
    for (let k = 0; k < observations.length; k++) emit(observations[k]);
    return true;
  }

  private startCapture(i: number, c: number): void {
    this.capturing = true;
    this.capStart = i;
    this.capDepth = 0;
    this.capInStr = false;
    this.capPrimitive = !(c === 123 || c === 91 || c === 34);
    this.pos = i;
  }

  /** Index of the closing quote of a string whose body starts at `from`, or -1 when not yet in the buffer. */
  private stringEnd(from: number): number {
    const buf = this.buf;
    let q = buf.indexOf('"', from);
    while (q >= 0) {
      let b = q - 1, count = 0;
      while (b >= from && buf.charCodeAt(b) === 92) { count++; b--; }
      if ((count & 1) === 0) return q;
      q = buf.indexOf('"', q + 1);
    }
    return -1;
  }

  /** Advances the current capture; true when the value is complete (its end is `this.pos`). */
  private scanCapture(final: boolean): boolean {
    const buf = this.buf;
    const n = buf.length;
    let i = this.pos;
    if (this.capPrimitive) {
      while (i < n) {
        const c = buf.charCodeAt(i);
        if (c === 44 || c === 125 || c === 93 || isSpace(c)) { this.pos = i; return true; }
        i++;
      }
      this.pos = i;
      return final;
    }
    let depth = this.capDepth;
    const maxDepth = this.maxDepth;
    while (i < n) {
      if (this.capInStr) {
        const q = buf.indexOf('"', i);
        if (q < 0) { i = n; break; }
        let b = q - 1, count = 0;
        while (b > this.capStart && buf.charCodeAt(b) === 92) { count++; b--; }
        i = q + 1;
        if ((count & 1) === 0) {
          this.capInStr = false;
          if (depth === 0) { this.pos = i; return true; }
        }
        continue;
      }
      const c = buf.charCodeAt(i);
      if (c === 34) this.capInStr = true;
      else if (c === 123 || c === 91) {
        if (++depth > maxDepth) { this.pos = i; throw this.error(`nesting deeper than ${maxDepth} levels`); }
      } else if (c === 125 || c === 93) {
        if (--depth === 0) { this.pos = i + 1; this.capDepth = 0; return true; }
      }
      i++;
    }
    this.pos = i;
    this.capDepth = depth;
    return false;
  }
}
