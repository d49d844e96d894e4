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
import { policyWithRules } from '../../../bench/policy-data.mjs';

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

/** The pointers of the appended copies. */
function expectedDuplicates(): string[] {
  const connections = (RULES / 5) * 2;
  return Array.from({ length: COPIES }, (_, k) => `/connections/${connections + k}`);
}

describe('check: a large policy in bounded memory (issue 10 item 8)', () => {
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
