/**
 * The commands of the palette's "netpolicy" category. Files are read and written through
 * `vscode.workspace.fs` only, so every command works in the browser as on the desktop.
 */
import * as vscode from 'vscode';
import { Suggester, describeAccess, explain, indexSbom, type SbomIndex, parsePolicyDocument, streamTrace, validateDocument, type Policy, type PolicyDocument } from '@netpolicy/core';
import { clipped } from '@netpolicy/core/internal';
import { NetpolicyClient } from '@netpolicy/client';
import { ExplainPanel } from './explain-panel';
import { ReportBuilder, type ReportModel } from './report';
import { POLICY_LANGUAGES } from './languages';
import { confinedSegments, describeFetchError, rememberJob, sbomFileNameFor, traceFileName, validateJobId, validateRepository, type JobRef } from './fetch-logic';
import { LEGACY_TOKEN_KEY, baseUrlKey, describeScope, legacyTokenOrigin, needsPathConfirmation, originOf, scopeOf, tokenKey, withOrigin, withoutOrigin, type SettingScope } from './token-origin';
import { log, outputChannel } from './output';
import { FileRefused, readWorkspaceChunks, readWorkspaceFile, writeWorkspaceFile, type Platform } from './files';
import { labelText, messageText, showError, showInfo, showWarning, withProgress } from './notify';

export type { Platform } from './files';

/** SBOMs are read whole: larger ones are left out of the report with a message. */
const MAX_SBOM_BYTES = 64 * 1024 * 1024;

/**
 * The SBOM saved beside a trace (same base name, `.cdx.json`, as Fetch Job Trace saves it),
 * indexed for attribution; undefined when there is none or it cannot be used (logged).
 */
async function sbomBeside(traceUri: vscode.Uri, platform: Platform): Promise<{ uri: vscode.Uri; index: SbomIndex } | undefined> {
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

const TOKEN_ORIGINS_KEY = 'netpolicy.tokenOrigins';
/** The base URL each origin's token was entered with (origin -> URL), beside the secrets. */
const TOKEN_BASE_URLS_KEY = 'netpolicy.tokenBaseUrls';
/** Per folder (workspaceState): the base URLs (`baseUrlKey`) the user agreed to send the token to. */
const CONFIRMED_PATHS_KEY = 'netpolicy.confirmedTokenPaths';
const RECENT_JOBS_KEY = 'netpolicy.recentJobs';
const RECENT_TRACES_KEY = 'netpolicy.recentTraces';

const decoder = new TextDecoder();

function openDocument(uri: vscode.Uri): vscode.TextDocument | undefined {
  return vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
}

/** A trace's text or chunks: an open document's text, a local file streamed (desktop), else the file read whole; files through the read guard. */
async function traceInput(uri: vscode.Uri, platform: Platform): Promise<string | AsyncIterable<Uint8Array>> {
  const open = openDocument(uri);
  if (open) return open.getText();
  const chunks = await readWorkspaceChunks(uri, platform);
  if (chunks) return chunks;
  return decoder.decode(await readWorkspaceFile(uri, MAX_WHOLE_TRACE_BYTES, platform));
}

/** At most this many entries of `netpolicy.traces` are offered in the pick (a setting may list 100,000). */
const MAX_PICK_SETTING_TRACES = 50;

function relative(uri: vscode.Uri): string {
  return vscode.workspace.asRelativePath(uri, false);
}

/** The policy in the active editor, else in a visible one. */
function openPolicy(): vscode.TextDocument | undefined {
  const active = vscode.window.activeTextEditor?.document;
  if (active && POLICY_LANGUAGES.includes(active.languageId)) return active;
  return vscode.window.visibleTextEditors.map((e) => e.document).find((d) => POLICY_LANGUAGES.includes(d.languageId));
}

/** The policy to work on: the open one, else the only policy file, else one the user picks. */
async function pickPolicy(): Promise<vscode.TextDocument | undefined> {
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
async function pickTrace(context: vscode.ExtensionContext, arg: unknown, title: string): Promise<vscode.Uri | undefined> {
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

async function rememberTrace(context: vscode.ExtensionContext, uri: vscode.Uri): Promise<void> {
  const list = [uri.toString(), ...context.workspaceState.get<string[]>(RECENT_TRACES_KEY, []).filter((s) => s !== uri.toString())].slice(0, 10);
  await context.workspaceState.update(RECENT_TRACES_KEY, list);
}

/** The parsed policy, or undefined (with a message) when its errors must be fixed first. */
function usablePolicy(document: vscode.TextDocument): PolicyDocument | undefined {
  const doc = parsePolicyDocument(document.getText(), { fileName: document.uri.path });
  const errors = doc.syntaxFailed ? 1 : validateDocument(doc).filter((d) => d.severity === 'error').length;
  if (errors > 0) {
    void showError(`netpolicy: ${relative(document.uri)} has ${doc.syntaxFailed ? 'syntax errors' : `${errors} error${errors === 1 ? '' : 's'}`}; fix them (see Problems) before explaining a trace.`);
    return undefined;
  }
  return doc;
}

class CancelledError extends Error {}

/** A file the read or write guard refused (files.ts, node-files.ts): its message says why. */
function refused(e: unknown): e is Error {
  return e instanceof FileRefused || (e instanceof Error && e.name === 'ConfinementError');
}

export async function explainTraceCommand(context: vscode.ExtensionContext, platform: Platform, traceArg?: unknown, policyArg?: unknown): Promise<ExplainPanel | undefined> {
  const policy = policyArg instanceof vscode.Uri ? await vscode.workspace.openTextDocument(policyArg) : await pickPolicy();
  if (!policy) return undefined;
  // The policy's errors first: no trace is asked for that could not be explained.
  const doc = usablePolicy(policy);
  if (!doc) return undefined;
  const traceUri = await pickTrace(context, traceArg, `netpolicy: explain a trace against ${relative(policy.uri)}`);
  if (!traceUri) return undefined;
  const sbom = await sbomBeside(traceUri, platform);
  const names = { policy: relative(policy.uri), trace: relative(traceUri), sbom: sbom ? relative(sbom.uri) : undefined };
  /** One page of the report: the trace streamed through explain, only that page's denials kept. */
  const explainPage = (page: number) => withProgress(`netpolicy: explaining ${names.trace}`, true, async (_progress, token): Promise<ReportModel | undefined> => {
    try {
      const builder = new ReportBuilder(doc, names, page, undefined, sbom?.index);
      const input = await traceInput(traceUri, platform);
      if (token.isCancellationRequested) return undefined;
      const report = await explain(doc.value as Policy, input, {
        only: 'denied',
        keep: false,
        onResult: (r) => {
          if (token.isCancellationRequested) throw new CancelledError();
          builder.add(r);
        },
      });
      return builder.finish(report);
    } catch (e) {
      if (e instanceof CancelledError) return undefined;
      void showError(`netpolicy: ${names.trace} could not be explained: ${e instanceof Error ? e.message : String(e)}`);
      return undefined;
    }
  });
  const model = await explainPage(0);
  if (!model) return undefined;
  await rememberTrace(context, traceUri);
  log(`explained ${names.trace} against ${names.policy}: ${model.summary.observations} observations, ${model.summary.denied} denied, ${model.summary.disagreements} disagreements`);
  return ExplainPanel.show(context, policy.uri, model, explainPage);
}

async function suggestPolicyCommand(context: vscode.ExtensionContext, platform: Platform, traceArg?: unknown, includeDenied = false): Promise<vscode.Uri | undefined> {
  const traceUri = await pickTrace(context, traceArg, 'netpolicy: suggest a policy from a trace');
  if (!traceUri) return undefined;
  const name = relative(traceUri);
  return withProgress(`netpolicy: suggesting a policy from ${name}`, true, async (_p, token) => {
    try {
      const suggester = new Suggester({ includeDenied });
      suggester.beginTrace();
      await streamTrace(await traceInput(traceUri, platform), (o) => {
        if (token.isCancellationRequested) throw new CancelledError();
        suggester.add(o);
      });
      const suggested = `${JSON.stringify(suggester.finish(), null, 2)}\n`;
      const right = await vscode.workspace.openTextDocument({ language: 'netpolicy', content: suggested });
      const current = vscode.window.activeTextEditor?.document;
      if (current && POLICY_LANGUAGES.includes(current.languageId)) {
        await vscode.commands.executeCommand('vscode.diff', current.uri, right.uri, labelText(`${relative(current.uri)} ↔ suggested from ${name}${includeDenied ? ' (denied accesses included)' : ''}`), { viewColumn: vscode.ViewColumn.Beside });
      } else {
        await vscode.window.showTextDocument(right, vscode.ViewColumn.Beside);
      }
      reportLeftOut(context, suggester, traceUri);
      return right.uri;
    } catch (e) {
      if (e instanceof CancelledError) return undefined;
      void showError(`netpolicy: no policy suggested from ${name}: ${e instanceof Error ? e.message : String(e)}`);
      return undefined;
    }
  });
}

/** At most this many "left out" lines in the output per suggestion. */
const MAX_LOGGED_LEFT_OUT = 200;

/** Says what the suggestion left out (the CLI says it on stderr), offering to include denied accesses. */
function reportLeftOut(context: vscode.ExtensionContext, suggester: Suggester, traceUri: vscode.Uri): void {
  const left = suggester.leftOut();
  if (left.length === 0) return;
  const denied = left.filter((l) => l.reason === 'denied');
  const count = (ls: typeof left) => ls.reduce((n, l) => n + l.count, 0);
  const sample = (ls: typeof left) => ls.slice(0, 3).map((l) => clipped(describeAccess(l.access), 120)).join('; ') + (ls.length > 3 ? `; and ${ls.length - 3} more` : '');
  // The log is bounded too: a trace may leave out 100,000 destinations, each URL up to megabytes (log() cuts each line).
  for (const l of left.slice(0, MAX_LOGGED_LEFT_OUT)) log(`suggest left out (${l.reason}): ${describeAccess(l.access)}${l.count > 1 ? ` ×${l.count}` : ''}`);
  if (left.length > MAX_LOGGED_LEFT_OUT) log(`suggest left out ${left.length - MAX_LOGGED_LEFT_OUT} more destinations`);
  const others = left.filter((l) => l.reason !== 'denied');
  if (others.length) {
    void showInfo(`netpolicy: the suggestion leaves out ${count(others)} access${count(others) === 1 ? '' : 'es'} it cannot allow as recorded (plain http to a software source: allowed in its https form; or a host name no rule can match): ${sample(others)}.`, 'Show Output').then((a) => { if (a) outputChannel().show(true); });
  }
  if (denied.length) {
    const include = 'Include Denied Accesses';
    void showWarning(`netpolicy: the suggestion leaves out ${count(denied)} access${count(denied) === 1 ? '' : 'es'} the trace recorded as denied (${denied.length} destination${denied.length === 1 ? '' : 's'}): ${sample(denied)}. The suggested policy does not allow them.`, include, 'Show Output').then((a) => {
      if (a === include) void vscode.commands.executeCommand('netpolicy.suggestPolicy', traceUri, { includeDenied: true });
      else if (a) outputChannel().show(true);
    });
  }
}

async function useTraceCommand(context: vscode.ExtensionContext, traceArg?: unknown): Promise<void> {
  const traceUri = await pickTrace(context, traceArg, 'netpolicy: trace for trace-aware editing in this workspace');
  if (!traceUri) return;
  const folder = vscode.workspace.getWorkspaceFolder(traceUri);
  const path = folder ? vscode.workspace.asRelativePath(traceUri, false) : traceUri.fsPath;
  await vscode.workspace.getConfiguration('netpolicy').update('traces', [path], vscode.ConfigurationTarget.Workspace);
  await rememberTrace(context, traceUri);
  void showInfo(`netpolicy: policies in this workspace are now edited against ${path} (setting netpolicy.traces).`);
}

/** The service's origin from `netpolicy.baseUrl`, with where that value came from. */
function serviceOrigin(): { origin: string; baseUrl: string; where: string; scope: SettingScope } | { problem: string } {
  const config = vscode.workspace.getConfiguration('netpolicy');
  const baseUrl = (config.get<string>('baseUrl') ?? '').trim();
  const o = originOf(baseUrl);
  if (o.problem !== undefined) return { problem: o.problem };
  const scope = scopeOf(config.inspect<string>('baseUrl'));
  return { origin: o.origin, baseUrl, where: describeScope(scope), scope };
}

/**
 * A token of an earlier version (stored for no origin) is bound once to the origin of the user's
 * own netpolicy.baseUrl (user settings, never a workspace's), else dropped: it is asked for again,
 * naming the origin.
 */
async function migrateLegacyToken(context: vscode.ExtensionContext): Promise<void> {
  const legacy = await context.secrets.get(LEGACY_TOKEN_KEY);
  if (legacy === undefined) return;
  const origin = legacyTokenOrigin(vscode.workspace.getConfiguration('netpolicy').inspect<string>('baseUrl'));
  if (origin && (await context.secrets.get(tokenKey(origin))) === undefined) {
    await context.secrets.store(tokenKey(origin), legacy);
    await context.globalState.update(TOKEN_ORIGINS_KEY, withOrigin(context.globalState.get<unknown[]>(TOKEN_ORIGINS_KEY, []), origin));
    log(`the stored API token is now bound to ${origin} (the origin of netpolicy.baseUrl in your user settings)`);
  } else {
    log('the stored API token was entered for no particular origin and is no longer used; set it again for the service you use');
  }
  await context.secrets.delete(LEGACY_TOKEN_KEY);
}

async function tokenFor(context: vscode.ExtensionContext, origin: string): Promise<string | undefined> {
  await migrateLegacyToken(context);
  return context.secrets.get(tokenKey(origin));
}

/** Asks for the token of `origin` (the prompt names it and where that origin was chosen) and stores it for that origin only. */
async function askToken(context: vscode.ExtensionContext, origin: string, where: string, baseUrl?: string): Promise<string | undefined> {
  const token = await vscode.window.showInputBox({
    title: labelText(`netpolicy: API token for ${origin}`),
    prompt: messageText(`Bound to the origin ${origin} (netpolicy.baseUrl, ${where}): sent to no other origin; a different path on it named by a folder's settings gets it only after you agree, once per folder. Kept in VS Code's secret storage for this origin alone.`),
    password: true,
    ignoreFocusOut: true,
    validateInput: (v) => (v.trim() === '' ? 'Enter the token' : /\s/.test(v.trim()) ? 'A token has no whitespace' : undefined),
  });
  if (token === undefined) return undefined;
  // Said apart from a first save: a message identical to one still shown may not show again.
  const replaced = (await context.secrets.get(tokenKey(origin))) !== undefined;
  await context.secrets.store(tokenKey(origin), token.trim());
  await context.globalState.update(TOKEN_ORIGINS_KEY, withOrigin(context.globalState.get<unknown[]>(TOKEN_ORIGINS_KEY, []), origin));
  if (baseUrl !== undefined) await context.globalState.update(TOKEN_BASE_URLS_KEY, { ...context.globalState.get<Record<string, unknown>>(TOKEN_BASE_URLS_KEY, {}), [origin]: baseUrl });
  void showInfo(`netpolicy: API token ${replaced ? 'replaced' : 'saved'} for ${origin}; it is sent to no other origin.`);
  return token.trim();
}

async function setTokenCommand(context: vscode.ExtensionContext): Promise<void> {
  const service = serviceOrigin();
  if ('problem' in service) {
    const a = await showWarning(`netpolicy: ${service.problem}. A token is stored for the origin of netpolicy.baseUrl: set it first.`, 'Open Settings');
    if (a) await vscode.commands.executeCommand('workbench.action.openSettings', 'netpolicy.baseUrl');
    return;
  }
  await migrateLegacyToken(context);
  await askToken(context, service.origin, service.where, service.baseUrl);
}

async function signOutCommand(context: vscode.ExtensionContext): Promise<void> {
  const origins = context.globalState.get<unknown[]>(TOKEN_ORIGINS_KEY, []).filter((o): o is string => typeof o === 'string');
  await context.secrets.delete(LEGACY_TOKEN_KEY);
  if (origins.length === 0) {
    void showInfo('netpolicy: no API token is stored.');
    return;
  }
  const all = 'Every origin';
  const picked = origins.length === 1 ? origins[0] : await vscode.window.showQuickPick([...origins, all], { title: 'netpolicy: remove the API token of which service?' });
  if (!picked) return;
  const removed = picked === all ? origins : [picked];
  let left: string[] = origins;
  for (const origin of removed) {
    await context.secrets.delete(tokenKey(origin));
    left = withoutOrigin(left, origin);
  }
  await context.globalState.update(TOKEN_ORIGINS_KEY, left);
  void showInfo(`netpolicy: signed out of ${removed.join(', ')} (API token removed).`);
}

/**
 * The workspace-relative segments a fetched trace is written to, or a message why the setting
 * cannot be used. Links are judged when writing (`writeWorkspaceFile`, the one write guard).
 */
function traceTarget(job: JobRef): { segments: string[]; problem?: undefined } | { segments?: undefined; problem: string } {
  const setting = vscode.workspace.getConfiguration('netpolicy').get<string>('traceFolder') || '.netpolicy/traces';
  const confined = confinedSegments(traceFileName(typeof setting === 'string' ? setting : '.netpolicy/traces', job));
  if (confined.problem !== undefined) return { problem: `netpolicy.traceFolder: ${confined.problem}; fetched traces are saved inside the workspace folder only.` };
  return { segments: confined.segments };
}

async function askJob(context: vscode.ExtensionContext): Promise<JobRef | undefined> {
  const recent = context.globalState.get<JobRef[]>(RECENT_JOBS_KEY, []);
  let repository: string | undefined;
  let jobId: string | undefined;
  if (recent.length > 0) {
    const items: Array<vscode.QuickPickItem & { job?: JobRef }> = recent.map((j) => ({ label: labelText(`${j.repository} #${j.jobId}`), description: 'recent', job: j }));
    items.push({ label: '$(add) Another job...', alwaysShow: true });
    const picked = await vscode.window.showQuickPick(items, { title: 'netpolicy: fetch the trace of which job?' });
    if (!picked) return undefined;
    if (picked.job) return picked.job;
    repository = recent[0].repository;
  }
  repository = await vscode.window.showInputBox({ title: 'netpolicy: repository (OWNER/REPOSITORY)', value: repository, ignoreFocusOut: true, validateInput: validateRepository });
  if (repository === undefined) return undefined;
  jobId = await vscode.window.showInputBox({ title: labelText(`netpolicy: job id in ${repository.trim()}`), ignoreFocusOut: true, validateInput: validateJobId });
  if (jobId === undefined) return undefined;
  return { repository: repository.trim(), jobId: jobId.trim() };
}

async function fetchTraceCommand(context: vscode.ExtensionContext, platform: Platform, jobArg?: JobRef): Promise<vscode.Uri | undefined> {
  if (!vscode.workspace.isTrusted) {
    const a = await showWarning('netpolicy: Fetch Job Trace is off in Restricted Mode: this folder is not trusted, so nothing is sent to a service or written from one. Trust the folder to fetch traces.', 'Manage Workspace Trust');
    if (a) await vscode.commands.executeCommand('workbench.trust.manage');
    return undefined;
  }
  const service = serviceOrigin();
  if ('problem' in service) {
    const a = await showWarning(`netpolicy: ${service.problem}; set netpolicy.baseUrl (the job provenance service) first.`, 'Open Settings');
    if (a) await vscode.commands.executeCommand('workbench.action.openSettings', 'netpolicy.baseUrl');
    return undefined;
  }
  const { baseUrl, origin } = service;
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (!folder) {
    void showWarning('netpolicy: open a folder first; fetched traces are saved into the workspace.');
    return undefined;
  }
  const job = jobArg && typeof jobArg.repository === 'string' && typeof jobArg.jobId === 'string' ? jobArg : await askJob(context);
  if (!job) return undefined;
  const place = traceTarget(job);
  if (place.problem !== undefined) {
    void showError(place.problem, 'Open Settings').then((a) => a && vscode.commands.executeCommand('workbench.action.openSettings', 'netpolicy.traceFolder'));
    return undefined;
  }
  let token = await tokenFor(context, origin);
  const others = context.globalState.get<unknown[]>(TOKEN_ORIGINS_KEY, []).filter((o) => o !== origin);
  if (token === undefined && others.length > 0) {
    // A token is only ever the one entered for this very origin: a workspace naming another
    // origin gets no token of another service, and is asked for one in words that show the origin.
    // (With no token stored anywhere, the fetch goes without one, as before: a 401 offers to set one.)
    const enter = `Enter Token for ${origin}`;
    const without = 'Fetch Without Token';
    const a = await showWarning(`netpolicy: no API token is stored for ${origin} (netpolicy.baseUrl, ${service.where}). Tokens entered for other origins are never sent there.`, { modal: true }, enter, without);
    if (a === undefined) return undefined;
    if (a === enter) {
      token = await askToken(context, origin, service.where, baseUrl);
      if (token === undefined) return undefined;
    }
  }
  if (token && needsPathConfirmation(baseUrl, service.scope, context.globalState.get<Record<string, unknown>>(TOKEN_BASE_URLS_KEY, {})[origin], context.workspaceState.get<unknown[]>(CONFIRMED_PATHS_KEY, []))) {
    // The token is bound to the origin; a path on it chosen by this folder's settings is the user's call, once per folder.
    const send = 'Send Token';
    const without = 'Fetch Without Token';
    const entered = context.globalState.get<Record<string, unknown>>(TOKEN_BASE_URLS_KEY, {})[origin];
    const a = await showWarning(`netpolicy: send your API token for ${origin} to ${baseUrl}?`, {
      modal: true,
      detail: `netpolicy.baseUrl is ${service.where}. The token is bound to the origin ${origin}, so any path on it may receive it; you entered it ${typeof entered === 'string' ? `with ${entered}` : 'for that origin'}. Send it to this path from now on in this folder?`,
    }, send, without);
    if (a === undefined) return undefined;
    if (a === send) await context.workspaceState.update(CONFIRMED_PATHS_KEY, [baseUrlKey(baseUrl), ...context.workspaceState.get<unknown[]>(CONFIRMED_PATHS_KEY, [])].slice(0, 20));
    else token = undefined;
  }
  const target = vscode.Uri.joinPath(folder.uri, ...place.segments);
  const sbomSegments = [...place.segments.slice(0, -1), sbomFileNameFor(place.segments[place.segments.length - 1])];
  const saved = await withProgress(`netpolicy: fetching the trace of ${job.repository} #${job.jobId}`, true, async (progress, cancel) => {
    const abort = new AbortController();
    const sub = cancel.onCancellationRequested(() => abort.abort());
    try {
      const client = new NetpolicyClient({ baseUrl, token: token || undefined, sbomValidator: false, onRetry: (r) => progress.report({ message: `attempt ${r.attempt} failed (${r.reason}); retrying in ${(r.delayMs / 1000).toFixed(1)} s` }) });
      const result = await client.getNetworkTrace({ repo: job.repository, jobId: job.jobId }, {
        signal: abort.signal,
        onProgress: (p) => progress.report({ message: `${Math.round(p.received / 1024)} KiB${p.total ? ` of ${Math.round(p.total / 1024)} KiB` : ''}` }),
      });
      // Through the one write guard: inside the folder, no link written through, replaced atomically.
      await writeWorkspaceFile(folder, place.segments, new TextEncoder().encode(result.text), platform);
      // The job's SBOM beside it (same base name, .cdx.json): the explain report names the component behind each denial.
      // Not fatal: a trace without an SBOM is explained as before.
      try {
        const sbom = await client.getSbom({ repo: job.repository, jobId: job.jobId }, { signal: abort.signal });
        await writeWorkspaceFile(folder, sbomSegments, new TextEncoder().encode(sbom.text), platform);
      } catch (e) {
        if (cancel.isCancellationRequested) throw e;
        if (refused(e)) {
          log(`the SBOM of ${job.repository} #${job.jobId} was not saved: ${e.message}`);
          void showWarning(`netpolicy: the SBOM of ${job.repository} #${job.jobId} was not saved: ${e.message}.`);
        } else log(`the SBOM of ${job.repository} #${job.jobId} was not fetched: ${e instanceof Error ? e.message : String(e)}`);
      }
      await context.globalState.update(RECENT_JOBS_KEY, rememberJob(context.globalState.get<JobRef[]>(RECENT_JOBS_KEY, []), job));
      log(`fetched the trace of ${job.repository} #${job.jobId} into ${relative(target)} (${result.text.length} bytes, ${result.attempts} attempt(s))`);
      return target;
    } catch (e) {
      if (cancel.isCancellationRequested) return undefined;
      if (refused(e)) return { message: `netpolicy: the trace of ${job.repository} #${job.jobId} was not saved: ${e.message}.`, action: 'Open Settings' as const, setting: 'netpolicy.traceFolder' };
      return describeFetchError(e, job, baseUrl);
    } finally {
      sub.dispose();
    }
  });
  if (!saved) return undefined;
  if (!(saved instanceof vscode.Uri)) {
    // After the progress notification is gone: the failure, with the action to take.
    const failure = saved;
    log(failure.message);
    void showError(failure.message, ...(failure.action ? [failure.action] : [])).then(async (a) => {
      if (a === 'Set API Token') await vscode.commands.executeCommand('netpolicy.setToken');
      else if (a === 'Open Settings') await vscode.commands.executeCommand('workbench.action.openSettings', failure.setting ?? 'netpolicy.baseUrl');
      else if (a === 'Retry') await vscode.commands.executeCommand('netpolicy.fetchTrace', job);
    });
    return undefined;
  }
  await rememberTrace(context, saved);
  const policy = openPolicy();
  if (policy) void explainTraceCommand(context, platform, saved, policy.uri);
  else {
    void showInfo(`netpolicy: saved the trace of ${job.repository} #${job.jobId} as ${relative(saved)}.`, 'Explain Against a Policy').then((a) => {
      if (a) void explainTraceCommand(context, platform, saved);
    });
  }
  return saved;
}

export function registerCommands(context: vscode.ExtensionContext, platform: Platform = {}): void {
  context.subscriptions.push(
    vscode.commands.registerCommand('netpolicy.explainTrace', (trace?: unknown, policy?: unknown) => explainTraceCommand(context, platform, trace, policy)),
    vscode.commands.registerCommand('netpolicy.suggestPolicy', (trace?: unknown, options?: { includeDenied?: unknown }) => suggestPolicyCommand(context, platform, trace, options?.includeDenied === true)),
    vscode.commands.registerCommand('netpolicy.useTrace', (trace?: unknown) => useTraceCommand(context, trace)),
    vscode.commands.registerCommand('netpolicy.setToken', () => setTokenCommand(context)),
    vscode.commands.registerCommand('netpolicy.signOut', () => signOutCommand(context)),
    vscode.commands.registerCommand('netpolicy.fetchTrace', (job?: JobRef) => fetchTraceCommand(context, platform, job)),
  );
}
