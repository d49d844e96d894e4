/**
 * Integration tests inside VS Code's extension host (run by scripts/e2e.mjs in code-server with
 * `extensionTestsPath`): the `vscode` API against the real extension and server. VS Code calls
 * `run()`; a rejection fails the run. Every wait polls a condition, none sleeps a fixed time.
 * The workspace is the one scripts/e2e.mjs writes (see `writeWorkspace` there).
 */
import * as vscode from 'vscode';
import { readFileSync, readdirSync } from 'node:fs';
import { createServer } from 'node:http';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { serverNodeOptions } from '@netpolicy/language-server/protocol';
import type { NetpolicyApi } from '../../src/activate';

interface Result { name: string; ok: boolean; ms: number; error?: string }
const results: Result[] = [];
const figures: Record<string, number> = {};

function assert(cond: unknown, message: string): asserts cond {
  if (!cond) throw new Error(message);
}

/** Polls `fn` until it returns a truthy value (every 50 ms, up to `timeoutMs`). */
async function until<T>(what: string, fn: () => T | Promise<T>, timeoutMs = 15_000): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v as NonNullable<T>;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? ` (last error: ${last instanceof Error ? last.message : String(last)})` : ''}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function test(name: string, fn: () => Promise<void>): Promise<void> {
  const t = Date.now();
  try {
    await fn();
    results.push({ name, ok: true, ms: Date.now() - t });
  } catch (e) {
    results.push({ name, ok: false, ms: Date.now() - t, error: e instanceof Error ? e.stack ?? e.message : String(e) });
  }
}

const folder = () => vscode.workspace.workspaceFolders![0].uri;
const file = (p: string) => vscode.Uri.joinPath(folder(), p);
const netpolicyDiagnostics = (uri: vscode.Uri) => vscode.languages.getDiagnostics(uri).filter((d) => d.source === 'netpolicy');
const codeOf = (d: vscode.Diagnostic) => (typeof d.code === 'object' && d.code ? String(d.code.value) : String(d.code));

export async function run(): Promise<void> {
  const ext = vscode.extensions.getExtension<NetpolicyApi>('netpolicy.netpolicy');
  assert(ext, 'the extension netpolicy.netpolicy is not installed');
  const policyUri = file('ci.netpolicy.json');
  // The budget "activation to first diagnostics < 1 s": activate() itself, the server's start (from
  // the first policy document to a running client) and the time from opening a policy to its
  // diagnostics once the server runs. The extension host starts this test some time after
  // activation, so the three are timed apart and added.
  let diagnosedAt = 0;
  const watch = vscode.languages.onDidChangeDiagnostics((e) => {
    if (!diagnosedAt && e.uris.some((u) => u.toString() === policyUri.toString()) && netpolicyDiagnostics(policyUri).length > 0) diagnosedAt = Date.now();
  });
  const openedAt = Date.now();
  const opened = vscode.workspace.openTextDocument(policyUri).then((d) => vscode.window.showTextDocument(d));
  const api = ext.isActive ? ext.exports : await ext.activate();
  await opened;
  const { requestedAt, readyAt: serverReadyAt } = await api.started;

  await test('diagnostics with codes on a policy file, each mistake once, none from the JSON support', async () => {
    const diags = await until('netpolicy diagnostics', () => { const d = netpolicyDiagnostics(policyUri); return d.length >= 11 ? d : undefined; });
    await until('the diagnostics event', () => diagnosedAt > 0);
    watch.dispose();
    figures.activateMs = api.activationMs();
    figures.serverStartMs = serverReadyAt - requestedAt;
    figures.openToDiagnosticsMs = diagnosedAt - Math.max(openedAt, serverReadyAt);
    figures.activationToFirstDiagnosticsMs = figures.activateMs + figures.serverStartMs + figures.openToDiagnosticsMs;
    const doc = vscode.window.activeTextEditor!.document;
    assert(doc.languageId === 'netpolicy', `language is ${doc.languageId}`);
    const codes = diags.map(codeOf).sort();
    for (const code of ['unknown-preset', 'source-kind', 'insecure-url', 'wildcard-push', 'missing-target', 'invalid-host-pattern', 'cidr-host-bits', 'metadata-address', 'invalid-port', 'ipv6-not-allowed', 'unknown-property']) {
      assert(codes.includes(code), `no ${code} among ${codes.join(', ')}`);
    }
    const keys = diags.map((d) => `${codeOf(d)}@${d.range.start.line}:${d.range.start.character}`);
    assert(new Set(keys).size === keys.length, `a mistake reported twice: ${keys.join(' ')}`);
    const others = vscode.languages.getDiagnostics(policyUri).filter((d) => d.source !== 'netpolicy');
    assert(others.length === 0, `other diagnostics on the policy: ${others.map((d) => `${d.source}: ${d.message}`).join('; ')}`);
    assert(diags.every((d) => typeof d.code === 'object' && String(d.code.target).startsWith('http')), 'a diagnostic without its docs link');
  });

  await test('a JSON file that is not a policy gets nothing', async () => {
    const other = await vscode.workspace.openTextDocument(file('other.json'));
    await vscode.window.showTextDocument(other, { preview: false });
    assert(other.languageId === 'json', `other.json became ${other.languageId}`);
    // VS Code's JSON support is live on the file once it answers for its symbols...
    await until('JSON symbols of other.json', async () => {
      const symbols = await vscode.commands.executeCommand<vscode.DocumentSymbol[]>('vscode.executeDocumentSymbolProvider', other.uri);
      return symbols?.some((x) => x.name === 'sourcse');
    });
    // ...and absence has no event to wait for: the policy got its diagnostics within ~0.5 s of
    // opening, so give other.json a full second to (wrongly) get some, from netpolicy or JSON.
    const quietSince = Date.now();
    await until('a quiet second', () => Date.now() - quietSince > 1000 || vscode.languages.getDiagnostics(other.uri).length > 0, 3000);
    assert(vscode.languages.getDiagnostics(other.uri).length === 0, `diagnostics on other.json: ${vscode.languages.getDiagnostics(other.uri).map((d) => `${d.source}: ${d.message}`).join('; ')}`);
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(policyUri));
  });

  await test('completion offers preset names', async () => {
    const doc = await vscode.workspace.openTextDocument(policyUri);
    const at = doc.positionAt(doc.getText().indexOf('"pypy"') + 1);
    const list = await vscode.commands.executeCommand<vscode.CompletionList>('vscode.executeCompletionItemProvider', policyUri, at);
    const labels = list.items.map((i) => (typeof i.label === 'string' ? i.label : i.label.label).replace(/"/g, ''));
    for (const name of ['npm', 'pypi', 'debian']) assert(labels.includes(name), `no ${name} in ${labels.slice(0, 20).join(', ')}`);
  });

  await test('hover explains a key', async () => {
    const doc = await vscode.workspace.openTextDocument(policyUri);
    const hovers = await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', policyUri, doc.positionAt(doc.getText().indexOf('"default"') + 2));
    const text = hovers.flatMap((h) => h.contents.map((c) => (typeof c === 'string' ? c : c.value))).join('\n');
    assert(/deny|allow/.test(text), `hover: ${text}`);
  });

  await test('outline lists the policy\'s members', async () => {
    const symbols = await vscode.commands.executeCommand<vscode.DocumentSymbol[]>('vscode.executeDocumentSymbolProvider', policyUri);
    const names = symbols.map((s) => s.name).join(' ');
    for (const n of ['sources', 'connections']) assert(names.includes(n), `outline: ${names}`);
  });

  await test('a quick fix removes its diagnostic', async () => {
    const d = netpolicyDiagnostics(policyUri).find((x) => codeOf(x) === 'unknown-preset');
    assert(d, 'no unknown-preset');
    const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', policyUri, d.range, vscode.CodeActionKind.QuickFix.value);
    const fix = actions.find((a) => a.title.includes('pypi') && a.edit);
    assert(fix?.edit, `no fix to pypi among: ${actions.map((a) => a.title).join('; ')}`);
    assert(await vscode.workspace.applyEdit(fix.edit), 'edit not applied');
    const doc = await vscode.workspace.openTextDocument(policyUri);
    assert(doc.getText().includes('"pypi"'), 'text not changed');
    await until('unknown-preset gone', () => !netpolicyDiagnostics(policyUri).some((x) => codeOf(x) === 'unknown-preset') && netpolicyDiagnostics(policyUri).length > 0);
    await vscode.commands.executeCommand('undo');
  });

  const traceUri = file('traces/denials.json');
  const explainUri = file('explain.netpolicy.json');

  await test('Explain Trace Against This Policy: report, reveal rule, one-click fix', async () => {
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(explainUri));
    await vscode.commands.executeCommand('netpolicy.explainTrace', traceUri, explainUri);
    const panel = await until('the explain panel', () => api.explainPanel());
    const denials = panel.report.groups.flatMap((g) => g.denials);
    assert(denials.length > 0, 'no denials in the report');
    const withRule = denials.find((d) => d.nearest?.range);
    assert(withRule?.nearest, 'no denial with a nearest rule');
    assert(await panel.reveal(withRule.nearest.rule), 'reveal failed');
    const editor = await until('the policy editor', () => vscode.window.visibleTextEditors.find((e) => e.document.uri.toString() === explainUri.toString()));
    const sel = editor.document.getText(editor.selection);
    assert(sel.length > 0 && JSON.parse(sel) !== undefined, `selection: ${sel}`);
    const fixable = denials.find((d) => d.fix);
    assert(fixable?.fix, 'no fix');
    const before = editor.document.getText();
    assert(await panel.applyFix(fixable.id), 'fix not applied');
    const after = editor.document.getText();
    assert(after !== before, 'the policy did not change');
    // The fix's value is now where its pointer says (`/member/-` appends to the array).
    const parts = fixable.fix.pointer.split('/').slice(1);
    const append = parts[parts.length - 1] === '-';
    const at = (append ? parts.slice(0, -1) : parts).reduce((v: any, k) => v?.[k], JSON.parse(after));
    const want = JSON.stringify(fixable.fix.value);
    const found = append ? Array.isArray(at) && at.some((x) => JSON.stringify(x) === want) : JSON.stringify(at) === want || (Array.isArray(at) && JSON.stringify(at) === JSON.stringify([fixable.fix.value]));
    assert(found, `${want} not at ${fixable.fix.pointer} in ${after}`);
    assert(editor.document.isDirty, 'the fix was saved: it should leave the document unsaved (undoable)');
    await vscode.commands.executeCommand('workbench.action.files.revert');
  });

  await test('Use Trace for This Workspace: setting and code lenses', async () => {
    await vscode.commands.executeCommand('netpolicy.useTrace', traceUri);
    const setting = vscode.workspace.getConfiguration('netpolicy').get<string[]>('traces');
    assert(setting?.[0] === 'traces/denials.json', `netpolicy.traces = ${JSON.stringify(setting)}`);
    const lenses = await until('code lenses', async () => {
      const l = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', explainUri);
      return l.length > 0 ? l : undefined;
    });
    assert(lenses.some((l) => l.command?.title), 'lenses without titles');
    const result = await api.client()!.sendRequest<{ denials: unknown[] }>('netpolicy/denials', { uri: explainUri.toString() });
    assert(result.denials.length > 0, 'netpolicy/denials gave none');
    await vscode.workspace.getConfiguration('netpolicy').update('traces', undefined, vscode.ConfigurationTarget.Workspace);
  });

  await test('Suggest Policy From Trace opens a suggested policy', async () => {
    const uri = await vscode.commands.executeCommand<vscode.Uri>('netpolicy.suggestPolicy', traceUri);
    assert(uri, 'no suggestion');
    const text = (await vscode.workspace.openTextDocument(uri)).getText();
    const policy = JSON.parse(text);
    assert(policy.default === 'deny' && (policy.sources || policy.presets || policy.connections), `suggested: ${text.slice(0, 200)}`);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  await test('Fetch Job Trace saves the trace from the service (token in the header only)', async () => {
    const trace = await vscode.workspace.fs.readFile(traceUri);
    const sbom = { bomFormat: 'CycloneDX', specVersion: '1.7', version: 1, components: [{ type: 'library', name: 'left-pad', version: '1.3.0', purl: 'pkg:npm/left-pad@1.3.0' }] };
    const seen: Array<{ url: string; auth?: string }> = [];
    const server = createServer((req, res) => {
      seen.push({ url: req.url ?? '', auth: req.headers.authorization });
      const u = new URL(req.url ?? '/', 'http://x');
      if (u.searchParams.get('job_id') === '7' && u.pathname.endsWith('/sbom')) {
        res.writeHead(200, { 'content-type': 'application/vnd.cyclonedx+json; version=1.7' });
        res.end(JSON.stringify(sbom));
      } else if (u.searchParams.get('job_id') === '7') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(Buffer.from(trace));
      } else {
        res.writeHead(404, { 'content-type': 'application/problem+json' });
        res.end(JSON.stringify({ type: 'about:blank', title: 'Not Found', status: 404, detail: 'no such job' }));
      }
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    try {
      const port = (server.address() as { port: number }).port;
      await vscode.workspace.getConfiguration('netpolicy').update('baseUrl', `http://127.0.0.1:${port}`, vscode.ConfigurationTarget.Workspace);
      const saved = await vscode.commands.executeCommand<vscode.Uri>('netpolicy.fetchTrace', { repository: 'acme/app', jobId: '7' });
      assert(saved, 'nothing saved');
      assert(saved.path.endsWith('/.netpolicy/traces/acme_app-7.json'), saved.path);
      assert((await vscode.workspace.fs.readFile(saved)).byteLength === trace.byteLength, 'saved bytes differ');
      // The trace, then the job's SBOM, saved beside it (same base name, .cdx.json); no token was set, none sent.
      assert(seen.length === 2 && seen[0].url.includes('/network-trace?') && seen[1].url.includes('/sbom?') && seen.every((r) => r.url.includes('job_id=7') && r.auth === undefined), JSON.stringify(seen));
      const sbomSaved = saved.with({ path: saved.path.replace(/\.json$/, '.cdx.json') });
      assert(JSON.parse(new TextDecoder().decode(await vscode.workspace.fs.readFile(sbomSaved))).components[0].purl === 'pkg:npm/left-pad@1.3.0', 'the SBOM was not saved beside the trace');
      const missing = await vscode.commands.executeCommand<vscode.Uri | undefined>('netpolicy.fetchTrace', { repository: 'acme/app', jobId: '8' });
      assert(missing === undefined, 'a 404 saved something');
    } finally {
      server.close();
      await vscode.workspace.getConfiguration('netpolicy').update('baseUrl', undefined, vscode.ConfigurationTarget.Workspace);
    }
  });

  await test('a policy test file: its own language, its tests run by the server alone, a lens runs them again', async () => {
    const enc = new TextEncoder();
    await vscode.workspace.fs.writeFile(file('tested/ci.netpolicy.json'), enc.encode('{ "default": "deny", "presets": [], "sources": [{ "npm": { "urls": ["https://registry.npmjs.org"] } }] }\n'));
    const testsUri = file('tested/ci.tests.json');
    await vscode.workspace.fs.writeFile(testsUri, enc.encode(`${JSON.stringify({ tests: [
      { name: 'npm', http: { url: 'https://registry.npmjs.org/left-pad' }, expect: 'allow' },
      { name: 'yarn', http: { url: 'https://registry.yarnpkg.com/left-pad' }, expect: 'allow' },
    ] }, null, 2)}\n`));
    const doc = await vscode.workspace.openTextDocument(testsUri);
    await vscode.window.showTextDocument(doc);
    await until('the netpolicy-tests language', () => vscode.workspace.textDocuments.find((d) => d.uri.toString() === testsUri.toString())?.languageId === 'netpolicy-tests');
    const failing = await until('the failing test\'s error', () => { const d = netpolicyDiagnostics(testsUri).filter((x) => codeOf(x) === 'policy-test'); return d.length > 0 ? d : undefined; }, 30_000);
    assert(failing.length === 1 && /^yarn: expected allow/.test(failing[0].message), `policy-test diagnostics: ${failing.map((d) => d.message).join('; ')}`);
    assert(vscode.languages.getDiagnostics(testsUri).every((d) => d.source === 'netpolicy'), `a diagnostic from elsewhere: ${vscode.languages.getDiagnostics(testsUri).map((d) => `${d.source}: ${d.message}`).join('; ')}`);
    const lenses = await until('the lenses', async () => { const l = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', testsUri); return l?.some((x) => x.command?.title.startsWith('Run all')) ? l : undefined; });
    const titles = lenses.map((l) => l.command?.title);
    assert(titles.includes('Run all 2 tests (1 failed)') && titles.includes('✓ allow via /sources/0') && titles.includes('✗ expected allow, denied by default'), `lenses: ${titles.join(' | ')}`);
    const runAll = lenses.find((l) => l.command?.title.startsWith('Run all'))!.command!;
    await vscode.commands.executeCommand(runAll.command, ...(runAll.arguments ?? []));
    // With the server off, the file is JSON and the contributed tests schema checks it.
    const config = vscode.workspace.getConfiguration('netpolicy');
    await vscode.workspace.fs.writeFile(file('tested/bad.tests.json'), enc.encode('{ "tests": [{ "name": "x", "http": { "url": "https://a.example" }, "expect": "maybe" }] }\n'));
    const bad = file('tested/bad.tests.json');
    await config.update('server.enable', false, vscode.ConfigurationTarget.Workspace);
    try {
      await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(bad));
      await until('the test file in json mode', () => vscode.workspace.textDocuments.find((d) => d.uri.toString() === bad.toString())?.languageId === 'json');
      const found = await until('JSON schema diagnostics on the test file', () => { const d = vscode.languages.getDiagnostics(bad).filter((x) => x.source !== 'netpolicy'); return d.length > 0 ? d : undefined; }, 30_000);
      assert(found.some((d) => /allow|deny|not accepted|enum/i.test(d.message)), `JSON findings: ${found.map((d) => d.message).join('; ')}`);
    } finally {
      await config.update('server.enable', undefined, vscode.ConfigurationTarget.Workspace);
    }
    await until('the test file back in netpolicy-tests', () => vscode.workspace.textDocuments.find((d) => d.uri.toString() === bad.toString())?.languageId === 'netpolicy-tests', 30_000);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  await test('with the server off, policy files are JSON and the contributed schema validates them', async () => {
    const config = vscode.workspace.getConfiguration('netpolicy');
    await config.update('server.enable', false, vscode.ConfigurationTarget.Workspace);
    try {
      const doc = await vscode.workspace.openTextDocument(policyUri);
      await vscode.window.showTextDocument(doc);
      await until('the policy in json mode', () => vscode.workspace.textDocuments.find((d) => d.uri.toString() === policyUri.toString())?.languageId === 'json');
      await until('netpolicy diagnostics cleared', () => netpolicyDiagnostics(policyUri).length === 0);
      // VS Code's JSON support now reports the schema's findings (e.g. the unknown property `sourcse`).
      const schemaFindings = await until('JSON schema diagnostics', () => { const d = vscode.languages.getDiagnostics(policyUri).filter((x) => x.source !== 'netpolicy'); return d.length > 0 ? d : undefined; }, 30_000);
      assert(schemaFindings.some((d) => /sourcse/.test(d.message) || /not allowed/i.test(d.message)), `JSON findings: ${schemaFindings.map((d) => d.message).join('; ')}`);
    } finally {
      await config.update('server.enable', undefined, vscode.ConfigurationTarget.Workspace);
    }
    await until('back in netpolicy with its diagnostics', () => vscode.workspace.textDocuments.find((d) => d.uri.toString() === policyUri.toString())?.languageId === 'netpolicy' && netpolicyDiagnostics(policyUri).length > 0 && vscode.languages.getDiagnostics(policyUri).every((d) => d.source === 'netpolicy'), 30_000);
  });

  await test('Restart Language Server: diagnostics again, timed once VS Code has settled', async () => {
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(policyUri));
    await until('policy diagnostics before the restart', () => netpolicyDiagnostics(policyUri).length > 0);
    let cleared = false;
    let back = 0;
    const sub = vscode.languages.onDidChangeDiagnostics(() => {
      const n = netpolicyDiagnostics(policyUri).length;
      if (n === 0) cleared = true;
      else if (cleared && !back) back = Date.now();
    });
    const t0 = Date.now();
    await vscode.commands.executeCommand('netpolicy.restartServer');
    await until('diagnostics after the restart', () => back > 0);
    sub.dispose();
    // A server start plus the first diagnostics, without VS Code's own start-up competing for the CPU.
    figures.settledServerStartToDiagnosticsMs = back - t0;
  });

  await test('the server (restarted) runs with the Node options serverNodeOptions gives for this machine', async () => {
    const expected = serverNodeOptions(availableParallelism());
    const module = join(vscode.extensions.getExtension('netpolicy.netpolicy')!.extensionPath, 'dist', 'server.js');
    // The command lines of the processes running the extension's server (Linux: /proc).
    const servers = await until('the server process', () => {
      const found: string[][] = [];
      for (const pid of readdirSync('/proc')) {
        if (!/^\d+$/.test(pid)) continue;
        let args: string[];
        try {
          args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
        } catch {
          continue; // gone meanwhile, or not ours to read
        }
        if (args.includes(module)) found.push(args);
      }
      return found.length > 0 ? found : undefined;
    });
    for (const args of servers) for (const option of expected) assert(args.includes(option), `the server runs without ${option}: ${args.join(' ')}`);
  });

  await test('every command is registered', async () => {
    const all = await vscode.commands.getCommands(true);
    for (const c of ['explainTrace', 'fetchTrace', 'suggestPolicy', 'useTrace', 'setToken', 'signOut']) assert(all.includes(`netpolicy.${c}`), `netpolicy.${c} missing`);
  });

  const failed = results.filter((r) => !r.ok);
  const lines = results.map((r) => `${r.ok ? 'ok  ' : 'FAIL'} ${r.name} (${r.ms} ms)${r.error ? `\n     ${r.error.split('\n').join('\n     ')}` : ''}`);
  const summary = `NETPOLICY-INTEGRATION ${JSON.stringify({ passed: results.length - failed.length, failed: failed.length, figures })}`;
  console.log(`${lines.join('\n')}\n${summary}`);
  // The e2e script reads the results from the workspace (the extension host's console is not its).
  await vscode.workspace.fs.writeFile(file('.e2e-results.json'), new TextEncoder().encode(JSON.stringify({ results, figures }, null, 2)));
  if (failed.length) throw new Error(`${failed.length} of ${results.length} integration tests failed:\n${lines.join('\n')}`);
}
