export { fixEdits, denialFixEdits, applyEdits, type TextEdit, type FixChoice, type PointerFix } from './fix-edits';
export * from './fix-all';
