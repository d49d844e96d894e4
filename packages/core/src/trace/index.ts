export * from './types';
export * from './fields';
export { TraceError, normaliseObservation, normaliseJob } from './normalise';
export { TraceReader, type TraceReaderOptions } from './scanner';
export * from './reader';
export { isNormalisedTrace, readTraceDocument, traceOf, type TraceDocument } from './document';
