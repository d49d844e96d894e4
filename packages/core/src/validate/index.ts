export * from './types';
export * from './validate';
export { InputError } from './input-error';
export * from './document';
/** How deep containers may nest before a document is refused (json-syntax), and before the editor stops formatting it. */
export { MAX_DEPTH } from './parse';
export { validateChunked, type ChunkedOptions, type ChunkedResult } from './chunked';
export { schemaAt, type SchemaFragment } from './schema-at';
export * from './positions';
export * from './codes';
export { toPointer, parsePointer, valueAt, escapeSegment } from './pointer';
export { canonicalJson } from '../json/canonical';
export { Locator } from './locate';
export { closeMatches, nearestFirst } from './suggest-names';
