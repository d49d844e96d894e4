/**
 * Issue 28 item 7: file problems are said in bursts. 100,000 missing traces are one notification
 * with a count and a few paths, and a bounded number of log lines; a problem already said is not
 * said again; the per-member diagnostics of a project file still name every path.
 */
import { describe, expect, it } from 'vitest';
import { parsePolicyDocument, parseProjectConfig } from '@netpolicy/core';
import { FileProblems, MAX_LOGGED_PATHS, MAX_NOTIFICATIONS, problemKind } from '../src/file-problems';

const ENOENT = 'it does not exist (ENOENT)';

function recorder() {
  const notified: string[] = [];
  const logged: string[] = [];
  let changes = 0;
  const problems = new FileProblems({ notify: (m) => notified.push(m), log: (m) => logged.push(m) }, () => changes++);
  return { problems, notified, logged, changes: () => changes };
}

const turn = () => new Promise((r) => setTimeout(r, 5));

describe('FileProblems', () => {
  it('one path: the message as before, once', async () => {
    const { problems, notified, logged } = recorder();
    problems.report('trace', '/w/a.json', ENOENT);
    await turn();
    problems.report('trace', '/w/a.json', ENOENT);
    await turn();
    expect(notified).toEqual([`netpolicy: trace /w/a.json not used: ${ENOENT}`]);
    expect(logged).toEqual(notified);
  });

  it('100,000 missing traces in a held burst: one notification, MAX_LOGGED_PATHS + 1 log lines, one change', async () => {
    const { problems, notified, logged, changes } = recorder();
    const release = problems.hold();
    for (let i = 0; i < 100_000; i++) problems.report('trace', `/w/t${i}.json`, ENOENT);
    await turn();
    expect(notified).toEqual([]);
    release();
    await turn();
    expect(notified).toEqual([`netpolicy: 100000 trace files not used: ${ENOENT}, e.g. /w/t0.json, /w/t1.json, /w/t2.json, ... (see the output)`]);
    expect(logged).toHaveLength(MAX_LOGGED_PATHS + 1);
    expect(logged[0]).toBe(`netpolicy: trace /w/t0.json not used: ${ENOENT}`);
    expect(logged.at(-1)).toBe(`netpolicy: ... and ${100_000 - MAX_LOGGED_PATHS} more trace files not used: ${ENOENT}`);
    expect(changes()).toBe(1);
    // The next evaluation reports the same: nothing more is said.
    const again = problems.hold();
    for (let i = 0; i < 100_000; i++) problems.report('trace', `/w/t${i}.json`, ENOENT);
    again();
    await turn();
    expect(notified).toHaveLength(1);
  });

  it('one notification per role and kind; numbers do not make a kind; at most MAX_NOTIFICATIONS and one for the rest', async () => {
    expect(problemKind('it is 5 MB, more than the 4 MB')).toBe(problemKind('it is 7.5 MB, more than the 4 MB'));
    const { problems, notified, logged } = recorder();
    const release = problems.hold();
    problems.report('trace', '/w/a.json', ENOENT);
    problems.report('trace', '/w/b.json', ENOENT);
    problems.report('trace', '/w/fifo', 'it is a FIFO (named pipe), not a regular file');
    problems.report('preset catalog', '/w/c1.json', 'it is 5 MB, more than the 4 MB the server reads from such a file');
    problems.report('preset catalog', '/w/c2.json', 'it is 6 MB, more than the 4 MB the server reads from such a file');
    for (let i = 0; i < 10; i++) problems.report('trace', `/w/e${i}`, `it cannot be opened (EX${String.fromCharCode(65 + i)})`);
    release();
    await turn();
    expect(notified.slice(0, 3)).toEqual([
      `netpolicy: 2 trace files not used: ${ENOENT}, e.g. /w/a.json, /w/b.json (see the output)`,
      'netpolicy: trace /w/fifo not used: it is a FIFO (named pipe), not a regular file',
      'netpolicy: 2 preset catalogs not used: it is 5 MB, more than the 4 MB the server reads from such a file, e.g. /w/c1.json, /w/c2.json (see the output)',
    ]);
    expect(notified).toHaveLength(MAX_NOTIFICATIONS + 1);
    expect(notified.at(-1)).toBe('netpolicy: 8 more files not used, for other reasons (see the output)');
    // Every path of the burst is logged (15, under MAX_LOGGED_PATHS), the ones past the notifications too.
    expect(logged).toHaveLength(15);
    expect(logged.at(-1)).toBe('netpolicy: trace /w/e9 not used: it cannot be opened (EXJ)');
  });

  it('a problem cleared before its burst ends is not said; a path read fine forgets its problem', async () => {
    const { problems, notified } = recorder();
    const release = problems.hold();
    problems.report('trace', '/w/a.json', ENOENT);
    problems.clear('/w/a.json');
    release();
    await turn();
    expect(notified).toEqual([]);
    problems.report('trace', '/w/a.json', ENOENT);
    await turn();
    problems.clear('/w/a.json');
    problems.report('trace', '/w/a.json', ENOENT);
    await turn();
    expect(notified).toHaveLength(2);
  });

  it('configDiagnostics: a diagnostic per path on its member (a folder entry holds its files), in member order, in linear time', async () => {
    const { problems } = recorder();
    const n = 100_000;
    const traces = Array.from({ length: n }, (_, i) => `t${i}.json`);
    const text = JSON.stringify({ traces: [...traces, 'dir/'] });
    const { config } = parseProjectConfig(text, '/w/netpolicy.config.json');
    const doc = parsePolicyDocument(text, { fileName: '/w/netpolicy.config.json', jsonc: true });
    problems.report('trace', '/w/dir/b.json', 'it is a FIFO (named pipe), not a regular file');
    for (let i = n - 1; i >= 0; i--) problems.report('trace', `/w/t${i}.json`, ENOENT);
    problems.report('trace', '/w/dir/a.json', ENOENT);
    const diagnostics = problems.configDiagnostics(doc, config);
    expect(diagnostics).toHaveLength(n + 2);
    expect(diagnostics[0].message).toBe(`trace /w/t0.json not used: ${ENOENT}`);
    expect(diagnostics[n - 1].message).toBe(`trace /w/t${n - 1}.json not used: ${ENOENT}`);
    expect(diagnostics.slice(n).map((d) => d.message)).toEqual(['trace /w/dir/b.json not used: it is a FIFO (named pipe), not a regular file', `trace /w/dir/a.json not used: ${ENOENT}`]);
  });

  it('configDiagnostics: a path that turns the line around or breaks it is shown with escapes (a repository names its own files)', () => {
    const { problems } = recorder();
    const text = JSON.stringify({ traces: ['a\u202egol.json', 'b\nc.json'] });
    const { config } = parseProjectConfig(text, '/w/netpolicy.config.json');
    const doc = parsePolicyDocument(text, { fileName: '/w/netpolicy.config.json', jsonc: true });
    problems.report('trace', '/w/a\u202egol.json', ENOENT);
    problems.report('trace', '/w/b\nc.json', ENOENT);
    expect(problems.configDiagnostics(doc, config).map((d) => d.message)).toEqual([
      `trace /w/a\\u202egol.json not used: ${ENOENT}`,
      `trace /w/b\\nc.json not used: ${ENOENT}`,
    ]);
  });
});
