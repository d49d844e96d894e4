/**
 * `netpolicy explain --format github|gitlab`. github: each denied destination becomes a warning on the policy,
 * on the line of the rule that came nearest (or of `default`), with the destination, the fix and,
 * with `--sbom`, the SBOM components behind it; the job summary gets the whole Markdown report;
 * the text report goes to the log, fenced. gitlab: the same denials as a Code Quality report, each
 * on the policy's line of its nearest rule (`major` when the job performed the access: this policy
 * would break it; `minor` otherwise). Loaded only with those formats.
 */
import { LineIndex, parsePolicyDocument, type ExplainReport, type ExplainResult, type Policy } from '@netpolicy/core';
import { Locator } from '@netpolicy/core/internal';
import type { CiFinding } from '../../ci-formats/finding';
import { appendStepSummary, githubReport } from '../../ci-output';
import { gitlabReport } from '../../ci-formats/gitlab';
import { renderMarkdown, renderText, type ReportDigest } from './render';
import type { Attribution } from './components';
import type { Io } from '../../io';

/** The pointer of the rule a denial is placed on: the nearest rule, a preset's entry in `presets`, or `default`. */
function rulePointer(rule: string | undefined, policy: Policy): string {
  if (!rule || rule === 'default') return '/default';
  if (rule.startsWith('preset:')) {
    const names = (policy as { presets?: unknown }).presets;
    const i = Array.isArray(names) ? names.indexOf(rule.slice('preset:'.length)) : -1;
    return i >= 0 ? `/presets/${i}` : '/presets';
  }
  return rule;
}

function fixLine(r: ExplainResult): string | undefined {
  const widen = r.nearMiss?.widen;
  if (widen) return `fix: widen ${r.nearMiss!.rule}: add to ${widen.pointer.replace(/\/-$/, '')}: ${JSON.stringify(widen.value)}`;
  if (!r.fix) return undefined;
  if (r.fix.kind === 'job') return `fix (in the job): ${r.fix.note}`;
  return `fix: add to ${r.fix.pointer.replace(/\/-$/, '')}: ${JSON.stringify(r.fix.value)}${r.fix.note ? ` (${r.fix.note})` : ''}`;
}

/** Denied destinations as warnings on the policy file (`policyText` undefined: the policy came from stdin, no place). */
export function* denialFindings(digest: ReportDigest, policy: Policy, policyFile: string, policyText: string | undefined, attribution?: Attribution): Generator<CiFinding> {
  const doc = policyText === undefined ? undefined : parsePolicyDocument(policyText, { fileName: policyFile });
  const locator = doc && new Locator(doc);
  const lines = policyText === undefined ? undefined : new LineIndex(policyText);
  const groups = [...digest.denied.groups.values(), ...digest.performed.groups.values()].sort((a, b) => b.count - a.count || a.first.index - b.first.index);
  for (const g of groups) {
    const r = g.first;
    const pointer = rulePointer(r.nearMiss?.rule, policy);
    const found = locator?.find(pointer) ?? locator?.find('');
    const node = found?.property ?? found?.node;
    const start = node && lines ? lines.range(node.offset, 0).start.line + 1 : 1;
    yield {
      level: 'warning',
      ...(policyText === undefined ? {} : { file: policyFile, range: { startLine: start, startColumn: 1, endLine: start, endColumn: 1 } }),
      code: 'denied',
      message: `denied: ${g.destination}${g.count > 1 ? ` (×${g.count})` : ''}${r.recorded.verdict === 'allow' ? ' (the job performed it)' : ''}`,
      details: [
        r.nearMiss ? `nearest rule ${r.nearMiss.rule}: ${r.nearMiss.message}` : 'no rule names this destination (decided by the default)',
        ...[fixLine(r)].filter((x): x is string => x !== undefined),
        ...(attribution ? [attribution.textLine(r)] : []),
      ],
      key: g.destination,
    };
  }
}

const LOG_TITLE = 'netpolicy explain: the report';

export function* githubExplainReport(io: Io, run: { report: ExplainReport; digest: ReportDigest; policy: Policy; policyFile: string; policyText: string | undefined; attribution?: Attribution }): Generator<string> {
  const summary = appendStepSummary(io, renderMarkdown(run.report, run.digest, run.attribution));
  yield* githubReport(io, {
    findings: () => denialFindings(run.digest, run.policy, run.policyFile, run.policyText, run.attribution),
    seeAll: summary ? `the job summary, or the step's log (group "${LOG_TITLE}")` : `the step's log (group "${LOG_TITLE}")`,
    log: { title: LOG_TITLE, pieces: [renderText(run.report, run.digest, false, run.policy, run.attribution)] },
  });
}

/** `explain --format gitlab`: the denied destinations as a GitLab Code Quality report. */
export function gitlabExplainReport(io: Io, run: { digest: ReportDigest; policy: Policy; policyFile: string; policyText: string | undefined; attribution?: Attribution }): Iterable<string> {
  // A finding's key is its destination (denialFindings).
  const performed = run.digest.performed.groups;
  return gitlabReport(denialFindings(run.digest, run.policy, run.policyFile, run.policyText, run.attribution), {
    cwd: io.cwd,
    root: io.env.CI_PROJECT_DIR || undefined,
    severity: (f) => (f.key !== undefined && performed.has(f.key) ? 'major' : undefined),
  });
}
