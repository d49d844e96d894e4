/**
 * `textDocument/prepareRename` and `textDocument/rename` of a catalog preset, from a policy's
 * `presets` or from the catalog file's entry: one WorkspaceEdit renames it in the catalog file, in
 * the folder's policies that enable it (the open ones, and those the workspace check follows) and
 * in the test files (`*.tests.json`) beside them and open that name it (`"rule": "preset:NAME"`).
 * Open documents are edited at their version (a client that takes `documentChanges`). A built-in
 * preset, one not in the catalog file, or a workspace not trusted (no catalog read) is refused.
 */
import { defaultPresetCatalog, escapeMessage, isPolicyTestFile, parsePolicyDocument, type PolicyDocument } from '@netpolicy/core';
import { catalogNameAt, presetAt, presetNameProblem, presetRenameEdits, type NamedValue, type PresetFileKind } from '@netpolicy/language-service';
import { LSPErrorCodes, ResponseError, type Connection, type Position, type TextDocumentEdit, type TextEdit, type WorkspaceEdit } from 'vscode-languageserver';
import { catalogFileOf, type CatalogFile } from '../catalog-file';
import { relativePath } from '../host';
import { MAX_WORKSPACE_FILE_BYTES } from '../workspace-check';
import type { Parts } from './parts';

/** A preset to rename: its name where the request was made, and the folder's catalog file. */
interface Renaming {
  name: NamedValue;
  catalog: CatalogFile;
}

function refuse(message: string): never {
  throw new ResponseError(LSPErrorCodes.RequestFailed, message);
}

export function register(connection: Connection, parts: Parts): void {
  const { host, session, workspace, documents, requests, check } = parts;

  /** The preset at the position (in a policy, or in the folder's catalog file), or a refusal saying why not; undefined: nothing to rename there. */
  async function renaming(uri: string, position: Position, method: string, params: unknown): Promise<Renaming | undefined> {
    const folder = workspace.folderOf(uri);
    const catalogUri = folder.catalogPath === undefined ? undefined : host.pathToUri(folder.catalogPath);
    let name: NamedValue | undefined;
    if (catalogUri !== undefined && (uri === catalogUri || host.uriToPath(uri) === folder.catalogPath)) {
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
    return { name, catalog };
  }

  connection.onPrepareRename(async (p) => {
    const found = await renaming(p.textDocument.uri, p.position, 'textDocument/prepareRename', p);
    if (!found) return null;
    const { range, value } = found.name;
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
    const inFolder = (path: string | undefined) => path !== undefined && workspace.folderOf(host.pathToUri(path)).root === folder.root && relativePath(folder.root, path) !== undefined;
    // Open documents first (their buffers), then the files on disk the workspace check follows, and the test files beside them.
    const done = new Set<string>([found.catalog.path]);
    const folders = new Set<string>();
    for (const td of documents.all()) {
      const path = host.uriToPath(td.uri);
      if (!inFolder(path) || done.has(path!)) continue;
      const kind: PresetFileKind | undefined = isPolicyTestFile(path!) ? 'tests' : workspace.isPolicyUri(td.uri) ? 'policy' : undefined;
      if (!kind) continue;
      done.add(path!);
      folders.add(path!.slice(0, path!.lastIndexOf('/')));
      add(td.uri, td.version, kind === 'policy' ? documents.parsed(td.uri)! : parsePolicyDocument(td.getText(), { jsonc: true }), kind);
    }
    const onDisk: Array<{ path: string; kind: PresetFileKind }> = [];
    for (const path of check.followed()) {
      if (!inFolder(path) || done.has(path)) continue;
      done.add(path);
      folders.add(path.slice(0, path.lastIndexOf('/')));
      onDisk.push({ path, kind: 'policy' });
    }
    if (host.listFolder) {
      for (const dir of folders) {
        const list = await host.listFolder(dir).catch(() => []);
        for (const entry of list) {
          const path = `${dir}/${entry.name}`;
          if (entry.kind === 'file' && isPolicyTestFile(entry.name) && !done.has(path)) {
            done.add(path);
            onDisk.push({ path, kind: 'tests' });
          }
        }
      }
    }
    for (const { path, kind } of onDisk) {
      if (token.isCancellationRequested) throw new ResponseError(LSPErrorCodes.RequestCancelled, 'rename: cancelled');
      let text: string;
      try {
        text = await host.readFile!(path, MAX_WORKSPACE_FILE_BYTES, folder.root);
      } catch {
        continue;
      }
      // A quick look before a parse: most files do not name the preset at all (nor spell it with escapes).
      if (!text.includes(from) && !text.includes('\\')) continue;
      add(host.pathToUri(path), null, parsePolicyDocument(text, { fileName: path, jsonc: kind !== 'policy' ? true : undefined }), kind);
    }
    const edit: WorkspaceEdit = session.client.documentChanges
      ? { documentChanges: edits.map((e): TextDocumentEdit => ({ textDocument: { uri: e.uri, version: e.version }, edits: e.edits })) }
      : { changes: Object.fromEntries(edits.map((e) => [e.uri, e.edits])) };
    return edit;
  });
}
