// Moving around a policy in a real VS Code (code-server), as a person sees it (issue 30 item 8):
// 1. a policy test file (*.tests.json): its failing test in Problems, once; a lens per test and
//    "Run all N tests", whose click runs the tests and says the outcome;
// 2. Go to Definition (F12) on a catalog preset opens the catalog at its entry, on a built-in
//    preset the read-only netpolicy-preset: view;
// 3. Find All References (Shift+F12) on a rule with a trace in force: a peek listing places in
//    the trace file; a count lens opens the same peek;
// 4. inlay hints on a CIDR and a port.
// Every wait is for a condition (generous timeouts only catch hangs). Screenshots nav-*.png go to
// extension/test-artifacts/; with --update-screenshots, e2e.mjs copies NAVIGATION_SCREENSHOTS into
// extension/images/ (docs/editor.md shows them).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freshProfile, installExtension, startCodeServer } from './e2e-code-server.mjs';

const CATALOG = `{
  "presets": [
    {
      "name": "internal-pypi",
      "description": "Our PyPI mirror",
      "known": { "sources": [{ "pypi": { "urls": ["https://pypi.corp.example/simple"] } }] }
    }
  ]
}
`;

/**
 * The screenshots docs/editor.md and the README show (test-artifacts name -> extension/images
 * name). In images/editor/, which the .vsix leaves out (.vscodeignore takes images/*.png only):
 * the README links them by URL, and the package stays within its budget.
 */
export const NAVIGATION_SCREENSHOTS = [
  ['nav-1-test-file', 'editor/policy-tests'],
  ['nav-2-run-all', 'editor/run-all-tests'],
  ['nav-3-definition-catalog', 'editor/definition-catalog'],
  ['nav-4-definition-preset-view', 'editor/definition-preset-view'],
  ['nav-5-references', 'editor/references'],
  ['nav-7-inlay-hints', 'editor/inlay-hints'],
];

/** Line and column (1-based, as Ctrl+G takes them) of the `nth` occurrence of `needle` in `text`, plus `delta` characters. */
function lineColumn(text, needle, delta = 1, nth = 0) {
  let at = -1;
  for (let k = 0; k <= nth; k++) at = text.indexOf(needle, at + 1);
  if (at < 0) throw new Error(`${needle} is not in the text`);
  const before = text.slice(0, at + delta).split('\n');
  return [before.length, before[before.length - 1].length + 1];
}

/**
 * The workspace: a policy with a built-in and a catalog preset, a CIDR and a port; its tests (one
 * failing); a trace in force. `files: false` (the web, where the server reads no files): no
 * catalog, no trace, the built-in preset alone.
 */
function writeWorkspace(dir, fixture, { files = true } = {}) {
  mkdirSync(join(dir, 'presets'), { recursive: true });
  mkdirSync(join(dir, 'traces'), { recursive: true });
  const policy = JSON.parse(fixture('traces/denials/policy.netpolicy.json'));
  policy.presets = files ? ['pypi', 'internal-pypi'] : ['pypi'];
  const policyText = `${JSON.stringify(policy, null, 2)}\n`;
  // The fixture's tests, one a line (every lens on screen), and a failing one second.
  const fixtureTests = fixture('traces/denials/policy.tests.json');
  const first = fixtureTests.indexOf('\n', fixtureTests.indexOf('"npm registry"')) + 1;
  const testsText = `${fixtureTests.slice(0, first)}    { "name": "the yarn mirror", "http": { "url": "https://registry.yarnpkg.com/left-pad" }, "expect": "allow" },\n${fixtureTests.slice(first)}`;
  writeFileSync(join(dir, 'ci.netpolicy.json'), policyText);
  writeFileSync(join(dir, 'ci.tests.json'), testsText);
  if (files) {
    writeFileSync(join(dir, 'presets/catalog.json'), CATALOG);
    writeFileSync(join(dir, 'traces/denials.json'), fixture('traces/denials/trace.json'));
    writeFileSync(join(dir, 'netpolicy.config.json'), JSON.stringify({ presetCatalog: 'presets/catalog.json', traces: ['traces'] }, null, 2));
  }
  return { policyText, tests: JSON.parse(testsText).tests.length };
}

/** The gestures these steps make on the workbench, and the conditions they wait for. */
function pageHelpers(page) {
  const activeTab = (name) => page.locator(`.tab.active[aria-label*="${name}"], .tab.active:has-text("${name}")`).first();
  const lens = (text) => page.locator('.editor-instance .codelens-decoration').filter({ hasText: text }).first();
  const linesMatch = (fn, arg, timeout = 15_000) => page.waitForFunction(fn, arg, { timeout });
  return {
    activeTab,
    lens,
    /**
     * Shows a file of the folder's top level: its tab when it is open, else a double click in the
     * Explorer (kept open, not a preview that the next file replaces). Quick open's Enter may take a
     * recent file listed before the filter applies.
     */
    async show(name) {
      const tab = page.locator('.tab').filter({ hasText: name }).first();
      if (await tab.count()) await tab.click();
      else await page.locator('.explorer-folders-view .monaco-list-row').filter({ hasText: name }).first().dblclick();
      await activeTab(name).waitFor({ timeout: 15_000 });
    },
    /** Puts the cursor at [line, column] (Ctrl+G) and waits until the status bar says it is there. */
    async goTo([line, column]) {
      await page.locator('.editor-instance .view-lines').first().click();
      await page.keyboard.press('Control+G');
      await page.locator('.quick-input-widget input').waitFor();
      await page.keyboard.type(`${line}:${column}`);
      await page.keyboard.press('Enter');
      await this.cursorAt(`Ln ${line}, Col ${column}`);
    },
    cursorAt: (want) => linesMatch((w) => (document.querySelector('[id="status.editor.selection"]')?.textContent ?? '').includes(w), want),
    /** Waits until a line of the editor (or of a peek's editor) matches `re`. */
    lineShown: (re, within = '.editor-instance') => linesMatch(([source, flags, sel]) => [...document.querySelectorAll(`${sel} .view-line`)].some((l) => new RegExp(source, flags).test(l.textContent.replace(/\u00a0/g, ' '))), [re.source, re.flags, within]),
  };
}

export async function navigation({ entry, vsix, work, step, launchBrowser, userSettings, fixture, say, shot, setPage, artifacts }) {
  const ws = join(work, 'ws-navigation');
  const { policyText, tests } = writeWorkspace(ws, fixture);
  const profile = freshProfile(work);
  userSettings(profile);
  installExtension(entry, profile, vsix);
  const server = await startCodeServer(entry, profile, { logFile: join(artifacts, 'code-server-navigation.log') });
  const browser = await launchBrowser();
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    setPage(page);
    const w = pageHelpers(page);
    await page.goto(`${server.url}/?folder=${encodeURIComponent(ws)}`);
    await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
    await page.locator('.explorer-folders-view .monaco-list-row').first().waitFor({ timeout: 30_000 });
    const peek = page.locator('.zone-widget .peekview-widget, .reference-zone-widget').first();

    await step('policy tests: a failing test once in Problems, a lens per test and "Run all"', async () => {
      await w.show('ci.tests.json');
      // The language the extension gives test files (VS Code shows Plain Text until it applies).
      await page.locator('.statusbar-item[id="status.editor.mode"]').filter({ hasText: 'netpolicy Policy Tests' }).waitFor({ timeout: 30_000 });
      await w.lens(`Run all ${tests} tests (1 failed)`).waitFor({ timeout: 60_000 });
      await w.lens('✓ allow via /sources/0').waitFor();
      await w.lens('✗ expected allow, denied by default').waitFor();
      await page.locator('.editor-instance .squiggly-error').first().waitFor({ timeout: 10_000 });
      await page.keyboard.press('Control+Shift+M');
      const rows = page.locator('.markers-panel .monaco-list-row');
      await rows.filter({ hasText: 'the yarn mirror' }).first().waitFor({ timeout: 15_000 });
      const texts = await rows.allInnerTexts();
      // One file row and one problem: not a second from VS Code's JSON support.
      const problems = texts.filter((t) => !/ci\.tests\.json/.test(t.split('\n')[0]) || /policy-test/.test(t));
      if (problems.length !== 1 || !/policy-test/.test(problems[0])) throw new Error(`Problems:\n${texts.join('\n')}`);
      if (texts.some((t) => /\bjson\b\s*\(|Property .* is not allowed|Comments are not permitted/i.test(t))) throw new Error(`a JSON-support entry in Problems:\n${texts.join('\n')}`);
      await shot(page, 'nav-1-test-file');
      await page.keyboard.press('Control+Shift+M');
    });

    await step('policy tests: a click on "Run all" runs them and says the outcome', async () => {
      await w.lens('Run all').locator('a').first().click();
      await page.locator('.statusbar-item').filter({ hasText: `1 of ${tests} tests of ci.tests.json failed` }).first().waitFor({ timeout: 30_000 });
      await shot(page, 'nav-2-run-all');
    });

    await step('definition: F12 on a catalog preset opens the catalog at its entry', async () => {
      await w.show('ci.netpolicy.json');
      await w.goTo(lineColumn(policyText, '"internal-pypi"', 3));
      await page.keyboard.press('F12');
      await w.activeTab('catalog.json').waitFor({ timeout: 20_000 });
      await w.cursorAt(`Ln ${lineColumn(CATALOG, '"name": "internal-pypi"')[0]},`);
      await shot(page, 'nav-3-definition-catalog');
    });

    await step('definition: F12 on a built-in preset opens its read-only netpolicy-preset: view', async () => {
      await w.show('ci.netpolicy.json');
      await w.goTo(lineColumn(policyText, '"pypi"', 3));
      await page.keyboard.press('F12');
      await w.activeTab('pypi.json').waitFor({ timeout: 20_000 });
      await w.lineShown(/"name":\s*"pypi"/);
      await shot(page, 'nav-4-definition-preset-view');
    });

    await step('references: Shift+F12 on a rule lists the observations it decided in the trace file, and its tests', async () => {
      await w.show('ci.netpolicy.json');
      // The trace is evaluated: its count lenses are there.
      await w.lens('traced accesses decided here').waitFor({ timeout: 60_000 });
      await w.goTo(lineColumn(policyText, '"https://registry.npmjs.org"', 5));
      await page.keyboard.press('Shift+F12');
      await peek.waitFor({ timeout: 20_000 });
      const tree = peek.locator('.monaco-list-row');
      await tree.filter({ hasText: 'denials.json' }).first().waitFor({ timeout: 20_000 });
      const rows = await tree.allInnerTexts();
      if (!rows.some((t) => /ci\.tests\.json/.test(t))) throw new Error(`no test file in the peek: ${rows.join(' | ')}`);
      // The trace's entry: a click on the file's row expands it, the keyboard selects its observation,
      // and the peek's editor shows it in the trace file.
      await tree.filter({ hasText: 'denials.json' }).first().click();
      const title = peek.locator('.peekview-title').filter({ hasText: 'denials.json' });
      for (const key of ['ArrowRight', 'ArrowDown', 'ArrowDown', 'ArrowDown']) {
        if (await title.waitFor({ timeout: 3_000 }).then(() => true, () => false)) break;
        await page.keyboard.press(key);
      }
      await title.waitFor({ timeout: 10_000 });
      await w.lineShown(/observed_at/, '.peekview-widget');
      await shot(page, 'nav-5-references');
      await page.keyboard.press('Escape');
      await peek.waitFor({ state: 'hidden', timeout: 10_000 });
    });

    await step('references: a count lens opens the same peek', async () => {
      // The npm source's lens (on screen: the cursor is in that rule).
      await w.lens('decided here: registry.npmjs.org').locator('a').first().click();
      await peek.waitFor({ timeout: 20_000 });
      await peek.locator('.monaco-list-row').filter({ hasText: 'denials.json' }).first().waitFor({ timeout: 20_000 });
      await shot(page, 'nav-6-lens-references');
      await page.keyboard.press('Escape');
      await peek.waitFor({ state: 'hidden', timeout: 10_000 });
    });

    await step('inlay hints: an address count after a CIDR, a service after a port', async () => {
      await w.goTo(lineColumn(policyText, '"10.20.0.0/16"'));
      await w.lineShown(/"10\.20\.0\.0\/16"\s*65,536 addresses/);
      await w.lineShown(/\b5432\s*postgres/);
      await shot(page, 'nav-7-inlay-hints');
    });
    await page.close();
    await server.stop();
    await web({ ws: join(work, 'ws-navigation-web'), fixture, entry, vsix, work, step, browser, userSettings, say, shot, setPage, artifacts });
  } finally {
    await browser.close();
    await server.stop();
  }
}

/**
 * The same in VS Code for the Web: the server runs in a web worker and reads no files. A test file
 * binds to the open policy of its folder (alone, it says so); a built-in preset's view and the
 * inlay hints come from the worker alike. No catalog file or trace is read there (a catalog preset
 * is unknown, a policy enabling one is not valid and its tests are not run): the workspace has none.
 */
async function web({ ws, fixture, entry, vsix, work, step, browser, userSettings, say, shot, setPage, artifacts }) {
  const { policyText, tests } = writeWorkspace(ws, fixture, { files: false });
  const profile = freshProfile(work);
  userSettings(profile, { 'remote.extensionKind': { 'netpolicy.netpolicy': ['web'] } });
  installExtension(entry, profile, vsix);
  const server = await startCodeServer(entry, profile, { logFile: join(artifacts, 'code-server-navigation-web.log') });
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  try {
    setPage(page);
    const workers = [];
    page.on('worker', (w) => workers.push(w.url()));
    const w = pageHelpers(page);
    await page.goto(`${server.url}/?folder=${encodeURIComponent(ws)}`);
    await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
    await page.locator('.explorer-folders-view .monaco-list-row').first().waitFor({ timeout: 30_000 });
    await step('web: a test file alone says its policy is not open; beside the open policy it runs', async () => {
      await w.show('ci.tests.json');
      await page.keyboard.press('Control+Shift+M');
      await page.locator('.markers-panel .monaco-list-row').filter({ hasText: 'no policy of this folder is open' }).first().waitFor({ timeout: 60_000 });
      if (workers.length === 0) throw new Error('no web worker was started');
      await shot(page, 'nav-web-1-alone');
      await page.keyboard.press('Control+Shift+M');
      await w.show('ci.netpolicy.json');
      await w.show('ci.tests.json');
      await w.lens(`Run all ${tests} tests (1 failed)`).waitFor({ timeout: 30_000 });
      await w.lens('✗ expected allow, denied by default').waitFor();
      await shot(page, 'nav-web-2-tests');
    });
    await step('web: F12 on a built-in preset opens its view; inlay hints', async () => {
      await w.show('ci.netpolicy.json');
      await w.goTo(lineColumn(policyText, '"10.20.0.0/16"'));
      await w.lineShown(/"10\.20\.0\.0\/16"\s*65,536 addresses/);
      await w.goTo(lineColumn(policyText, '"pypi"', 3));
      await page.keyboard.press('F12');
      await w.activeTab('pypi.json').waitFor({ timeout: 20_000 });
      await w.lineShown(/"name":\s*"pypi"/);
      say(`     web worker: ${workers.length} worker(s)`);
    });
  } finally {
    await page.close();
    await server.stop();
  }
}
