/**
 * The README tour, run as written: every `$ npx netpolicy ...` line of its console blocks runs
 * (in order, in a scratch copy of the repository's fixtures with a package-lock.json and a
 * requirements.txt, as the tour says) and its output is compared with the lines shown. A line
 * `...` stands for any number of lines; a line ending in ` ...` for any ending.
 */
import { describe, expect, it, onTestFinished } from 'vitest';
import { cpSync, mkdtempSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot, runCli } from './run-cli';

const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
const blocks = (lang: string) => [...readme.matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1]);

interface Step { command: string; expected: string[] }

function steps(): Step[] {
  const out: Step[] = [];
  for (const block of blocks('console')) {
    for (const line of block.replace(/\n$/, '').split('\n')) {
      if (line.startsWith('$ ')) out.push({ command: line.slice(2), expected: [] });
      else out[out.length - 1].expected.push(line);
    }
  }
  return out;
}

/** Do `actual` lines match `expected` (with `...` wildcards)? */
function matches(expected: string[], actual: string[]): boolean {
  const go = (i: number, j: number): boolean => {
    if (i === expected.length) return j === actual.length;
    const e = expected[i];
    if (e === '...') {
      for (let k = j; k <= actual.length; k++) if (go(i + 1, k)) return true;
      return false;
    }
    if (j >= actual.length) return false;
    const ok = e.endsWith(' ...') ? actual[j].startsWith(e.slice(0, -3)) : actual[j] === e;
    return ok && go(i + 1, j + 1);
  };
  return go(0, 0);
}

describe('README', () => {
  it('every command of the tour prints what the README shows', () => {
    const dir = mkdtempSync(join(tmpdir(), 'netpolicy-readme-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    cpSync(join(repoRoot, 'fixtures'), join(dir, 'fixtures'), { recursive: true });
    writeFileSync(join(dir, 'package-lock.json'), '{"lockfileVersion": 3}\n');
    writeFileSync(join(dir, 'requirements.txt'), 'requests==2.32.3\n');
    const all = steps();
    expect(all.length).toBeGreaterThanOrEqual(6);
    for (const step of all) {
      expect(step.command, 'tour commands are `npx netpolicy ...`').toMatch(/^npx netpolicy /);
      const args = step.command.slice('npx netpolicy '.length).split(/\s+/);
      const r = runCli(args, { cwd: dir });
      const actual = (r.stdout + r.stderr).replace(/\n$/, '').split('\n');
      expect(matches(step.expected, actual), `$ ${step.command}\n--- README:\n${step.expected.join('\n')}\n--- actual (exit ${r.code}):\n${actual.join('\n')}`).toBe(true);
      expect(r.code, step.command).toBeLessThan(2);
    }
    // The policy tests shown are the ones init wrote.
    const shown = blocks('json').map((b) => JSON.parse(b)).find((j) => Array.isArray(j.tests));
    expect(shown).toEqual(JSON.parse(readFileSync(join(dir, 'policy.tests.json'), 'utf8')));
  });

  it('the example policy passes check --strict', () => {
    const policy = blocks('json').map((b) => JSON.parse(b)).find((j) => j.default !== undefined);
    const r = runCli(['check', '--strict', '-'], { input: JSON.stringify(policy) });
    expect(r.code, r.stdout).toBe(0);
  });

  it('the matcher: `...` spans lines, ` ...` ends a line', () => {
    expect(matches(['a', '...', 'd'], ['a', 'b', 'c', 'd'])).toBe(true);
    expect(matches(['a', 'd'], ['a', 'b', 'd'])).toBe(false);
    expect(matches(['ab ...'], ['ab cd'])).toBe(true);
    expect(matches(['ab ...'], ['xb cd'])).toBe(false);
    expect(matches(['a'], ['a', 'b'])).toBe(false);
  });
});
