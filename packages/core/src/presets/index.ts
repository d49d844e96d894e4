export * from './catalog';
