/** Convenience entry points over TraceReader: whole strings, chunk streams, async iteration. */
import { TraceReader, type TraceReaderOptions } from './scanner';
import type { AnyObservation, Trace, TraceHeader } from './types';

/**
 * Text of a trace: a whole string, or chunks (strings or UTF-8 bytes), synchronous or asynchronous.
 * @public
 */
export type TraceChunks = AsyncIterable<string | Uint8Array> | Iterable<string | Uint8Array>;

/**
 * Reads a whole trace document held in a string.
 * @public
 */
export function parseTrace(text: string, options?: TraceReaderOptions): Trace {
  const reader = new TraceReader(options);
  const observations: AnyObservation[] = [];
  const push = (o: AnyObservation) => { observations.push(o); };
  reader.write(text, push);
  const header = reader.end(push);
  return { ...header, observations };
}

/**
 * Streams a trace: calls `onObservation` for each observation in order, holding only the
 * observation being read; returns the header (schema version, job) once the input ends.
 * @public
 */
export async function streamTrace(chunks: TraceChunks | string, onObservation: (o: AnyObservation) => void, options?: TraceReaderOptions): Promise<TraceHeader> {
  const reader = new TraceReader(options);
  if (typeof chunks === 'string') {
    reader.write(chunks, onObservation);
    return reader.end(onObservation);
  }
  const decoder = new TextDecoder('utf-8', { fatal: true });
  for await (const chunk of chunks as AsyncIterable<string | Uint8Array>) {
    reader.write(typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true }), onObservation);
  }
  const tail = decoder.decode();
  if (tail) reader.write(tail, onObservation);
  return reader.end(onObservation);
}

/**
 * Async iteration over the observations of a chunk stream (one chunk's worth buffered at a time).
 * @public
 */
export async function* readObservations(chunks: TraceChunks, options?: TraceReaderOptions): AsyncGenerator<AnyObservation, TraceHeader> {
  const reader = new TraceReader(options);
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let pending: AnyObservation[] = [];
  const push = (o: AnyObservation) => { pending.push(o); };
  for await (const chunk of chunks as AsyncIterable<string | Uint8Array>) {
    reader.write(typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true }), push);
    if (pending.length) { const batch = pending; pending = []; yield* batch; }
  }
  const tail = decoder.decode();
  if (tail) reader.write(tail, push);
  const header = reader.end(push);
  yield* pending;
  return header;
}
