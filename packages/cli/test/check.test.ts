import { describe, expect, it, beforeAll, afterAll } from 'vitest';
import { mkdtempSync, writeFileSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from './run-cli';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'netpolicy-check-'));
  writeFileSync(join(dir, 'ok.json'), '{"default": "deny", "presets": ["pypi"]}\n');
  writeFileSync(join(dir, 'bad.json'), '{\n  "presets": ["pypy"]\n}\n');
  writeFileSync(join(dir, 'syntax.json'), '{\n  "default": "deny", // no comments here\n}\n');
  writeFileSync(join(dir, 'warn.json'), '{"presets": [], "connections": [{"tcp": {"cidrs": ["0.0.0.0/0"]}}]}\n');
  mkdirSync(join(dir, 'tree/sub'), { recursive: true });
  writeFileSync(join(dir, 'tree/sub/app.netpolicy.json'), '{"default": "deny"}');
  writeFileSync(join(dir, 'tree/network-policy.json'), '{"default": "nope"}');
  writeFileSync(join(dir, 'tree/other.json'), 'not a policy, not looked at');
  writeFileSync(join(dir, 'catalog.json'), JSON.stringify({ presets: [{ name: 'forge-a', known: { sources: [{ git: { https: [{ baseUrl: 'https://forge-a.example' }] } }] } }] }));
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('netpolicy check (as a process)', () => {
  it('exit 0 and a clean summary for a valid policy', () => {
    const r = runCli(['check', join(dir, 'ok.json')]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('0 errors, 0 warnings in 1 file');
  });

  it('exit 1 with file:line:col severity code message for an invalid policy', () => {
    const r = runCli(['check', join(dir, 'bad.json')]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(`${join(dir, 'bad.json')}:2:15: error unknown-preset: unknown preset \`pypy\`. Did you mean \`pypi\`?`);
  });

  it('a file that cannot be parsed is a finding (exit 1), with its code', () => {
    const r = runCli(['check', '--format', 'json', join(dir, 'syntax.json')]);
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout);
    expect(out.files[0].diagnostics.map((d: { code: string }) => d.code)).toEqual(['trailing-comma', 'comment-not-allowed']);
    expect(out.files[0].diagnostics[1].range).toEqual({ start: { line: 1, character: 21 }, end: { line: 1, character: 40 } });
  });

  it('warnings pass unless --strict', () => {
    expect(runCli(['check', join(dir, 'warn.json')]).code).toBe(0);
    expect(runCli(['check', '--strict', join(dir, 'warn.json')]).code).toBe(1);
  });

  it('JSON output follows contracts.md', () => {
    const r = runCli(['check', '--format', 'json', join(dir, 'bad.json'), join(dir, 'ok.json')]);
    expect(JSON.parse(r.stdout)).toEqual({
      files: [
        { file: join(dir, 'bad.json'), diagnostics: [expect.objectContaining({ severity: 'error', code: 'unknown-preset', pointer: '/presets/0', range: { start: { line: 1, character: 14 }, end: { line: 1, character: 20 } } })] },
        { file: join(dir, 'ok.json'), diagnostics: [] },
      ],
    });
  });

  it('SARIF 2.1.0 with one result per diagnostic, 1-based regions and rule metadata', () => {
    const r = runCli(['check', '--format', 'sarif', 'bad.json', 'ok.json'], { cwd: dir });
    const sarif = JSON.parse(r.stdout);
    expect(sarif.version).toBe('2.1.0');
    const run = sarif.runs[0];
    expect(run.results).toHaveLength(1);
    const [res] = run.results;
    expect(res).toMatchObject({ ruleId: 'unknown-preset', level: 'error', locations: [{ physicalLocation: { artifactLocation: { uri: 'bad.json' }, region: { startLine: 2, startColumn: 15, endLine: 2, endColumn: 21 } } }] });
    expect(run.tool.driver.rules[res.ruleIndex].id).toBe('unknown-preset');
    expect(run.tool.driver.rules.every((rule: { helpUri: string }) => rule.helpUri.includes('/docs/diagnostics/'))).toBe(true);
  });

  it('SARIF locations: relative below the working directory, file:// URIs elsewhere', () => {
    const uris = (cwd: string, file: string) => JSON.parse(runCli(['check', '--format', 'sarif', file], { cwd }).stdout).runs[0].results.map((r: { locations: Array<{ physicalLocation: { artifactLocation: { uri: string } } }> }) => r.locations[0].physicalLocation.artifactLocation.uri);
    expect(uris(dir, join(dir, 'bad.json'))).toEqual(['bad.json']);
    expect(uris(join(dir, 'tree'), join(dir, 'bad.json'))).toEqual([`file://${join(dir, 'bad.json')}`]);
  });

  it('a directory is searched for policy files by name', () => {
    const r = runCli(['check', '--format', 'json', join(dir, 'tree')]);
    const files = JSON.parse(r.stdout).files.map((f: { file: string }) => f.file);
    expect(files).toEqual([join(dir, 'tree/network-policy.json'), join(dir, 'tree/sub/app.netpolicy.json')]);
    expect(r.code).toBe(1);
  });

  it('a missing file is exit 2 with a clear message; other files are still checked', () => {
    const r = runCli(['check', join(dir, 'nope.json'), join(dir, 'ok.json')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`cannot read ${join(dir, 'nope.json')}: no such file`);
    expect(r.stdout).toContain('in 1 file');
  });

  it('an unreadable path is exit 2 with the reason', () => {
    const r = runCli(['check', join(dir, 'ok.json', 'inside.json')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/cannot read .*inside\.json: /);
  });

  it('usage errors are exit 2 and point to --help', () => {
    const r = runCli(['check', '--format', 'xml', join(dir, 'ok.json')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('option --format must be `text`, `json`, `sarif`, `github`, `gitlab` or `junit`, not `xml`');
    expect(r.stderr).not.toContain('(option');
    expect(runCli(['check']).code).toBe(2);
    expect(runCli(['check', '--bogus', 'x']).code).toBe(2);
  });

  it('--help teaches', () => {
    const r = runCli(['check', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('--format text|json|sarif');
    expect(r.stdout).toContain('Exit codes');
  });

  it('--presets loads a user catalog; a bad catalog is exit 2', () => {
    expect(runCli(['check', '--presets', join(dir, 'catalog.json'), join(dir, 'ok.json')]).code).toBe(0);
    const r = runCli(['check', '--presets', join(dir, 'bad.json'), join(dir, 'ok.json')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('not a preset catalog');
  });
});
