export * from './types';
export * from './validate';
export * from './positions';
