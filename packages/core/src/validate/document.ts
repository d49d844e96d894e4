/**
 * One parsed policy document: an editor parses each version once and hands the result to
 * validation, completion, hover, symbols and fixes. The jsonc-parser tree and the line index are
 * built on first use (a clean `check` needs neither).
 */
import { findNodeAtOffset, getNodePath, parseTree, type Node } from 'jsonc-parser';
import { parseDocument } from './parse';
import { itemSpans, reparseItem, type ItemSpans, type TextChange } from './reparse';
export type { TextChange } from './reparse';
import { LineIndex } from './positions';
import { toPointer } from './pointer';
import { expectString } from './input-error';
import type { Diagnostic } from './types';

/**
 * A policy file parsed once (`parsePolicyDocument`): the text, its value and syntax diagnostics,
 * and, built on first use, jsonc-parser's tree and the line index. Validation, fixes and every
 * editor feature take it, so an editor parses each version of a file once.
 * @public
 */
export interface PolicyDocument {
  /** The text as given (offsets of every diagnostic and node refer to it). */
  readonly text: string;
  readonly fileName: string | undefined;
  /** Comments and trailing commas allowed (D6: `.jsonc` files, or forced). */
  readonly jsonc: boolean;
  /** The parsed value (partial or undefined when the text is not JSON). */
  readonly value: unknown;
  /** True when the text is not JSON at all (schema and lint are not run on it). */
  readonly syntaxFailed: boolean;
  /** json-syntax, comment-not-allowed, trailing-comma and duplicate-key diagnostics. */
  readonly syntaxDiagnostics: readonly Diagnostic[];
  /** jsonc-parser's tree (error-tolerant), built on first access. */
  readonly root: Node | undefined;
  /** Offsets to lines and characters, built on first access. */
  readonly lineIndex: LineIndex;
}

/**
 * How `parsePolicyDocument` reads a text: strict JSON or JSONC, and a line index to reuse.
 * @public
 */
export interface ParseOptions {
  /** Decides strict JSON (the default) or JSONC (`.jsonc`). */
  fileName?: string;
  /** Force JSONC (comments and trailing commas allowed) whatever the file name. */
  jsonc?: boolean;
  /** Line positions of this very text that the caller already keeps (an editor's document), used instead of a new index. */
  lineIndex?: LineIndex;
}

/** True for file names whose content may hold comments and trailing commas (D6). */
export function isJsoncFile(fileName: string | undefined): boolean {
  return fileName !== undefined && /\.jsonc$/i.test(fileName);
}

class ParsedPolicyDocument implements PolicyDocument {
  private tree: Node | undefined | null = null;
  private lines: LineIndex | undefined;
  /** Plain JSON (read by `JSON.parse`, no syntax diagnostic): the items' spans, found on first reparse. */
  plain = false;
  spans: ItemSpans | undefined;
  constructor(
    readonly text: string,
    /** The text the parsers read: a leading byte-order mark becomes a space (same offsets). */
    readonly source: string,
    readonly fileName: string | undefined,
    readonly jsonc: boolean,
    readonly value: unknown,
    readonly syntaxFailed: boolean,
    readonly syntaxDiagnostics: readonly Diagnostic[],
  ) {}

  get root(): Node | undefined {
    if (this.tree === null) this.tree = parseTree(this.source, [], { allowTrailingComma: true, disallowComments: false }) ?? undefined;
    return this.tree;
  }

  get lineIndex(): LineIndex {
    return (this.lines ??= new LineIndex(this.text));
  }

  useLineIndex(lines: LineIndex): void {
    this.lines = lines;
  }
}

/**
 * Where the items of the root's arrays (those that are objects or arrays) sit in a plain JSON
 * document, found once and carried from version to version by `reparsePolicyDocument`; undefined
 * for a document that is not plain JSON (comments, a syntax error) or whose root is not an object.
 * @internal
 */
export function documentItemSpans(doc: PolicyDocument): ItemSpans | undefined {
  if (!(doc instanceof ParsedPolicyDocument) || !doc.plain) return undefined;
  return (doc.spans ??= itemSpans(doc.source));
}

/** The text the parsers read: a leading byte-order mark becomes a space (same offsets). */
export function parsedText(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? ' ' + text.slice(1) : text;
}

/**
 * Parses a policy file once: value, syntax diagnostics, and (lazily) the tree and line index.
 * @public
 */
export function parsePolicyDocument(text: string, options: ParseOptions = {}): PolicyDocument {
  expectString(text, 'parsePolicyDocument', 'text');
  const source = parsedText(text);
  const jsonc = options.jsonc ?? isJsoncFile(options.fileName);
  const parsed = parseDocument(source, jsonc);
  const syntax = parsed.diagnostics.sort((a, b) => a.offset - b.offset || a.code.localeCompare(b.code));
  const doc = new ParsedPolicyDocument(text, source, options.fileName, jsonc, parsed.value, parsed.syntaxFailed, syntax);
  doc.plain = parsed.plain === true;
  if (options.lineIndex) doc.useLineIndex(options.lineIndex);
  return doc;
}

/**
 * The next version of a parsed document after one edit (`previous.text[start, end)` became
 * `text[start, newEnd)`; an editor merges the changes since its last parse into one), equal to
 * `parsePolicyDocument(text, options)`. When the edit lies inside one rule of a plain JSON policy,
 * only that rule is parsed and the new value shares every other rule with the previous one (a
 * keystroke in a 10,000-rule policy parses one rule); otherwise the whole text is parsed.
 * @public
 */
export function reparsePolicyDocument(previous: PolicyDocument, text: string, edit: TextChange, options: ParseOptions = {}): PolicyDocument {
  expectString(text, 'reparsePolicyDocument', 'text');
  const jsonc = options.jsonc ?? isJsoncFile(options.fileName);
  if (previous instanceof ParsedPolicyDocument && previous.plain && previous.jsonc === jsonc && validEdit(previous.text, text, edit)) {
    const spans = (previous.spans ??= itemSpans(previous.source));
    const source = parsedText(text);
    const next = spans && reparseItem(previous.value, spans, source, edit);
    if (next) {
      const doc = new ParsedPolicyDocument(text, source, options.fileName, jsonc, next.value, false, []);
      doc.plain = true;
      doc.spans = next.spans;
      if (options.lineIndex) doc.useLineIndex(options.lineIndex);
      return doc;
    }
  }
  return parsePolicyDocument(text, options);
}

function validEdit(before: string, after: string, edit: TextChange): boolean {
  const { start, end, newEnd } = edit;
  return Number.isInteger(start) && Number.isInteger(end) && Number.isInteger(newEnd) && 0 < start && start <= end && end <= before.length && start <= newEnd && after.length - newEnd === before.length - end;
}

/**
 * What `nodeAt` finds at an offset: the node, its pointer and path, and whether the offset is on a key.
 * @internal
 */
export interface NodeAtOffset {
  /** RFC 6901 pointer of the value or member at the offset. */
  pointer: string;
  path: Array<string | number>;
  /** True when the offset is on a member's key (the pointer then names that member). */
  isKey: boolean;
  /** The innermost jsonc-parser node at the offset (a key string node when `isKey`). */
  node: Node;
}

/**
 * What sits at `offset`: the innermost node whose range holds it (its right end included, so a
 * cursor just after a value still finds it). Works in unfinished documents (jsonc-parser's tree
 * is error-tolerant); undefined for an empty document or an offset outside the root value.
 * @internal
 */
export function nodeAt(doc: PolicyDocument, offset: number): NodeAtOffset | undefined {
  const root = doc.root;
  if (!root || !Number.isFinite(offset)) return undefined;
  const node = findNodeAtOffset(root, Math.max(0, Math.min(offset, doc.text.length)), true);
  if (!node) return undefined;
  const parent = node.parent;
  const isKey = parent?.type === 'property' && parent.children?.[0] === node;
  const path = getNodePath(node);
  return { pointer: toPointer(path), path, isKey, node };
}
