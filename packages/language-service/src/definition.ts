/**
 * Go to definition: what a position names that is defined elsewhere (a preset enabled in a
 * policy; a path in `netpolicy.config.json`), where a preset is defined in a catalog file, and the
 * read-only view of a built-in preset (a virtual document the server serves: `netpolicy-preset:/NAME.json`).
 * The server resolves paths and reads catalog files; these functions only read parsed documents.
 */
import type { PolicyDocument, PresetEntry } from '@netpolicy/core';
import { findNodeAtOffset, getNodePath, type Node } from 'jsonc-parser';
import type { Position, Range } from 'vscode-languageserver-types';
import { offsetOf, rangeOf } from './ranges';

/**
 * The URI scheme of the read-only view of a built-in preset (`netpolicy-preset:/pypi.json`).
 * @public
 */
export const PRESET_SCHEME = 'netpolicy-preset';

/**
 * A string value in a document: its value and the range of its text, quotes included.
 * @public
 */
export interface NamedValue {
  value: string;
  range: Range;
}

/** The jsonc tree's root, or undefined when the text has none (or nests too deep for jsonc-parser's recursion). */
export function rootOf(doc: PolicyDocument): Node | undefined {
  try {
    return doc.root;
  } catch (e) {
    if (e instanceof RangeError) return undefined;
    throw e;
  }
}

/**
 * The innermost node at an offset (its right end included), whether it is a member's key, and its
 * path; undefined outside the root value or when the text has no tree.
 */
export function nodeAtOffset(doc: PolicyDocument, offset: number): { node: Node; isKey: boolean; path: Array<string | number> } | undefined {
  const root = rootOf(doc);
  if (!root || !Number.isFinite(offset)) return undefined;
  const node = findNodeAtOffset(root, Math.max(0, Math.min(offset, doc.text.length)), true);
  if (!node) return undefined;
  const isKey = node.parent?.type === 'property' && node.parent.children?.[0] === node;
  return { node, isKey, path: getNodePath(node) };
}

/** The string node at a position, with its path, or undefined when the position is not on a string value. */
function stringAt(doc: PolicyDocument, position: Position): { node: Node; path: Array<string | number> } | undefined {
  const at = nodeAtOffset(doc, offsetOf(doc, position));
  if (!at || at.isKey || at.node.type !== 'string' || typeof at.node.value !== 'string') return undefined;
  return { node: at.node, path: at.path };
}

/**
 * The preset a policy test file names under the cursor (`"rule": "preset:NAME"`): the name, and
 * the range of the name alone (after `preset:`, inside the quotes). Undefined elsewhere, and for a
 * value written with escapes (its characters are not the name's).
 * @public
 */
export function testPresetAt(doc: PolicyDocument, position: Position): NamedValue | undefined {
  const s = stringAt(doc, position);
  if (!s || s.path.length !== 3 || s.path[0] !== 'tests' || typeof s.path[1] !== 'number' || s.path[2] !== 'rule') return undefined;
  const value = s.node.value as string;
  if (!value.startsWith('preset:') || value.length === 'preset:'.length) return undefined;
  if (doc.text.slice(s.node.offset, s.node.offset + s.node.length) !== JSON.stringify(value)) return undefined;
  const at = s.node.offset + 1 + 'preset:'.length;
  return { value: value.slice('preset:'.length), range: rangeOf(doc, at, s.node.length - 2 - 'preset:'.length) };
}

/**
 * The preset name under the cursor in a policy's `presets` list.
 * @public
 */
export function presetAt(doc: PolicyDocument, position: Position): NamedValue | undefined {
  const s = stringAt(doc, position);
  if (!s || s.path.length !== 2 || s.path[0] !== 'presets' || typeof s.path[1] !== 'number') return undefined;
  return { value: s.node.value as string, range: rangeOf(doc, s.node.offset, s.node.length) };
}

/**
 * The path under the cursor in a `netpolicy.config.json`: the `presetCatalog` value or an item of `traces`.
 * @public
 */
export function configPathAt(doc: PolicyDocument, position: Position): NamedValue & { member: 'presetCatalog' | 'traces' } | undefined {
  const s = stringAt(doc, position);
  if (!s || s.node.value === '') return undefined;
  const range = rangeOf(doc, s.node.offset, s.node.length);
  if (s.path.length === 1 && s.path[0] === 'presetCatalog') return { value: s.node.value as string, range, member: 'presetCatalog' };
  if (s.path.length === 2 && s.path[0] === 'traces' && typeof s.path[1] === 'number') return { value: s.node.value as string, range, member: 'traces' };
  return undefined;
}

/** The value of member `key` of an object node (the last of that name is not looked for: the first is). */
export function member(node: Node | undefined, key: string): Node | undefined {
  if (node?.type !== 'object') return undefined;
  return node.children?.find((m) => m.children?.[0]?.value === key)?.children?.[1];
}

/**
 * Where a preset catalog file (`{"presets": [{"name": ...}, ...]}`) defines `name`: the range of the
 * entry and of its `name` value (the last entry of that name: a later one wins, as when loading).
 * @public
 */
export function catalogEntryOf(catalog: PolicyDocument, name: string): { entry: Range; name: Range } | undefined {
  const list = member(rootOf(catalog), 'presets');
  if (list?.type !== 'array') return undefined;
  let found: { entry: Node; name: Node } | undefined;
  for (const entry of list.children ?? []) {
    const n = member(entry, 'name');
    if (n?.type === 'string' && n.value === name) found = { entry, name: n };
  }
  return found && { entry: rangeOf(catalog, found.entry.offset, found.entry.length), name: rangeOf(catalog, found.name.offset, found.name.length) };
}

/**
 * The names a catalog file defines, with the range of each `name` value.
 * @public
 */
export function catalogNames(catalog: PolicyDocument): NamedValue[] {
  const list = member(rootOf(catalog), 'presets');
  if (list?.type !== 'array') return [];
  const out: NamedValue[] = [];
  for (const entry of list.children ?? []) {
    const n = member(entry, 'name');
    if (n?.type === 'string' && typeof n.value === 'string') out.push({ value: n.value, range: rangeOf(catalog, n.offset, n.length) });
  }
  return out;
}

/**
 * The catalog entry name under the cursor in a catalog file (`/presets/N/name`).
 * @public
 */
export function catalogNameAt(catalog: PolicyDocument, position: Position): NamedValue | undefined {
  const s = stringAt(catalog, position);
  if (!s || s.path.length !== 3 || s.path[0] !== 'presets' || typeof s.path[1] !== 'number' || s.path[2] !== 'name') return undefined;
  return { value: s.node.value as string, range: rangeOf(catalog, s.node.offset, s.node.length) };
}

/**
 * The URI of a built-in preset's read-only view: `netpolicy-preset:/NAME.json` (the name percent-encoded).
 * @public
 */
export function presetDocumentUri(name: string): string {
  return `${PRESET_SCHEME}:/${encodeURIComponent(name)}.json`;
}

/**
 * The preset a `netpolicy-preset:` URI names, or undefined for any other URI.
 * @public
 */
export function presetOfDocumentUri(uri: string): string | undefined {
  const m = /^netpolicy-preset:\/+([^/?#]+)\.json$/i.exec(uri);
  if (!m) return undefined;
  try {
    return decodeURIComponent(m[1]);
  } catch {
    return undefined;
  }
}

/**
 * The read-only view of a preset: its name, description and what it allows, as policy fragments
 * (`sources`, `connections`), or that its contents are not published. JSON, formatted.
 * @public
 */
export function presetDocumentText(entry: PresetEntry): string {
  const view: Record<string, unknown> = {
    $comment: `Preset ${JSON.stringify(entry.name)} (read-only: the ${entry.opaque ? 'catalog does not publish its contents' : 'rules it adds to a policy that enables it'}).`,
    name: entry.name,
    description: entry.description,
  };
  if (entry.opaque) view.opaque = true;
  if (entry.known?.sources) view.sources = entry.known.sources;
  if (entry.known?.connections) view.connections = entry.known.connections;
  return `${JSON.stringify(view, null, 2)}\n`;
}
