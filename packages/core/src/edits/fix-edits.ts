/**
 * Text edits from fix data (diagnostics) and from explain's `{pointer, value}` fixes: the one
 * place the CLI (`check --fix`, `explain --apply`) and the language server turn a fix into text.
 *
 * Edits are minimal and computed on jsonc-parser's tree and scanner, so the rest of the document
 * keeps its formatting and comments: jsonc-parser's `modify` re-lays out every line its edit
 * touches (a neighbour's `["a"]` became three lines) and, removing the last array element of a
 * one-line array, leaves a stray quote (microsoft/node-jsonc-parser#108, fixed by #120 only in the
 * 4.0.0-next pre-releases; we pin 3.3.1). Inserted values follow the document's layout: inline in a
 * one-line container, else one member per line with the document's indentation and line break.
 */
import { createScanner, type Node } from 'jsonc-parser';
import type { PolicyDocument } from '../validate/document';
import { Locator } from '../validate/locate';
import { parsePointer, toPointer } from '../validate/pointer';
import { fixesOf, type Diagnostic, type FixData } from '../validate/types';

/**
 * Replace `length` UTF-16 code units at `offset` with `newText`.
 * @public
 */
export interface TextEdit {
  offset: number;
  length: number;
  newText: string;
}

/**
 * One action a diagnostic offers: its title, and the fix (with the key for `rename-key`).
 * @public
 */
export interface FixChoice {
  title: string;
  fix: FixData;
  /** The new key name, for `rename-key` (one choice per candidate). */
  key?: string;
}

/**
 * The actions a diagnostic's fix data offers on this document, preferred first: one per fix,
 * and one per `rename-key` candidate that is not already a key of that object.
 * `fixEdits(doc, diagnostic, i)` applies the i-th.
 * @internal
 */
export function fixChoices(doc: PolicyDocument, diagnostic: Diagnostic): FixChoice[] {
  const out: FixChoice[] = [];
  for (const fix of fixesOf(diagnostic.data)) {
    if (fix.kind === 'rename-key') {
      const member = new Locator(doc).find(diagnostic.pointer)?.property;
      const taken = new Set((member?.parent?.children ?? []).map((m) => m.children?.[0]?.value));
      for (const key of fix.candidates) if (!taken.has(key)) out.push({ title: `Rename to \`${key}\``, fix, key });
    } else out.push({ title: fix.title, fix });
  }
  return out;
}

/**
 * The edits that apply the `choice`-th action of `fixChoices` (default the preferred one), or
 * [] when the diagnostic has no fix or its target is no longer in the document.
 * @public
 */
export function fixEdits(doc: PolicyDocument, diagnostic: Diagnostic, choice = 0): TextEdit[] {
  const picked = fixChoices(doc, diagnostic)[choice];
  if (!picked) return [];
  const { fix } = picked;
  if (fix.kind === 'delete-text') {
    // Only while the range still holds what was reported (a diagnostic may come from an older version).
    const end = diagnostic.offset + diagnostic.length;
    const range = end <= doc.text.length && diagnostic.offset >= 0 ? doc.text.slice(diagnostic.offset, end) : undefined;
    const expected = diagnostic.code === 'trailing-comma' ? range === ',' : diagnostic.code === 'comment-not-allowed' ? range?.startsWith('/') : range !== undefined;
    return expected ? [{ offset: diagnostic.offset, length: diagnostic.length, newText: '' }] : [];
  }
  const found = new Locator(doc).find(diagnostic.pointer);
  if (!found) return [];
  switch (fix.kind) {
    case 'replace':
      return [replaceNode(doc, found.node, fix.value)];
    case 'remove-element': {
      const child = found.node.parent?.type === 'property' ? found.node.parent : found.node;
      return child.parent && (child.parent.type === 'array' || child.parent.type === 'object') ? removeChild(doc, child) : [];
    }
    case 'insert-member':
      return found.node.type === 'object' ? [insertChild(doc, found.node, fix.key, fix.value)] : [];
    case 'rename-key': {
      const key = found.property?.children?.[0];
      return key && picked.key !== undefined ? [{ offset: key.offset, length: key.length, newText: JSON.stringify(picked.key) }] : [];
    }
  }
}

/**
 * explain's fix: `{pointer, value}`, a JSON Patch style add (`/sources/-` appends) or a replacement of the rule at the pointer.
 * @public
 */
export interface PointerFix {
  pointer: string;
  value: unknown;
}

/**
 * Edits that apply an explain fix: append at `/member/-`, create `/member`, or replace the value at the pointer.
 * @public
 */
export function denialFixEdits(doc: PolicyDocument, fix: PointerFix): TextEdit[] {
  const segments = parsePointer(fix.pointer);
  if (segments.length === 0 || !doc.root) return [];
  const locator = new Locator(doc);
  const append = segments[segments.length - 1] === '-';
  const target = append ? segments.slice(0, -1) : segments;
  const found = locator.find(toPointer(target));
  if (found && append) return found.node.type === 'array' ? [insertChild(doc, found.node, undefined, fix.value)] : [];
  if (found && !(found.property && found.node === found.property)) return [replaceNode(doc, found.node, fix.value)];
  // Create the missing member (and its array when appending) in the nearest existing object.
  let value: unknown = append ? [fix.value] : fix.value;
  for (let i = target.length - 1; i >= 0; i--) {
    const parent = locator.find(toPointer(target.slice(0, i)));
    if (parent && !(parent.property && parent.node === parent.property)) {
      return parent.node.type === 'object' ? [insertChild(doc, parent.node, target[i], value)] : [];
    }
    value = { [target[i]]: value };
  }
  return [];
}

/**
 * The edit appending `values`, in order, to the array at `pointer` when it has items: the text
 * that appending them one at a time (`denialFixEdits` with `/…/-`, each on the text the one before
 * made) would insert, computed once (`explain --apply` of thousands of denials). Undefined when
 * there is no such array or it is empty.
 * @internal
 */
export function appendEdit(doc: PolicyDocument, pointer: string, values: readonly unknown[]): TextEdit | undefined {
  const found = doc.root ? new Locator(doc).find(pointer) : undefined;
  if (!found || found.node.type !== 'array' || (found.property && found.node === found.property) || !found.node.children?.length) return undefined;
  const last = found.node.children[found.node.children.length - 1];
  return { offset: last.offset + last.length, length: 0, newText: appendText(doc, found.node, undefined, values) };
}

/**
 * Applies non-overlapping edits (offsets into `text`).
 * @public
 */
export function applyEdits(text: string, edits: readonly TextEdit[]): string {
  const sorted = [...edits].sort((a, b) => a.offset - b.offset);
  let out = '';
  let at = 0;
  for (const e of sorted) {
    if (e.offset < at || e.offset + e.length > text.length) throw new RangeError('overlapping or out-of-range edits');
    out += text.slice(at, e.offset) + e.newText;
    at = e.offset + e.length;
  }
  return out + text.slice(at);
}

/** How a document is laid out (`detectLayout`), so that text a fix inserts looks like the rest of the file. */
export interface Layout {
  /** One level of indentation. */
  unit: string;
  /** The line break: `\n` or `\r\n`. */
  eol: string;
}

/** The document's own layout: tabs or N spaces, and its line break. */
export function detectLayout(text: string): Layout {
  const nl = text.indexOf('\n');
  const eol = nl > 0 && text.charCodeAt(nl - 1) === 13 ? '\r\n' : '\n';
  const indent = /\n([ \t]+)\S/.exec(text.length > 65536 ? text.slice(0, 65536) : text)?.[1];
  if (indent?.startsWith('\t')) return { unit: '\t', eol };
  return { unit: ' '.repeat(indent ? Math.min(indent.length, 8) : 2), eol };
}

/** `{"a": 1, "b": [2, 3]}`: the one-line style of a compact policy. */
function inline(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(inline).join(', ')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}: ${inline(v)}`).join(', ')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** A value laid out on several lines, continuation lines indented from `indent`. */
function block(value: unknown, layout: Layout, indent: string): string {
  return (JSON.stringify(value, null, layout.unit) ?? 'null').replace(/\n/g, layout.eol + indent);
}

function hasLineBreak(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c === 10 || c === 13) return true;
  }
  return false;
}

/** The whitespace that starts the line holding `offset`. */
function lineIndent(text: string, offset: number): string {
  let start = offset;
  while (start > 0 && text[start - 1] !== '\n' && text[start - 1] !== '\r') start--;
  let end = start;
  while (text[end] === ' ' || text[end] === '\t') end++;
  return text.slice(start, end);
}

function replaceNode(doc: PolicyDocument, node: Node, value: unknown): TextEdit {
  const oneLine = !hasLineBreak(doc.text, node.offset, node.offset + node.length);
  const newText = oneLine || value === null || typeof value !== 'object' ? inline(value) : block(value, detectLayout(doc.text), lineIndent(doc.text, node.offset));
  return { offset: node.offset, length: node.length, newText };
}

/** Adds a member (`key` given) or an array element at the end of a container. */
function insertChild(doc: PolicyDocument, container: Node, key: string | undefined, value: unknown): TextEdit {
  const text = doc.text;
  const layout = detectLayout(text);
  const children = container.children ?? [];
  const last = children[children.length - 1];
  const open = container.offset;
  const close = container.offset + container.length - 1;
  const prefix = key === undefined ? '' : `${JSON.stringify(key)}: `;
  if (last) return { offset: last.offset + last.length, length: 0, newText: appendText(doc, container, key, [value]) };
  // Empty container: one line if it is on one line and the document is compact, else a block.
  const compact = !hasLineBreak(text, 0, text.length);
  if (compact) return { offset: open + 1, length: close - open - 1, newText: prefix + inline(value) };
  const outer = lineIndent(text, open);
  const indent = outer + layout.unit;
  return { offset: open + 1, length: close - open - 1, newText: `${layout.eol}${indent}${prefix}${block(value, layout, indent)}${layout.eol}${outer}` };
}

/**
 * What goes after the last child of a container with children to add `values` (members named
 * `key`, or elements): inline in a one-line container, else one per line at the last child's
 * indentation. Adding one after another gives the same text (each new last child has that indentation).
 */
function appendText(doc: PolicyDocument, container: Node, key: string | undefined, values: readonly unknown[]): string {
  const text = doc.text;
  const children = container.children ?? [];
  const last = children[children.length - 1];
  const prefix = key === undefined ? '' : `${JSON.stringify(key)}: `;
  const multiline = hasLineBreak(text, container.offset, last.offset);
  if (!multiline) return values.map((value) => `, ${prefix}${inline(value)}`).join('');
  const layout = detectLayout(text);
  const indent = lineIndent(text, last.offset);
  return values.map((value) => `,${layout.eol}${indent}${prefix}${block(value, layout, indent)}`).join('');
}

/**
 * Removes an array element or object member with one separator, never leaving `, ]`: up to the
 * next sibling when there is one, else from the comma after the previous sibling.
 */
function removeChild(doc: PolicyDocument, child: Node): TextEdit[] {
  const siblings = child.parent?.children ?? [];
  const index = siblings.indexOf(child);
  const next = siblings[index + 1];
  if (next) return [{ offset: child.offset, length: next.offset - child.offset, newText: '' }];
  const end = child.offset + child.length;
  const previous = siblings[index - 1];
  if (!previous) {
    // The only child: remove it and a trailing comma after it (JSONC), keep the brackets.
    const comma = commaBetween(doc.text, end, child.parent!.offset + child.parent!.length - 1);
    return [{ offset: child.offset, length: (comma >= 0 ? comma + 1 : end) - child.offset, newText: '' }];
  }
  const from = previous.offset + previous.length;
  const comma = commaBetween(doc.text, from, child.offset);
  // Keep what follows the comma up to the last comment (a comment on the previous line stays).
  let start = child.offset;
  while (start > comma + 1 && /\s/.test(doc.text[start - 1])) start--;
  if (start === comma + 1) return [{ offset: comma, length: end - comma, newText: '' }];
  return [{ offset: comma, length: 1, newText: '' }, { offset: start, length: end - start, newText: '' }];
}

// jsonc-parser's SyntaxKind is a const enum (not readable under isolatedModules): its values.
const COMMA_TOKEN = 5;
const EOF_TOKEN = 17;

/** The offset of the `,` token between `from` and `to` (comments skipped), or -1. */
function commaBetween(text: string, from: number, to: number): number {
  const scanner = createScanner(text.slice(from, to), false);
  for (let kind = scanner.scan(); kind !== EOF_TOKEN; kind = scanner.scan()) {
    if (kind === COMMA_TOKEN) return from + scanner.getTokenOffset();
  }
  return -1;
}
