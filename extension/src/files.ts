/**
 * Every file the extension reads from or writes to a workspace, through one guard each:
 *
 * - a write (a fetched trace, its SBOM) lands inside the workspace folder: no folder on the way
 *   and no final component is a symbolic link leading elsewhere; on the desktop the bytes go to
 *   a new file renamed over the target (`node-files.ts`);
 * - a read in Restricted Mode (the project file, a trace, an SBOM) is of a regular file whose
 *   real path is inside its workspace folder, within a size cap. A trusted folder's files are read
 *   where its settings say (the user trusted them), still only regular files within the cap.
 *
 * The desktop does it with Node's file system (`Platform`); the browser, which has only
 * `vscode.workspace.fs`, refuses any link on the way (its `stat` says when an entry is one).
 */
import * as vscode from 'vscode';

/** What only some hosts of the extension can do (the desktop has a file system with links). */
export interface Platform {
  /** A regular file's chunks, opened without blocking; with `root`, only inside it (real paths). */
  readChunks?(fsPath: string, root?: string): Promise<AsyncIterable<Uint8Array>>;
  /** A regular file's bytes, at most `maxBytes`; with `root`, only inside it (real paths). */
  readFile?(fsPath: string, options: { root?: string; maxBytes: number }): Promise<Uint8Array>;
  /** Writes below `root` through the write guard (`writeInside`). */
  writeFile?(root: string, segments: readonly string[], bytes: Uint8Array): Promise<unknown>;
}

/** Why a workspace file was not read or written, in words (shown escaped). */
export class FileRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FileRefused';
  }
}

/**
 * The folder a read of `uri` is confined to: none in a trusted workspace; in Restricted Mode the
 * workspace folder holding it (a file outside every folder is refused).
 */
function confinement(uri: vscode.Uri): vscode.WorkspaceFolder | undefined {
  if (vscode.workspace.isTrusted) return undefined;
  const folder = vscode.workspace.getWorkspaceFolder(uri);
  if (!folder) throw new FileRefused(`${uri.scheme === 'file' ? uri.fsPath : uri.toString(true)} is outside the workspace folder; in Restricted Mode netpolicy reads files inside the workspace folder only`);
  return folder;
}

/** Below `folder`, each entry on the way to `uri` (the file included) must not be a symbolic link (the browser's check). */
async function noLinkOnTheWay(folder: vscode.WorkspaceFolder, uri: vscode.Uri): Promise<void> {
  const base = folder.uri.path.replace(/\/+$/, '');
  const rest = uri.path.slice(base.length).split('/').filter((s) => s !== '');
  let at = folder.uri;
  for (const segment of rest) {
    at = vscode.Uri.joinPath(at, segment);
    const stat = await vscode.workspace.fs.stat(at);
    if (stat.type & vscode.FileType.SymbolicLink) throw new FileRefused(`${vscode.workspace.asRelativePath(at, false)} is a symbolic link; in Restricted Mode netpolicy follows no link (one can lead outside the workspace folder)`);
  }
}

/** A workspace file's bytes (at most `maxBytes`, a regular file; confined in Restricted Mode). */
export async function readWorkspaceFile(uri: vscode.Uri, maxBytes: number, platform: Platform): Promise<Uint8Array> {
  const folder = confinement(uri);
  if (uri.scheme === 'file' && platform.readFile) return platform.readFile(uri.fsPath, { root: folder?.uri.fsPath, maxBytes });
  if (folder) await noLinkOnTheWay(folder, uri);
  const stat = await vscode.workspace.fs.stat(uri);
  if ((stat.type & vscode.FileType.File) === 0) throw new FileRefused(`${vscode.workspace.asRelativePath(uri, false)} is not a regular file`);
  if (stat.size > maxBytes) throw new FileRefused(`${vscode.workspace.asRelativePath(uri, false)} is ${Math.round(stat.size / 1048576)} MB, over the ${Math.round(maxBytes / 1048576)} MB read from such a file`);
  return vscode.workspace.fs.readFile(uri);
}

/** A local file's chunks through the read guard (desktop); undefined where the platform cannot stream. */
export async function readWorkspaceChunks(uri: vscode.Uri, platform: Platform): Promise<AsyncIterable<Uint8Array> | undefined> {
  if (uri.scheme !== 'file' || !platform.readChunks) return undefined;
  const folder = confinement(uri);
  return platform.readChunks(uri.fsPath, folder?.uri.fsPath);
}

/**
 * Writes `bytes` to `segments` below `folder` through the write guard: on the desktop
 * `writeInside` (real paths, no link as the final component, a new file renamed over the
 * target); elsewhere no link on the way and no link as the target.
 */
export async function writeWorkspaceFile(folder: vscode.WorkspaceFolder, segments: readonly string[], bytes: Uint8Array, platform: Platform): Promise<vscode.Uri> {
  const target = vscode.Uri.joinPath(folder.uri, ...segments);
  if (folder.uri.scheme === 'file' && platform.writeFile) {
    await platform.writeFile(folder.uri.fsPath, segments, bytes);
    return target;
  }
  let at = folder.uri;
  for (const [i, segment] of segments.entries()) {
    at = vscode.Uri.joinPath(at, segment);
    let stat: vscode.FileStat | undefined;
    try {
      stat = await vscode.workspace.fs.stat(at);
    } catch {
      stat = undefined;
    }
    if (stat && stat.type & vscode.FileType.SymbolicLink) throw new FileRefused(`${segments.slice(0, i + 1).join('/')} is a symbolic link; netpolicy does not write through links (one can lead outside the workspace folder)`);
    const last = i === segments.length - 1;
    if (!stat && !last) await vscode.workspace.fs.createDirectory(at);
    if (stat && !last && (stat.type & vscode.FileType.Directory) === 0) throw new FileRefused(`${segments.slice(0, i + 1).join('/')} is not a folder`);
    if (stat && last && (stat.type & vscode.FileType.File) === 0) throw new FileRefused(`${segments.join('/')} is not a regular file`);
  }
  await vscode.workspace.fs.writeFile(target, bytes);
  return target;
}
