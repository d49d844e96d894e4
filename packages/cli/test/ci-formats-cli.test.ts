/** The CI formats through the built CLI, with the environment a runner gives. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot, runCli } from './run-cli';
import { codeQualityErrors, junitErrors, logLines, parseWorkflowCommand, runnerCommands } from './ci-formats-helpers';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'netpolicy-ci-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const problems = 'fixtures/policies/problems.netpolicy.json';

describe('check --format github', () => {
  it('annotates relative to GITHUB_WORKSPACE, errors first, logs every finding fenced, appends the job summary', () => {
    const summary = join(dir, 'summary.md');
    writeFileSync(summary, '# earlier step\n');
    const r = runCli(['check', '--format', 'github', 'fixtures/policies'], { env: { GITHUB_WORKSPACE: repoRoot, GITHUB_STEP_SUMMARY: summary } });
    expect(r.code).toBe(1);
    const json = JSON.parse(runCli(['check', '--format', 'json', problems]).stdout);
    const diagnostics = json.files[0].diagnostics as { severity: string; code: string; range: { start: { line: number; character: number } } }[];
    const commands = runnerCommands(r.stdout);
    const annotations = commands.filter((c) => ['error', 'warning', 'notice'].includes(c.command));
    const errors = diagnostics.filter((d) => d.severity === 'error');
    expect(annotations.map((a) => a.command)).toEqual([...errors.map(() => 'error'), ...diagnostics.filter((d) => d.severity === 'warning').map(() => 'warning')]);
    expect(annotations[0].properties).toMatchObject({ file: problems, line: String(errors[0].range.start.line + 1), col: String(errors[0].range.start.character + 1), title: errors[0].code });
    // The text report sits in a group with commands stopped: no command runs from it.
    expect(commands.map((c) => c.command).slice(annotations.length)).toEqual(['group', 'stop-commands', 'endgroup']);
    expect(r.stdout).toContain(`${problems}:3:15: error unknown-preset`);
    const md = readFileSync(summary, 'utf8');
    expect(md.startsWith('# earlier step\n## netpolicy check\n')).toBe(true);
    expect(md).toContain(`**${errors.length} errors, ${diagnostics.length - errors.length} warnings**`);
    expect(md).toContain('| ❌ error | `fixtures/policies/problems.netpolicy.json:3:15` | `unknown-preset` |');
    expect(md).toContain('4 policy files checked: fails.');
  });

  it('a clean run: no annotation, exit 0, a summary that says it passes', () => {
    const summary = join(dir, 'clean.md');
    const r = runCli(['check', '--format', 'github', 'fixtures/policies/minimal.netpolicy.json'], { env: { GITHUB_STEP_SUMMARY: summary } });
    expect(r.code).toBe(0);
    expect(runnerCommands(r.stdout).map((c) => c.command)).toEqual(['group', 'stop-commands', 'endgroup']);
    expect(readFileSync(summary, 'utf8')).toContain('**0 errors, 0 warnings** ✅');
  });

  it('more than 10 errors: 10 annotations and a notice counting the rest; no summary file without GITHUB_STEP_SUMMARY', () => {
    const file = join(dir, 'many.netpolicy.json');
    writeFileSync(file, JSON.stringify({ sources: Array.from({ length: 14 }, (_, i) => ({ pypi: { urls: [`not a url ${i}`] } })) }));
    const r = runCli(['check', '--format', 'github', file], { env: { GITHUB_WORKSPACE: dir, GITHUB_STEP_SUMMARY: '' } });
    expect(r.code).toBe(1);
    const annotations = runnerCommands(r.stdout).filter((c) => ['error', 'warning', 'notice'].includes(c.command));
    expect(annotations.filter((a) => a.command === 'error')).toHaveLength(10);
    expect(annotations[0].properties.file).toBe('many.netpolicy.json');
    const last = annotations[annotations.length - 1];
    expect(last.command).toBe('notice');
    expect(last.message).toMatch(/^4 errors not shown as annotations \(GitHub shows 10 of each level per step\): see the step's log/);
  });

  it('a hostile file name and message stay one annotation each and run no command', () => {
    const name = 'x\n::error::pwned,%0A::.netpolicy.json';
    const file = join(dir, name);
    writeFileSync(file, '{"sources":[{"pypi":{"urls":["https://x\\n::warning::pwned"]}}], "presets": ["a\\r::error::b"]}');
    const r = runCli(['check', '--format', 'github', file], { env: { GITHUB_WORKSPACE: dir } });
    const commands = runnerCommands(r.stdout);
    expect(commands.filter((c) => /pwned/.test(c.command) || c.message === 'b')).toEqual([]);
    const annotations = commands.filter((c) => ['error', 'warning', 'notice'].includes(c.command));
    const json = JSON.parse(runCli(['check', '--format', 'json', file]).stdout);
    expect(annotations).toHaveLength(json.files[0].diagnostics.length);
    for (const a of annotations) expect(a.properties.file).toBe('x\\n::error::pwned,%0A::.netpolicy.json');
    // Every line of stdout is a command, or inside the fenced group.
    expect(logLines(r.stdout).filter((l) => l.startsWith('::')).every((l) => parseWorkflowCommand(l) || false)).toBe(true);
  });
});

describe('check --format gitlab', () => {
  it('is a valid Code Quality report, paths relative to CI_PROJECT_DIR, the same fingerprints in every run', () => {
    const a = runCli(['check', '--format', 'gitlab', 'fixtures/policies'], { env: { CI_PROJECT_DIR: join(repoRoot, 'fixtures') } });
    expect(a.code).toBe(1);
    const report = JSON.parse(a.stdout);
    expect(codeQualityErrors(report)).toEqual([]);
    const json = JSON.parse(runCli(['check', '--format', 'json', 'fixtures/policies']).stdout);
    expect(report).toHaveLength(json.files.reduce((n: number, f: { diagnostics: unknown[] }) => n + f.diagnostics.length, 0));
    expect(report[0].location.path).toBe('policies/problems.netpolicy.json');
    const again = JSON.parse(runCli(['check', '--format', 'gitlab', '-o', join(dir, 'cq.json'), 'fixtures/policies'], { env: { CI_PROJECT_DIR: join(repoRoot, 'fixtures') } }).stdout || readFileSync(join(dir, 'cq.json'), 'utf8'));
    expect(again.map((i: { fingerprint: string }) => i.fingerprint)).toEqual(report.map((i: { fingerprint: string }) => i.fingerprint));
    expect(new Set(report.map((i: { fingerprint: string }) => i.fingerprint)).size).toBe(report.length);
    const clean = runCli(['check', '--format', 'gitlab', 'fixtures/policies/minimal.netpolicy.json']);
    expect([clean.code, JSON.parse(clean.stdout)]).toEqual([0, []]);
  });
});

describe('check --format junit', () => {
  it('is valid JUnit XML; --strict makes warnings failures', async () => {
    const out = join(dir, 'check.xml');
    const r = runCli(['check', '--format', 'junit', '-o', out, 'fixtures/policies']);
    expect([r.code, r.stdout]).toEqual([1, '']);
    expect(existsSync(out)).toBe(true);
    const xml = readFileSync(out, 'utf8');
    expect(await junitErrors(xml)).toEqual([]);
    const failures = (x: string) => Number(/<testsuites [^>]*failures="(\d+)"/.exec(x)![1]);
    const strict = runCli(['check', '--format', 'junit', '--strict', 'fixtures/policies']).stdout;
    expect(await junitErrors(strict)).toEqual([]);
    expect(failures(strict)).toBeGreaterThan(failures(xml));
    expect(xml).toContain('<testcase name="netpolicy check" classname="fixtures/policies/minimal.netpolicy.json" time="0.000"/>');
  });
});

describe('test --format github|gitlab|junit', () => {
  const policy = 'fixtures/traces/denials/policy.netpolicy.json';
  const testsFile = () => {
    const file = join(dir, 'policy.tests.json');
    writeFileSync(file, JSON.stringify({ tests: [
      { name: 'npm registry', http: { url: 'https://registry.npmjs.org/left-pad' }, expect: 'allow' },
      { name: 'evil\n::error::pwned & <b>"x"</b>', http: { url: 'https://evil.example/' }, expect: 'allow' },
      { name: 'no pushes', http: { method: 'PUT', url: 'https://ghcr.example.com/v2/acme/app/manifests/1.0' }, expect: 'allow' },
    ] }, null, 2));
    return file;
  };

  it('github: an error annotation on each failing test\'s line, the summary lists them', () => {
    const file = testsFile();
    const summary = join(dir, 'test-summary.md');
    const r = runCli(['test', '--format', 'github', '--policy', policy, file], { env: { GITHUB_WORKSPACE: dir, GITHUB_STEP_SUMMARY: summary } });
    expect(r.code).toBe(1);
    const commands = runnerCommands(r.stdout);
    const errors = commands.filter((c) => c.command === 'error');
    expect(errors.map((e) => [e.properties.file, e.properties.line, e.properties.title])).toEqual([['policy.tests.json', '10', 'policy-test'], ['policy.tests.json', '17', 'policy-test']]);
    expect(errors[0].message).toMatch(/^evil\\n::error::pwned & <b>"x"<\/b>: /);
    expect(commands.map((c) => c.command)).toEqual(['error', 'error', 'group', 'stop-commands', 'endgroup']);
    const md = readFileSync(summary, 'utf8');
    expect(md).toContain('**1 test passed, 2 failed** (1 test file).');
    expect(md).toContain('policy.tests.json` | evil\\\\n::error::pwned &amp; &lt;b&gt;"x"&lt;/b&gt; |');
  });

  it('junit: a test case per policy test, valid; gitlab: the failing tests, valid', async () => {
    const file = testsFile();
    const x = runCli(['test', '--format', 'junit', '--policy', policy, file]);
    expect(x.code).toBe(1);
    expect(await junitErrors(x.stdout)).toEqual([]);
    expect([...x.stdout.matchAll(/<testcase name="([^"]*)"/g)].map((m) => m[1])).toEqual(['npm registry', 'evil\\n::error::pwned &amp; &lt;b&gt;&quot;x&quot;&lt;/b&gt;', 'no pushes']);
    expect(x.stdout).toContain('<testsuites name="netpolicy test" tests="3" failures="2"');
    const g = runCli(['test', '--format', 'gitlab', '--policy', policy, file], { env: { CI_PROJECT_DIR: dir } });
    const report = JSON.parse(g.stdout);
    expect(codeQualityErrors(report)).toEqual([]);
    expect(report.map((i: { location: unknown }) => i.location)).toEqual([{ path: 'policy.tests.json', lines: { begin: 10 } }, { path: 'policy.tests.json', lines: { begin: 17 } }]);
    const pass = runCli(['test', '--format', 'junit', '--policy', policy, 'fixtures/traces/denials/policy.tests.json']);
    expect(pass.code).toBe(0);
    expect(await junitErrors(pass.stdout)).toEqual([]);
  });
});

describe('explain --format github', () => {
  it('a warning per denied destination on its nearest rule\'s line, with the fix; the Markdown report in the job summary', () => {
    const summary = join(dir, 'explain.md');
    const args = ['--policy', 'fixtures/traces/denials/policy.netpolicy.json', '--trace', 'fixtures/traces/denials/trace.json'];
    const r = runCli(['explain', '--format', 'github', ...args], { env: { GITHUB_WORKSPACE: repoRoot, GITHUB_STEP_SUMMARY: summary } });
    expect(r.code).toBe(0);
    const warnings = runnerCommands(r.stdout).filter((c) => c.command === 'warning');
    const json = JSON.parse(runCli(['explain', '--format', 'json', ...args]).stdout);
    const denied = new Set(json.results.filter((x: { model: { verdict: string } }) => x.model.verdict === 'deny').map((x: { destination: string }) => x.destination));
    // One per destination, capped at 10 with the count notice.
    expect(warnings).toHaveLength(Math.min(denied.size, 10));
    const text = readFileSync(join(repoRoot, 'fixtures/traces/denials/policy.netpolicy.json'), 'utf8').split('\n');
    for (const w of warnings) {
      expect(w.properties.file).toBe('fixtures/traces/denials/policy.netpolicy.json');
      const rule = /nearest rule (\/(sources|connections)\/\d+)/.exec(w.message)?.[1];
      // The line of the nearest rule: the rule's object starts there (`{` of /sources/N or /connections/N).
      if (rule) expect(text[Number(w.properties.line) - 1]).toMatch(/\{/);
      expect(w.message).toMatch(/^denied: .*\n(nearest rule|no rule names)/);
      expect(w.message).toMatch(/\nfix/);
    }
    const tls = warnings.find((w) => w.message.startsWith('denied: tls example.org:443'))!;
    expect(tls.message).toContain('fix: widen /connections/0: add to /connections/0/tls/serverNamePatterns: "example.org"');
    expect(readFileSync(summary, 'utf8')).toContain('## Network policy: explain');
  });
});

describe('explain --format gitlab', () => {
  it('a Code Quality issue per denied destination on its nearest rule\'s line, valid against the schema; major when the job performed it', () => {
    const args = ['--policy', 'fixtures/traces/denials/policy.netpolicy.json', '--trace', 'fixtures/traces/denials/trace.json'];
    const r = runCli(['explain', '--format', 'gitlab', ...args], { env: { CI_PROJECT_DIR: repoRoot } });
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout) as { description: string; check_name: string; fingerprint: string; severity: string; location: { path: string; lines: { begin: number } } }[];
    expect(codeQualityErrors(report)).toEqual([]);
    const json = JSON.parse(runCli(['explain', '--format', 'json', ...args]).stdout);
    const denials = json.results.filter((x: { model: { verdict: string } }) => x.model.verdict === 'deny') as { destination: string; recorded: { verdict: string } }[];
    const destinations = [...new Set(denials.map((d) => d.destination))];
    // Every denied destination once, nothing capped (a Code Quality report has no limit per level).
    expect(report.map((i) => /^denied: (.*?)( \(×\d+\))?( \(the job performed it\))? — /.exec(i.description)?.[1]).sort()).toEqual(destinations.sort());
    expect(new Set(report.map((i) => i.fingerprint)).size).toBe(report.length);
    for (const issue of report) {
      expect(issue.check_name).toBe('denied');
      expect(issue.location.path).toBe('fixtures/traces/denials/policy.netpolicy.json');
      const performed = denials.some((d) => issue.description.startsWith(`denied: ${d.destination}`) && d.recorded.verdict === 'allow');
      expect(issue.severity).toBe(performed ? 'major' : 'minor');
    }
    const tls = report.find((i) => i.description.startsWith('denied: tls example.org:443'))!;
    expect(tls.description).toContain('fix: widen /connections/0: add to /connections/0/tls/serverNamePatterns: "example.org"');
    // The same run again: the same fingerprints (GitLab compares them between base and head).
    expect(JSON.parse(runCli(['explain', '--format', 'gitlab', ...args], { env: { CI_PROJECT_DIR: repoRoot } }).stdout).map((i: { fingerprint: string }) => i.fingerprint)).toEqual(report.map((i) => i.fingerprint));
  });
});

describe('explain --format gitlab, severities', () => {
  it('major for an access the job performed that the policy denies, minor for one denied both times; no file on stdin placed on the project', () => {
    const policy = join(dir, 'strict.netpolicy.json');
    writeFileSync(policy, '{"default": "deny", "presets": []}\n');
    const trace = join(dir, 'performed.json');
    writeFileSync(trace, JSON.stringify({ schema_version: '1.0', observations: [
      { protocol: 'http', observed_at: '2026-01-01T00:00:00Z', sequence: 1, method: 'GET', url: 'https://performed.example/', denied: false },
      { protocol: 'http', observed_at: '2026-01-01T00:00:01Z', sequence: 2, method: 'GET', url: 'https://refused.example/', denied: true },
    ] }));
    const r = runCli(['explain', '--format', 'gitlab', '--policy', policy, '--trace', trace], { cwd: dir });
    const report = JSON.parse(r.stdout) as { description: string; severity: string; location: { path: string } }[];
    expect(codeQualityErrors(report)).toEqual([]);
    expect(report.map((i) => [i.description.split(' — ')[0], i.severity, i.location.path])).toEqual([
      ['denied: GET https://performed.example/ (the job performed it)', 'major', 'strict.netpolicy.json'],
      ['denied: GET https://refused.example/', 'minor', 'strict.netpolicy.json'],
    ]);
    const piped = runCli(['explain', '--format', 'gitlab', '--policy', '-', '--trace', trace], { cwd: dir, input: readFileSync(policy, 'utf8') });
    expect(JSON.parse(piped.stdout).map((i: { location: { path: string } }) => i.location.path)).toEqual(['.', '.']);
    expect(runCli(['explain', '--format', 'gitlab', '--provenance', '--policy', policy, '--trace', trace], { cwd: dir }).stderr).toContain('not gitlab');
  });
});
