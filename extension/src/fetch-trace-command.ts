/**
 * Fetch Job Trace: asks for a job, sends the token only as token-commands.ts allows, saves the
 * job's trace (and its SBOM, when there is one) into the workspace through the one write guard,
 * then explains it against the open policy. The parts that need no VS Code are in fetch-logic.ts.
 */
import * as vscode from 'vscode';
import { NetpolicyClient } from '@netpolicy/client';
import { confinedSegments, describeFetchError, rememberJob, sbomFileNameFor, traceFileName, validateJobId, validateRepository, type JobRef } from './fetch-logic';
import { baseUrlKey, needsPathConfirmation } from './token-origin';
import { log } from './output';
import { FileRefused, writeWorkspaceFile, type Platform } from './files';
import { labelText, showError, showInfo, showWarning, withProgress } from './notify';
import { openPolicy, relative, rememberTrace } from './command-inputs';
import { TOKEN_BASE_URLS_KEY, TOKEN_ORIGINS_KEY, askToken, serviceOrigin, tokenFor } from './token-commands';
import { explainTraceCommand } from './trace-commands';

/** Per folder (workspaceState): the base URLs (`baseUrlKey`) the user agreed to send the token to. */
const CONFIRMED_PATHS_KEY = 'netpolicy.confirmedTokenPaths';
const RECENT_JOBS_KEY = 'netpolicy.recentJobs';

/** A file the read or write guard refused (files.ts, node-files.ts): its message says why. */
function refused(e: unknown): e is Error {
  return e instanceof FileRefused || (e instanceof Error && e.name === 'ConfinementError');
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

export async function fetchTraceCommand(context: vscode.ExtensionContext, platform: Platform, jobArg?: JobRef): Promise<vscode.Uri | undefined> {
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
