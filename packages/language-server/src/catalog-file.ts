/**
 * The preset catalog file in force in a folder, as a parsed document: the open buffer when the
 * editor has it open, else the file as read from disk (confined to its folder in Restricted Mode;
 * not read at all when the workspace is not trusted, as for the catalog itself). For go to
 * definition and rename, which need the offsets of its entries.
 */
import { parsePolicyDocument, type PolicyDocument } from '@netpolicy/core';
import type { Documents } from './documents';
import { MAX_SETTINGS_FILE_BYTES, type ServerHost } from './host';
import type { Session } from './session';
import type { Folder } from './workspace';

/** A catalog file: its path, URI, parsed text, and the open document's version (undefined when read from disk). */
export interface CatalogFile {
  path: string;
  uri: string;
  doc: PolicyDocument;
  version?: number;
}

/** The catalog file of `folder`, or undefined when there is none, the workspace is not trusted, or it cannot be read. */
export async function catalogFileOf(folder: Folder, { host, session, documents }: { host: ServerHost; session: Session; documents: Documents }): Promise<CatalogFile | undefined> {
  const path = folder.catalogPath;
  if (!path || !session.trusted) return undefined;
  const uri = host.pathToUri(path);
  const open = documents.all().find((td) => td.uri === uri || host.uriToPath(td.uri) === path);
  if (open) return { path, uri: open.uri, doc: parsePolicyDocument(open.getText(), { fileName: path, jsonc: true }), version: open.version };
  if (!host.readFile) return undefined;
  try {
    const text = await host.readFile(path, MAX_SETTINGS_FILE_BYTES, session.confined(folder.root));
    return { path, uri, doc: parsePolicyDocument(text, { fileName: path, jsonc: true }) };
  } catch {
    // The workspace already said what is wrong with the file (file-problems.ts).
    return undefined;
  }
}
