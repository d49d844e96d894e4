/**
 * Rename of a catalog preset: the edits in one document of each kind that names it (the catalog
 * file's `name`, a policy's `presets` item, a test file's `"rule": "preset:NAME"`), and whether a
 * new name will do. The server decides which files to edit and whether the preset may be renamed
 * (a built-in one may not); each function here reads one parsed document.
 */
import { escapeMessage, type PolicyDocument, type PresetCatalog } from '@netpolicy/core';
import type { Range, TextEdit } from 'vscode-languageserver-types';
import { catalogNames } from './definition';
import { presetOccurrences, testRuleRanges } from './references';

/**
 * Which kind of file a rename edits.
 * @public
 */
export type PresetFileKind = 'catalog' | 'policy' | 'tests';

/**
 * The `rule` values of a test file (`{"tests": [{"rule": "preset:NAME"}]}`) naming the preset.
 * @public
 */
export function testRuleOccurrences(doc: PolicyDocument, name: string): Range[] {
  return testRuleRanges(doc, `preset:${name}`);
}

/**
 * The edits that rename preset `from` to `to` in one document of the given kind.
 * @public
 */
export function presetRenameEdits(doc: PolicyDocument, kind: PresetFileKind, from: string, to: string): TextEdit[] {
  if (kind === 'catalog') return catalogNames(doc).filter((n) => n.value === from).map((n) => ({ range: n.range, newText: JSON.stringify(to) }));
  if (kind === 'tests') return testRuleOccurrences(doc, from).map((range) => ({ range, newText: JSON.stringify(`preset:${to}`) }));
  return presetOccurrences(doc, from).map((range) => ({ range, newText: JSON.stringify(to) }));
}

/** Control, format (bidi) and line-separator characters: a name holding one reads as another. */
const UNSEEN = /[\p{Cc}\p{Cf}\u2028\u2029]/u;

/**
 * What is wrong with `to` as the new name of preset `from` under `catalog`, in words; undefined when it will do.
 * @public
 */
export function presetNameProblem(from: string, to: unknown, catalog: PresetCatalog): string | undefined {
  if (typeof to !== 'string' || to.trim() === '') return 'a preset name cannot be empty';
  if (to === from) return undefined;
  if (to !== to.trim()) return 'a preset name cannot begin or end with spaces';
  if (UNSEEN.test(to)) return 'a preset name cannot hold control or bidirectional-text characters';
  if (to.length > 200) return 'a preset name is at most 200 characters';
  if (catalog.byName.has(to)) return `${escapeMessage(to, 80)} is already a preset of the catalog in force`;
  return undefined;
}
