/**
 * `netpolicy diff` as a pull-request review (issue 23.3): OLD read from git (`git:REV`,
 * `git:REV:PATH`) in a temporary repository, verdict changes with the rules that decide them,
 * rules added and removed with their use by traced accesses, lint findings added, `--fail-on`,
 * and the Markdown, GitHub, GitLab and JUnit forms. Runs the built CLI.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { runCli } from './run-cli';
import { conditionsHeld, MARKDOWN_LIMIT, renderMarkdown, type DiffRun, type Listed } from '../src/commands/diff/render';
import { codeQualityErrors, junitErrors, runnerCommands, xmlUnescape } from './ci-formats-helpers';

let repo: string;

const gitEnv = { GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.org', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.org', GIT_CONFIG_NOSYSTEM: '1', HOME: '' };
function git(...args: string[]): string {
  const r = spawnSync('git', args, { cwd: repo, encoding: 'utf8', env: { ...process.env, ...gitEnv, HOME: repo } });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

const write = (path: string, value: unknown) => writeFileSync(join(repo, path), typeof value === 'string' ? value : JSON.stringify(value, null, 2) + '\n');
const diff = (args: string[], cwd = repo, env: Record<string, string> = {}) => runCli(['diff', ...args], { cwd, env });

const OLD = {
  default: 'deny',
  presets: ['pypi'],
  sources: [{ npm: { urls: ['https://registry.npmjs.org'] } }],
  connections: [{ tcp: { hostPatterns: ['db.internal'], ports: [5432] } }],
};
// npm gains a plain-http mirror (a lint finding, newly allowed), pypi's preset is replaced by a
// narrower source (files.pythonhosted.org newly denied), the database rule moves (no change), and
// a TLS rule no traced access uses is added.
const NEW = {
  default: 'deny',
  presets: [],
  sources: [{ pypi: { urls: ['https://pypi.org'] } }, { npm: { urls: ['https://registry.npmjs.org', 'http://mirror.example.org/npm'] } }],
  connections: [{ tls: { serverNamePatterns: ['telemetry.example.org'], ports: [443] } }, { tcp: { hostPatterns: ['db.internal'], ports: [5432] } }],
};
const TRACE = {
  observations: [
    { sequence: 1, protocol: 'http', method: 'GET', url: 'https://registry.npmjs.org/left-pad' },
    { sequence: 2, protocol: 'http', method: 'GET', url: 'http://mirror.example.org/npm/left-pad/-/left-pad-1.3.0.tgz' },
    { sequence: 3, protocol: 'http', method: 'GET', url: 'https://pypi.org/simple/requests/' },
    { sequence: 4, protocol: 'http', method: 'GET', url: 'https://files.pythonhosted.org/packages/requests-2.32.3-py3-none-any.whl' },
    { sequence: 5, protocol: 'http', method: 'GET', url: 'https://files.pythonhosted.org/packages/idna-3.7-py3-none-any.whl' },
    { sequence: 6, protocol: 'tcp', remote_ip: '10.0.0.5', remote_port: 5432, hostnames: ['db.internal'] },
  ],
};

beforeAll(() => {
  repo = mkdtempSync(join(tmpdir(), 'netpolicy-diff-'));
  git('init', '-q');
  mkdirSync(join(repo, 'ci'));
  write('ci/policy.netpolicy.json', OLD);
  write('trace.json', TRACE);
  git('add', '.');
  git('commit', '-q', '-m', 'policy');
  write('ci/policy.netpolicy.json', NEW);
});
afterAll(() => rmSync(repo, { recursive: true, force: true }));

describe('diff git:REV NEW --trace', () => {
  it('reads OLD from git and reports verdict changes, rules with their uses and new lint findings; exit 1 on a newly denied access', () => {
    const r = diff(['--format', 'json', '--trace', 'trace.json', 'git:HEAD', 'ci/policy.netpolicy.json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(1);
    const j = JSON.parse(r.stdout);
    expect(j.old).toEqual({ name: 'git:HEAD:ci/policy.netpolicy.json', absent: false });
    // ruleChanged: the npm access (/sources/0 -> /sources/1), pypi's index page (preset -> source), the database (moved).
    expect(j.summary).toEqual({ accesses: 6, newlyAllowed: 1, newlyDenied: 2, ruleChanged: 3 });
    expect(j.changes.map((c: { sequence: number; change: string; old: { rule: string }; new: { rule: string } }) => [c.sequence, c.change, c.old.rule, c.new.rule])).toEqual([
      [2, 'newly-allowed', 'default', '/sources/1'],
      [4, 'newly-denied', 'preset:pypi', 'default'],
      [5, 'newly-denied', 'preset:pypi', 'default'],
    ]);
    // Rules by content: the moved tcp rule is no change; the npm source changed (removed + added).
    expect(j.rules.added).toEqual([
      { kind: 'source', rule: '/sources/0', pointer: '/sources/0', value: NEW.sources[0], uses: 1 },
      { kind: 'source', rule: '/sources/1', pointer: '/sources/1', value: NEW.sources[1], uses: 2 },
      { kind: 'connection', rule: '/connections/0', pointer: '/connections/0', value: NEW.connections[0], uses: 0 },
    ]);
    expect(j.rules.removed).toEqual([
      { kind: 'source', rule: '/sources/0', pointer: '/sources/0', value: OLD.sources[0], uses: 1 },
      { kind: 'preset', rule: 'preset:pypi', pointer: '/presets/0', value: 'pypi', uses: 3 },
    ]);
    expect(j.rules.default).toBeNull();
    expect(j.rules.unusedAdded).toBe(1);
    expect(j.findings.added.map((f: { code: string; pointer: string }) => [f.code, f.pointer])).toEqual([['insecure-url', '/sources/1/npm/urls/1']]);
    expect(j.findings.added[0].range.start.line).toBe(NEW_TEXT_LINE_OF('http://mirror.example.org/npm'));
    expect(j.findings.resolved).toEqual([]);
    expect([j.failOn, j.failed]).toEqual([['newly-denied'], ['newly-denied']]);
  });

  it('the text report names the rules and flags the one no traced access uses', () => {
    const r = diff(['--trace', 'trace.json', 'git:HEAD', 'ci/policy.netpolicy.json']);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('git:HEAD:ci/policy.netpolicy.json → ci/policy.netpolicy.json');
    expect(r.stdout).toContain('Newly denied: 2\n  - GET https://files.pythonhosted.org/packages/requests-2.32.3-py3-none-any.whl  allow by preset:pypi → deny by default');
    expect(r.stdout).toContain('Rules added: 3 (1 used by no traced access)');
    expect(r.stdout).toContain('  + /connections/0 {"tls":{"serverNamePatterns":["telemetry.example.org"],"ports":[443]}}  no traced access');
    expect(r.stdout).toContain('  - /presets/0 preset pypi  3 traced accesses');
    expect(r.stdout).toMatch(/Lint findings the change adds: 1\n {2}ci\/policy\.netpolicy\.json:\d+:\d+ warning insecure-url: /);
    expect(r.stdout).toContain('Fails: newly-denied (--fail-on newly-denied).');
  });

  it('git:REV:PATH reads PATH from the repository root, or from the working directory with ./; git:REV works from a subfolder', () => {
    const fromRoot = JSON.parse(diff(['--format', 'json', '--fail-on', 'never', 'git:HEAD:ci/policy.netpolicy.json', 'ci/policy.netpolicy.json']).stdout);
    const fromSub = diff(['--format', 'json', '--fail-on', 'never', 'git:HEAD:./policy.netpolicy.json', 'policy.netpolicy.json'], join(repo, 'ci'));
    expect(fromSub.code).toBe(0);
    const sub = JSON.parse(fromSub.stdout);
    expect(sub.rules).toEqual(fromRoot.rules);
    const bare = JSON.parse(diff(['--format', 'json', '--fail-on', 'never', 'git:HEAD', 'policy.netpolicy.json'], join(repo, 'ci')).stdout);
    expect(bare.old.name).toBe('git:HEAD:ci/policy.netpolicy.json');
    expect(bare.rules).toEqual(fromRoot.rules);
    // Without traces: no verdicts, no uses.
    expect(fromRoot.summary.accesses).toBe(0);
    expect(fromRoot.rules.added.every((r: { uses: unknown }) => r.uses === null)).toBe(true);
    expect(fromRoot.rules.unusedAdded).toBeNull();
  });

  it('the same policy with its rules reordered: no rule change, no lint change, exit 0', () => {
    write('moved.netpolicy.json', { ...OLD, sources: [...OLD.sources].reverse(), connections: [...OLD.connections] });
    git('add', 'moved.netpolicy.json');
    git('commit', '-q', '-m', 'moved');
    write('moved.netpolicy.json', { connections: OLD.connections, sources: OLD.sources, presets: OLD.presets, default: 'deny' });
    const r = diff(['--format', 'json', '--trace', 'trace.json', 'git:HEAD', 'moved.netpolicy.json']);
    expect(r.code).toBe(0);
    const j = JSON.parse(r.stdout);
    expect([j.rules.added, j.rules.removed, j.findings.added, j.changes]).toEqual([[], [], [], []]);
  });

  it('a file that did not exist at REV is a new policy: no policy before, every access allowed', () => {
    write('fresh.netpolicy.json', NEW);
    const r = diff(['--format', 'json', '--trace', 'trace.json', 'git:HEAD', 'fresh.netpolicy.json']);
    expect(r.code).toBe(1);
    const j = JSON.parse(r.stdout);
    expect(j.old).toEqual({ name: 'git:HEAD:fresh.netpolicy.json', absent: true });
    expect(j.summary).toMatchObject({ newlyAllowed: 0, newlyDenied: 2 });
    expect(j.rules.added.map((r: { rule: string }) => r.rule)).toEqual(['/sources/0', '/sources/1', '/connections/0', '/connections/1']);
    expect(j.rules.removed).toEqual([]);
    expect(j.rules.default).toEqual({ old: 'allow', new: 'deny' });
    expect(j.findings.added.map((f: { code: string }) => f.code)).toEqual(['insecure-url']);
    expect(diff(['git:HEAD', 'fresh.netpolicy.json']).stdout).toContain('git:HEAD:fresh.netpolicy.json (absent: no policy, every access allowed) → fresh.netpolicy.json');
  });
});

/** The 0-based line of the first line of the NEW policy's text holding `needle`. */
function NEW_TEXT_LINE_OF(needle: string): number {
  return readFileSync(join(repo, 'ci/policy.netpolicy.json'), 'utf8').split('\n').findIndex((l) => l.includes(needle));
}

describe('diff git: errors are exit 2 with a clear message', () => {
  it('an unknown revision, a folder, NEW from stdin with git:REV, NEW as git:', () => {
    const unknown = diff(['git:no-such-branch', 'ci/policy.netpolicy.json']);
    expect([unknown.code, unknown.stdout]).toEqual([2, '']);
    expect(unknown.stderr).toContain('unknown revision no-such-branch');
    const folder = diff(['git:HEAD:ci', 'ci/policy.netpolicy.json']);
    expect(folder.code).toBe(2);
    expect(folder.stderr).toContain('it is a folder at HEAD, not a file');
    const stdin = runCli(['diff', 'git:HEAD', '-'], { cwd: repo, input: JSON.stringify(NEW) });
    expect(stdin.code).toBe(2);
    expect(stdin.stderr).toContain('NEW is standard input: write git:REV:PATH');
    expect(runCli(['diff', 'git:HEAD:ci/policy.netpolicy.json', '-'], { cwd: repo, input: JSON.stringify(NEW) }).code).toBe(1 - 1);
    expect(diff(['ci/policy.netpolicy.json', 'git:HEAD']).stderr).toContain('NEW must be a file');
    expect(diff(['git:', 'ci/policy.netpolicy.json']).stderr).toContain('names no revision');
    expect(diff(['git:HEAD:', 'ci/policy.netpolicy.json']).stderr).toContain('names no path');
  });

  it('a revision that starts with - never becomes a git option', () => {
    const target = join(repo, 'written-by-git');
    for (const rev of [`--output=${target}`, '-h', '--exec-path']) {
      const r = diff([`git:${rev}`, 'ci/policy.netpolicy.json']);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('a revision cannot start with `-`');
    }
    expect(existsSync(target)).toBe(false);
  });

  it('outside a repository, and without git on PATH', () => {
    const outside = mkdtempSync(join(tmpdir(), 'netpolicy-nogit-'));
    try {
      writeFileSync(join(outside, 'p.netpolicy.json'), JSON.stringify(NEW));
      // GIT_CEILING_DIRECTORIES: git must not find a repository above the temporary folder.
      const r = diff(['git:HEAD', 'p.netpolicy.json'], outside, { GIT_CEILING_DIRECTORIES: tmpdir() });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('is not in a git repository');
      const noGit = diff(['git:HEAD', 'p.netpolicy.json'], outside, { PATH: outside });
      expect(noGit.code).toBe(2);
      expect(noGit.stderr).toContain('git is not installed');
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it('an invalid policy at the revision is exit 2 naming git:REV:PATH', () => {
    write('broken.netpolicy.json', '{"sources": [');
    git('add', 'broken.netpolicy.json');
    git('commit', '-q', '-m', 'broken');
    write('broken.netpolicy.json', NEW);
    const r = diff(['git:HEAD', 'broken.netpolicy.json']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('git:HEAD:broken.netpolicy.json is not a valid policy');
  });
});

describe('diff --fail-on', () => {
  const args = ['--trace', 'trace.json', 'git:HEAD', 'ci/policy.netpolicy.json'];
  it('each condition', () => {
    expect(diff(['--fail-on', 'never', ...args]).code).toBe(0);
    expect(diff(['--fail-on', 'newly-allowed', ...args]).code).toBe(1);
    expect(diff(['--fail-on', 'new-findings', ...args]).code).toBe(1);
    expect(diff(['--fail-on', 'unused-rules', ...args]).code).toBe(1);
    expect(diff(['--fail-on', 'any-change', 'git:HEAD', 'ci/policy.netpolicy.json']).code).toBe(1);
    // Without traces nothing is newly denied, and no rule is known to be unused.
    expect(diff(['git:HEAD', 'ci/policy.netpolicy.json']).code).toBe(0);
    expect(diff(['--fail-on', 'unused-rules', 'git:HEAD', 'ci/policy.netpolicy.json']).code).toBe(0);
    const j = JSON.parse(diff(['--format', 'json', '--fail-on', 'new-findings', '--fail-on', 'newly-allowed', ...args]).stdout);
    expect(j.failed).toEqual(['new-findings', 'newly-allowed']);
    const bad = diff(['--fail-on', 'never', '--fail-on', 'newly-denied', ...args]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('netpolicy diff: option --fail-on never cannot be given with other values\n');
  });

  it('a lint code set off in netpolicy.config.json is no new finding', () => {
    write('netpolicy.config.json', { severity: { 'insecure-url': 'off' } });
    try {
      expect(diff(['--fail-on', 'new-findings', ...args]).code).toBe(0);
    } finally {
      rmSync(join(repo, 'netpolicy.config.json'));
    }
  });
});

describe('diff --format markdown|github|gitlab|junit', () => {
  const args = ['--trace', 'trace.json', 'git:HEAD', 'ci/policy.netpolicy.json'];

  it('markdown: counts, the newly denied open, the rest collapsed', () => {
    const r = diff(['--format', 'markdown', ...args]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('`ci/policy.netpolicy.json` against `git:HEAD:ci/policy.netpolicy.json` · 6 traced accesses from 1 trace');
    expect(r.stdout).toContain('| ❌ Traced accesses newly denied (a job would break) | 2 |');
    expect(r.stdout).toContain('| Rules added | 3 (1 used by no traced access) |');
    expect(r.stdout).toContain('<details open>\n<summary><b>Newly denied: 2</b> (a job would break)</summary>');
    expect(r.stdout).toContain('| `GET http://mirror.example.org/npm/left-pad/-/left-pad-1.3.0.tgz` | 1 | `/sources/1` | `{"npm":{"urls":["https://registry.npmjs.org","http://mirror.example.org/npm"]}}` |');
    expect(r.stdout).toContain('| `/connections/0` | connection | **none** |');
    expect(r.stdout.match(/<details/g)).toHaveLength(5);
    expect(r.stdout.match(/<\/details>/g)).toHaveLength(5);
  });

  it('markdown stays under 60,000 characters with thousands of hostile destinations, and counts what it leaves out', () => {
    const hostile = '`|<script>alert(1)</script>**[x](https://evil.example)';
    const observations = Array.from({ length: 3000 }, (_, i) => ({ sequence: i + 1, protocol: 'http', method: 'GET', url: `https://files.pythonhosted.org/p/${i}/${hostile}/${'x'.repeat(200)}` }));
    write('big-trace.json', { observations });
    const r = diff(['--format', 'markdown', '--trace', 'big-trace.json', 'git:HEAD', 'ci/policy.netpolicy.json']);
    expect(r.code).toBe(1);
    expect(r.stdout.length).toBeLessThanOrEqual(60_000);
    expect(r.stdout.length).toBeGreaterThan(40_000);
    // Outside text stays text: HTML only inside code spans (which GitHub shows as written), never outside them.
    const outsideCode = r.stdout.replace(/(?<!`)(`+)(?!`)[^\n]*?(?<!`)\1(?!`)/g, '');
    expect(r.stdout).toContain('<script>');
    expect(outsideCode).not.toContain('<script>');
    expect(outsideCode).not.toContain('](https');
    expect(r.stdout.match(/<details/g)!.length).toBe(r.stdout.match(/<\/details>/g)!.length);
    const listed = r.stdout.split('\n').filter((l) => l.startsWith('| ``GET https://files.pythonhosted.org/p/')).length;
    expect(r.stdout).toContain(`… and ${3000 - listed} more destinations not listed here`);
    // The other sections keep their place.
    expect(r.stdout).toContain('<summary><b>Lint findings added: 1</b></summary>');
    expect(r.stdout).toContain('| `/connections/0` | connection | **none** |');
  });

  it('github: annotations on NEW, the review in the job summary, the text report fenced', () => {
    const summary = join(repo, 'summary.md');
    writeFileSync(summary, '');
    const r = diff(['--format', 'github', ...args], repo, { GITHUB_WORKSPACE: repo, GITHUB_STEP_SUMMARY: summary });
    expect(r.code).toBe(1);
    const commands = runnerCommands(r.stdout);
    const annotations = commands.filter((c) => ['error', 'warning', 'notice'].includes(c.command));
    expect(annotations.map((a) => [a.command, a.properties.title])).toEqual([
      ['error', 'newly-denied'], ['error', 'newly-denied'], ['warning', 'newly-allowed'], ['warning', 'insecure-url'], ['notice', 'unused-rule'],
    ]);
    expect(annotations.every((a) => a.properties.file === 'ci/policy.netpolicy.json')).toBe(true);
    const lines = readFileSync(join(repo, 'ci/policy.netpolicy.json'), 'utf8').split('\n');
    // The newly allowed access is annotated on the rule that allows it (its `{`, the line above its
    // kind), the unused rule on itself.
    expect(lines[Number(annotations[2].properties.line)]).toContain('"npm"');
    expect(lines[Number(annotations[4].properties.line)]).toContain('"tls"');
    expect(commands.map((c) => c.command).slice(annotations.length)).toEqual(['group', 'stop-commands', 'endgroup']);
    expect(readFileSync(summary, 'utf8')).toContain('## netpolicy diff');
  });

  it('gitlab: a valid Code Quality report, newly denied accesses critical', () => {
    const r = diff(['--format', 'gitlab', ...args], repo, { CI_PROJECT_DIR: repo });
    expect(r.code).toBe(1);
    const report = JSON.parse(r.stdout);
    expect(codeQualityErrors(report)).toEqual([]);
    expect(report.map((i: { check_name: string; severity: string }) => [i.check_name, i.severity])).toEqual([
      ['newly-denied', 'critical'], ['newly-denied', 'critical'], ['newly-allowed', 'minor'], ['insecure-url', 'minor'], ['unused-rule', 'info'],
    ]);
    expect(report[0].location.path).toBe('ci/policy.netpolicy.json');
  });

  it('junit: valid XML, a case per kind of change, failing where --fail-on looks', async () => {
    const r = diff(['--format', 'junit', '--fail-on', 'newly-denied', '--fail-on', 'new-findings', ...args]);
    expect(r.code).toBe(1);
    expect(await junitErrors(r.stdout)).toEqual([]);
    const cases = [...r.stdout.matchAll(/<testcase name="([^"]+)"[^>]*?(\/>|>\s*<(failure|system-out))/g)].map((m) => [m[1], m[3] ?? 'pass']);
    expect(cases).toEqual([['newly-denied', 'failure'], ['newly-allowed', 'system-out'], ['rules-changed', 'system-out'], ['unused-rules', 'system-out'], ['new-findings', 'failure']]);
    expect(xmlUnescape(r.stdout)).toContain('added /connections/0: {"tls":{"serverNamePatterns":["telemetry.example.org"],"ports":[443]}}');
  });
});

describe('renderMarkdown (the review as a comment): bounded whatever the run holds', () => {
  const text = fc.string({ unit: fc.constantFrom('a', '|', '`', '<', '>', '&', '*', '[', ']', '(', ')', '\n', '\u202e', 'é', '💥', '/', ':'), maxLength: 400, size: 'large' });
  const decision = (verdict: 'allow' | 'deny', rule: string) => ({ verdict, rule, certain: true });
  const runOf = (big: boolean) => fc.record({
    denied: fc.array(text, big ? { maxLength: 1500, size: 'max' } : { maxLength: 8 }),
    allowed: fc.array(text, big ? { maxLength: 1500, size: 'max' } : { maxLength: 8 }),
    added: fc.array(text, big ? { maxLength: 300, size: 'max' } : { maxLength: 8 }),
    removed: fc.array(text, big ? { maxLength: 300, size: 'max' } : { maxLength: 8 }),
    findings: fc.array(text, big ? { maxLength: 300, size: 'max' } : { maxLength: 8 }),
    traced: fc.boolean(),
    name: text,
  }).map((r): DiffRun => {
    const changes: Listed[] = [
      ...r.denied.map((d, i) => ({ trace: r.name, sequence: i, protocol: 'http', destination: `${i} ${d}`, change: 'newly-denied' as const, old: decision('allow', '/sources/0'), new: decision('deny', 'default') })),
      ...r.allowed.map((d, i) => ({ trace: r.name, sequence: i, protocol: 'http', destination: `${i} ${d}`, change: 'newly-allowed' as const, old: decision('deny', 'default'), new: decision('allow', '/sources/0') })),
    ];
    const rule = (value: string, i: number) => ({ kind: 'source' as const, rule: `/sources/${i}`, pointer: `/sources/${i}`, value: { npm: { urls: [value] } }, uses: r.traced ? i % 2 : undefined });
    const finding = (message: string) => ({ severity: 'warning' as const, code: 'insecure-url', message, pointer: '/sources/0', range: { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } } });
    const partial = {
      old: { name: `git:main:${r.name}`, absent: false, policy: { sources: [{ npm: { urls: [r.name] } }] } },
      new: { name: r.name, text: '{}', policy: { sources: [{ npm: { urls: [r.name] } }] } },
      traces: r.traced ? [r.name] : [], accesses: changes.length,
      counts: { 'newly-allowed': r.allowed.length, 'newly-denied': r.denied.length, 'rule-changed': 0 },
      changes: r.traced ? changes : [],
      rules: { added: r.added.map(rule), removed: r.removed.map(rule) },
      findings: { added: r.findings.map(finding), resolved: [] },
      failOn: ['newly-denied' as const],
    };
    return { ...partial, held: conditionsHeld(partial) };
  });

  it('at most 60,000 characters, every <details> closed, nothing left out without a count, outside text never HTML', () => {
    fc.assert(fc.property(runOf(true), (r) => {
      const md = renderMarkdown(r);
      expect(md.length).toBeLessThanOrEqual(MARKDOWN_LIMIT);
      expect((md.match(/<details/g) ?? []).length).toBe((md.match(/<\/details>/g) ?? []).length);
      // Rows written plus rows counted are every row of each section.
      const sections = md.split('<details').slice(1);
      const totals = [
        ...(r.traces.length && r.counts['newly-denied'] ? [r.counts['newly-denied']] : []),
        ...(r.traces.length && r.counts['newly-allowed'] ? [r.counts['newly-allowed']] : []),
        ...(r.rules.added.length ? [r.rules.added.length] : []),
        ...(r.rules.removed.length ? [r.rules.removed.length] : []),
        ...(r.findings.added.length ? [r.findings.added.length] : []),
      ];
      expect(sections).toHaveLength(totals.length);
      sections.forEach((s, i) => {
        const rows = s.split('\n').filter((l) => l.startsWith('| ')).length - 1;
        const counted = Number(/… and (\d+) more/.exec(s)?.[1] ?? 0);
        expect(rows + counted).toBe(totals[i]);
      });
      // No tag from outside text: every `<` outside code spans is one of the report's own tags.
      const outsideCode = md.replace(/(?<!`)(`+)(?!`)[^\n]*?(?<!`)\1(?!`)/g, '');
      expect(outsideCode.match(/<(?!\/?(details|summary|b|br)\b|details open>)/g) ?? []).toEqual([]);
    }), { numRuns: 40, endOnFailure: true }); // no shrinking: a failing run of thousands of rows is shown as it is
  });

  it('a small review is written whole', () => {
    fc.assert(fc.property(runOf(false), (r) => {
      expect(renderMarkdown(r)).not.toContain('not listed here');
    }), { numRuns: 60 });
  });
});
