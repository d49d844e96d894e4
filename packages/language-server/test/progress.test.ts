/**
 * `$/progress` (issue 30, item 7) over real LSP: the workspace check and trace evaluation shown as
 * work done progress to a client that says `window.workDoneProgress`: a token made by
 * `window/workDoneProgress/create`, begin, reports at a bounded rate, end; every begin ended,
 * shutdown in the middle of a check too; nothing for a client without the capability; a client
 * that refuses or never answers the token holds nothing up.
 */
import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { PROGRESS_INTERVAL_MS } from '../src/progress';
import { clientPerTest, fileUri, poll, type TestClient, writeWorkspace } from './harness';

const client = clientPerTest();
const FIXTURE = fileURLToPath(new URL('../../../fixtures/traces/denials/', import.meta.url));
const POLICY = readFileSync(join(FIXTURE, 'policy.netpolicy.json'), 'utf8');

const PROGRESS = { window: { workDoneProgress: true }, workspace: { configuration: true }, textDocument: { publishDiagnostics: { versionSupport: true } } };

/** `n` policy files, one a folder of ten (a few with a problem). */
function manyPolicies(n: number, extra: Record<string, string> = {}): string {
  const files: Record<string, string> = { ...extra };
  for (let i = 0; i < n; i++) files[`d${Math.floor(i / 10)}/p${i}.netpolicy.json`] = i % 7 === 0 ? '{"presets": ["nope"]}' : '{"presets": ["npm"]}';
  return writeWorkspace(files, 'np-ls-progress-');
}

/** The progress of each token, in order. */
function byToken(c: TestClient): Map<string | number, any[]> {
  const out = new Map<string | number, any[]>();
  for (const p of c.progress) out.set(p.token, [...(out.get(p.token) ?? []), p.value]);
  return out;
}

/** Every token's progress is begin, reports, end, and nothing else. */
function expectBalanced(c: TestClient): void {
  for (const [token, values] of byToken(c)) {
    const kinds = values.map((v) => v.kind);
    expect({ token, first: kinds[0], last: kinds.at(-1), middle: [...new Set(kinds.slice(1, -1))] }).toEqual({ token, first: 'begin', last: 'end', middle: kinds.length > 2 ? ['report'] : [] });
  }
}

const created = (c: TestClient) => c.serverRequests.filter((r) => r.method === 'window/workDoneProgress/create').map((r) => r.params.token);
const checked = (c: TestClient) => poll(() => c.logs.some((l) => /workspace diagnostics: \d+ policy files checked/.test(l.message)), (done) => done, 60_000);
const titled = (c: TestClient, title: string) => [...byToken(c)].filter(([, values]) => values[0]?.title === title);

describe('work done progress', () => {
  it('the workspace check: a token, begin "Checking policy files", reports of files checked at a bounded rate, end', async () => {
    const files = 1200;
    const dir = manyPolicies(files);
    const started = Date.now();
    const c = await client({ rootUri: fileUri(dir), capabilities: PROGRESS, settings: { workspaceDiagnostics: { maxFiles: 5000 } } });
    await checked(c);
    const [check] = await poll(() => titled(c, 'Checking policy files'), (t) => t.length === 1 && t[0][1].at(-1).kind === 'end');
    const elapsed = Date.now() - started;
    const [token, values] = check;
    expect(created(c)).toContain(token);
    expect(values[0]).toMatchObject({ kind: 'begin', title: 'Checking policy files', cancellable: false });
    const reports = values.filter((v) => v.kind === 'report');
    for (const r of [values[0], ...reports].filter((v) => v.message)) expect(r.message).toMatch(/^\d+ of \d+ files$/);
    // The counts only grow, and the files done reach the whole workspace unless the end came first.
    const done = reports.map((r) => Number(/^(\d+)/.exec(r.message)![1]));
    expect(done).toEqual([...done].sort((a, b) => a - b));
    expect(Math.max(0, ...done)).toBeLessThanOrEqual(files);
    // At most one report per PROGRESS_INTERVAL_MS, whatever the number of files.
    expect(reports.length).toBeLessThanOrEqual(Math.ceil(elapsed / PROGRESS_INTERVAL_MS) + 1);
    expect(reports.length).toBeLessThan(files / 10);
    expectBalanced(c);
  });

  it('trace evaluation: begin "Evaluating traces", "k of n traces", end; the hints come all the same', async () => {
    const dir = writeWorkspace({ 'ci.netpolicy.json': POLICY }, 'np-ls-progress-');
    copyFileSync(join(FIXTURE, 'trace.json'), join(dir, 'a.json'));
    copyFileSync(join(FIXTURE, 'trace.json'), join(dir, 'b.json'));
    const c = await client({ rootUri: fileUri(dir), capabilities: PROGRESS, settings: { traces: ['a.json', 'b.json'] } });
    const uri = fileUri(join(dir, 'ci.netpolicy.json'));
    await c.open(uri, POLICY);
    const tasks = await poll(() => titled(c, 'Evaluating traces'), (t) => t.length > 0 && t.every(([, v]) => v.at(-1).kind === 'end'));
    // The begin carries the latest count when the token is made; a count the rate held back goes with the end.
    const messages = tasks.flatMap(([, values]) => values.map((v) => v.message).filter(Boolean));
    expect(messages.length).toBeGreaterThan(0);
    for (const m of messages) expect(m).toMatch(/^[12] of 2 traces$/);
    for (const [, values] of tasks) {
      const percentages = values.map((v) => v.percentage).filter((p) => p !== undefined);
      expect(percentages).toEqual([...percentages].sort((a, b) => a - b));
      for (const p of percentages) expect([50, 100]).toContain(p);
    }
    await poll(() => c.published.filter((p) => p.uri === uri).at(-1)?.diagnostics ?? [], (d) => d.some((x) => x.code === 'unused-in-traces'));
    expectBalanced(c);
  });

  it('shutdown in the middle of a check ends its progress before the answer to shutdown', async () => {
    const dir = manyPolicies(6000);
    const c = await client({ rootUri: fileUri(dir), capabilities: PROGRESS, settings: { workspaceDiagnostics: { maxFiles: 10000 } } });
    const [[token]] = await poll(() => titled(c, 'Checking policy files'), (t) => t.length > 0, 60_000);
    const midway = !c.logs.some((l) => /policy files checked/.test(l.message));
    await c.request('shutdown', undefined);
    expect(byToken(c).get(token)!.at(-1)).toMatchObject({ kind: 'end' });
    expectBalanced(c);
    // Nothing after shutdown.
    const count = c.progress.length;
    await new Promise((r) => setTimeout(r, 3 * PROGRESS_INTERVAL_MS));
    expect(c.progress.length).toBe(count);
    // (Whether the check was still running is the machine's speed; on most it is.)
    if (midway) expect(c.logs.some((l) => /policy files checked/.test(l.message))).toBe(false);
  });

  it('without window.workDoneProgress: no token asked for, no progress sent', async () => {
    const dir = manyPolicies(30);
    copyFileSync(join(FIXTURE, 'trace.json'), join(dir, 'trace.json'));
    const c = await client({ rootUri: fileUri(dir), settings: { traces: ['trace.json'] } });
    const uri = fileUri(join(dir, 'ci.netpolicy.json'));
    await c.open(uri, POLICY);
    await checked(c);
    await poll(() => c.published.filter((p) => p.uri === uri).at(-1)?.diagnostics ?? [], (d) => d.some((x) => x.code === 'unused-in-traces'));
    expect(created(c)).toEqual([]);
    expect(c.progress).toEqual([]);
  });

  it.each(['refuse', 'never'] as const)('a client that %s(s) to make the token: no progress, the work is done all the same', async (createProgress) => {
    const dir = manyPolicies(30);
    copyFileSync(join(FIXTURE, 'trace.json'), join(dir, 'trace.json'));
    const c = await client({ rootUri: fileUri(dir), capabilities: PROGRESS, createProgress, settings: { traces: ['trace.json'] } });
    const uri = fileUri(join(dir, 'ci.netpolicy.json'));
    await c.open(uri, POLICY);
    await checked(c);
    await poll(() => c.published.filter((p) => p.uri === uri).at(-1)?.diagnostics ?? [], (d) => d.some((x) => x.code === 'unused-in-traces'));
    expect(c.progress).toEqual([]);
    if (createProgress === 'refuse') {
      // Refused once: never asked again, and said in the log.
      expect(created(c)).toHaveLength(1);
      expect(c.logs.filter((l) => /no progress is shown/.test(l.message))).toHaveLength(1);
    } else {
      expect(created(c).length).toBeGreaterThan(0);
    }
  });

  it('docs/editor.md states the rate and the capability', () => {
    const page = readFileSync(new URL('../../../docs/editor.md', import.meta.url), 'utf8').replace(/\s+/g, ' ');
    expect(page).toContain(`at most one every ${PROGRESS_INTERVAL_MS} ms`);
    expect(page).toContain('`window.workDoneProgress`');
    expect(page).toContain('`workspace.diagnostics.refreshSupport`');
  });
});
