/**
 * What the palette commands share: the policy and the trace a command works on (the open policy,
 * a pick, the recent traces), and reading a trace and the SBOM saved beside it. Files go through
 * the one read guard (files.ts) and `vscode.workspace.fs`, so this works in the browser too.
 */
import * as vscode from 'vscode';
import { indexSbom, type SbomIndex } from '@netpolicy/core';
import { POLICY_LANGUAGES } from './languages';
import { sbomFileNameFor } from './fetch-logic';
import { log } from './output';
import { readWorkspaceChunks, readWorkspaceFile, type Platform } from './files';
import { labelText, showWarning } from './notify';

/** SBOMs are read whole: larger ones are left out of the report with a message. */
const MAX_SBOM_BYTES = 64 * 1024 * 1024;

/**
 * The SBOM saved beside a trace (same base name, `.cdx.json`, as Fetch Job Trace saves it),
 * indexed for attribution; undefined when there is none or it cannot be used (logged).
 */
export async function sbomBeside(traceUri: vscode.Uri, platform: Platform): Promise<{ uri: vscode.Uri; index: SbomIndex } | undefined> {
  const uri = traceUri.with({ path: sbomFileNameFor(traceUri.path) });
  if (uri.toString() === traceUri.toString()) return undefined;
  try {
    await vscode.workspace.fs.stat(uri);
  } catch {
    // Most traces have none (a link that leads nowhere is none either).
    return undefined;
  }
  try {
    // Through the read guard: a regular file within the cap, and in Restricted Mode inside the folder.
    return { uri, index: indexSbom(JSON.parse(decoder.decode(await readWorkspaceFile(uri, MAX_SBOM_BYTES, platform)))) };
  } catch (e) {
    log(`${relative(uri)} is not used: ${e instanceof SyntaxError ? 'not JSON' : e instanceof Error ? e.message : String(e)}`);
    return undefined;
  }
}

/** Traces read whole (where the platform cannot stream them): larger ones are refused with a message. */
const MAX_WHOLE_TRACE_BYTES = 256 * 1024 * 1024;

const RECENT_TRACES_KEY = 'netpolicy.recentTraces';

const decoder = new TextDecoder();

function openDocument(uri: vscode.Uri): vscode.TextDocument | undefined {
  return vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
}

/** A trace's text or chunks: an open document's text, a local file streamed (desktop), else the file read whole; files through the read guard. */
export async function traceInput(uri: vscode.Uri, platform: Platform): Promise<string | AsyncIterable<Uint8Array>> {
  const open = openDocument(uri);
  if (open) return open.getText();
  const chunks = await readWorkspaceChunks(uri, platform);
  if (chunks) return chunks;
  return decoder.decode(await readWorkspaceFile(uri, MAX_WHOLE_TRACE_BYTES, platform));
}

/** At most this many entries of `netpolicy.traces` are offered in the pick (a setting may list 100,000). */
const MAX_PICK_SETTING_TRACES = 50;

export function relative(uri: vscode.Uri): string {
  return vscode.workspace.asRelativePath(uri, false);
}

/** The policy in the active editor, else in a visible one. */
export function openPolicy(): vscode.TextDocument | undefined {
  const active = vscode.window.activeTextEditor?.document;
  if (active && POLICY_LANGUAGES.includes(active.languageId)) return active;
  return vscode.window.visibleTextEditors.map((e) => e.document).find((d) => POLICY_LANGUAGES.includes(d.languageId));
}

/** The policy to work on: the open one, else the only policy file, else one the user picks. */
export async function pickPolicy(): Promise<vscode.TextDocument | undefined> {
  const open = openPolicy();
  if (open) return open;
  const found = await vscode.workspace.findFiles('{**/*.netpolicy.json,**/*.netpolicy.jsonc,**/network-policy.json}', '**/node_modules/**', 100);
  if (found.length === 0) {
    void showWarning('netpolicy: open a policy file (*.netpolicy.json, *.netpolicy.jsonc or network-policy.json) first.');
    return undefined;
  }
  const uri = found.length === 1 ? found[0] : (await vscode.window.showQuickPick(found.map((u) => ({ label: labelText(relative(u)), uri: u })), { title: 'netpolicy: which policy?' }))?.uri;
  return uri ? vscode.workspace.openTextDocument(uri) : undefined;
}

/** A trace file: the argument, else a pick among configured, recent and workspace traces, or a browse. */
export async function pickTrace(context: vscode.ExtensionContext, arg: unknown, title: string): Promise<vscode.Uri | undefined> {
  if (arg instanceof vscode.Uri) return arg;
  if (typeof arg === 'string' && arg) return arg.includes(':') && !/^[A-Za-z]:[\\/]/.test(arg) ? vscode.Uri.parse(arg) : vscode.Uri.file(arg);
  const seen = new Set<string>();
  const items: Array<vscode.QuickPickItem & { uri?: vscode.Uri }> = [];
  const add = (uri: vscode.Uri, description: string) => {
    if (seen.has(uri.toString())) return;
    seen.add(uri.toString());
    items.push({ label: labelText(relative(uri)), description, uri });
  };
  for (const s of context.workspaceState.get<string[]>(RECENT_TRACES_KEY, [])) add(vscode.Uri.parse(s), 'recent');
  const folder = vscode.workspace.workspaceFolders?.[0];
  const listed = vscode.workspace.getConfiguration('netpolicy').get<unknown>('traces');
  for (const t of Array.isArray(listed) ? listed.slice(0, MAX_PICK_SETTING_TRACES) : []) {
    if (folder && typeof t === 'string' && t.endsWith('.json')) add(vscode.Uri.joinPath(folder.uri, t), 'netpolicy.traces');
  }
  for (const uri of await vscode.workspace.findFiles('{**/*trace*.json,**/traces/**/*.json,.netpolicy/traces/*.json}', '**/node_modules/**', 200)) {
    // SBOMs saved beside traces (`.cdx.json`) are not traces.
    if (!/\.cdx\.json$/i.test(uri.path)) add(uri, 'in the workspace');
  }
  items.push({ label: '$(folder-opened) Browse...', alwaysShow: true });
  const picked = await vscode.window.showQuickPick(items, { title: labelText(title), placeHolder: 'A network trace (JSON, as `netpolicy fetch trace` saves it)', matchOnDescription: true });
  if (!picked) return undefined;
  if (picked.uri) return picked.uri;
  const chosen = await vscode.window.showOpenDialog({ title: labelText(title), canSelectMany: false, filters: { 'Network trace': ['json'] }, defaultUri: folder?.uri });
  return chosen?.[0];
}

export async function rememberTrace(context: vscode.ExtensionContext, uri: vscode.Uri): Promise<void> {
  const list = [uri.toString(), ...context.workspaceState.get<string[]>(RECENT_TRACES_KEY, []).filter((s) => s !== uri.toString())].slice(0, 10);
  await context.workspaceState.update(RECENT_TRACES_KEY, list);
}
