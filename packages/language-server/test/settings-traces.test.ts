/**
 * Where editor settings and `netpolicy.config.json` meet on `traces` (issue 20.2): after a settings
 * change the trace files are still followed; an editor `traces` set then cleared gives the file's
 * back (and an empty one drops the lenses); a project file changed after an editor override keeps
 * the override.
 */
import { describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clientPerTest, fileUri, type TestClient, poll, lensesByLine as lenses } from './harness';

const client = clientPerTest();

function trace(hosts: string[]): string {
  return JSON.stringify({
    schema_version: '1.0', job: { provider: 'ciprovider', repository: 'acme/app', job_id: '1', status: 'success' },
    observations: hosts.map((h, i) => ({ protocol: 'http', observed_at: '2026-03-02T10:15:01.037Z', sequence: i + 1, method: 'GET', url: `https://${h}/p${i}`, denied: false })),
  });
}

/** Line 3: the npm rule (with an `insecure-url` warning), line 4: the pypi rule. */
const POLICY = '{\n  "presets": [],\n  "sources": [\n    { "npm": { "urls": ["https://registry.npmjs.org", "http://npm.internal.example"] } },\n    { "pypi": { "urls": ["https://pypi.org"] } }\n  ]\n}\n';
const NPM = 3;
const PYPI = 4;
const UNUSED = /^no traced access used this rule/;

const counted = (n: number, host: string) => new RegExp(`^${n} traced access(es)? decided here: ${host.replace(/\./g, '\\.')}`);

function workspace(config: Record<string, unknown>, traces: Record<string, string[]>): { dir: string; uri: string } {
  const dir = mkdtempSync(join(tmpdir(), 'np-ls-settings-'));
  writeFileSync(join(dir, 'netpolicy.config.json'), JSON.stringify(config));
  for (const [name, hosts] of Object.entries(traces)) writeFileSync(join(dir, name), trace(hosts));
  const uri = fileUri(join(dir, 'ci.netpolicy.json'));
  writeFileSync(join(dir, 'ci.netpolicy.json'), POLICY);
  return { dir, uri };
}

/** Settings pushed with didChangeConfiguration and answered alike to workspace/configuration. */
async function changeSettings(c: TestClient, settings: Record<string, unknown>): Promise<void> {
  c.settings = settings;
  await c.notify('workspace/didChangeConfiguration', { settings: { netpolicy: settings } });
}

async function changeFile(c: TestClient, path: string, text: string): Promise<void> {
  writeFileSync(path, text);
  await c.notify('workspace/didChangeWatchedFiles', { changes: [{ uri: fileUri(path), type: 2 }] });
}

describe('a settings change keeps the project file\'s traces followed (issue 20.2)', () => {
  for (const [name, severity, level] of [
    ['a severity override that makes a lint warning an error', { 'insecure-url': 'error' }, 1],
    ['a severity override of a code the policy does not meet', { 'broad-cidr': 'hint' }, 2],
  ] as const) {
    it(name, async () => {
      const { dir, uri } = workspace({ traces: ['t.json'] }, { 't.json': ['registry.npmjs.org', 'registry.npmjs.org'] });
      const c = await client({ rootUri: fileUri(dir), settings: {} });
      await c.open(uri, POLICY, 1);
      const before = await poll(() => lenses(c, uri), (l) => counted(2, 'registry.npmjs.org').test(l[NPM] ?? ''));
      expect(before[NPM]).toMatch(counted(2, 'registry.npmjs.org'));
      expect(before[PYPI]).toMatch(UNUSED);

      const since = c.published.length;
      await changeSettings(c, { severity });
      // The settings apply (the insecure URL's diagnostic at the level asked for) ...
      const applied = await poll(async () => c.published.slice(since).filter((p) => p.uri === uri).at(-1), (p) => p?.diagnostics.find((d) => d.code === 'insecure-url')?.severity === level);
      expect(applied?.diagnostics.find((d) => d.code === 'insecure-url')?.severity).toBe(level);

      // ... and a changed trace still changes the lenses.
      await changeFile(c, join(dir, 't.json'), trace(['pypi.org', 'pypi.org', 'pypi.org']));
      const after = await poll(() => lenses(c, uri), (l) => counted(3, 'pypi.org').test(l[PYPI] ?? ''));
      expect(after[PYPI]).toMatch(counted(3, 'pypi.org'));
      expect(after[NPM]).toMatch(UNUSED);
    });
  }
});

describe('editor traces over the project file\'s', () => {
  it('set, then cleared: the file\'s traces again; set to an empty list: no lens left', async () => {
    const { dir, uri } = workspace({ traces: ['file.json'] }, { 'file.json': ['registry.npmjs.org'], 'editor.json': ['pypi.org', 'pypi.org'] });
    const c = await client({ rootUri: fileUri(dir), settings: {} });
    await c.open(uri, POLICY, 1);
    expect((await poll(() => lenses(c, uri), (l) => counted(1, 'registry.npmjs.org').test(l[NPM] ?? '')))[NPM]).toMatch(counted(1, 'registry.npmjs.org'));

    await changeSettings(c, { traces: ['editor.json'] });
    const overridden = await poll(() => lenses(c, uri), (l) => counted(2, 'pypi.org').test(l[PYPI] ?? ''));
    expect(overridden[PYPI]).toMatch(counted(2, 'pypi.org'));
    expect(overridden[NPM]).toMatch(UNUSED);

    await changeSettings(c, { traces: null });
    const cleared = await poll(() => lenses(c, uri), (l) => counted(1, 'registry.npmjs.org').test(l[NPM] ?? ''));
    expect(cleared[NPM]).toMatch(counted(1, 'registry.npmjs.org'));
    expect(cleared[PYPI]).toMatch(UNUSED);
    // The file's trace is followed again.
    await changeFile(c, join(dir, 'file.json'), trace(['pypi.org']));
    expect((await poll(() => lenses(c, uri), (l) => counted(1, 'pypi.org').test(l[PYPI] ?? '')))[PYPI]).toMatch(counted(1, 'pypi.org'));

    await changeSettings(c, { traces: [] });
    expect(await poll(() => lenses(c, uri), (l) => Object.keys(l).length === 0)).toEqual({});
    const hints = await poll(async () => c.published.filter((p) => p.uri === uri).at(-1)!, (p) => !p.diagnostics.some((d) => d.code === 'unused-in-traces'));
    expect(hints.diagnostics.map((d) => d.code)).toEqual(['insecure-url']);
  });

  it('a project file changed after an editor override: the override stays, the file\'s other members apply', async () => {
    const { dir, uri } = workspace({ traces: ['file.json'] }, { 'file.json': ['registry.npmjs.org'], 'other.json': ['registry.npmjs.org'], 'editor.json': ['pypi.org', 'pypi.org'] });
    const c = await client({ rootUri: fileUri(dir), settings: { traces: ['editor.json'] } });
    await c.open(uri, POLICY, 1);
    expect((await poll(() => lenses(c, uri), (l) => counted(2, 'pypi.org').test(l[PYPI] ?? '')))[PYPI]).toMatch(counted(2, 'pypi.org'));

    const since = c.published.length;
    await changeFile(c, join(dir, 'netpolicy.config.json'), JSON.stringify({ traces: ['other.json'], severity: { 'insecure-url': 'error' } }));
    // The file's severity applies ...
    const applied = await poll(async () => c.published.slice(since).filter((p) => p.uri === uri).at(-1), (p) => p?.diagnostics.find((d) => d.code === 'insecure-url')?.severity === 1);
    expect(applied?.diagnostics.find((d) => d.code === 'insecure-url')?.severity).toBe(1);
    // ... its traces do not (the editor's still do, and are still followed).
    await changeFile(c, join(dir, 'editor.json'), trace(['pypi.org', 'pypi.org', 'pypi.org', 'pypi.org']));
    const after = await poll(() => lenses(c, uri), (l) => counted(4, 'pypi.org').test(l[PYPI] ?? ''));
    expect(after[PYPI]).toMatch(counted(4, 'pypi.org'));
    expect(after[NPM]).toMatch(UNUSED);
  });
});
