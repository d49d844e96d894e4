/**
 * `netpolicy diff --format github|gitlab|junit`: the review through the CI formatters
 * (ci-formats/). Each change becomes a finding on NEW, on the line of the rule concerned:
 * a destination newly denied (error), newly allowed (warning, on the rule that allows it), an
 * added rule no traced access uses (notice), a removed rule no traced access used (notice, on the
 * file), a default that changed (warning), and each lint finding the change adds (its own level).
 * Loaded only with these formats.
 */
import { LineIndex, parsePolicyDocument, type Policy } from '@netpolicy/core';
import { Locator } from '@netpolicy/core/internal';
import { levelOf, plural, type CiFinding, type CiRange } from '../../ci-formats/finding';
import { gitlabReport } from '../../ci-formats/gitlab';
import { junitXml, LINES_PER_CASE, type JUnitCase } from '../../ci-formats/junit';
import { appendStepSummary, githubReport } from '../../ci-output';
import { groups, renderMarkdown, renderText, ruleText, traced, unusedAdded, type DiffRun, type FailOn } from './render';
import type { Io } from '../../io';

/** Lines of NEW's rules: a pointer's line (a preset's entry for `preset:NAME`, `/default` for the default). */
function placer(run: DiffRun): (rule: string) => CiRange | undefined {
  if (run.new.file === undefined) return () => undefined;
  const doc = parsePolicyDocument(run.new.text, { fileName: run.new.name });
  const locator = new Locator(doc);
  const lines = new LineIndex(run.new.text);
  const policy = run.new.policy as Policy;
  return (rule) => {
    let pointer = rule;
    if (rule === 'default') pointer = '/default';
    else if (rule.startsWith('preset:')) {
      const i = Array.isArray(policy.presets) ? policy.presets.indexOf(rule.slice('preset:'.length)) : -1;
      pointer = i >= 0 ? `/presets/${i}` : '/presets';
    }
    const found = locator.find(pointer);
    const node = found?.property ?? found?.node;
    const line = node ? lines.range(node.offset, 0).start.line + 1 : 1;
    return { startLine: line, startColumn: 1, endLine: line, endColumn: 1 };
  };
}

/** The review as CI findings, most serious first. */
export function* reviewFindings(run: DiffRun): Generator<CiFinding> {
  const place = placer(run);
  const at = (rule: string) => (run.new.file === undefined ? {} : { file: run.new.file, range: place(rule) });
  for (const g of groups(run.changes, 'newly-denied')) {
    const x = g[0];
    yield {
      level: 'error', ...at(x.new.rule), code: 'newly-denied',
      message: `newly denied: ${x.destination}${g.length > 1 ? ` (×${g.length})` : ''}: a job would break`,
      details: [`allowed before by ${x.old.rule} (${ruleText(x.old.rule, run.old.policy)}); now denied by ${x.new.rule}`, `trace: ${x.trace}`],
      key: x.destination,
    };
  }
  for (const g of groups(run.changes, 'newly-allowed')) {
    const x = g[0];
    yield {
      level: 'warning', ...at(x.new.rule), code: 'newly-allowed',
      message: `newly allowed: ${x.destination}${g.length > 1 ? ` (×${g.length})` : ''}, by ${x.new.rule}`,
      details: [`rule: ${ruleText(x.new.rule, run.new.policy)}`, `denied before by ${x.old.rule}`],
      key: x.destination,
    };
  }
  if (run.rules.default) {
    yield { level: 'warning', ...at('default'), code: 'default-changed', message: `the default changes from ${run.rules.default.old} to ${run.rules.default.new}`, key: 'default' };
  }
  for (const f of run.findings.added) {
    const { start, end } = f.range;
    yield {
      level: levelOf(f.severity),
      ...(run.new.file === undefined ? {} : { file: run.new.file, range: { startLine: start.line + 1, startColumn: start.character + 1, endLine: end.line + 1, endColumn: end.character + 1 } }),
      code: f.code, message: f.message, key: f.pointer,
    };
  }
  for (const r of unusedAdded(run)) {
    yield {
      level: 'notice', ...at(r.rule), code: 'unused-rule',
      message: `rule added that no traced access uses: ${r.pointer ?? r.rule}`,
      details: [r.kind === 'preset' ? `preset ${String(r.value)}` : JSON.stringify(r.value).slice(0, 500)],
      key: `${r.kind}:${JSON.stringify(r.value)}`,
    };
  }
  if (traced(run)) {
    for (const r of run.rules.removed.filter((x) => x.uses === 0)) {
      yield {
        level: 'notice', ...(run.new.file === undefined ? {} : { file: run.new.file }), code: 'unused-rule-removed',
        message: `rule removed that no traced access used: ${r.pointer ?? r.rule} of ${run.old.name}`,
        details: [r.kind === 'preset' ? `preset ${String(r.value)}` : JSON.stringify(r.value).slice(0, 500)],
        key: `${r.kind}:${JSON.stringify(r.value)}`,
      };
    }
  }
}

export function gitlabDiffReport(io: Io, run: DiffRun): Iterable<string> {
  // A traced access newly denied is a job that would break: worse than a lint finding.
  return gitlabReport(reviewFindings(run), { cwd: io.cwd, root: io.env.CI_PROJECT_DIR || undefined, severity: (f) => (f.code === 'newly-denied' ? 'critical' : undefined) });
}

/** The --fail-on values under which each case fails. */
const FAILS: Record<string, FailOn[]> = {
  'newly-denied': ['newly-denied', 'any', 'any-change'],
  'newly-allowed': ['newly-allowed', 'any', 'any-change'],
  'rules-changed': ['any-change'],
  'unused-rules': ['unused-rules'],
  'new-findings': ['new-findings', 'any-change'],
};

/**
 * One suite (NEW), a case per kind of change: `newly-denied` and `newly-allowed` (with traces),
 * `rules-changed`, `unused-rules` (with traces), `new-findings`. A case with changes fails when
 * `--fail-on` covers it, else it passes with the changes in `system-out`.
 */
export function junitDiffReport(run: DiffRun): string {
  const lines = (items: string[]) => (items.length > LINES_PER_CASE ? [...items.slice(0, LINES_PER_CASE), `… (${LINES_PER_CASE} of ${items.length} listed)`] : items);
  const kinds: [string, string[]][] = [];
  if (traced(run)) {
    kinds.push(['newly-denied', groups(run.changes, 'newly-denied').map((g) => `${g[0].destination}${g.length > 1 ? ` ×${g.length}` : ''}: ${g[0].old.rule} → ${g[0].new.rule}`)]);
    kinds.push(['newly-allowed', groups(run.changes, 'newly-allowed').map((g) => `${g[0].destination}${g.length > 1 ? ` ×${g.length}` : ''}: ${g[0].old.rule} → ${g[0].new.rule}`)]);
  }
  kinds.push(['rules-changed', [
    ...run.rules.added.map((r) => `added ${r.pointer ?? r.rule}: ${ruleText(r.rule, run.new.policy)}`),
    ...run.rules.removed.map((r) => `removed ${r.pointer ?? r.rule}: ${ruleText(r.rule, run.old.policy)}`),
    ...(run.rules.default ? [`default ${run.rules.default.old} → ${run.rules.default.new}`] : []),
  ]]);
  if (traced(run)) kinds.push(['unused-rules', unusedAdded(run).map((r) => `${r.pointer ?? r.rule}: ${ruleText(r.rule, run.new.policy)}`)]);
  kinds.push(['new-findings', run.findings.added.map((f) => `${run.new.name}:${f.range.start.line + 1}:${f.range.start.character + 1}: ${f.severity} ${f.code}: ${f.message}`)]);
  const cases: JUnitCase[] = kinds.map(([name, items]) => {
    const fails = items.length > 0 && FAILS[name].some((f) => run.failOn.includes(f));
    if (items.length === 0) return { name, classname: run.new.name };
    return fails
      ? { name, classname: run.new.name, failure: { message: `${plural(items.length, 'change')}: ${items[0]}`, type: name, lines: lines(items) } }
      : { name, classname: run.new.name, output: lines(items) };
  });
  return junitXml('netpolicy diff', [{ name: run.new.name, cases }]);
}

const LOG_TITLE = 'netpolicy diff: the report';

/** Annotations, the text report fenced in a log group, and the Markdown review in the job summary. */
export function* githubDiffReport(io: Io, run: DiffRun): Generator<string> {
  const summary = Boolean(io.env.GITHUB_STEP_SUMMARY) && appendStepSummary(io, renderMarkdown(run, { seeAll: `the step's log (group "${LOG_TITLE}")` }));
  yield* githubReport(io, {
    findings: () => reviewFindings(run),
    seeAll: summary ? `the job summary, or the step's log (group "${LOG_TITLE}")` : `the step's log (group "${LOG_TITLE}")`,
    log: { title: LOG_TITLE, pieces: [renderText(run, false)] },
  });
}
