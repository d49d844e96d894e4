/**
 * Completion at a position: member names the schema allows there and the object lacks, enum
 * values, preset names of the catalog in force, common ports and ALPN ids, and a skeleton of
 * each source and connection kind. Works in unfinished text (jsonc-parser's `getLocation` and
 * error-tolerant tree): missing quotes, a trailing comma, an empty array.
 *
 * A preset catalog is a workspace file: its names and descriptions are outside text. Descriptions
 * reach the documentation (markdown) through core's `markdownText`; names are shown in labels with
 * control and bidi characters escaped, and inserted and filtered as they are.
 */
import { CONNECTION_KINDS, SOURCE_KINDS, escapeControl, type PolicyDocument } from '@netpolicy/core';
import { markdownText, schemaAt, toPointer, valueAt, type SchemaFragment } from '@netpolicy/core/internal';
import { findNodeAtLocation, type Node } from 'jsonc-parser';
import { locationAt, scanMemo } from './location';
import { CompletionItemKind, InsertTextFormat, MarkupKind, type CompletionItem, type CompletionList, type Position } from 'vscode-languageserver-types';
import { offsetOf, rangeOf } from './ranges';
import { markdownToText, type ClientFeatures, type ServiceSettings } from './settings';
import { COMMON_ALPN, COMMON_PORTS, CONNECTION_SKELETONS, SOURCE_SKELETONS, snippetOf, snippetToText } from './skeletons';

type Path = Array<string | number>;

const DELIMITERS = new Set([' ', '\t', '\r', '\n', ',', ':', '{', '}', '[', ']']);

/** The text being typed at the cursor: a quoted or bare word around `offset`. */
function wordAround(text: string, offset: number): { start: number; end: number; quoted: boolean } {
  let start = offset;
  while (start > 0 && !DELIMITERS.has(text[start - 1]) && text[start - 1] !== '"') start--;
  const quoted = start > 0 && text[start - 1] === '"';
  if (quoted) start--;
  let end = offset;
  while (end < text.length && !DELIMITERS.has(text[end]) && text[end] !== '"') end++;
  if (quoted && text[end] === '"') end++;
  return { start, end, quoted };
}

/** The next character after `offset` that is not white space (comments are not skipped: they rarely sit there). */
function nextSignificant(text: string, offset: number): string | undefined {
  for (let i = offset; i < text.length; i++) if (!/\s/.test(text[i])) return text[i];
  return undefined;
}

function description(schema: SchemaFragment | undefined): string | undefined {
  return typeof schema?.description === 'string' ? schema.description : undefined;
}

/** The snippet of a member's value from its schema (a skeleton for kinds, a choice for enums). */
function valueSnippet(path: Path, key: string, schema: SchemaFragment | undefined): string {
  const parent = path.length === 3 ? path[0] : undefined;
  if (parent === 'sources' && key in SOURCE_SKELETONS) return snippetOf(SOURCE_SKELETONS[key as keyof typeof SOURCE_SKELETONS]);
  if (parent === 'connections' && key in CONNECTION_SKELETONS) return snippetOf(CONNECTION_SKELETONS[key as keyof typeof CONNECTION_SKELETONS]);
  if (!schema) return '$1';
  if (Array.isArray(schema.enum)) return `"\${1|${schema.enum.join(',')}|}"`;
  switch (Array.isArray(schema.type) ? schema.type[0] : schema.type) {
    case 'array': return schemaAt(toPointer([...path, 0]))?.type === 'string' ? '["$1"]' : '[$1]';
    case 'object': return '{$1}';
    case 'string': return '"$1"';
    case 'integer': case 'number': return `\${1:${key === 'port' ? 22 : schema.examples?.[0] ?? 0}}`;
    case 'boolean': return '${1|true,false|}';
    default: return '$1';
  }
}

/**
 * The keys of the object at `path`, or the items of the array there, leaving out the one at
 * `skip` (being edited). From the parsed value when it has that shape (no tree needed: a 2 MB
 * policy's tree costs ~70 ms), else from jsonc-parser's error-tolerant tree.
 */
function contentsAt(doc: PolicyDocument, path: Path, skip: string | number | undefined): unknown[] {
  const value = doc.value === undefined ? undefined : valueAt(doc.value, toPointer(path));
  if (value !== null && typeof value === 'object') {
    if (Array.isArray(value)) return value.filter((_v, i) => i !== skip);
    return Object.keys(value).filter((k) => k !== skip);
  }
  const root = doc.root;
  const node = root && (path.length === 0 ? root : findNodeAtLocation(root, path));
  if (node?.type === 'object') return (node.children ?? []).map((m) => m.children?.[0]?.value).filter((k) => k !== skip);
  if (node?.type === 'array') return (node.children ?? []).filter((_n, i) => i !== skip).map((n: Node) => n.value);
  return [];
}

/**
 * Completions at a position, in unfinished text too: member names, enum values, preset names, common ports, rule skeletons (plain text for clients without snippets or Markdown).
 * @public
 */
export function doComplete(doc: PolicyDocument, position: Position, settings: ServiceSettings): CompletionList {
  const list = complete(doc, position, settings);
  const client = settings.client;
  if (client && (!client.snippets || !client.completionMarkdown)) for (const item of list.items) forClient(item, client);
  return list;
}

/** An item as a client without snippet or Markdown support can use it. */
function forClient(item: CompletionItem, client: ClientFeatures): void {
  if (!client.snippets && item.insertTextFormat === InsertTextFormat.Snippet) {
    if (item.textEdit) item.textEdit.newText = snippetToText(item.textEdit.newText);
    item.insertTextFormat = InsertTextFormat.PlainText;
  }
  if (!client.completionMarkdown && item.documentation && typeof item.documentation === 'object') {
    item.documentation = { kind: MarkupKind.PlainText, value: markdownToText(item.documentation.value) };
  }
}

function complete(doc: PolicyDocument, position: Position, settings: ServiceSettings): CompletionList {
  const items: CompletionItem[] = [];
  const offset = offsetOf(doc, position);
  const text = doc.text;
  const location = locationAt(text, offset, scanMemo(doc, text, doc.fileName));
  const word = wordAround(text, offset);
  const range = rangeOf(doc, word.start, word.end - word.start);
  const comma = () => (['"', '{', '['].includes(nextSignificant(text, word.end) ?? '') ? ',' : '');

  if (location.isAtPropertyKey) {
    const objectPath = location.path.slice(0, -1);
    const schema = schemaAt(toPointer(objectPath));
    // The key being typed over (if any) does not count as present.
    const typing = word.end > word.start ? location.path[location.path.length - 1] : undefined;
    const present = new Set(contentsAt(doc, objectPath, typing).map(String));
    if (schema?.type === 'object' && schema.properties) {
      if (typeof schema.maxProperties === 'number' && present.size >= schema.maxProperties) return { isIncomplete: false, items };
      const hasColon = nextSignificant(text, word.end) === ':';
      for (const [key, sub] of Object.entries<SchemaFragment>(schema.properties)) {
        if (present.has(key) || key === '$schema') continue;
        const fragment = schemaAt(toPointer([...objectPath, key]), settings.catalog);
        const insert = hasColon ? JSON.stringify(key) : `${JSON.stringify(key)}: ${valueSnippet([...objectPath, key], key, fragment)}${comma()}`;
        const doc_ = description(fragment) ?? description(sub);
        items.push({
          label: key,
          kind: CompletionItemKind.Property,
          filterText: word.quoted ? JSON.stringify(key) : key,
          textEdit: { range, newText: insert },
          insertTextFormat: InsertTextFormat.Snippet,
          ...(doc_ ? { documentation: { kind: MarkupKind.Markdown, value: doc_ } } : {}),
        });
      }
    }
    return { isIncomplete: false, items };
  }

  const path = location.path;
  // An empty document: a whole starter policy.
  if (path.length === 0 && doc.root === undefined && text.trim() === text.slice(word.start, word.end).trim()) {
    items.push({
      label: 'netpolicy policy',
      kind: CompletionItemKind.Snippet,
      detail: 'deny by default, presets, sources, connections',
      textEdit: { range, newText: '{\n\t"default": "deny",\n\t"presets": [$1],\n\t"sources": [$2],\n\t"connections": [$3]\n}\n' },
      insertTextFormat: InsertTextFormat.Snippet,
    });
    return { isIncomplete: false, items };
  }
  const last = path[path.length - 1];
  const inArray = typeof last === 'number';
  const siblings = new Set<unknown>(inArray ? contentsAt(doc, path.slice(0, -1), word.end > word.start ? last : undefined) : []);
  const value = (label: string, newText: string, detail?: string, docs?: string, kind: CompletionItemKind = CompletionItemKind.Value, snippet = false, name = label): void => {
    items.push({
      label,
      kind,
      filterText: word.quoted || newText.startsWith('"') ? JSON.stringify(name) : name,
      textEdit: { range, newText: newText + comma() },
      ...(snippet ? { insertTextFormat: InsertTextFormat.Snippet } : {}),
      ...(detail ? { detail } : {}),
      ...(docs ? { documentation: { kind: MarkupKind.Markdown, value: docs } } : {}),
    });
  };

  // An element of `sources` or `connections`: a skeleton of each kind.
  if (path.length === 2 && inArray && (path[0] === 'sources' || path[0] === 'connections') && !(word.quoted)) {
    const kinds = path[0] === 'sources' ? SOURCE_KINDS : CONNECTION_KINDS;
    const skeletons: Record<string, unknown> = path[0] === 'sources' ? SOURCE_SKELETONS : CONNECTION_SKELETONS;
    for (const kind of kinds) {
      const schema = schemaAt(`/${path[0]}/0/${kind}`);
      value(`${kind} ${path[0] === 'sources' ? 'source' : 'connection'}`, snippetOf({ [kind]: skeletons[kind] }), undefined, description(schema), CompletionItemKind.Snippet, true);
    }
    return { isIncomplete: false, items };
  }

  const schema = schemaAt(toPointer(path), settings.catalog);
  if (!schema) return { isIncomplete: false, items };
  if (path.length === 2 && path[0] === 'presets') {
    for (const preset of settings.catalog.presets) {
      if (siblings.has(preset.name)) continue;
      const contents = preset.opaque || !preset.known
        ? 'Contents unknown (opaque): a denial while it is enabled is uncertain.'
        : `Contents known: ${(preset.known.sources?.length ?? 0)} source(s), ${(preset.known.connections?.length ?? 0)} connection(s).`;
      const docs = preset.description ? `${markdownText(preset.description)}\n\n${contents}` : contents;
      value(escapeControl(preset.name), JSON.stringify(preset.name), preset.opaque ? 'preset (opaque)' : 'preset', docs, CompletionItemKind.EnumMember, false, preset.name);
    }
    return { isIncomplete: false, items };
  }
  if (Array.isArray(schema.enum)) {
    for (const option of schema.enum) if (!siblings.has(option)) value(String(option), JSON.stringify(option), undefined, description(schema), CompletionItemKind.EnumMember);
    return { isIncomplete: false, items };
  }
  const key = inArray ? path[path.length - 2] : last;
  if (schema.type === 'integer' && (key === 'ports' || key === 'port')) {
    for (const [port, what] of COMMON_PORTS) if (!siblings.has(port)) value(String(port), String(port), what);
  } else if (key === 'alpn') {
    for (const [id, what] of COMMON_ALPN) if (!siblings.has(id)) value(id, JSON.stringify(id), what);
  } else if (key === 'user' && path.includes('ssh')) {
    value('git', '"git"', 'the usual SSH user of Git hosts');
  } else if (schema.type === 'boolean') {
    value('true', 'true');
    value('false', 'false');
  }
  return { isIncomplete: false, items };
}
