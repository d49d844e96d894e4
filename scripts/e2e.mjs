// `npm run test:e2e`: the VS Code extension in a real VS Code (code-server 4.100.3, Debian's
// chromium driven by playwright-core). Packages the .vsix, installs it into a fresh profile and
// checks what a person sees; then runs the extension-host integration tests
// (extension/test/integration). Screenshots and logs go to extension/test-artifacts/.
// Options: --no-package (use the existing extension/netpolicy.vsix), --only=ui|integration|web|trust|hostile|navigation, --keep,
// --update-screenshots (copy the README's screenshots from this run into extension/images/).
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { chromium } from 'playwright-core';
import { freshProfile, installCodeServer, installExtension, startCodeServer } from './e2e-code-server.mjs';
import { trust } from './e2e-trust.mjs';
import { hostile } from './e2e-hostile.mjs';
import { NAVIGATION_SCREENSHOTS, navigation } from './e2e-navigation.mjs';
import { reportFrame, workbench } from './e2e-workbench.mjs';

const root = new URL('..', import.meta.url).pathname;
const ext = join(root, 'extension');
const artifacts = join(ext, 'test-artifacts');
const args = process.argv.slice(2);
const only = args.find((a) => a.startsWith('--only='))?.slice(7);
const started = Date.now();
const say = (m) => console.log(`[e2e ${((Date.now() - started) / 1000).toFixed(1).padStart(5)} s] ${m}`);

rmSync(artifacts, { recursive: true, force: true });
mkdirSync(artifacts, { recursive: true });
const vsix = join(ext, 'netpolicy.vsix');
if (!args.includes('--no-package') || !existsSync(vsix)) {
  say('npm run package');
  const r = spawnSync('npm', ['run', '--silent', 'package'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  if (r.status !== 0) throw new Error('npm run package failed');
}
const vsixBytes = statSync(vsix).size;
say(`.vsix: ${(vsixBytes / 1024).toFixed(0)} KiB (budget 1536 KiB)`);
const entry = installCodeServer(say);

const work = mkdtempSync(join(tmpdir(), 'netpolicy-e2e-'));
const fixture = (p) => readFileSync(join(root, 'fixtures', p), 'utf8');

/** The workspace a user would have: a policy with problems, a valid policy with a trace, and other JSON. */
function writeWorkspace(dir) {
  mkdirSync(join(dir, 'traces'), { recursive: true });
  const problems = fixture('policies/problems.netpolicy.json');
  writeFileSync(join(dir, 'ci.netpolicy.json'), problems);
  // The same text in a file that is not a policy: VS Code's JSON support and netpolicy leave it alone.
  writeFileSync(join(dir, 'other.json'), problems);
  writeFileSync(join(dir, 'explain.netpolicy.json'), fixture('traces/denials/policy.netpolicy.json'));
  writeFileSync(join(dir, 'traces/denials.json'), fixture('traces/denials/trace.json'));
  return dir;
}

function userSettings(profile, extra = {}) {
  writeFileSync(join(profile.userData, 'User/settings.json'), JSON.stringify({
    'workbench.startupEditor': 'none',
    'workbench.tips.enabled': false,
    'workbench.enableExperiments': false,
    'telemetry.telemetryLevel': 'off',
    'extensions.autoUpdate': false,
    'extensions.autoCheckUpdates': false,
    'update.mode': 'none',
    'security.workspace.trust.enabled': false,
    'editor.hover.delay': 100,
    'editor.lightbulb.enabled': 'on',
    'window.commandCenter': false,
    'chat.commandCenter.enabled': false,
    'workbench.secondarySideBar.defaultVisibility': 'hidden',
    ...extra,
  }, null, 2));
}

async function launchBrowser() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-dev-shm-usage'],
  });
}

let currentPage;
const shot = (page, name) => page.screenshot({ path: join(artifacts, `${name}.png`) });
const failures = [];
const passes = [];
async function step(name, fn) {
  const t = Date.now();
  try {
    await fn();
    passes.push(name);
    say(`ok   ${name} (${Date.now() - t} ms)`);
  } catch (e) {
    failures.push(`${name}: ${e?.message ?? e}`);
    await currentPage?.screenshot({ path: join(artifacts, `failed-${name.replace(/[^a-z0-9]+/gi, '-')}.png`) }).catch(() => undefined);
    say(`FAIL ${name}: ${e?.stack ?? e}`);
  }
}

// ---------------------------------------------------------------- the browser build (web worker extension host)
async function web() {
  const ws = writeWorkspace(join(work, 'ws-web'));
  const profile = freshProfile(work);
  userSettings(profile, { 'remote.extensionKind': { 'netpolicy.netpolicy': ['web'] } });
  installExtension(entry, profile, vsix);
  const server = await startCodeServer(entry, profile, { logFile: join(artifacts, 'code-server-web.log') });
  const browser = await launchBrowser();
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    currentPage = page;
    const workers = [];
    page.on('worker', (w) => workers.push(w.url()));
    const logs = [];
    page.on('console', (m) => logs.push(`console.${m.type()}: ${m.text()}`));
    page.on('pageerror', (e) => logs.push(`pageerror: ${e.message}`));
    process.on('exit', () => writeFileSync(join(artifacts, 'web-browser.log'), logs.join('\n')));
    await page.goto(`${server.url}/?folder=${encodeURIComponent(ws)}`);
    await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
    await step('browser build: squiggles from the server in a web worker', async () => {
      await page.keyboard.press('Control+P');
      await page.locator('.quick-input-widget input').fill('ci.netpolicy.json');
      await page.locator('.quick-input-list .monaco-list-row').filter({ hasText: 'ci.netpolicy.json' }).first().waitFor();
      await page.keyboard.press('Enter');
      await page.locator('.editor-instance .squiggly-error').first().waitFor({ timeout: 30_000 });
      // Not the desktop server: no Node process runs this profile's dist/server.js.
      const nodeServers = spawnSync('ps', ['-eo', 'args'], { encoding: 'utf8' }).stdout.split('\n').filter((l) => l.includes(profile.extensions) && l.includes('dist/server.js'));
      if (nodeServers.length > 0) throw new Error(`the desktop server runs: ${nodeServers.join('; ')}`);
      if (workers.length === 0) throw new Error('no web worker was started');
      await shot(page, '10-web-worker');
    });
  } finally {
    await browser.close();
    await server.stop();
  }
}

// ---------------------------------------------------------------- integration tests (extension host)
async function integration() {
  const ws = writeWorkspace(join(work, 'ws-integration'));
  const profile = freshProfile(work);
  userSettings(profile);
  const testsDir = join(work, 'integration');
  await build({ entryPoints: [join(ext, 'test/integration/index.ts')], bundle: true, outfile: join(testsDir, 'index.js'), format: 'cjs', platform: 'node', target: 'node20', external: ['vscode'], logLevel: 'warning' });
  const server = await startCodeServer(entry, profile, { logFile: join(artifacts, 'code-server-integration.log') });
  const browser = await launchBrowser();
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const logs = [];
    let exitCode;
    await page.exposeFunction('codeAutomationLog', (type, a) => { logs.push(`${type}: ${Array.isArray(a) ? a.join(' ') : a}`); });
    await page.exposeFunction('codeAutomationExit', (code) => { exitCode = code; });
    page.on('console', (m) => logs.push(`console.${m.type()}: ${m.text()}`));
    const remote = (p) => `vscode-remote://127.0.0.1:${server.port}${p}`;
    const payload = JSON.stringify([['extensionDevelopmentPath', remote(ext)], ['extensionTestsPath', remote(join(testsDir, 'index.js'))]]);
    await page.goto(`${server.url}/?folder=${encodeURIComponent(ws)}&payload=${encodeURIComponent(payload)}`);
    const deadline = Date.now() + 180_000;
    while (exitCode === undefined && Date.now() < deadline) await page.waitForTimeout(200);
    writeFileSync(join(artifacts, 'integration-browser.log'), logs.join('\n'));
    const resultsFile = join(ws, '.e2e-results.json');
    const results = existsSync(resultsFile) ? JSON.parse(readFileSync(resultsFile, 'utf8')) : undefined;
    if (results) {
      copyFileSync(resultsFile, join(artifacts, 'integration-results.json'));
      for (const r of results.results) (r.ok ? passes : failures).push(`integration: ${r.name}${r.ok ? '' : `: ${r.error}`}`);
      for (const r of results.results) say(`${r.ok ? 'ok  ' : 'FAIL'} integration: ${r.name} (${r.ms} ms)${r.ok ? '' : `\n${r.error}`}`);
      Object.assign(figures, results.figures);
    }
    if (exitCode === undefined) failures.push('integration: the tests did not finish within 180 s');
    else if (exitCode !== 0 && !results) failures.push(`integration: exit code ${exitCode} without results (see integration-browser.log)`);
  } finally {
    await browser.close();
    await server.stop();
  }
}

/** A stand-in for the job provenance service: job 7 of acme/app for the token `good-token`. */
async function fakeService(trace) {
  const seen = [];
  const server = createHttpServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    seen.push({ path: url.pathname, auth: req.headers.authorization });
    const problem = (status, title) => {
      res.writeHead(status, { 'content-type': 'application/problem+json' });
      res.end(JSON.stringify({ type: 'about:blank', title, status, detail: title }));
    };
    if (req.headers.authorization !== 'Bearer good-token') return problem(401, 'the token is not valid');
    if (url.searchParams.get('repo') !== 'acme/app' || url.searchParams.get('job_id') !== '7') return problem(404, 'no such job');
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(trace);
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${server.address().port}`, seen, close: () => new Promise((r) => server.close(r)) };
}

// ---------------------------------------------------------------- what a person sees (workbench UI)
async function ui() {
  const ws = writeWorkspace(join(work, 'ws-ui'));
  const profile = freshProfile(work);
  const service = await fakeService(fixture('traces/denials/trace.json'));
  userSettings(profile, { 'netpolicy.baseUrl': service.url });
  say(installExtension(entry, profile, vsix).split('\n').pop());
  const server = await startCodeServer(entry, profile, { logFile: join(artifacts, 'code-server-ui.log') });
  const browser = await launchBrowser();
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    currentPage = page;
    const t0 = Date.now();
    await page.goto(`${server.url}/?folder=${encodeURIComponent(ws)}`);
    await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
    await page.locator('.explorer-folders-view .monaco-list-row').first().waitFor({ timeout: 30_000 });

    const { quickOpen, palette, input, fetchJob } = workbench(page);
    const goTo = async (line, column) => {
      await page.keyboard.press('Control+G');
      await page.locator('.quick-input-widget input').waitFor();
      await page.keyboard.type(`${line}:${column}`);
      await page.keyboard.press('Enter');
    };
    const editorText = async () => (await page.locator('.editor-instance .view-lines').first().innerText()).replace(/\u00a0/g, ' ');

    await step('squiggles on a policy with problems', async () => {
      await quickOpen('ci.netpolicy.json');
      await page.locator('.editor-instance .squiggly-error').first().waitFor({ timeout: 30_000 });
      figures.openToSquigglesInBrowserMs = Date.now() - t0;
      await page.locator('.editor-instance .squiggly-warning').first().waitFor();
      const nodeServers = spawnSync('ps', ['-eo', 'args'], { encoding: 'utf8' }).stdout.split('\n').filter((l) => l.includes(profile.extensions) && l.includes('dist/server.js'));
      if (nodeServers.length !== 1) throw new Error(`expected one Node server process over IPC, found ${nodeServers.length}`);
      if (!nodeServers[0].includes('--node-ipc')) throw new Error(`server not over IPC: ${nodeServers[0]}`);
      const lang = await page.locator('.statusbar-item[id="status.editor.mode"]').innerText();
      if (!/netpolicy/i.test(lang)) throw new Error(`language mode shows ${lang}`);
      await shot(page, '01-squiggles');
    });

    await step('Problems lists each mistake once, with its code', async () => {
      await page.keyboard.press('Control+Shift+M');
      await page.locator('.markers-panel').waitFor();
      // The list is virtual: maximize the panel so that every row is rendered.
      await palette('View: Toggle Maximized Panel');
      await page.locator('.markers-panel .monaco-list-row').nth(11).waitFor({ timeout: 15_000 });
      const texts = await page.locator('.markers-panel .monaco-list-row').allInnerTexts();
      const body = texts.join('\n');
      const codes = ['unknown-preset', 'source-kind', 'insecure-url', 'wildcard-push', 'missing-target', 'invalid-host-pattern', 'cidr-host-bits', 'metadata-address', 'invalid-port', 'ipv6-not-allowed', 'unknown-property'];
      for (const c of codes) {
        const n = texts.filter((t) => t.includes(`netpolicy(${c})`) || t.includes(`netpolicy (${c})`) || new RegExp(`\\b${c}\\b`).test(t.split('\n').slice(-2).join(' '))).length;
        if (n !== 1) throw new Error(`${c} appears ${n} times in Problems:\n${body}`);
      }
      if (/\bjson\b\s*\(|Comments are not permitted|Property .* is not allowed/i.test(body)) throw new Error(`a JSON-support entry in Problems:\n${body}`);
      if (texts.length !== 12) throw new Error(`${texts.length - 1} entries in Problems, expected 11:\n${body}`);
      await shot(page, '02-problems');
      await palette('View: Toggle Maximized Panel');
      await page.keyboard.press('Control+Shift+M');
    });

    await step('a quick fix from the lightbulb', async () => {
      await page.locator('.editor-instance .view-lines').first().click();
      await goTo(3, 16);
      await page.keyboard.press('Control+.');
      const item = page.locator('.action-widget .monaco-list-row').filter({ hasText: 'pypi' }).first();
      await item.waitFor({ timeout: 15_000 });
      await shot(page, '03-quick-fix');
      // The menu takes keys (a pointer block covers the page): move to the fix, apply it with Enter.
      for (let i = 0; i < 10 && !(await page.locator('.action-widget .monaco-list-row.focused').filter({ hasText: 'pypi' }).count()); i++) await page.keyboard.press('ArrowDown');
      await page.keyboard.press('Enter');
      await page.waitForFunction(() => [...document.querySelectorAll('.editor-instance .view-line')].some((l) => l.textContent.includes('["pypi"]')), undefined, { timeout: 10_000 });
      if ((await editorText()).includes('pypy')) throw new Error('pypy still there');
    });

    await step('completion offers preset names', async () => {
      // Start a second preset: `, "` after "pypi" (the quote triggers completion).
      await goTo(3, 21);
      await page.keyboard.type(', "');
      const widget = page.locator('.suggest-widget .monaco-list-row');
      await widget.filter({ hasText: 'debian' }).first().waitFor({ timeout: 15_000 });
      const labels = await widget.allInnerTexts();
      for (const n of ['alpine', 'cargo', 'debian']) if (!labels.some((l) => l.includes(n))) throw new Error(`no ${n} in ${labels.join(' | ')}`);
      await shot(page, '04-completion');
      // The list is virtual: filter to see one further down.
      await page.keyboard.type('np');
      await widget.filter({ hasText: 'npm' }).first().waitFor({ timeout: 5_000 });
      await page.keyboard.press('Escape');
      for (let i = 0; i < 3; i++) await page.keyboard.press('Control+Z');
    });

    await step('hover text', async () => {
      const key = page.locator('.editor-instance .view-line span span').filter({ hasText: '"default"' }).first();
      await key.hover();
      const hover = page.locator('.monaco-hover:not(.hidden) .hover-contents, .monaco-hover-content .hover-contents').first();
      await hover.waitFor({ timeout: 15_000 });
      const text = await hover.innerText();
      if (!/deny|allow/i.test(text)) throw new Error(`hover: ${text}`);
      await shot(page, '05-hover');
      await page.mouse.move(5, 790);
    });

    await step('outline', async () => {
      await palette('Explorer: Focus on Outline View');
      const rows = page.locator('.outline-pane .monaco-list-row, [id="outline"] .monaco-list-row');
      await rows.filter({ hasText: 'sources' }).first().waitFor({ timeout: 15_000 });
      await rows.filter({ hasText: 'presets' }).first().waitFor();
      await shot(page, '06-outline');
    });

    await step('explain report in a webview, with a working reveal', async () => {
      await quickOpen('explain.netpolicy.json');
      await palette('netpolicy: Explain Trace Against This Policy');
      const pick = page.locator('.quick-input-list .monaco-list-row').filter({ hasText: 'denials.json' }).first();
      await pick.waitFor({ timeout: 15_000 });
      await pick.click();
      const frame = await reportFrame(page, 20_000);
      const heading = await frame.locator('#denials').innerText();
      if (!/Denials \([1-9]/.test(heading)) throw new Error(`heading: ${heading}`);
      await shot(page, '07-explain');
      const reveal = frame.locator('button[data-action="reveal"]').first();
      const label = await reveal.innerText();
      // From the keyboard: the report focuses its first button; Enter activates it.
      await reveal.focus();
      await page.keyboard.press('Enter');
      await page.waitForFunction(() => /selected/.test(document.querySelector('[id="status.editor.selection"]')?.textContent ?? ''), undefined, { timeout: 10_000 });
      await shot(page, '08-explain-reveal');
      say(`     revealed: ${label}; status: ${await page.locator('[id="status.editor.selection"]').innerText()}`);
    });

    await step('a JSON file that is not a policy is left alone', async () => {
      await page.keyboard.press('Control+K');
      await page.keyboard.press('Control+W');
      await quickOpen('other.json');
      const lang = page.locator('.statusbar-item[id="status.editor.mode"]');
      await page.waitForFunction(() => /^JSON$/i.test(document.querySelector('[id="status.editor.mode"]')?.textContent?.trim() ?? ''), undefined, { timeout: 10_000 });
      // VS Code's JSON support is live on the file once the Outline (still shown) lists its members...
      // (JSON's outline says "presets", netpolicy's said "presets 1 enabled").
      await page.locator('.outline-pane .monaco-list-row, [id="outline"] .monaco-list-row').filter({ hasText: 'presets', hasNotText: 'enabled' }).first().waitFor({ timeout: 15_000 });
      // ...and absence has no event to wait for: the policy got its squiggles within ~1 s of
      // opening, so give other.json that long again to (wrongly) get any.
      await page.waitForTimeout(1000);
      const squiggles = await page.locator('.editor-instance .squiggly-error, .editor-instance .squiggly-warning').count();
      if (squiggles !== 0) throw new Error(`${squiggles} squiggles on other.json (${await lang.innerText()})`);
      await page.keyboard.press('Control+Shift+M');
      await page.locator('.markers-panel').waitFor();
      const problems = await page.locator('.markers-panel .monaco-list-row').allInnerTexts();
      if (problems.some((t) => t.includes('other.json'))) throw new Error(`Problems has other.json: ${problems.join(' | ')}`);
      await shot(page, '09-other-json');
      await page.keyboard.press('Control+Shift+M');
    });


    await step('Fetch Job Trace: a refused token says so, then the trace is saved', async () => {
      await palette('netpolicy: Set API Token');
      await input('wrong-token', 'API token');
      await page.locator('.notification-toast').filter({ hasText: 'API token saved' }).first().waitFor();
      await fetchJob();
      const toast = page.locator('.notification-toast').filter({ hasText: '401' }).first();
      await toast.waitFor({ timeout: 20_000 });
      await page.locator('.notification-toast').filter({ hasText: 'refused the API token' }).first().waitFor();
      const text = await toast.innerText();
      if (text.includes('wrong-token')) throw new Error('the token appears in the message');
      if (!/Set API Token/.test(text)) throw new Error(`no action offered: ${text}`);
      if (!service.seen.some((r) => r.auth === 'Bearer wrong-token')) throw new Error(`the token was not sent: ${JSON.stringify(service.seen)}`);
      await toast.locator('.monaco-button, .action-label').filter({ hasText: 'Set API Token' }).first().waitFor();
      await shot(page, '11-fetch-401');
      await palette('Notifications: Clear All Notifications');
      await palette('netpolicy: Set API Token');
      await input('good-token', 'API token');
      // A second token for the origin says "replaced". After Clear All, VS Code sometimes puts a
      // notification in the notification center without a toast: look there when no toast shows.
      const replaced = page.locator('.notification-toast').filter({ hasText: 'API token replaced' }).first();
      if (!(await replaced.waitFor({ timeout: 5_000 }).then(() => true, () => false))) {
        await palette('Notifications: Show Notifications');
        await page.locator('.notifications-center .notification-list-item').filter({ hasText: 'API token replaced' }).first().waitFor();
        await palette('Notifications: Hide Notifications');
        say('     "API token replaced" was in the notification center (no toast)');
      }
      await fetchJob();
      const saved = join(ws, '.netpolicy/traces/acme_app-7.json');
      const deadline = Date.now() + 20_000;
      while (!existsSync(saved) && Date.now() < deadline) await page.waitForTimeout(100);
      if (!existsSync(saved)) throw new Error(`${saved} was not written`);
      if (readFileSync(saved, 'utf8') !== fixture('traces/denials/trace.json')) throw new Error('the saved trace differs from what the service sent');
      if (!service.seen.some((r) => r.auth === 'Bearer good-token')) throw new Error(`the new token was not sent: ${JSON.stringify(service.seen.map((r) => r.auth === undefined ? 'none' : 'a token'))}`);
      await page.locator('.notification-toast').filter({ hasText: 'acme_app-7.json' }).first().waitFor({ timeout: 10_000 });
      await shot(page, '12-fetch-saved');
    });
  } finally {
    await browser.close();
    await server.stop();
    await service.close();
  }
}

const figures = { vsixBytes };
try {
  if (only === undefined || only === 'ui') await ui();
  if (only === undefined || only === 'integration') await integration();
  if (only === undefined || only === 'web') await web();
  if (only === undefined || only === 'trust') {
    await trust({ entry, vsix, work, step, launchBrowser, userSettings, fixture, say, shot, setPage: (p) => { currentPage = p; } });
  }
  if (only === undefined || only === 'hostile') {
    await hostile({ entry, vsix, work, step, launchBrowser, userSettings, fixture, say, shot, setPage: (p) => { currentPage = p; }, figures });
  }
  if (only === undefined || only === 'navigation') {
    await navigation({ entry, vsix, work, step, launchBrowser, userSettings, fixture, say, shot, setPage: (p) => { currentPage = p; }, artifacts });
  }
} catch (e) {
  failures.push(`harness: ${e?.stack ?? e}`);
} finally {
  if (!args.includes('--keep')) rmSync(work, { recursive: true, force: true });
}
figures.totalSeconds = Math.round((Date.now() - started) / 100) / 10;
writeFileSync(join(artifacts, 'summary.json'), JSON.stringify({ passes, failures, figures }, null, 2));
say(`figures: ${JSON.stringify(figures)}`);
if (vsixBytes > 1.5 * 1024 * 1024) failures.push(`.vsix is ${vsixBytes} bytes, over the 1.5 MB budget`);
// The budget (activation to first diagnostics < 1 s) is held on the settled measure: a server
// (re)start plus first diagnostics once VS Code has started. The cold figure, taken while
// VS Code itself is starting on the same cores, is reported beside it.
const budgeted = figures.settledServerStartToDiagnosticsMs;
if (budgeted !== undefined && budgeted + (figures.activateMs ?? 0) >= 1000) failures.push(`activation to first diagnostics took ${budgeted + (figures.activateMs ?? 0)} ms once VS Code had settled (budget 1000 ms)`);
if (args.includes('--update-screenshots') && failures.length === 0) {
  const uiShots = [['01-squiggles', 'squiggles'], ['02-problems', 'problems'], ['03-quick-fix', 'quick-fix'], ['04-completion', 'completion'], ['08-explain-reveal', 'explain']];
  for (const [from, to] of [...(only === 'navigation' ? [] : uiShots), ...(only === undefined || only === 'navigation' ? NAVIGATION_SCREENSHOTS : [])]) {
    copyFileSync(join(artifacts, `${from}.png`), join(ext, 'images', `${to}.png`));
  }
  say('README screenshots updated in extension/images/');
}
console.log(`\n${passes.length} passed, ${failures.length} failed${failures.length ? `:\n  ${failures.join('\n  ')}` : ''}\nartifacts: ${artifacts}`);
process.exit(failures.length ? 1 : 0);
