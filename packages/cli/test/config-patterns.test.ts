/**
 * Issue 21 item 12, as processes: a `filePatterns` glob with more `{}` alternatives than the limit
 * is a config error on that pattern (exit 2, file:line:column), in every format and for a file or
 * a folder argument; it had been "internal error" (exit 70). A pattern at the limit still works.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './run-cli';

let dir: string;
let n = 0;
/** A repository folder with a config naming `patterns`, a policy matched only by a pattern, and a D6-named one. */
function project(patterns: string[]): string {
  const d = join(dir, `t${n++}`);
  mkdirSync(join(d, '.git'), { recursive: true });
  mkdirSync(join(d, 'ci'));
  writeFileSync(join(d, 'netpolicy.config.json'), `{\n  "filePatterns": [\n${patterns.map((p) => `    ${JSON.stringify(p)}`).join(',\n')}\n  ]\n}\n`);
  writeFileSync(join(d, 'ci/aaaaaaaa.json'), '{"default": "deny"}\n');
  writeFileSync(join(d, 'p.netpolicy.json'), '{"default": "deny"}\n');
  return d;
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'netpolicy-config-patterns-'));
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('filePatterns with too many {} alternatives', () => {
  const nine = `ci/${'{a,b}'.repeat(9)}.json`;

  it('is a config error on that pattern: exit 2 with its position, for a folder and for a file, in every format', () => {
    const d = project(['ci/*.yml', nine]);
    for (const args of [['check', '.'], ['check', 'p.netpolicy.json'], ['check', '--format', 'json', '.'], ['check', '--format', 'sarif', '.'], ['check', '--fix', '.']]) {
      const r = runCli(args, { cwd: d });
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toContain('netpolicy.config.json is not a valid netpolicy config:');
      expect(r.stderr).toContain(`netpolicy.config.json:4:5: invalid-value: \`filePatterns.1\`: the {} alternatives of \`${nine}\` make more than 256 patterns (the limit)`);
      expect(r.stderr).not.toContain('internal error');
      expect(r.stdout).toBe('');
    }
  });

  it('--config naming such a file: the same error', () => {
    const d = project([nine]);
    const r = runCli(['check', '--config', join(d, 'netpolicy.config.json'), join(d, 'p.netpolicy.json')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/netpolicy\.config\.json:3:5: invalid-value: `filePatterns\.0`: .*more than 256 patterns/);
  });

  it('a pattern at the limit (256 patterns) finds its files', () => {
    const d = project([`ci/${'{a,b}'.repeat(8)}.json`]);
    const r = runCli(['check', '--format', 'json', '.'], { cwd: d });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).files.map((f: { file: string }) => f.file).sort()).toEqual(['ci/aaaaaaaa.json', 'p.netpolicy.json']);
  });
});
