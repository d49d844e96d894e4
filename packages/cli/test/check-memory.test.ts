/**
 * Issue 10 item 8: a policy of many rules is checked in bounded memory. npm test uses 100,000 rules
 * (about 20 MB; the million is `npm run bench -- validate` with NETPOLICY_BENCH_RULES):
 * the process gets a heap under six times the file, far less than the old lint took (a reading and
 * atoms of every rule kept at once, and jsonc-parser's tree of the whole file to place the
 * findings). Copies of 5,000 rules are appended, so as many `duplicate-rule` findings must be placed too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bin, repoRoot } from './run-cli';
// @ts-expect-error: a plain .mjs module of the benches (no declarations)
import { compactPolicyWithRules, policyWithRules } from '../../../bench/policy-data.mjs';

const RULES = 100000;
const COPIES = 5000;
const HEAP_MB = 112;
let dir: string;
let file: string;
let text: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'netpolicy-check-memory-'));
  file = join(dir, 'big.netpolicy.json');
  const policy = JSON.parse(policyWithRules(RULES) as string);
  const connections = policy.connections.length;
  for (let k = 0; k < COPIES; k++) policy.connections.push(policy.connections[(k * 7) % connections]);
  text = JSON.stringify(policy, null, 2);
  writeFileSync(file, text);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** `check --format json FILE` under a V8 heap of `heapMb`; stdout to a file (parsed by the caller). */
function checkProcess(file: string, heapMb: number, env: Record<string, string> = {}): { status: number | null; stderr: string; out: string } {
  const out = join(dir, 'out.json');
  const fd = openSync(out, 'w');
  const r = spawnSync(process.execPath, [`--max-old-space-size=${heapMb}`, bin, 'check', '--format', 'json', file], {
    cwd: repoRoot, stdio: ['ignore', fd, 'pipe'], encoding: 'utf8', timeout: 120000, env: { ...process.env, ...env },
  });
  closeSync(fd);
  return { status: r.status, stderr: r.stderr, out };
}

/** The pointers of the appended copies. */
function expectedDuplicates(): string[] {
  const connections = (RULES / 5) * 2;
  return Array.from({ length: COPIES }, (_, k) => `/connections/${connections + k}`);
}

describe('check: a large policy in bounded memory (issue 10 item 8)', () => {
  // A compact policy (no indentation: the 1M-rule 72 MB file is one), 1% of it copies. Its
  // parsed value alone takes about four times its text: a heap of three times the file cannot hold it, so
  // the whole-document path (forced with NETPOLICY_BATCHED_FROM) runs out of memory, and the batched
  // one checks it, every duplicate placed.
  it('--format json of a compact policy in a heap of three times its size, where parsing it whole runs out of memory', () => {
    const rules = 240000;
    const compactFile = join(dir, 'compact.netpolicy.json');
    const compact = compactPolicyWithRules(rules, { duplicates: rules / 100 }) as string;
    writeFileSync(compactFile, compact);
    const heapMb = Math.ceil((compact.length * 3) / 1048576);
    expect(heapMb).toBeLessThan(45);

    const whole = checkProcess(compactFile, heapMb, { NETPOLICY_BATCHED_FROM: String(1e12) });
    expect(whole.status).not.toBe(0);
    expect(whole.stderr).toMatch(/heap out of memory/i);

    const batched = checkProcess(compactFile, heapMb);
    expect(batched.stderr).toBe('');
    expect(batched.status).toBe(0);
    const report = JSON.parse(readFileSync(batched.out, 'utf8'));
    const diagnostics = report.files[0].diagnostics as Array<{ code: string; pointer: string; range: { start: { line: number; character: number }; end: { line: number; character: number } } }>;
    expect(diagnostics.map((d) => d.pointer)).toEqual(Array.from({ length: rules / 100 }, (_, k) => `/connections/${rules + k}`));
    expect(new Set(diagnostics.map((d) => d.code))).toEqual(new Set(['duplicate-rule']));
    // One line: each range is the whole copied rule, equal to the one it copies.
    const connections = JSON.parse(compact).connections;
    for (const d of [diagnostics[0], diagnostics[diagnostics.length >> 1], diagnostics[diagnostics.length - 1]]) {
      const index = Number(d.pointer.split('/')[2]);
      expect(JSON.parse(compact.slice(d.range.start.character, d.range.end.character))).toEqual(connections[index]);
      expect(connections[index]).toEqual(connections[((index - rules) * 7) % rules]);
    }
  }, 150000);

  it(`--format json of ${RULES.toLocaleString('en')} rules in a ${HEAP_MB} MB heap, every finding placed`, () => {
    expect(text.length).toBeGreaterThan(HEAP_MB * 1024 * 1024 / 6);
    const out = join(dir, 'out.json');
    const fd = openSync(out, 'w');
    const r = spawnSync(process.execPath, [`--max-old-space-size=${HEAP_MB}`, bin, 'check', '--format', 'json', file], { cwd: repoRoot, stdio: ['ignore', fd, 'pipe'], encoding: 'utf8', timeout: 120000 });
    closeSync(fd);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const report = JSON.parse(readFileSync(out, 'utf8'));
    const diagnostics = report.files[0].diagnostics as Array<{ code: string; pointer: string; range: { start: { line: number; character: number } } }>;
    const expected = expectedDuplicates();
    expect(diagnostics.map((d) => d.pointer)).toEqual(expected);
    expect(new Set(diagnostics.map((d) => d.code))).toEqual(new Set(['duplicate-rule']));
    // Each range starts at the `{` of its connection.
    const lines = text.split('\n');
    for (const d of [diagnostics[0], diagnostics[diagnostics.length >> 1], diagnostics[diagnostics.length - 1]]) {
      expect(lines[d.range.start.line].slice(d.range.start.character)).toBe('{');
    }
  }, 150000);
});
