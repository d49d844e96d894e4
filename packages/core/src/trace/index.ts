export * from './types';
export { TraceError, normaliseObservation } from './normalise';
export { TraceReader, type TraceReaderOptions } from './scanner';
export * from './reader';
export { readTraceDocument, type TraceDocument } from './document';
