export * from './fix-edits';
export * from './fix-all';
