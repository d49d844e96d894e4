/**
 * `textDocument/definition`: a preset enabled in a policy goes to its entry in the folder's
 * catalog file, a built-in preset to its read-only view (`netpolicy-preset:/NAME.json`, served by
 * `netpolicy/presetDocument`); in `netpolicy.config.json`, the `presetCatalog` and `traces` paths
 * go to their files.
 */
import { defaultPresetCatalog, parsePolicyDocument } from '@netpolicy/core';
import { catalogEntryOf, configPathAt, presetAt, presetDocumentText, presetDocumentUri, presetOfDocumentUri } from '@netpolicy/language-service';
import type { Connection, Location } from 'vscode-languageserver';
import { catalogFileOf } from '../catalog-file';
import { joinPath } from '../host';
import { PresetDocumentRequestMethod, type PresetDocumentParams, type PresetDocumentResult } from '../protocol';
import type { Parts } from './parts';

const START = { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };

export function register(connection: Connection, parts: Parts): void {
  const { host, session, workspace, documents, requests } = parts;

  connection.onDefinition(async (p, token) => {
    requests.checked('textDocument/definition', p);
    const uri = p.textDocument.uri;
    if (workspace.isConfigUri(uri)) {
      const td = documents.get(uri);
      const configPath = host.uriToPath(uri);
      if (!td || configPath === undefined) return null;
      const at = session.guard('definition', undefined, () => configPathAt(parsePolicyDocument(td.getText(), { fileName: configPath, jsonc: true }), p.position));
      // A folder of traces (written with a trailing slash) has no file to open.
      if (!at || /[\\/]$/.test(at.value)) return null;
      const dir = configPath.slice(0, Math.max(configPath.lastIndexOf('/'), 0)) || '/';
      return { uri: host.pathToUri(joinPath(dir, at.value)), range: START } satisfies Location;
    }
    const preset = requests.withDoc('definition', 'textDocument/definition', p, token, undefined, (doc) => presetAt(doc, p.position));
    if (!preset) return null;
    const folder = workspace.folderOf(uri);
    if (!folder.service.catalog.byName.has(preset.value)) return null;
    const file = await catalogFileOf(folder, parts);
    const entry = file && session.guard('definition', undefined, () => catalogEntryOf(file.doc, preset.value));
    if (file && entry) return { uri: file.uri, range: entry.name } satisfies Location;
    if (defaultPresetCatalog.byName.has(preset.value)) return { uri: presetDocumentUri(preset.value), range: START } satisfies Location;
    return null;
  });

  connection.onRequest(PresetDocumentRequestMethod, (p: PresetDocumentParams): PresetDocumentResult => {
    requests.checked(PresetDocumentRequestMethod, p);
    const name = presetOfDocumentUri(p.uri);
    const entry = name === undefined ? undefined : defaultPresetCatalog.byName.get(name);
    return entry ? { text: presetDocumentText(entry) } : null;
  });
}
