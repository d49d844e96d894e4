/**
 * The parts of "Fetch Job Trace" that need no VS Code: the remembered jobs, the input checks and
 * the message (with the action to take) for each way a fetch fails. Messages never hold the token.
 */
import { NetpolicyError, decimalIdProblem, repositoryProblem } from '@netpolicy/client';

export interface JobRef { repository: string; jobId: string }

export const MAX_RECENT = 10;

/** The recent jobs with `job` first, without duplicates, at most MAX_RECENT. */
export function rememberJob(recent: readonly JobRef[], job: JobRef): JobRef[] {
  const same = (a: JobRef) => a.repository === job.repository && a.jobId === job.jobId;
  return [job, ...recent.filter((j) => !same(j) && typeof j?.repository === 'string' && typeof j?.jobId === 'string')].slice(0, MAX_RECENT);
}

export function validateRepository(value: string): string | undefined {
  const p = repositoryProblem(value.trim());
  return p ? `Repository ${p}` : undefined;
}

export function validateJobId(value: string): string | undefined {
  const p = decimalIdProblem(value.trim());
  return p ? `Job id ${p}` : undefined;
}

/** The workspace-relative file a fetched trace is saved to. */
export function traceFileName(folder: string, job: JobRef): string {
  const safe = (s: string) => s.replace(/[^A-Za-z0-9._-]+/g, '_');
  return `${folder.replace(/\/+$/, '')}/${safe(job.repository)}-${safe(job.jobId)}.json`;
}

/** The SBOM saved beside a trace: same base name, `.cdx.json` (`acme_app-7.json` -> `acme_app-7.cdx.json`). */
export function sbomFileNameFor(traceFile: string): string {
  return traceFile.replace(/(\.json)?$/i, '.cdx.json');
}

/**
 * A path from a setting, as segments below the workspace folder, or why it leaves the folder.
 * Files the extension writes stay inside the workspace: an absolute path, a drive letter, a `~`
 * or `..` segments that climb above the folder are refused (symbolic links are checked where
 * there is a file system that has them: `insideRealFolder`).
 */
export function confinedSegments(path: string): { segments: string[]; problem?: undefined } | { segments?: undefined; problem: string } {
  const text = path.trim();
  if (text === '') return { segments: [] };
  if (/^[\\/]/.test(text) || /^[A-Za-z]:/.test(text) || /^~/.test(text)) return { problem: `"${text}" is not a path inside the workspace folder` };
  if (/[\u0000-\u001f\u007f]/.test(text)) return { problem: 'the path has control characters' };
  const segments: string[] = [];
  for (const seg of text.split(/[\\/]+/)) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') {
      if (segments.length === 0) return { problem: `"${text}" leads outside the workspace folder` };
      segments.pop();
    } else segments.push(seg);
  }
  return { segments };
}

/** Whether `path` (already resolved through symbolic links) is `root` or below it. */
export function isInside(root: string, path: string): boolean {
  const r = root.replace(/[\\/]+$/, '');
  return path === r || path.startsWith(`${r}/`) || path.startsWith(`${r}\\`);
}

export interface FetchFailure {
  message: string;
  /** A button offered with the message. */
  action?: 'Set API Token' | 'Open Settings' | 'Retry';
  /** The setting Open Settings opens (netpolicy.baseUrl when absent). */
  setting?: string;
}

/** A plain message for a failed fetch, saying what to do next. */
export function describeFetchError(error: unknown, job: JobRef, baseUrl: string): FetchFailure {
  const where = `${job.repository} job ${job.jobId}`;
  if (error instanceof NetpolicyError) {
    const detail = (error as { detail?: string }).detail;
    const extra = detail ? ` (${detail})` : '';
    switch (error.kind) {
      case 'authentication':
        return { message: `netpolicy: the service at ${baseUrl} refused the API token (401)${extra}. Set a valid token.`, action: 'Set API Token' };
      case 'not-found':
        return { message: `netpolicy: no job ${job.jobId} in ${job.repository} (404)${extra}. Check the repository and the job id.` };
      case 'not-terminal':
        return { message: `netpolicy: ${where} has not finished yet (409)${extra}; its trace is available once the job is done. Try again later.`, action: 'Retry' };
      case 'unavailable':
        return { message: `netpolicy: the service at ${baseUrl} is unavailable (${error.message}). Try again later.`, action: 'Retry' };
      case 'config':
        return /token/i.test(error.message)
          ? { message: `netpolicy: ${error.message}. Set the API token again.`, action: 'Set API Token' }
          : { message: `netpolicy: ${error.message}. Fix the setting netpolicy.baseUrl.`, action: 'Open Settings' };
      case 'selector':
      case 'malformed-selector':
        return { message: `netpolicy: ${error.message}` };
      case 'aborted':
        return { message: 'netpolicy: fetch cancelled.' };
      default:
        return { message: `netpolicy: fetching the trace of ${where} failed: ${error.message}` };
    }
  }
  return { message: `netpolicy: fetching the trace of ${where} failed: ${error instanceof Error ? error.message : String(error)}` };
}
