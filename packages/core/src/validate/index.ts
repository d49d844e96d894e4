export * from './types';
export * from './validate';
export * from './document';
export { schemaAt, type SchemaFragment } from './schema-at';
export * from './positions';
export * from './codes';
export { toPointer, parsePointer, valueAt, escapeSegment } from './pointer';
export { canonicalJson } from '../json/canonical';
export { Locator } from './locate';
