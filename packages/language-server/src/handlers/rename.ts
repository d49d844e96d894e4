/**
 * `textDocument/prepareRename` and `textDocument/rename` of a catalog preset, from a policy's
 * `presets` or from the catalog file's entry: one WorkspaceEdit renames it in the catalog file, in
 * the folder's policies that enable it (the open ones, and those the workspace check follows) and
 * in the test files (`*.tests.json`) beside them and open that name it (`"rule": "preset:NAME"`),
 * from any of those places (in a test file, from the name after `preset:`).
 * Open documents are edited at their version (a client that takes `documentChanges`). A built-in
 * preset, one not in the catalog file, or a workspace not trusted (no catalog read) is refused.
 */
import { defaultPresetCatalog, escapeMessage, parsePolicyDocument, type PolicyDocument } from '@netpolicy/core';
import { catalogNameAt, presetAt, presetNameProblem, testPresetAt, presetRenameEdits, type NamedValue, type PresetFileKind } from '@netpolicy/language-service';
import { LSPErrorCodes, ResponseError, type Connection, type Position, type TextDocumentEdit, type TextEdit, type WorkspaceEdit } from 'vscode-languageserver';
import { catalogFileOf, type CatalogFile } from '../catalog-file';
import { folderFilesNaming } from '../preset-files';
import type { Parts } from './parts';

/** A preset to rename: its name where the request was made, and the folder's catalog file. */
interface Renaming {
  name: NamedValue;
  /** Whether `name.range` is the name's characters alone (a test file's `preset:NAME`), not a JSON string with its quotes. */
  bare: boolean;
  catalog: CatalogFile;
}

function refuse(message: string): never {
  throw new ResponseError(LSPErrorCodes.RequestFailed, message);
}

export function register(connection: Connection, parts: Parts): void {
  const { host, session, workspace, documents, requests } = parts;

  /** The preset at the position (in a policy, or in the folder's catalog file), or a refusal saying why not; undefined: nothing to rename there. */
  async function renaming(uri: string, position: Position, method: string, params: unknown): Promise<Renaming | undefined> {
    const folder = workspace.folderOf(uri);
    const catalogUri = folder.catalogPath === undefined ? undefined : host.pathToUri(folder.catalogPath);
    let name: NamedValue | undefined;
    let bare = false;
    if (documents.tests.isTestUri(uri)) {
      // A policy test file's `"rule": "preset:NAME"`.
      requests.checked(method, params);
      const td = documents.get(uri);
      name = td && session.guard('rename', undefined, () => testPresetAt(parsePolicyDocument(td.getText()), position));
      bare = true;
    } else if (catalogUri !== undefined && (uri === catalogUri || host.uriToPath(uri) === folder.catalogPath)) {
      requests.checked(method, params);
      const td = documents.get(uri);
      name = td && session.guard('rename', undefined, () => catalogNameAt(parsePolicyDocument(td.getText(), { jsonc: true }), position));
    } else name = requests.withDoc('rename', method, params, undefined, undefined, (doc) => presetAt(doc, position));
    if (!name) return undefined;
    const shown = escapeMessage(name.value, 80);
    const catalog = await catalogFileOf(folder, parts);
    if (!catalog || !session.guard('rename', false, () => presetRenameEdits(catalog.doc, 'catalog', name.value, name.value).length > 0)) {
      if (defaultPresetCatalog.byName.has(name.value)) refuse(`${shown} is a built-in preset: it cannot be renamed (a preset catalog file may define a preset of another name)`);
      if (!session.trusted) refuse('the workspace is not trusted: the preset catalog is not read, and no preset can be renamed');
      refuse(`${shown} is not a preset of the folder's catalog file`);
    }
    return { name, bare, catalog };
  }

  connection.onPrepareRename(async (p) => {
    const found = await renaming(p.textDocument.uri, p.position, 'textDocument/prepareRename', p);
    if (!found) return null;
    const { range, value } = found.name;
    if (found.bare) return { range, placeholder: value };
    // The name without its quotes (what the editor shows for editing).
    return { range: { start: { line: range.start.line, character: range.start.character + 1 }, end: { line: range.end.line, character: Math.max(range.end.character - 1, 0) } }, placeholder: value };
  });

  connection.onRenameRequest(async (p, token) => {
    const found = await renaming(p.textDocument.uri, p.position, 'textDocument/rename', p);
    if (!found) return null;
    const from = found.name.value;
    const folder = workspace.folderOf(p.textDocument.uri);
    const problem = presetNameProblem(from, p.newName, folder.service.catalog);
    if (problem) refuse(problem);
    if (p.newName === from) return { changes: {} };
    const to = p.newName;
    const edits: Array<{ uri: string; version: number | null; edits: TextEdit[] }> = [];
    const add = (uri: string, version: number | null, doc: PolicyDocument, kind: PresetFileKind) => {
      const found = presetRenameEdits(doc, kind, from, to);
      if (found.length > 0) edits.push({ uri, version, edits: found });
    };
    add(found.catalog.uri, found.catalog.version ?? null, found.catalog.doc, 'catalog');
    for (const f of await folderFilesNaming(parts, folder, from, token, 'rename', new Set([found.catalog.path]))) add(f.uri, f.version, f.doc, f.kind);
    const edit: WorkspaceEdit = session.client.documentChanges
      ? { documentChanges: edits.map((e): TextDocumentEdit => ({ textDocument: { uri: e.uri, version: e.version }, edits: e.edits })) }
      : { changes: Object.fromEntries(edits.map((e) => [e.uri, e.edits])) };
    return edit;
  });
}
