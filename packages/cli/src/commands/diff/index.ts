import { formatOption, outputOption, parseCommand, presetsOption, usageText, type CommandSpec } from '../../args';
import { canReadTwice, checkOneStdin, readInput, reportSink, shownName } from '../../report-output';
import { diffFindings, diffRules, LINT_CODES, LineIndex, PolicyDiffer, PROJECT_CONFIG_FILE, validate, type Diagnostic, type Policy, type PresetCatalog, type SeverityOptions } from '@netpolicy/core';
import type { Command } from '../../command';
import { EXIT, UsageError, useColor } from '../../io';
import { readDnsNames, readTraceFile } from '../../inputs';
import { ConfigFinder } from '../../project-config';
import { GIT_PREFIX, parseGitSpec, readGitPolicy } from './git-revision';
import { conditionsHeld, FAIL_ON, renderJson, renderMarkdown, renderText, type DiffFinding, type DiffRun, type FailOn, type Listed } from './render';

export const spec: CommandSpec = {
  name: 'diff',
  summary: 'Review a policy change: verdict changes on traced accesses, rules and lint findings',
  synopsis: ['diff [--trace FILE...] [options] OLD NEW'],
  description: `Reviews a change from policy OLD to policy NEW, for a pull request. With traces (--trace),
replays their accesses under both and lists those whose verdict changes: newly allowed (the policy
got wider: review them; with the rule that allows each) and newly denied (a job would break).
Lists the rules NEW adds and OLD had that NEW has not (matched by content: a moved rule is no
change), with the traced accesses each decides (a rule none uses is flagged), a changed default,
and the lint findings the change adds or resolves (matched by code and by what they point at in
their rule, not by index).

OLD may be git:REV (NEW's path at revision REV, e.g. git:origin/main) or git:REV:PATH (PATH as
\`git show REV:PATH\` reads it: from the repository root, ./ for the working directory), read with
git. A file that did not exist at REV is a new policy: before it no policy applied, so every access
was allowed. One of OLD, NEW and the traces may be - (stdin).`,
  options: {
    trace: { type: 'string', multiple: true, value: 'FILE', help: 'A trace to replay (repeat for several runs). Without traces, only rule and lint changes are reported.' },
    format: formatOption(['text', 'json', 'markdown', 'github', 'gitlab', 'junit'], 'Report format: text, json ({"old","new","traces","summary":{"accesses","newlyAllowed","newlyDenied","ruleChanged"},"changes":[{"trace","sequence","protocol","destination","change","old","new"}],"rules":{"added","removed","default","unusedAdded"},"findings":{"added","resolved"},"failOn","failed"}), markdown (a pull-request comment: at most 60,000 characters, sections collapsed), github (annotations on NEW, the Markdown review in the job summary when GITHUB_STEP_SUMMARY is set), gitlab (a Code Quality report; newly denied accesses are critical) or junit (a test case per kind of change). See docs/ci.md.'),
    output: outputOption,
    'rule-changes': { type: 'boolean', help: 'Also list accesses whose verdict stays but whose deciding rule changes.' },
    'fail-on': { type: 'string', multiple: true, choices: FAIL_ON, help: 'Exit 1 when such a change exists: newly-denied (the default: a traced access the job made would be denied), newly-allowed, any (newly allowed or denied), new-findings (a lint finding the change adds), unused-rules (a rule added that no traced access uses), any-change (a verdict, rule, default or lint finding added), never.' },
    config: { type: 'string', value: 'FILE', help: `A netpolicy config file (lint severities, preset catalog), instead of the nearest ${PROJECT_CONFIG_FILE} upward from NEW.` },
    presets: presetsOption,
  },
  operands: { min: 2, max: 2, name: 'OLD NEW (two policy files; OLD may be git:REV or git:REV:PATH)' },
  examples: [
    'netpolicy diff --trace fixtures/traces/denials/trace.json fixtures/traces/denials/policy.netpolicy.json suggested.netpolicy.json',
    'netpolicy diff --format markdown -o review.md --trace trace.json git:origin/main policy.netpolicy.json',
  ],
  exitCodes: [[0, 'compared, and no --fail-on condition held'], [1, 'a --fail-on condition held (by default: a traced access is newly denied)'], [2, 'usage error, unreadable file, an invalid policy or trace, or a git: revision that cannot be read (no git, no repository, unknown revision)']],
};

const LINT = new Set<string>(LINT_CODES);

/** A policy text validated with lint: schema or syntax errors make it unusable (exit 2); its lint findings, placed. */
function checkedPolicy(text: string, shown: string, fileName: string, catalog: PresetCatalog, severity: SeverityOptions | undefined): { policy: Policy; findings: DiffFinding[] } {
  const result = validate(text, { fileName, catalog, severity });
  const errors = result.diagnostics.filter((d) => d.severity === 'error' && !LINT.has(d.code));
  const lines = new LineIndex(text);
  if (errors.length > 0 || typeof result.value !== 'object' || result.value === null || Array.isArray(result.value)) {
    const shownErrors = errors.slice(0, 5).map((d) => {
      const p = lines.positionAt(d.offset);
      return `${shown}:${p.line + 1}:${p.character + 1} ${d.code}: ${d.message}`;
    });
    const more = errors.length > 5 ? [`... and ${errors.length - 5} more (run \`netpolicy check\` on it)`] : [];
    throw new UsageError(`${shown} is not a valid policy:`, EXIT.usage, [...shownErrors, ...more]);
  }
  const findings = result.diagnostics.filter((d) => LINT.has(d.code)).map((d: Diagnostic): DiffFinding => ({
    severity: d.severity, code: d.code, message: d.message, pointer: d.pointer, range: lines.range(d.offset, d.length),
  }));
  return { policy: result.value as Policy, findings };
}

/** Before a policy file existed no policy applied: every access allowed, no rule, no preset. */
const NO_POLICY: Policy = { default: 'allow', presets: [] };

export const command: Command = {
  name: 'diff',
  summary: spec.summary,
  usage: usageText(spec),
  spec,
  async run(args, io) {
    const { values, positionals } = parseCommand(spec, args);
    const traces = (values.trace as string[] | undefined) ?? [];
    const [oldArg, newArg] = positionals;
    if (newArg.startsWith(GIT_PREFIX)) throw new UsageError(`NEW must be a file (git:REV is for OLD); for a file named \`${newArg.slice(0, 60)}\`, write ./${newArg.slice(0, 60)}`);
    const gitSpec = parseGitSpec(oldArg);
    checkOneStdin([...traces, ...(gitSpec ? [] : [oldArg]), newArg]);
    const failOn = ((values['fail-on'] as string[] | undefined) ?? ['newly-denied']) as FailOn[];
    if (failOn.includes('never') && failOn.length > 1) throw new UsageError('option --fail-on never cannot be given with other values');
    const configs = new ConfigFinder(io.cwd, values.config as string | undefined, values.presets as string | undefined);
    const config = configs.forPath(newArg);
    const catalog = configs.catalogFor(config);
    const severity = config?.config.severity;
    const sink = reportSink(io, values.output as string | undefined);

    let oldSide: { name: string; absent: boolean; policy: Policy; findings: DiffFinding[] };
    if (gitSpec) {
      const read = await readGitPolicy(gitSpec, newArg, io.cwd);
      oldSide = read.text === undefined
        ? { name: read.name, absent: true, policy: NO_POLICY, findings: [] }
        : { name: read.name, absent: false, ...checkedPolicy(read.text, read.name, read.path, catalog, severity) };
    } else {
      oldSide = { name: shownName(oldArg), absent: false, ...checkedPolicy(readInput(oldArg), shownName(oldArg), oldArg === '-' ? 'stdin.json' : oldArg, catalog, severity) };
    }
    const newText = readInput(newArg);
    const newSide = checkedPolicy(newText, shownName(newArg), newArg === '-' ? 'stdin.json' : newArg, catalog, severity);

    const differ = new PolicyDiffer(oldSide.policy, newSide.policy, { catalog });
    const changes: Listed[] = [];
    const counts = { 'newly-allowed': 0, 'newly-denied': 0, 'rule-changed': 0 };
    for (const trace of traces) {
      differ.beginTrace(canReadTwice(trace) ? await readDnsNames(trace) : undefined);
      await readTraceFile(trace, (o) => {
        const change = differ.add(o);
        if (!change) return;
        counts[change.change]++;
        if (change.change !== 'rule-changed' || values['rule-changes']) changes.push({ trace: shownName(trace), ...change });
      });
    }
    const usage = traces.length ? { old: differ.oldUses, new: differ.newUses } : undefined;
    const partial: Omit<DiffRun, 'held'> = {
      old: { name: oldSide.name, absent: oldSide.absent, policy: oldSide.policy },
      new: { name: shownName(newArg), ...(newArg === '-' ? {} : { file: newArg }), text: newText, policy: newSide.policy },
      traces: traces.map(shownName),
      accesses: differ.accesses,
      counts,
      changes,
      rules: diffRules(oldSide.policy, newSide.policy, catalog, usage),
      findings: diffFindings(oldSide.findings, oldSide.policy, newSide.findings, newSide.policy),
      failOn,
    };
    const run: DiffRun = { ...partial, held: conditionsHeld(partial) };

    const format = values.format as string;
    if (format === 'json') sink.write(renderJson(run));
    else if (format === 'markdown') sink.write(renderMarkdown(run));
    else if (format === 'github') sink.write([...(await import('./ci')).githubDiffReport(io, run)].join(''));
    else if (format === 'gitlab') sink.write([...(await import('./ci')).gitlabDiffReport(io, run)].join(''));
    else if (format === 'junit') sink.write((await import('./ci')).junitDiffReport(run));
    else sink.write(renderText(run, sink.toStdout && useColor(io)));
    return run.held.length > 0 ? EXIT.findings : EXIT.ok;
  },
};
