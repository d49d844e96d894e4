/** Policy test files over real LSP: the tests schema, a failing test's error and quick fix, the lenses, re-evaluation, binding and confinement. */
import { afterEach, describe, expect, it } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkPolicyTestFile, runPolicyTests, validate, type Policy } from '@netpolicy/core';
import { policyTestLensTitle } from '@netpolicy/language-service';
import { fileUri, poll, startClient, type TestClient, writeWorkspace } from './harness';

const FIXTURES = fileURLToPath(new URL('../../../fixtures/traces/', import.meta.url));
const CLI = fileURLToPath(new URL('../../cli/bin/netpolicy.js', import.meta.url));
const POLICY = readFileSync(join(FIXTURES, 'denials/policy.netpolicy.json'), 'utf8');

let clients: TestClient[] = [];
afterEach(async () => {
  await Promise.all(clients.map((c) => c.close()));
  clients = [];
});

const TESTS = {
  tests: [
    { name: 'npm registry', http: { url: 'https://registry.npmjs.org/left-pad' }, expect: 'allow', rule: '/sources/0' },
    { name: 'telemetry', tls: { serverName: 'telemetry.example.io', port: 443 }, expect: 'allow' },
    { tcp: { remoteIp: '10.99.0.1', port: 5432 }, expect: 'deny' },
  ],
};

const workspace = (files: Record<string, string>): string => writeWorkspace(files, 'np-ls-tests-');

async function start(dir: string, options: Record<string, unknown> = {}): Promise<TestClient> {
  const c = await startClient({ rootUri: fileUri(dir), ...options });
  clients.push(c);
  return c;
}

const lastPublish = (c: TestClient, uri: string, ok: (d: any[]) => boolean) =>
  poll(async () => c.published.filter((p) => p.uri === uri).at(-1)?.diagnostics ?? [], ok);
const lenses = (c: TestClient, uri: string, ok: (l: any[]) => boolean = (l) => l.length > 0) =>
  poll(() => c.request<any[]>('textDocument/codeLens', { textDocument: { uri } }), ok);

describe('policy test files in the editor', () => {
  it('evaluates each test against the only policy of the folder: an error on the failing one, a lens on each, "Run all"', async () => {
    const text = JSON.stringify(TESTS, null, 2);
    const dir = workspace({ 'ci/policy.netpolicy.json': POLICY, 'ci/policy.tests.json': text });
    const c = await start(dir);
    const uri = fileUri(join(dir, 'ci/policy.tests.json'));
    await c.open(uri, text, 1, 'json');
    const diagnostics = await lastPublish(c, uri, (d) => d.length > 0);
    const lines = text.split('\n');
    const lineOf = (needle: string, from = 0) => lines.findIndex((l, i) => i >= from && l.includes(needle));
    const expectLine = lineOf('"expect": "allow"', lineOf('telemetry'));
    expect(diagnostics.map((d) => [d.code, d.severity, d.range.start.line, d.message])).toEqual([
      ['policy-test', 1, expectLine, 'telemetry: expected allow, got deny (decided by the default)'],
    ]);
    // The quick fix expects what the policy decides.
    const actions = await c.request<any[]>('textDocument/codeAction', { textDocument: { uri }, range: diagnostics[0].range, context: { diagnostics } });
    expect(actions.map((a) => a.title)).toEqual(['Expect deny (what the policy decides)']);
    // (This client takes commands, not CodeAction literals: the edit is the command's third argument.)
    expect((actions[0].edit ?? actions[0].arguments[2]).changes[uri]).toEqual([{ range: diagnostics[0].range, newText: '"deny"' }]);
    const titles = (await lenses(c, uri)).map((l) => [l.range.start.line, l.command.title, l.command.command, l.command.arguments]);
    expect(titles).toEqual([
      [lineOf('"tests"'), 'Run all 3 tests (1 failed)', 'netpolicy.server.runPolicyTests', [uri]],
      [lineOf('"tests"') + 1, '✓ allow via /sources/0', 'netpolicy.server.runPolicyTests', [uri]],
      [lineOf('telemetry') - 1, '✗ expected allow, denied by default', 'netpolicy.server.runPolicyTests', [uri]],
      [lineOf('"tcp"') - 1, '✓ deny via default', 'netpolicy.server.runPolicyTests', [uri]],
    ]);
    expect(c.initializeResult.capabilities.executeCommandProvider.commands).toContain('netpolicy.server.runPolicyTests');
    // The lens's command runs the tests again.
    const before = c.published.length;
    expect(await c.request('workspace/executeCommand', { command: 'netpolicy.server.runPolicyTests', arguments: [uri] })).toBeNull();
    await poll(() => c.published.slice(before).filter((p) => p.uri === uri).length, (n) => n > 0);
  });

  it('runs the tests again when the test file or its open policy changes', async () => {
    const text = JSON.stringify(TESTS, null, 2);
    const dir = workspace({ 'policy.netpolicy.json': POLICY, 'policy.tests.json': text });
    const c = await start(dir);
    const uri = fileUri(join(dir, 'policy.tests.json'));
    const policyUri = fileUri(join(dir, 'policy.netpolicy.json'));
    await c.open(uri, text, 1, 'json');
    await lastPublish(c, uri, (d) => d.length === 1);
    // The test file edited: expect deny, no failure.
    const fixed = text.replace('"expect": "allow"\n    },\n    {\n      "tcp"', '"expect": "deny"\n    },\n    {\n      "tcp"');
    expect(fixed).not.toBe(text);
    await c.notify('textDocument/didChange', { textDocument: { uri, version: 2 }, contentChanges: [{ text: fixed }] });
    expect(await lastPublish(c, uri, (d) => d.length === 0)).toEqual([]);
    // The policy opened and edited (telemetry allowed): the test file's verdict follows the open text.
    await c.open(policyUri, POLICY, 1);
    const policy = JSON.parse(POLICY);
    policy.connections = [...(policy.connections ?? []), { tls: { serverNamePatterns: ['telemetry.example.io'], ports: [443] } }];
    await c.notify('textDocument/didChange', { textDocument: { uri: policyUri, version: 2 }, contentChanges: [{ text: JSON.stringify(policy, null, 2) }] });
    const failing = await lastPublish(c, uri, (d) => d.length === 1);
    expect(failing[0].message).toMatch(/^telemetry: expected deny, got allow \(decided by \/connections\/\d+\)$/);
    // The policy file changed on disk (closed: the disk counts): evaluated again.
    await c.notify('textDocument/didClose', { textDocument: { uri: policyUri } });
    writeFileSync(join(dir, 'policy.netpolicy.json'), POLICY);
    await c.notify('workspace/didChangeWatchedFiles', { changes: [{ uri: policyUri, type: 2 }] });
    expect(await lastPublish(c, uri, (d) => d.length === 0)).toEqual([]);
  });

  it('places the schema\'s problems and offers their fixes', async () => {
    const text = '{"tests": [{"htp": {"url": "https://x/"}, "expect": "allo"}]}';
    const dir = workspace({ 'policy.netpolicy.json': POLICY });
    const c = await start(dir);
    const uri = fileUri(join(dir, 'x.tests.json'));
    await c.open(uri, text, 1, 'json');
    const d = await lastPublish(c, uri, (x) => x.length > 0);
    expect(d.map((x) => [x.code, text.slice(x.range.start.character, x.range.end.character)])).toEqual([
      ['missing-property', '{"htp": {"url": "https://x/"}, "expect": "allo"}'],
      ['unknown-property', '"htp"'],
      ['invalid-value', '"allo"'],
    ]);
    const actions = await c.request<any[]>('textDocument/codeAction', { textDocument: { uri }, range: d[2].range, context: { diagnostics: [d[2]] } });
    expect(actions.map((a) => a.title)).toContain('Change to allow');
    expect(await c.request<any[]>('textDocument/codeLens', { textDocument: { uri } })).toEqual([]);
  });

  it('says when the policy cannot be told: several in the folder, none, a member that cannot be read', async () => {
    const dir = workspace({ 'two/a.netpolicy.json': POLICY, 'two/network-policy.json': POLICY, 'none/README.md': '' });
    const c = await start(dir);
    const text = JSON.stringify(TESTS);
    const two = fileUri(join(dir, 'two/policy.tests.json'));
    await c.open(two, text, 1, 'json');
    expect((await lastPublish(c, two, (d) => d.length > 0)).map((d) => [d.code, d.message])).toEqual([
      ['policy-test-binding', 'several policies in this folder and no "policy" member to choose one: a.netpolicy.json, network-policy.json: add "policy": "FILE"'],
    ]);
    const none = fileUri(join(dir, 'none/policy.tests.json'));
    await c.open(none, text, 1, 'json');
    expect((await lastPublish(c, none, (d) => d.length > 0))[0].message).toMatch(/^no policy file in this folder/);
    // A "policy" member chooses, relative to the test file's folder.
    const chosen = fileUri(join(dir, 'none/chosen.tests.json'));
    const chosenText = JSON.stringify({ policy: '../two/a.netpolicy.json', ...TESTS }, null, 2);
    await c.open(chosen, chosenText, 1, 'json');
    expect((await lastPublish(c, chosen, (d) => d.length > 0)).map((d) => d.code)).toEqual(['policy-test']);
    const missing = fileUri(join(dir, 'none/missing.tests.json'));
    await c.open(missing, JSON.stringify({ policy: 'nope.netpolicy.json', ...TESTS }, null, 2), 1, 'json');
    const m = await lastPublish(c, missing, (d) => d.length > 0);
    expect(m.map((d) => [d.code, d.range.start.line, d.message])).toEqual([['policy-test-binding', 1, 'policy nope.netpolicy.json not read: it does not exist (ENOENT)']]);
  });

  it('in a workspace that is not trusted, refuses a "policy" member leading out of the folder; a FIFO never blocks', async () => {
    const outside = workspace({ 'secret.netpolicy.json': POLICY });
    const dir = workspace({ 'policy.netpolicy.json': POLICY });
    if (process.platform !== 'win32') execFileSync('mkfifo', [join(dir, 'fifo.netpolicy.json')]);
    const c = await start(dir, { initializationOptions: { workspaceTrusted: false } });
    const cases: Array<[string, RegExp]> = [
      ['../../etc/passwd', /^policy \.\.\/\.\.\/etc\/passwd not read: it is outside the workspace folder, and the workspace is not trusted$/],
      [join(outside, 'secret.netpolicy.json'), /not read: it is outside the workspace folder/],
      [`../${outside.split('/').pop()}/secret.netpolicy.json`, /not read: it is outside the workspace folder/],
      ...(process.platform !== 'win32' ? [['fifo.netpolicy.json', /^policy fifo\.netpolicy\.json not read: it is a FIFO \(named pipe\), not a regular file$/] as [string, RegExp]] : []),
    ];
    for (const [i, [policy, message]] of cases.entries()) {
      const uri = fileUri(join(dir, `t${i}.tests.json`));
      await c.open(uri, JSON.stringify({ policy, ...TESTS }), 1, 'json');
      const d = await lastPublish(c, uri, (x) => x.length > 0);
      expect(d.map((x) => x.code)).toEqual(['policy-test-binding']);
      expect(d[0].message).toMatch(message);
    }
  });

  it('gives netpolicy test\'s verdicts on every fixture: the CLI as a process and the server on the same files', async () => {
    for (const name of readdirSync(FIXTURES).filter((n) => existsSync(join(FIXTURES, n, 'policy.tests.json')))) {
      const dir = join(FIXTURES, name);
      const policyFile = ['policy.netpolicy.json', 'policy.netpolicy.jsonc'].find((f) => { try { readFileSync(join(dir, f)); return true; } catch { return false; } })!;
      const policyText = readFileSync(join(dir, policyFile), 'utf8');
      const testsText = readFileSync(join(dir, 'policy.tests.json'), 'utf8');
      // What `netpolicy test` computes, with a failing expectation added to each file.
      const data = JSON.parse(testsText);
      data.tests.push({ name: 'flipped', tcp: { remoteIp: '192.0.2.1', port: 1 }, expect: 'allow' });
      const copy = workspace({ [policyFile]: policyText, 'policy.tests.json': JSON.stringify(data, null, 2) });
      const expected = runPolicyTests(validate(policyText, { fileName: policyFile }).value as Policy, checkPolicyTestFile(data));
      // `netpolicy test` without --policy (the same binding) prints the same verdicts.
      const cli = spawnSync(process.execPath, [CLI, 'test', '--format', 'json', join(copy, 'policy.tests.json')], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
      expect(cli.status).toBe(1);
      expect(JSON.parse(cli.stdout).files[0].results.map((r: any) => [r.index, r.actual.verdict, r.actual.rule, r.passed, r.message]))
        .toEqual(expected.map((r) => [r.index, r.actual.verdict, r.actual.rule, r.passed, r.message]));
      const c = await start(copy);
      const uri = fileUri(join(copy, 'policy.tests.json'));
      await c.open(uri, JSON.stringify(data, null, 2), 1, 'json');
      const l = await lenses(c, uri, (x) => x.length === expected.length + 1);
      expect(l.slice(1).map((x) => x.command.title)).toEqual(expected.map(policyTestLensTitle));
      const d = await lastPublish(c, uri, (x) => x.length > 0);
      expect(d.map((x) => x.message)).toEqual(expected.filter((r) => !r.passed).map((r) => `${r.name}: ${r.message}`));
    }
  });
});
