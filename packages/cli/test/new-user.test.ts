/**
 * Issue 9: the CLI as a new user meets it. Every test runs the built CLI as a process.
 */
import { describe, expect, it, beforeEach, afterEach } from 'vitest';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot, runCli } from './run-cli';

const fx = (p: string) => join(repoRoot, 'fixtures/traces', p);
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'netpolicy-newuser-'));
});
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('check never passes without checking something (item 1, 2)', () => {
  it('a folder without policy files is exit 2, names the patterns and how to change them, and prints no success line', () => {
    mkdirSync(join(dir, 'pol'));
    writeFileSync(join(dir, 'pol/bad-policy.json'), '{"default": "deny"}');
    const r = runCli(['check', 'pol'], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('no policy files in pol: searched for *.netpolicy.json, *.netpolicy.jsonc, network-policy.json');
    expect(r.stderr).toContain('pol/bad-policy.json');
    expect(r.stderr).toContain('"filePatterns" in netpolicy.config.json');
    expect(r.stderr).toContain('--config FILE');
  });

  it('netpolicy.config.json filePatterns (found upward, or named by --config) make such a folder checked', () => {
    mkdirSync(join(dir, 'pol/sub'), { recursive: true });
    writeFileSync(join(dir, 'pol/sub/bad-policy.json'), '{"default": "deny", "presets": ["pypy"]}');
    writeFileSync(join(dir, 'netpolicy.config.json'), '{"filePatterns": ["*-policy.json"]}');
    const r = runCli(['check', 'pol'], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('pol/sub/bad-policy.json:1:33: error unknown-preset');
    // --config names another file, whose patterns do not match: nothing found again.
    writeFileSync(join(dir, 'other.json'), '{"filePatterns": ["*.policy"]}');
    const other = runCli(['check', '--config', 'other.json', 'pol'], { cwd: dir });
    expect(other.code).toBe(2);
    expect(other.stderr).toContain('*.policy (filePatterns from other.json)');
  });

  it('the config severity applies to each file, and a bad config is exit 2 with its position', () => {
    mkdirSync(join(dir, 'a'));
    writeFileSync(join(dir, 'a/p.netpolicy.json'), '{"presets": [], "connections": [{"tcp": {"cidrs": ["0.0.0.0/0"]}}]}');
    expect(runCli(['check', '--strict', 'a'], { cwd: dir }).code).toBe(1);
    writeFileSync(join(dir, 'a/netpolicy.config.json'), '{"severity": {"broad-cidr": "off", "metadata-address": "information"}}');
    const off = runCli(['check', '--strict', 'a'], { cwd: dir });
    expect(off.code).toBe(0);
    expect(off.stdout).toContain('0 errors, 0 warnings, 1 note in 1 file');
    expect(off.stdout).not.toContain('broad-cidr');
    writeFileSync(join(dir, 'a/netpolicy.config.json'), '{\n  "severty": {}\n}');
    const bad = runCli(['check', 'a/p.netpolicy.json'], { cwd: dir });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('a/netpolicy.config.json:2:3: unknown-property');
    expect(bad.stdout).toBe('');
  });

  it('a missing file: the error on stderr, exit 2, and no success line', () => {
    const r = runCli(['check', 'missing.json'], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('cannot read missing.json: no such file');
    expect(r.stdout).not.toContain('✓');
    expect(r.stdout).not.toMatch(/0 errors, 0 warnings/);
    // With another, clean file: its result is shown, but not as a success.
    writeFileSync(join(dir, 'ok.netpolicy.json'), '{"default": "deny", "presets": []}');
    const mixed = runCli(['check', 'ok.netpolicy.json', 'missing.json'], { cwd: dir });
    expect(mixed.code).toBe(2);
    expect(mixed.stdout).not.toContain('✓');
    expect(mixed.stdout).toContain('the check failed');
  });

  it('the fixture folders are found by `check fixtures/` (every policy follows D6)', () => {
    const r = runCli(['check', '--format', 'json', 'fixtures/traces']);
    const files = JSON.parse(r.stdout).files.map((f: { file: string }) => f.file).sort();
    const expected = readdirSync(join(repoRoot, 'fixtures/traces')).map((d) => join('fixtures/traces', d, 'policy.netpolicy.json')).sort();
    expect(files).toEqual(expected);
    expect(r.code).toBe(0);
  });
});

describe('fixes a user would take, and can apply (item 3)', () => {
  it('explain --apply writes the fixes, keeps comments and layout, prints the diff; the result passes check --strict and allows the denials', () => {
    const policy = join(dir, 'ci.netpolicy.jsonc');
    writeFileSync(policy, [
      '// our CI policy',
      '{',
      '    "default": "deny",',
      '    "presets": ["npm"], // npm only',
      '    /* mirrors */',
      '    "sources": [',
      '        { "oci": { "urls": ["https://ghcr.example.com"], "repositoryPatterns": ["acme/*"], "operations": ["pull"] } }',
      '    ]',
      '}',
      '',
    ].join('\n'));
    const before = runCli(['explain', '--format', 'json', '--policy', policy, '--trace', fx('denials/trace.json')]);
    const deniedBefore = JSON.parse(before.stdout).results.filter((r: { model: { verdict: string } }) => r.model.verdict === 'deny');
    expect(deniedBefore.length).toBeGreaterThan(3);
    const r = runCli(['explain', '--apply', '--only', 'denied', '--policy', policy, '--trace', fx('denials/trace.json')]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`--- a/${policy}`);
    expect(r.stdout).toMatch(/^\+.*"pypi"/m);
    expect(r.stderr).toMatch(/applied \d+ fixes to .*0 errors and 0 warnings/);
    expect(r.stderr).toContain('make the job use https://pypi.org/simple/six/');
    const text = readFileSync(policy, 'utf8');
    expect(text).toContain('// our CI policy');
    expect(text).toContain('// npm only');
    expect(text).toContain('/* mirrors */');
    expect(text).not.toContain('http://');
    const strict = runCli(['check', '--strict', policy]);
    expect(strict.code, strict.stdout).toBe(0);
    const after = JSON.parse(runCli(['explain', '--format', 'json', '--policy', policy, '--trace', fx('denials/trace.json')]).stdout);
    // Every denial is allowed now, but the plain-http one: its https form is (the job should use https).
    expect(after.results.filter((x: { model: { verdict: string } }) => x.model.verdict === 'deny').map((x: { destination: string }) => x.destination)).toEqual(['GET http://pypi.org/simple/six/']);
    // Applying again changes nothing.
    const again = runCli(['explain', '--apply', '--policy', policy, '--trace', fx('denials/trace.json')]);
    expect(again.stderr).toContain('nothing to apply');
    expect(readFileSync(policy, 'utf8')).toBe(text);
  });

  it('a denied http:// request to a software source gets the https rule and a note, never an insecure-url rule', () => {
    const policy = join(dir, 'p.netpolicy.json');
    writeFileSync(policy, '{"default": "deny", "presets": []}');
    const j = JSON.parse(runCli(['explain', '--format', 'json', '--policy', policy, '--trace', fx('denials/trace.json')]).stdout);
    const http = j.results.find((x: { destination: string }) => x.destination === 'GET http://pypi.org/simple/six/');
    expect(http.fix).toEqual({ pointer: '/presets/-', value: 'pypi', note: expect.stringContaining('use https://pypi.org/simple/six/') });
    const text = runCli(['explain', '--only', 'denied', '--policy', policy, '--trace', fx('denials/trace.json')]).stdout;
    expect(text).toMatch(/fix: add to \/presets: "pypi" \(the job used plain http .*make the job use https:\/\/pypi\.org\/simple\/six\/\)/);
  });

  it('check --fix applies every fix with data, prints the diff, writes the file; what is left is reported', () => {
    const policy = join(dir, 'p.netpolicy.jsonc');
    writeFileSync(policy, '{\n  // keep me\n  "default": "deny",\n  "presets": ["npm", "pypy", "npm"],\n  "connections": [{ "tcp": { "cidrs": ["10.0.0.1/8"], "ports": [5432] } }],\n}\n');
    const r = runCli(['check', '--fix', policy]);
    expect(r.stdout).toContain('-  "presets": ["npm", "pypy", "npm"],');
    expect(r.stdout).toContain('+  "presets": ["npm", "pypi"],');
    expect(r.stderr).toMatch(/applied \d+ fixes in 1 file/);
    const text = readFileSync(policy, 'utf8');
    expect(text).toContain('// keep me');
    expect(text).toContain('"10.0.0.0/8"');
    expect(runCli(['check', '--strict', policy]).code).toBe(0);
    expect(r.code).toBe(0);
    expect(runCli(['check', '--fix', '-'], { input: '{}' }).code).toBe(2);
  });
});

describe('suggest leaves denied accesses out (item 4)', () => {
  it('by default: listed on stderr with a count, exit 0; --include-denied allows them', () => {
    const r = runCli(['suggest', fx('denials/trace.json')]);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/left out \d+ accesses the trace recorded as denied \(\d+ destinations; --include-denied allows them\)/);
    expect(r.stderr).toContain('tls api.example.org:8443');
    expect(r.stdout).not.toContain('api.example.org');
    const all = runCli(['suggest', '--include-denied', fx('denials/trace.json')]);
    expect(all.stdout).toContain('api.example.org');
    expect(all.stderr).not.toContain('left out');
    for (const out of [r.stdout, all.stdout]) {
      const file = join(dir, 's.netpolicy.json');
      writeFileSync(file, out);
      const check = runCli(['check', '--strict', file]);
      expect(check.code, check.stdout).toBe(0);
    }
    // A plain-http request to a software source: the https rule, and a note on stderr.
    const trace = JSON.parse(readFileSync(fx('npm-build/trace.json'), 'utf8'));
    trace.observations.push({ protocol: 'http', observed_at: '2026-01-01T00:00:00Z', sequence: 9999, method: 'GET', url: 'http://npm.mirror.example/left-pad/-/left-pad-1.3.0.tgz', denied: false });
    writeFileSync(join(dir, 'http.json'), JSON.stringify(trace));
    const h = runCli(['suggest', join(dir, 'http.json')]);
    expect(h.stderr).toContain('1 plain-http request to software sources: the policy allows their https form only; make the job use https:\n  GET http://npm.mirror.example/left-pad/-/left-pad-1.3.0.tgz');
    expect(JSON.parse(h.stdout).sources).toContainEqual({ npm: { urls: ['https://npm.mirror.example'] } });
    expect(h.stdout).not.toContain('http://');
    // Trace strings are printed with control characters escaped.
    trace.observations.push({ protocol: 'http', observed_at: '2026-01-01T00:00:00Z', sequence: 10000, method: 'GET', url: 'https://evil.example/\u001b[31mred', denied: true });
    writeFileSync(join(dir, 'esc.json'), JSON.stringify(trace));
    const e = runCli(['suggest', join(dir, 'esc.json')]);
    expect(e.stderr).toContain('GET https://evil.example/\\u001b[31mred');
    expect(e.stderr).not.toContain('\u001b');
  });
});

describe('netpolicy init (item 5)', () => {
  it('writes a commented starter with the presets found, and a sample test file; both pass check --strict and test', () => {
    writeFileSync(join(dir, 'package-lock.json'), '{}');
    writeFileSync(join(dir, 'pyproject.toml'), '[project]\nname = "x"\n');
    writeFileSync(join(dir, 'go.mod'), 'module x\n');
    writeFileSync(join(dir, 'Dockerfile'), 'FROM ubuntu:24.04\nRUN apt-get install -y curl\n');
    const r = runCli(['init'], { cwd: dir });
    expect(r.code).toBe(0);
    const text = readFileSync(join(dir, 'policy.netpolicy.jsonc'), 'utf8');
    expect(text).toMatch(/^\/\//);
    expect(text).toContain('"default": "deny"');
    expect(text).toContain('"presets": ["golang", "npm", "pypi", "ubuntu"]');
    expect(runCli(['check', '--strict', '.'], { cwd: dir }).code).toBe(0);
    const t = runCli(['test', '--policy', 'policy.netpolicy.jsonc', 'policy.tests.json'], { cwd: dir });
    expect(t.code, t.stdout).toBe(0);
    expect(t.stdout).toContain('5 passed, 0 failed');
  });

  it('refuses to overwrite: exit 2, nothing changed', () => {
    writeFileSync(join(dir, 'policy.tests.json'), 'mine');
    const r = runCli(['init'], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('policy.tests.json already exists: nothing written');
    expect(existsSync(join(dir, 'policy.netpolicy.jsonc'))).toBe(false);
    expect(readFileSync(join(dir, 'policy.tests.json'), 'utf8')).toBe('mine');
  });

  it('with nothing to detect: no presets, still a valid starter', () => {
    expect(runCli(['init'], { cwd: dir }).code).toBe(0);
    expect(readFileSync(join(dir, 'policy.netpolicy.jsonc'), 'utf8')).toContain('"presets": []');
    expect(runCli(['check', '--strict', '.'], { cwd: dir }).code).toBe(0);
  });
});

describe('one grammar for every command (item 6)', () => {
  const policy = () => {
    const p = join(dir, 'p.netpolicy.json');
    copyFileSync(fx('denials/policy.netpolicy.json'), p);
    return p;
  };

  it('`-` reads stdin on every file argument', () => {
    const text = readFileSync(fx('denials/policy.netpolicy.json'), 'utf8');
    const c = runCli(['check', '-'], { input: text });
    expect(c.code).toBe(0);
    expect(c.stdout).toContain('in 1 file');
    expect(runCli(['check', '-'], { input: '{"presets": ["pypy"]}' }).stdout).toContain('<stdin>:1:14: error unknown-preset');
    const e = runCli(['explain', '--format', 'json', '--policy', '-', '--trace', fx('denials/trace.json')], { input: text });
    expect(e.code, e.stderr).toBe(0);
    expect(JSON.parse(e.stdout).summary.observations).toBe(15);
    const t = runCli(['test', '--policy', '-', fx('denials/policy.tests.json')], { input: text });
    expect(t.code, t.stderr).toBe(0);
    const t2 = runCli(['test', '--policy', fx('denials/policy.netpolicy.json'), '-'], { input: readFileSync(fx('denials/policy.tests.json'), 'utf8') });
    expect(t2.code, t2.stderr).toBe(0);
    const d = runCli(['diff', '--trace', fx('denials/trace.json'), '-', fx('denials/policy.netpolicy.json')], { input: text });
    expect(d.code, d.stderr).toBe(0);
    const s = runCli(['suggest', '-'], { input: readFileSync(fx('npm-build/trace.json'), 'utf8') });
    expect(s.code, s.stderr).toBe(0);
    const twice = runCli(['explain', '--policy', '-', '--trace', '-'], { input: text });
    expect(twice.code).toBe(2);
    expect(twice.stderr).toContain('standard input (`-`) can be read only once');
  });

  it('-o/--output on every command that writes a report, written whole', () => {
    const p = policy();
    const runs: [string, string[]][] = [
      ['check', ['check', '--format', 'json', p]],
      ['explain', ['explain', '--policy', p, '--trace', fx('denials/trace.json')]],
      ['suggest', ['suggest', fx('npm-build/trace.json')]],
      ['test', ['test', '--policy', p, fx('denials/policy.tests.json')]],
      ['diff', ['diff', '--trace', fx('denials/trace.json'), p, p]],
    ];
    for (const [name, args] of runs) {
      const out = join(dir, `${name}.out`);
      const r = runCli([...args.slice(0, 1), '-o', out, ...args.slice(1)]);
      expect(r.code, `${name}: ${r.stderr}`).toBeLessThan(2);
      expect(r.stdout, name).toBe('');
      const direct = runCli(args);
      expect(readFileSync(out, 'utf8'), name).toBe(direct.stdout);
      const dash = runCli([...args.slice(0, 1), '--output', '-', ...args.slice(1)]);
      expect(dash.stdout, name).toBe(direct.stdout);
    }
    const bad = runCli(['check', '-o', join(dir, 'no/such/dir/x.json'), p]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('cannot write');
  });

  it('--format: the same names checked with the same message everywhere', () => {
    const p = policy();
    const cases: [string[], string][] = [
      [['check', '--format', 'xml', p], '`text`, `json`, `sarif`, `github`, `gitlab` or `junit`'],
      [['explain', '--format', 'xml', '--policy', p, '--trace', fx('denials/trace.json')], '`text`, `json`, `markdown`, `github` or `gitlab`'],
      [['test', '--format', 'xml', '--policy', p, fx('denials/policy.tests.json')], '`text`, `json`, `github`, `gitlab` or `junit`'],
      [['diff', '--format', 'xml', '--trace', fx('denials/trace.json'), p, p], '`text`, `json`, `markdown`, `github`, `gitlab` or `junit`'],
    ];
    for (const [args, names] of cases) {
      const r = runCli(args);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`netpolicy ${args[0]}: option --format must be ${names}, not \`xml\``);
      expect(r.stderr).not.toMatch(/\((option|argument)( error)?\)/);
    }
  });

  it('-h on every command and `netpolicy help CMD`; no internal suffixes', () => {
    for (const name of ['init', 'check', 'explain', 'suggest', 'test', 'diff', 'fetch', 'serve']) {
      const h = runCli([name, '-h']);
      expect(h.code, name).toBe(0);
      expect(h.stdout, name).toContain(`netpolicy ${name}`);
      expect(runCli(['help', name]).stdout, name).toBe(h.stdout);
      expect(runCli([name, '--help']).stdout, name).toBe(h.stdout);
    }
    const r = runCli(['check', '--bogus', 'x']);
    expect(r.stderr).toContain('unknown option `--bogus`');
    expect(r.stderr).not.toContain('(option');
  });

  it('"is a directory" is worded once', () => {
    const a = runCli(['explain', '--policy', dir, '--trace', fx('denials/trace.json')]);
    const b = runCli(['explain', '--policy', fx('denials/policy.netpolicy.json'), '--trace', dir]);
    const c = runCli(['test', '--policy', fx('denials/policy.netpolicy.json'), dir]);
    for (const r of [a, b, c]) {
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`cannot read ${dir}: is a directory, not a file`);
    }
  });
});

describe('colour (item 7)', () => {
  const esc = '\u001b[';
  const policyArgs = ['test', '--policy', fx('denials/policy.netpolicy.json'), fx('denials/policy.tests.json')];
  it('FORCE_COLOR empty or 0 forces nothing; 1 forces; NO_COLOR wins', () => {
    expect(runCli(policyArgs, { env: { NO_COLOR: '', FORCE_COLOR: '' } }).stdout).not.toContain(esc);
    expect(runCli(policyArgs, { env: { NO_COLOR: '', FORCE_COLOR: '0' } }).stdout).not.toContain(esc);
    expect(runCli(policyArgs, { env: { NO_COLOR: '', FORCE_COLOR: '1' } }).stdout).toContain(esc);
    expect(runCli(policyArgs, { env: { NO_COLOR: '1', FORCE_COLOR: '1' } }).stdout).not.toContain(esc);
  });

  it('`npm start | cat -v` shows no escape codes (start.mjs no longer sets FORCE_COLOR to empty)', () => {
    const env = { ...process.env };
    delete env.FORCE_COLOR;
    delete env.NO_COLOR;
    const r = spawnSync(process.execPath, [join(repoRoot, 'scripts/start.mjs')], { cwd: repoRoot, env, encoding: 'utf8', timeout: 60000 });
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain('$ netpolicy check');
    expect(r.stdout + r.stderr).not.toContain(esc);
  });
});
