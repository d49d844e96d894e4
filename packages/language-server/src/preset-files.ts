/**
 * The files of a workspace folder that may name a preset: its open policies and policy test files
 * (their buffers, at their version), the policies the workspace check follows (from disk, confined
 * to the folder), and the test files (`*.tests.json`) beside them. Rename edits them; references
 * list where they name the preset.
 */
import { isPolicyTestFile, parsePolicyDocument, type PolicyDocument } from '@netpolicy/core';
import type { PresetFileKind } from '@netpolicy/language-service';
import { LSPErrorCodes, ResponseError, type CancellationToken } from 'vscode-languageserver';
import { relativePath } from './host';
import { MAX_WORKSPACE_FILE_BYTES } from './workspace-check';
import type { Parts } from './handlers/parts';
import type { Folder } from './workspace';

/** A policy or test file of a folder, parsed: the open document's version, or null when read from disk. */
export interface FolderFile {
  uri: string;
  version: number | null;
  doc: PolicyDocument;
  kind: PresetFileKind;
}

/**
 * The policies and test files of `folder` that may name preset `name` (open ones first; files on
 * disk whose text cannot name it are not parsed). Paths in `done` are left out, and those given
 * are added to it. `what` names the request, for a cancellation.
 */
export async function folderFilesNaming(
  { host, workspace, documents, check }: Pick<Parts, 'host' | 'workspace' | 'documents' | 'check'>,
  folder: Folder, name: string, token: CancellationToken, what: string, done = new Set<string>(),
): Promise<FolderFile[]> {
  const out: FolderFile[] = [];
  const inFolder = (path: string | undefined) => path !== undefined && workspace.folderOf(host.pathToUri(path)).root === folder.root && relativePath(folder.root, path) !== undefined;
  // Open documents first (their buffers), then the files on disk the workspace check follows, and the test files beside them.
  const folders = new Set<string>();
  for (const td of documents.all()) {
    const path = host.uriToPath(td.uri);
    if (!inFolder(path) || done.has(path!)) continue;
    const kind: PresetFileKind | undefined = isPolicyTestFile(path!) ? 'tests' : workspace.isPolicyUri(td.uri) ? 'policy' : undefined;
    if (!kind) continue;
    done.add(path!);
    folders.add(path!.slice(0, path!.lastIndexOf('/')));
    out.push({ uri: td.uri, version: td.version, doc: kind === 'policy' ? documents.parsed(td.uri)! : parsePolicyDocument(td.getText(), { jsonc: true }), kind });
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
    if (token.isCancellationRequested) throw new ResponseError(LSPErrorCodes.RequestCancelled, `${what}: cancelled`);
    let text: string;
    try {
      text = await host.readFile!(path, MAX_WORKSPACE_FILE_BYTES, folder.root);
    } catch {
      continue;
    }
    // A quick look before a parse: most files do not name the preset at all (nor spell it with escapes).
    if (!text.includes(name) && !text.includes('\\')) continue;
    out.push({ uri: host.pathToUri(path), version: null, doc: parsePolicyDocument(text, { fileName: path, jsonc: kind !== 'policy' ? true : undefined }), kind });
  }
  return out;
}
