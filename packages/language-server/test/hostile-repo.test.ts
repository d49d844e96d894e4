/**
 * Issue 28, the language server's part: a repository you do not trust, over real LSP.
 *
 * - Item 1: outside text (a `filePatterns` entry, a key of netpolicy.config.json) reaches the
 *   client's notifications and log only escaped: no link VS Code would render, no raw control.
 * - Item 5: in Restricted Mode, netpolicy.config.json as a link out of the folder is not read, and
 *   a policy that appears later as such a link is not checked from its target.
 * - Item 7: 100,000 missing traces are one notification and a few log lines, and the server keeps
 *   publishing.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WorkspaceTrustNotificationMethod } from '../src/protocol';
import { clientPerTest, fileUri, poll, type TestClient } from './harness';
import { hostile, unsafe } from './hostile';

const client = clientPerTest();
const onPosix = process.platform !== 'win32';

const LINK = '[F](command:workbench.action.terminal.sendSequence?{"text":"sh<x"})';
const POLICY = '{\n  "presets": [],\n  "sources": [\n    { "npm": { "urls": ["https://registry.npmjs.org"] } }\n  ]\n}\n';
/** A policy whose content would say `unknown-preset` if anything read it. */
const UNKNOWN = '{"presets": ["from-outside"]}';

/** Every notification and log line the server sent, for the safety check. */
const said = (c: TestClient) => [...c.messages, ...c.logs].map((m) => m.message);

/** A workspace folder `ws` beside a folder `outside`, both fresh. */
function folders(): { ws: string; outside: string } {
  const outer = mkdtempSync(join(tmpdir(), 'np-ls-hostile-'));
  const ws = join(outer, 'ws');
  const outside = join(outer, 'outside');
  mkdirSync(ws);
  mkdirSync(outside);
  return { ws, outside };
}

/** A pattern with too many {} alternatives (so its problem message quotes it) after `text`. */
const patternWith = (text: string) => `${text}${'{a,b}'.repeat(9)}`;

describe('outside text in notifications and the log (item 1)', () => {
  it('a filePatterns entry with link syntax: the notification and the log carry no link', async () => {
    const { ws } = folders();
    const c = await client({ rootUri: fileUri(ws), settings: { filePatterns: [patternWith(`${LINK}\u202e\n`), 'policies/*.json'] } });
    const said = await poll(() => c.messages.map((m) => m.message), (m) => m.length > 0);
    expect(said).toHaveLength(1);
    expect(said[0]).toContain('netpolicy.filePatterns.0: ');
    expect(said[0]).toContain('[F] (command:workbench.action.terminal.sendSequence');
    expect(said[0]).not.toContain('](');
    expect(said[0]).toContain('\\u202e\\n');
    for (const m of [...said, ...c.logs.map((l) => l.message)]) expect(unsafe(m)).toBe(false);
  });

  it('a key of netpolicy.config.json with link syntax and a bidi control: the error notification is escaped', async () => {
    const { ws } = folders();
    writeFileSync(join(ws, 'netpolicy.config.json'), JSON.stringify({ [`\u202e${LINK}`]: 1 }));
    const c = await client({ rootUri: fileUri(ws) });
    const said = await poll(() => c.messages.map((m) => m.message), (m) => m.length > 0);
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(/^netpolicy: .*netpolicy\.config\.json:1:2: `\\u202e\[F\] \(command:workbench/);
    expect(unsafe(said[0])).toBe(false);
  });

  it('generated hostile strings in a filePatterns entry and a config key (property, a few spawns): nothing unsafe is said', async () => {
    // The sink itself is held to the property on a thousand strings (sink.test.ts); here a few go through a real server.
    const samples = fc.sample(hostile.filter((s) => s.length > 0), { numRuns: 4, seed: 28 });
    samples.push(`${LINK}\r\n[a](https://evil.example "t")\u0000\u009b\u2066`);
    for (const s of samples) {
      const { ws } = folders();
      writeFileSync(join(ws, 'netpolicy.config.json'), JSON.stringify({ [s]: 1 }));
      const c = await client({ spawn: true, rootUri: fileUri(ws), settings: { filePatterns: [patternWith(s)] } });
      // The config key is said (unknown member), and the pattern (too many alternatives) unless the string closed its braces.
      const all = await poll(() => c.messages.map((m) => m.message), (m) => m.length >= 2, 3000);
      expect(all.length).toBeGreaterThanOrEqual(1);
      for (const m of said(c)) expect({ m, unsafe: unsafe(m) }).toEqual({ m, unsafe: false });
      await c.close();
    }
  });
});

describe.skipIf(!onPosix)('Restricted Mode: workspace files read only inside their folder (item 5)', () => {
  it('netpolicy.config.json as a link to a file outside: not read (no notification with its key, no severity from it); trust reads it', async () => {
    const { ws, outside } = folders();
    writeFileSync(join(outside, 'config.json'), JSON.stringify({ severity: { 'insecure-url': 'error' }, 'outside-key-marker': 1 }));
    symlinkSync(join(outside, 'config.json'), join(ws, 'netpolicy.config.json'));
    const uri = fileUri(join(ws, 'ci.netpolicy.json'));
    const c = await client({ rootUri: fileUri(ws), initializationOptions: { workspaceTrusted: false } });
    await c.open(uri, POLICY.replace('https://registry', 'http://registry'), 1);
    // Its severity would make insecure-url an error (1): not read, it stays a warning (2).
    expect((await c.diagnostics(uri, 1)).diagnostics.map((d) => [d.code, d.severity])).toEqual([['insecure-url', 2]]);
    const path = join(ws, 'netpolicy.config.json');
    const why = `netpolicy: project file ${path} not used: it is a symbolic link that leads out of the workspace folder`;
    expect(await poll(() => c.messages.map((m) => m.message), (m) => m.length > 0)).toEqual([why]);
    expect(c.logs.map((l) => l.message)).toContain(`[netpolicy] ${why}`);
    expect(JSON.stringify(said(c))).not.toContain('outside-key-marker');

    // Trusted, the user's link is followed: its unknown key is said, its severity applies.
    const since = c.published.length;
    await c.notify(WorkspaceTrustNotificationMethod, { trusted: true });
    const applied = await poll(() => c.published.slice(since).filter((p) => p.uri === uri).at(-1), (p) => p?.diagnostics[0]?.severity === 1);
    expect(applied?.diagnostics.map((d) => [d.code, d.severity])).toEqual([['insecure-url', 1]]);
    expect(c.messages.map((m) => m.message).some((m) => m.includes('outside-key-marker'))).toBe(true);
  });

  for (const trusted of [false, true]) {
    it(`${trusted ? 'trusted' : 'untrusted'}: a policy created later as a link out of the folder, announced by the watcher, is not checked from its target`, async () => {
      const { ws, outside } = folders();
      writeFileSync(join(outside, 'x.netpolicy.json'), UNKNOWN);
      writeFileSync(join(ws, 'a.netpolicy.json'), UNKNOWN);
      const c = await client({ rootUri: fileUri(ws), initializationOptions: { workspaceTrusted: trusted } });
      const a = fileUri(join(ws, 'a.netpolicy.json'));
      expect((await c.diagnostics(a)).diagnostics.map((d) => d.code)).toEqual(['unknown-preset']);
      // `git pull` brings a link to a file outside, a link to a folder outside, and a plain file (the sync point).
      symlinkSync(join(outside, 'x.netpolicy.json'), join(ws, 'late.netpolicy.json'));
      symlinkSync(outside, join(ws, 'linked'));
      writeFileSync(join(ws, 'plain.netpolicy.json'), UNKNOWN);
      const late = fileUri(join(ws, 'late.netpolicy.json'));
      const underLink = fileUri(join(ws, 'linked', 'x.netpolicy.json'));
      const plain = fileUri(join(ws, 'plain.netpolicy.json'));
      await c.notify('workspace/didChangeWatchedFiles', { changes: [{ uri: late, type: 1 }, { uri: underLink, type: 1 }, { uri: plain, type: 1 }] });
      expect((await c.diagnostics(plain)).diagnostics.map((d) => d.code)).toEqual(['unknown-preset']);
      const logged = await poll(() => c.logs.map((l) => l.message).join('\n'), (l) => l.includes('linked/x.netpolicy.json not checked'));
      expect(c.published.filter((p) => p.uri === late || p.uri === underLink).flatMap((p) => p.diagnostics)).toEqual([]);
      expect(logged).toContain(`${join(ws, 'late.netpolicy.json')} not checked: it is a symbolic link that leads out of the workspace folder`);
      expect(logged).toContain(`${join(ws, 'linked', 'x.netpolicy.json')} not checked: a folder on its path is a symbolic link that leads out of the workspace folder`);
    });
  }
});

describe('100,000 missing traces (item 7)', () => {
  /** A valid policy (its traces are evaluated) and one with a syntax error (its diagnostic must still come). */
  async function flood(c: TestClient, ws: string, n: number) {
    const valid = fileUri(join(ws, 'ci.netpolicy.json'));
    const broken = fileUri(join(ws, 'broken.netpolicy.json'));
    await c.open(valid, POLICY, 1);
    // Past the trace debounce: the evaluation is under way when the broken policy comes.
    await new Promise((r) => setTimeout(r, 700));
    await c.open(broken, '{"presets": [', 1);
    expect((await c.diagnostics(broken, 1)).diagnostics.length).toBeGreaterThan(0);
    // The evaluation is over when the denials carry every trace's error.
    const denials = await poll(() => c.request<any>('netpolicy/denials', { uri: valid }), (d) => d.errors.length === n, 60_000);
    expect(denials.errors).toHaveLength(n);
    return { valid, broken };
  }

  it('in settings: one notification with the count, a bounded log; an edit later says nothing again and still gets its diagnostics', async () => {
    const n = 100_000;
    const { ws } = folders();
    const traces = Array.from({ length: n }, (_, i) => `missing/t${i}.json`);
    const c = await client({ rootUri: fileUri(ws), settings: { traces } });
    const { broken } = await flood(c, ws, n);
    const about = await poll(() => c.messages.filter((m) => m.message.includes('trace')), (m) => m.length > 0);
    expect(about.map((m) => m.message)).toEqual([`netpolicy: ${n} trace files not used: it does not exist (ENOENT), e.g. ${join(ws, 'missing/t0.json')}, ${join(ws, 'missing/t1.json')}, ${join(ws, 'missing/t2.json')}, ... (see the output)`]);
    expect(c.messages).toHaveLength(1);
    const traceLines = c.logs.filter((l) => l.message.includes('trace'));
    expect(traceLines.length).toBeLessThanOrEqual(25);
    expect(traceLines.some((l) => l.message.includes(`... and ${n - 20} more trace files not used`))).toBe(true);

    // An edit re-evaluates the traces: the same problems are not said again, and a syntax error is still published.
    await c.notify('textDocument/didChange', { textDocument: { uri: broken, version: 2 }, contentChanges: [{ text: '{"presets": [}' }] });
    expect((await c.diagnostics(broken, 2)).diagnostics.length).toBeGreaterThan(0);
    await new Promise((r) => setTimeout(r, 1500));
    expect(c.messages).toHaveLength(1);
  });

  it('in netpolicy.config.json, open: a diagnostic on each member, one notification', async () => {
    const n = 100_000;
    const { ws } = folders();
    const configText = JSON.stringify({ traces: Array.from({ length: n }, (_, i) => `missing/t${i}.json`) });
    writeFileSync(join(ws, 'netpolicy.config.json'), configText);
    const c = await client({ rootUri: fileUri(ws) });
    const configUri = fileUri(join(ws, 'netpolicy.config.json'));
    await c.open(configUri, configText, 1, 'jsonc');
    await flood(c, ws, n);
    const config = await poll(() => c.published.filter((p) => p.uri === configUri).at(-1), (p) => p?.diagnostics.length === n, 60_000);
    expect(config?.diagnostics).toHaveLength(n);
    expect(config?.diagnostics[n - 1].message).toBe(`trace ${join(ws, `missing/t${n - 1}.json`)} not used: it does not exist (ENOENT)`);
    expect(c.messages.filter((m) => m.message.includes('trace'))).toHaveLength(1);
  });
});
