// Security issue 28, "A hostile repository, round two", in a real VS Code (code-server): a folder
// built to attack the user through netpolicy, opened trusted and (fresh profile, "Don't Trust")
// in Restricted Mode. What it tries, and what must not happen:
// - outside text (a setting, a key of netpolicy.config.json, a policy's value, a trace's file name,
//   a trace's URL, a service's problem title) carrying `[x](command:...)` or markdown images: no
//   notification, notification center entry, modal, quick input or hover holds a live link from it
//   (and /tmp/PWNED-<random> is never created);
// - 20,000 missing `netpolicy.traces` entries: a handful of notifications, not thousands;
// - symbolic links in the trace folder to files outside (a canary, a dangling link): Fetch Job
//   Trace writes nothing outside the workspace;
// - netpolicy.config.json linked to a file outside (Restricted Mode): its keys never show;
// - a glob bomb in `netpolicy.filePatterns` and a 300,000-component SBOM: the extension host stays
//   under 1 GB, still answers the palette, and Explain and the server finish.
// Written against the behaviour, not the wording: the only texts waited for are the file or
// setting a message is about. A watcher in the page records every link, image and marker that
// appears on those surfaces at any moment, so a toast that comes and goes is seen too.
// NETPOLICY_E2E_HOSTILE=trusted,bomb-trusted,restricted,bomb-restricted runs some cases only.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, readFileSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { join } from 'node:path';
import { freshProfile, installExtension, startCodeServer } from './e2e-code-server.mjs';
import { reportFrame, workbench } from './e2e-workbench.mjs';

/** The cases to run (all by default); NETPOLICY_E2E_HOSTILE=trusted,restricted,bomb-trusted,bomb-restricted picks some. */
const CASES = (process.env.NETPOLICY_E2E_HOSTILE ?? 'trusted,bomb-trusted,restricted,bomb-restricted').split(',').map((c) => c.trim());

/** Extension host RSS bound (bytes). */
const RSS_LIMIT = 1024 * 1024 * 1024;
/** Explain of the 300,000-component SBOM, and the server's evaluation of it: a hang bound, not a budget. */
const SBOM_BOUND_MS = 120_000;
/** The palette must answer (Show Output opens the output panel) within this. */
const PALETTE_BOUND_MS = 30_000;
/** "A handful": at most this many notifications after the folder is opened. */
const HANDFUL = 10;
const SBOM_COMPONENTS = 300_000;
const FLOOD = 20_000;
const BOMB = 20_000;

/** Surfaces that render outside text as links (markdown or VS Code's `[label](target)`). */
const SURFACES = ['.notifications-toasts', '.notifications-center', '.monaco-dialog-box', '.quick-input-widget', '.monaco-hover'];
/** Surfaces whose text must hold no bidi control or the secret marker (plus the Problems panel for the marker). */
const NOTIFICATION_SURFACES = ['.notifications-toasts', '.notifications-center', '.monaco-dialog-box'];

/**
 * Runs in the workbench page (not in webviews): watches the surfaces and records each anchor with a
 * `command:` target or a marker in its target or text, each image of a marker, and each text marker.
 * `window.__hostileCheck()` scans at once; `window.__hostile` holds what was seen (deduplicated).
 */
function watchSurfaces({ surfaces, notificationSurfaces, linkMarkers, textMarkers, markerSurfaces }) {
  if (window.top !== window) return;
  const seen = new Set();
  window.__hostile = [];
  const record = (f) => {
    const key = JSON.stringify([f.kind, f.where, f.href ?? f.src ?? f.marker, f.text ?? '']);
    if (seen.has(key)) return;
    seen.add(key);
    window.__hostile.push({ ...f, at: Date.now() });
  };
  const around = (text, i) => text.slice(Math.max(0, i - 150), i + 150);
  const check = () => {
    for (const where of surfaces) {
      for (const root of document.querySelectorAll(where)) {
        for (const a of root.querySelectorAll('a')) {
          const href = a.getAttribute('href') ?? '';
          const data = a.getAttribute('data-href') ?? '';
          const text = a.textContent ?? '';
          const all = `${href} ${data} ${text}`;
          // An anchor without a target is no link (VS Code draws every quick pick label in an <a> without href).
          if (href.trim() === '' && data.trim() === '') continue;
          if (href.trim().toLowerCase().startsWith('command:') || data.trim().toLowerCase().startsWith('command:') || linkMarkers.some((m) => all.includes(m))) {
            record({ kind: 'link', where, href, data, text, context: (root.textContent ?? '').slice(0, 600) });
          }
        }
        for (const img of root.querySelectorAll('img')) {
          const src = img.getAttribute('src') ?? '';
          const all = `${src} ${img.getAttribute('alt') ?? ''}`;
          if (where === '.monaco-hover' || linkMarkers.some((m) => all.includes(m))) record({ kind: 'img', where, src, text: img.getAttribute('alt') ?? '', context: (root.textContent ?? '').slice(0, 600) });
        }
      }
    }
    for (const { marker, where: list, name } of textMarkers) {
      for (const where of list) {
        for (const root of document.querySelectorAll(where)) {
          const text = root.textContent ?? '';
          const i = text.indexOf(marker);
          if (i >= 0) record({ kind: 'text', where, marker: name, text: around(text, i) });
        }
      }
    }
  };
  window.__hostileCheck = check;
  window.__hostileSurfaces = { surfaces, notificationSurfaces, markerSurfaces };
  let pending = false;
  const observer = new MutationObserver(() => {
    if (pending) return;
    pending = true;
    setTimeout(() => { pending = false; try { check(); } catch {} }, 25);
  });
  const start = () => observer.observe(document, { subtree: true, childList: true, characterData: true, attributes: true, attributeFilter: ['href', 'data-href', 'src'] });
  start();
}

/** The processes below `rootPid` (code-server), with their RSS in bytes. */
function descendants(rootPid) {
  const out = spawnSync('ps', ['-eo', 'pid=,ppid=,rss=,args='], { encoding: 'utf8' }).stdout ?? '';
  const rows = [];
  for (const line of out.split('\n')) {
    const m = line.trim().match(/^(\d+)\s+(\d+)\s+(\d+)\s+(.*)$/);
    if (m) rows.push({ pid: Number(m[1]), ppid: Number(m[2]), rss: Number(m[3]) * 1024, args: m[4] });
  }
  const tree = new Set([rootPid]);
  for (let grew = true; grew;) {
    grew = false;
    for (const r of rows) if (!tree.has(r.pid) && tree.has(r.ppid)) { tree.add(r.pid); grew = true; }
  }
  return rows.filter((r) => r.pid !== rootPid && tree.has(r.pid));
}

/** Samples, every second, the RSS of the extension host(s) and the language server under code-server. */
function rssSampler(rootPid) {
  const samples = [];
  let phase = 'open';
  const sample = () => {
    const procs = descendants(rootPid);
    const ext = procs.filter((p) => /extensionHost/.test(p.args));
    const srv = procs.filter((p) => /dist\/server\.js/.test(p.args));
    samples.push({ t: Date.now(), phase, ext: Math.max(0, ...ext.map((p) => p.rss)), extCount: ext.length, server: Math.max(0, ...srv.map((p) => p.rss)) });
  };
  sample();
  const timer = setInterval(sample, 1000);
  const max = (key, p) => Math.max(0, ...samples.filter((s) => p === undefined || s.phase === p).map((s) => s[key]));
  return {
    samples,
    phase(p) { phase = p; sample(); },
    max,
    sample,
    stop() { clearInterval(timer); sample(); },
    seenExtHost: () => samples.some((s) => s.extCount > 0),
  };
}

const mb = (b) => `${(b / 1048576).toFixed(0)} MB`;

/** A listener standing in for the service: jobs 7 and 8 answer a trace and an SBOM; job 9 a 400 whose problem title holds a link. */
async function listener(trace, sbom, linkTitle) {
  const seen = [];
  const server = createHttpServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const job = url.searchParams.get('job_id');
    seen.push({ path: url.pathname, job, auth: req.headers.authorization });
    if (job === '9') {
      res.writeHead(400, { 'content-type': 'application/problem+json' });
      res.end(JSON.stringify({ type: 'about:blank', title: linkTitle, status: 400, detail: linkTitle }));
      return;
    }
    if (job === '7' || job === '8') {
      if (url.pathname.endsWith('/sbom')) {
        res.writeHead(200, { 'content-type': 'application/vnd.cyclonedx+json; version=1.7' });
        res.end(sbom);
      } else {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(trace);
      }
      return;
    }
    res.writeHead(404, { 'content-type': 'application/problem+json' });
    res.end(JSON.stringify({ type: 'about:blank', title: 'Not Found', status: 404, detail: 'no such job' }));
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${server.address().port}`, seen, close: () => new Promise((r) => server.close(r)) };
}

export async function hostile({ entry, vsix, work, step, launchBrowser, userSettings, fixture, say, shot, setPage, figures = {} }) {
  const rnd = randomBytes(2).toString('hex');
  const pwned = `/tmp/PWNED-${rnd}`;
  if (existsSync(pwned)) throw new Error(`${pwned} exists before the test`);
  // A command link that, if it ran, would type `touch /tmp/PWNED-xxxx` + Enter into a terminal.
  // No whitespace in the target (VS Code's link syntax allows none), short enough for a clipped sample.
  const cmd = `command:workbench.action.terminal.sendSequence?%7B%22text%22%3A%22touch%20/tmp/PWNED-${rnd}%5Cr%22%7D`;
  const link = (label) => `[${label}](${cmd})`;
  const markdownPayload = '\n\n![p](http://127.0.0.1:1/img.png)\n\n[Click to update](https://evil.example/u)';
  const secret = `SECRET-MARKER-${randomBytes(6).toString('hex')}`;
  const linkMarkers = ['sendSequence', 'evil.example', 'PWNED', '127.0.0.1:1', 'img.png', 'Click to update'];
  const trace = fixture('traces/denials/trace.json');
  const smallSbom = JSON.stringify({ bomFormat: 'CycloneDX', specVersion: '1.7', version: 1, components: [{ type: 'library', name: 'left-pad', version: '1.3.0', purl: 'pkg:npm/left-pad@1.3.0' }] });
  const service = await listener(trace, smallSbom, `${link('Update your token')} now`);
  const browser = await launchBrowser();
  const bigSbom = `{"bomFormat":"CycloneDX","specVersion":"1.6","components":[${new Array(SBOM_COMPONENTS).fill('{"type":"library","name":"lodash","version":"4.17.21","purl":"pkg:npm/lodash@4.17.21"}').join(',')}]}`;
  say(`     hostile: marker /tmp/PWNED-${rnd}, big SBOM ${mb(bigSbom.length)}`);

  /** The hostile folder (repo/ below `base`) and what lies outside it. */
  function hostileFolder(base, restricted) {
    const repo = join(base, 'repo');
    const outside = join(base, 'outside');
    const danglingDir = join(base, 'outside-dir');
    mkdirSync(join(repo, '.vscode'), { recursive: true });
    mkdirSync(join(repo, 'traces'), { recursive: true });
    mkdirSync(join(repo, '.netpolicy/traces'), { recursive: true });
    mkdirSync(outside, { recursive: true });
    mkdirSync(danglingDir, { recursive: true });
    const canary = join(outside, 'canary.json');
    writeFileSync(canary, `{"canary":"${rnd}"}\n`);
    utimesSync(canary, new Date('2001-02-03T04:05:06Z'), new Date('2001-02-03T04:05:06Z'));
    const dangling = join(danglingDir, 'written-through-a-link.json');
    // Settings: a pattern with live-link syntax and 512 alternatives; traces with a link, a U+202E, and a flood of missing files.
    const missing = Array.from({ length: FLOOD }, (_, i) => `missing/trace-${String(i).padStart(5, '0')}.json`);
    writeFileSync(join(repo, '.vscode/settings.json'), JSON.stringify({
      'netpolicy.filePatterns': [`${link('F')}${'{a,b}'.repeat(9)}`],
      'netpolicy.traces': ['traces/big.json', `traces/\u202e${link('R')}nosj.json`, ...missing],
    }, null, 2));
    if (restricted) {
      const secretFile = join(base, 'secret', 'project.json');
      mkdirSync(join(base, 'secret'), { recursive: true });
      writeFileSync(secretFile, JSON.stringify({ [secret]: true, [`${secret}-2`]: { [secret]: 1 }, filePatterns: [`${secret}/*.json`], traces: [`${secret}.json`] }, null, 2));
      symlinkSync(secretFile, join(repo, 'netpolicy.config.json'));
    } else {
      writeFileSync(join(repo, 'netpolicy.config.json'), JSON.stringify({ [link('K')]: true }, null, 2));
    }
    writeFileSync(join(repo, 'a.netpolicy.json'), JSON.stringify({
      default: 'deny',
      presets: [markdownPayload],
      connections: [{ tcp: { hostPatterns: [markdownPayload], ports: [443] } }],
    }, null, 2));
    writeFileSync(join(repo, 'big.netpolicy.json'), JSON.stringify({ default: 'deny', presets: [] }, null, 2));
    writeFileSync(join(repo, 'traces', `${link('T').replace(cmd, 'command:workbench.action.terminal.sendSequence?x')}.json`), 'this is not a trace\n');
    // A valid trace whose first denied URL holds a link.
    const t = JSON.parse(trace);
    const first = t.observations.find((o) => o.denied === true && typeof o.url === 'string');
    first.url = `https://d/${link('D')}`;
    writeFileSync(join(repo, 'traces/denied-link.json'), JSON.stringify(t, null, 2));
    // 50 denied downloads of lodash beside a 300,000-component SBOM.
    const big = JSON.parse(trace);
    big.observations = Array.from({ length: 50 }, (_, i) => ({ protocol: 'http', observed_at: '2026-03-02T10:15:01.037Z', sequence: i + 1, method: 'GET', url: 'https://registry.npmjs.org/lodash/-/lodash-4.17.21.tgz', remote_ip: '104.16.24.34', status_code: 403, response_body_size: '0', denied: true, denied_reason: 'not allowed by policy' }));
    writeFileSync(join(repo, 'traces/big.json'), JSON.stringify(big, null, 2));
    writeFileSync(join(repo, 'traces/big.cdx.json'), bigSbom);
    // The trace folder's links: an SBOM name to a canary outside, a trace name dangling into a folder outside.
    symlinkSync(canary, join(repo, '.netpolicy/traces/acme_app-7.cdx.json'));
    symlinkSync(dangling, join(repo, '.netpolicy/traces/acme_app-7.json'));
    symlinkSync(canary, join(repo, '.netpolicy/traces/acme_app-8.cdx.json'));
    const canaryBefore = { text: readFileSync(canary, 'utf8'), mtimeMs: statSync(canary).mtimeMs };
    return { repo, canary, canaryBefore, dangling };
  }

  /** The glob bomb: 20,000 patterns of 256 alternatives each. */
  function bombFolder(base) {
    const repo = join(base, 'repo');
    mkdirSync(join(repo, '.vscode'), { recursive: true });
    const patterns = Array.from({ length: BOMB }, (_, i) => `p${'{0,1}'.repeat(8)}${i}.json`);
    writeFileSync(join(repo, '.vscode/settings.json'), JSON.stringify({ 'netpolicy.filePatterns': patterns }));
    writeFileSync(join(repo, 'p.netpolicy.json'), JSON.stringify({ default: 'deny', presets: [] }, null, 2));
    return { repo };
  }

  /** What is outside the workspace is as it was: the canary's content and mtime, no file at the dangling link's target. */
  function outsideUntouched(folder) {
    const problems = [];
    const text = readFileSync(folder.canary, 'utf8');
    const mtimeMs = statSync(folder.canary).mtimeMs;
    if (text !== folder.canaryBefore.text) problems.push(`the canary outside the workspace was written: ${JSON.stringify(text.slice(0, 200))}`);
    if (mtimeMs !== folder.canaryBefore.mtimeMs) problems.push(`the canary's mtime changed (${new Date(folder.canaryBefore.mtimeMs).toISOString()} -> ${new Date(mtimeMs).toISOString()})`);
    if (existsSync(folder.dangling)) problems.push(`the dangling link's target outside the workspace was created: ${folder.dangling}`);
    if (existsSync(pwned)) problems.push(`${pwned} exists: a command link ran`);
    return problems;
  }

  /** One code-server, one browser page with the watcher, one folder: trusted, or answered "Don't Trust". */
  async function session(name, folder, restricted, extraUserSettings = {}) {
    const profile = freshProfile(work);
    userSettings(profile, { 'netpolicy.baseUrl': service.url, ...(restricted ? { 'security.workspace.trust.enabled': true, 'security.workspace.trust.startupPrompt': 'always' } : {}), ...extraUserSettings });
    installExtension(entry, profile, vsix);
    const server = await startCodeServer(entry, profile, { logFile: join(work, `code-server-hostile-${name}.log`), workspaceTrust: restricted });
    const rss = rssSampler(server.pid);
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    setPage(page);
    await page.addInitScript(watchSurfaces, {
      surfaces: SURFACES,
      notificationSurfaces: NOTIFICATION_SURFACES,
      linkMarkers,
      textMarkers: [
        { name: 'secret marker', marker: secret, where: [...SURFACES, '.markers-panel'] },
        { name: 'U+202E', marker: '\u202e', where: NOTIFICATION_SURFACES },
      ],
    });
    const w = gestures(page);
    const findings = [];
    /** Scans now; what the watcher saw goes to `findings`. */
    const drain = async () => {
      const got = await page.evaluate(() => { try { window.__hostileCheck?.(); } catch {} return (window.__hostile ?? []).splice(0); }).catch(() => []);
      findings.push(...got);
      return got;
    };
    /** What was seen since the last call (each finding fails one step). */
    let checked = 0;
    const fresh = async () => {
      await drain();
      const got = findings.slice(checked);
      checked = findings.length;
      return got;
    };
    const open = async () => {
      await page.goto(`${server.url}/?folder=${encodeURIComponent(folder.repo)}`);
      await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
      if (restricted) {
        const dialog = page.locator('.monaco-dialog-box');
        await dialog.waitFor({ timeout: 30_000 });
        await dialog.locator('.monaco-button, a').filter({ hasText: /don't trust|No/i }).first().click();
      }
      await page.locator('.explorer-folders-view .monaco-list-row').first().waitFor({ timeout: 30_000 });
      // The watcher works (else every "no live link" would pass for nothing): it sees a probe link, which is then forgotten.
      const probe = await page.evaluate(() => {
        if (typeof window.__hostileCheck !== 'function') return 'no watcher in the page';
        const el = document.createElement('div');
        el.className = 'notifications-toasts';
        el.innerHTML = '<a href="command:probe.sendSequence">probe</a>';
        document.body.appendChild(el);
        window.__hostileCheck();
        el.remove();
        const i = window.__hostile.findIndex((f) => f.href === 'command:probe.sendSequence');
        if (i < 0) return 'the probe link was not seen';
        window.__hostile.splice(i, 1);
        return 'ok';
      });
      if (probe !== 'ok') throw new Error(`the page watcher does not work: ${probe}`);
    };
    return { name, profile, server, rss, page, w, findings, drain, fresh, open, restricted, folder };
  }

  // ------------------------------------------------------------ gestures
  /**
   * The workbench's gestures (e2e-workbench.mjs), with the palette and quick open clicking the row
   * whose label is the one asked for: the lists show recent entries before the typed filter
   * applies, and Enter at that moment runs (or opens) the recent one.
   */
  function gestures(page) {
    const base = workbench(page);
    const exact = (text) => new RegExp(`^\\s*${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*$`);
    // A webview (the explain report) that takes the focus back closes the palette just opened: open it again.
    const palette = async (title, timeout = 30_000) => {
      const deadline = Date.now() + timeout;
      for (let attempt = 1; ; attempt++) {
        try {
          await page.keyboard.press('F1');
          const box = page.locator('.quick-input-widget input');
          await box.waitFor({ timeout: Math.max(1000, Math.min(10_000, deadline - Date.now())) });
          await box.fill(`>${title}`, { timeout: 5_000 });
          const label = page.locator('.quick-input-list .monaco-list-row .label-name').filter({ hasText: exact(title) }).first();
          // Bounded per attempt: a palette opened before the commands reached the workbench never shows them.
          await label.waitFor({ timeout: Math.max(1000, Math.min(10_000, deadline - Date.now())) });
          await label.click({ timeout: 5_000 });
          return;
        } catch (e) {
          if (attempt >= 4 || Date.now() >= deadline) throw e;
          await page.keyboard.press('Escape');
        }
      }
    };
    const quickOpen = async (name) => {
      await page.keyboard.press('Control+P');
      const box = page.locator('.quick-input-widget input');
      await box.waitFor();
      await box.fill(name);
      const label = page.locator('.quick-input-list .monaco-list-row .label-name').filter({ hasText: exact(name) }).first();
      await label.waitFor();
      await label.click();
      const tab = page.locator(`.tab.active[aria-label*="${name}"], .tab.active:has-text("${name}")`).first();
      // A click that lands while the list is drawn again (its "recently opened" row) is lost and
      // the picker stays open on the row (seen once in CI): Enter opens the highlighted row then.
      try {
        await tab.waitFor({ timeout: 10_000 });
      } catch {
        if (await box.isVisible()) await page.keyboard.press('Enter');
        await tab.waitFor();
      }
    };
    const fetchJob = async (repository, jobId) => {
      await palette('netpolicy: Fetch Job Trace');
      const another = page.locator('.quick-input-list .monaco-list-row').filter({ hasText: 'Another job' });
      const repoBox = page.locator('.quick-input-widget .quick-input-title').filter({ hasText: 'repository' });
      await Promise.race([another.first().waitFor(), repoBox.first().waitFor()]);
      if (await another.count()) await another.first().click();
      await base.input(repository, 'repository');
      await base.input(jobId, 'job id');
    };
    return { ...base, palette, quickOpen, fetchJob };
  }

  /** The toasts' texts; `settled`: not a progress notification still running. */
  async function toastTexts(page, settled = false) {
    return page.locator(`.notifications-toasts .notification-toast${settled ? ':not(:has(.monaco-progress-container.active))' : ''}`).allInnerTexts().catch(() => []);
  }

  /** Every notification in the notification center (the list is virtual: scrolled through), and how many it holds. */
  async function center(s) {
    const { page, w } = s;
    await w.palette('Notifications: Show Notifications');
    await page.locator('.notifications-center .notifications-center-header').first().waitFor({ timeout: 10_000 });
    await page.waitForTimeout(300);
    const texts = new Map();
    let count = 0;
    let still = 0;
    for (let i = 0; i < 200 && still < 3; i++) {
      const rows = page.locator('.notifications-center .monaco-list-row');
      const n = await rows.count();
      let added = 0;
      for (let r = 0; r < n; r++) {
        const row = rows.nth(r);
        if (await row.locator('.monaco-progress-container.active').count().catch(() => 0)) continue;
        const size = Number(await row.getAttribute('aria-setsize').catch(() => null));
        if (Number.isFinite(size)) count = Math.max(count, size);
        const pos = await row.getAttribute('aria-posinset').catch(() => null);
        const text = await row.innerText().catch(() => '');
        const key = pos ?? text;
        if (!texts.has(key)) { texts.set(key, text); added++; }
      }
      await s.drain();
      if (n === 0) break;
      still = added === 0 ? still + 1 : 0;
      await page.locator('.notifications-center .monaco-list').first().hover().catch(() => undefined);
      await page.mouse.wheel(0, 300);
      await page.waitForTimeout(100);
    }
    count = Math.max(count, texts.size);
    // The center hides itself when it empties; else hide it (the command, or Escape in it).
    const header = page.locator('.notifications-center .notifications-center-header').first();
    if (await header.isVisible().catch(() => false)) {
      await w.palette('Notifications: Hide Notifications', 5_000).catch(async () => {
        await page.keyboard.press('Escape');
        await page.locator('.notifications-center .monaco-list').first().click().catch(() => undefined);
        await page.keyboard.press('Escape');
      });
    }
    return { count, texts: [...texts.values()] };
  }

  /** A notification (toast, else in the center) that `test` accepts; its text. */
  async function notification(s, test, timeout, what) {
    const deadline = Date.now() + timeout;
    let lastCenter = Date.now();
    for (;;) {
      const hit = (await toastTexts(s.page, true)).find(test);
      if (hit) return hit;
      if (Date.now() - lastCenter > 6000 || Date.now() > deadline) {
        const inCenter = (await center(s)).texts.find(test);
        if (inCenter) return inCenter;
        lastCenter = Date.now();
      }
      if (Date.now() > deadline) throw new Error(`no notification ${what} within ${timeout / 1000} s; toasts: ${JSON.stringify(await toastTexts(s.page))}`);
      await s.page.waitForTimeout(250);
    }
  }

  /** Fails when the watcher saw a live link (after trying a link found in a notification), an image, or a marker. */
  async function noLiveLink(s, label) {
    const got = await s.fresh();
    const links = got.filter((f) => f.kind === 'link' || f.kind === 'img');
    const texts = got.filter((f) => f.kind === 'text');
    if (links.length === 0 && texts.length === 0) {
      if (existsSync(pwned)) throw new Error(`${pwned} exists`);
      return;
    }
    let clicked = '';
    const inNotification = links.find((f) => f.kind === 'link' && NOTIFICATION_SURFACES.includes(f.where));
    if (inNotification) {
      // To prove the point: click it, and see whether the command ran.
      const did = await s.page.evaluate(({ where, href }) => {
        const a = [...document.querySelectorAll(`${where} a`)].find((e) => (e.getAttribute('href') ?? '') === href);
        if (!a) return false;
        a.click();
        return true;
      }, inNotification).catch(() => false);
      if (did) {
        await s.page.waitForTimeout(3000);
        clicked = `; clicking the link in ${inNotification.where} ${existsSync(pwned) ? `RAN IT (${pwned} exists)` : `did not create ${pwned}`}`;
      }
    }
    await shot(s.page, `hostile-${s.name}-FOUND-${label.replace(/[^a-z0-9]+/gi, '-')}`).catch(() => undefined);
    const describe = (f) => f.kind === 'text' ? `${f.marker} in ${f.where}: ${JSON.stringify(f.text)}` : `${f.kind} in ${f.where}: href=${JSON.stringify(f.href ?? f.src)} data-href=${JSON.stringify(f.data ?? '')} text=${JSON.stringify(f.text)} (in: ${JSON.stringify((f.context ?? '').slice(0, 300))})`;
    throw new Error(`${got.length} finding(s): ${got.slice(0, 6).map(describe).join(' | ')}${got.length > 6 ? ` | and ${got.length - 6} more` : ''}${clicked}`);
  }

  /** Closes every editor; an untitled suggestion is not saved. */
  async function closeAll(s) {
    await s.page.keyboard.press('Escape');
    await s.w.palette('View: Close All Editors');
    const dontSave = s.page.locator('.monaco-dialog-box .monaco-button').filter({ hasText: /Don't Save/i }).first();
    for (let i = 0; i < 5 && (await dontSave.waitFor({ timeout: 1500 }).then(() => true, () => false)); i++) await dontSave.click();
    await s.page.waitForTimeout(300);
  }

  async function clearNotifications(s) {
    await s.drain();
    await s.w.palette('Notifications: Clear All Notifications');
    await s.page.waitForTimeout(200);
  }

  /** Picks a trace in the quick pick that the command opened: filters by `filter`, clicks the row holding `row`. */
  async function pickTrace(s, filter, row) {
    const box = s.page.locator('.quick-input-widget input');
    await s.page.locator('.quick-input-list .monaco-list-row').first().waitFor({ timeout: 15_000 });
    await s.drain();
    await box.fill(filter);
    const item = s.page.locator('.quick-input-list .monaco-list-row').filter({ hasText: row }).first();
    await item.waitFor({ timeout: 15_000 });
    await s.drain();
    await item.click();
  }

  const T = (s, what) => `hostile (${s.restricted ? 'restricted' : 'trusted'}${s.name.includes('bomb') ? ', glob bomb' : ''}): ${what}`;

  /** The palette answers: Show Output opens the output panel within the bound. */
  async function paletteAnswers(s) {
    await s.page.keyboard.press('Escape');
    const t0 = Date.now();
    await s.w.palette('netpolicy: Show Output');
    const panel = s.page.locator('.part.panel .output-view').first();
    await panel.waitFor({ timeout: PALETTE_BOUND_MS });
    const ms = Date.now() - t0;
    say(`     the palette answered (output panel shown) in ${ms} ms`);
    figures[`hostile_${s.name}_paletteMs`] = ms;
    await shot(s.page, `hostile-${s.name}-output`);
    await s.page.keyboard.press('Control+J');
  }

  function rssStep(s, phases) {
    return step(T(s, `the extension host stays under ${mb(RSS_LIMIT)} RSS (sampled every second${phases ? ` during ${phases}` : ''})`), async () => {
      s.rss.sample();
      if (!s.rss.seenExtHost()) throw new Error(`no extension host process found under code-server (pid ${s.server.pid}): ${descendants(s.server.pid).map((p) => p.args.slice(0, 120)).join(' | ')}`);
      const ext = s.rss.max('ext');
      const server = s.rss.max('server');
      const byPhase = [...new Set(s.rss.samples.map((x) => x.phase))].map((p) => `${p} ${mb(s.rss.max('ext', p))}/${mb(s.rss.max('server', p))}`).join(', ');
      say(`     RSS max: extension host ${mb(ext)}, language server ${mb(server)} (${s.rss.samples.length} samples; ext/server by phase: ${byPhase})`);
      figures[`hostile_${s.name}_extHostMaxRssMB`] = Math.round(ext / 1048576);
      figures[`hostile_${s.name}_serverMaxRssMB`] = Math.round(server / 1048576);
      if (ext >= RSS_LIMIT) throw new Error(`the extension host reached ${mb(ext)} (phases: ${byPhase})`);
    });
  }

  // ------------------------------------------------------------ the hostile folder
  async function hostileCase(restricted) {
    const name = restricted ? 'restricted' : 'trusted';
    const folder = hostileFolder(join(work, `hostile-${name}`), restricted);
    const s = await session(name, folder, restricted);
    const { page, w } = s;
    try {
      await step(T(s, 'the folder opens; what is said about its settings and project file holds no live link'), async () => {
        await s.open();
        // The server starts with the first policy document.
        await w.quickOpen('a.netpolicy.json');
        if (restricted) {
          await page.locator('.statusbar-item').filter({ hasText: 'netpolicy: restricted' }).first().waitFor({ timeout: 30_000 });
          // The server reads netpolicy.config.json at start: give it the time a trusted folder needs to say something about it.
          await page.waitForTimeout(6000);
          say(`     toasts: ${JSON.stringify((await toastTexts(page)).map((t) => t.slice(0, 200)))}`);
        } else {
          const patterns = await notification(s, (t) => /filePatterns/.test(t), 60_000, 'about netpolicy.filePatterns');
          say(`     filePatterns: ${JSON.stringify(patterns.slice(0, 300))}`);
          const config = await notification(s, (t) => /netpolicy\.config\.json/.test(t), 60_000, 'about netpolicy.config.json');
          say(`     netpolicy.config.json: ${JSON.stringify(config.slice(0, 300))}`);
        }
        await shot(page, `hostile-${name}-1-open`);
        await noLiveLink(s, 'open');
      });

      if (!restricted) {
        await step(T(s, `the server finishes ${SBOM_COMPONENTS.toLocaleString('en')}-component SBOM beside a listed trace (code lens within ${SBOM_BOUND_MS / 1000} s)`), async () => {
          s.rss.phase('server-sbom');
          const t0 = Date.now();
          await w.quickOpen('big.netpolicy.json');
          const lens = page.locator('.monaco-editor .codelens-decoration').filter({ hasText: /traced access/ }).first();
          await lens.waitFor({ timeout: SBOM_BOUND_MS });
          const ms = Date.now() - t0;
          figures.hostile_serverSbomMs = ms;
          say(`     lens after ${ms} ms: ${await lens.innerText()}`);
          await shot(page, `hostile-${name}-2-server-sbom`);
          s.rss.phase('after-server-sbom');
        });
      }

      await step(T(s, `${FLOOD.toLocaleString('en')} missing traces and the rest: at most ${HANDFUL} notifications, none with a live link`), async () => {
        if (!restricted) await page.waitForTimeout(3000);
        const c = await center(s);
        figures[`hostile_${name}_notificationsAfterOpen`] = c.count;
        say(`     ${c.count} notification(s): ${JSON.stringify(c.texts.map((t) => t.replace(/\s+/g, ' ').slice(0, 160)))}`);
        await noLiveLink(s, 'flood');
        if (c.count > HANDFUL) throw new Error(`${c.count} notifications (at most ${HANDFUL}): ${c.texts.slice(0, 5).join(' | ')}`);
      });

      await step(T(s, 'hovering a policy value with markdown (an image, a link) shows neither'), async () => {
        await closeAll(s);
        await clearNotifications(s);
        await w.quickOpen('a.netpolicy.json');
        // Wait for the server's squiggles on the values: its hover and diagnostics are there.
        await page.locator('.editor-instance .squiggly-error, .editor-instance .squiggly-warning').first().waitFor({ timeout: 30_000 });
        // The string's start: `"\n\n![p](` (not the URLs in it, where VS Code's own link detection has a hover of its own).
        const values = page.locator('.editor-instance .view-line span span').filter({ hasText: '![p]' });
        const n = await values.count();
        if (n < 2) throw new Error(`${n} value(s) with the payload on screen: ${await page.locator('.editor-instance .view-lines').first().innerText()}`);
        const seen = [];
        const failed = [];
        for (let i = 0; i < n; i++) {
          await page.mouse.move(5, 790);
          await page.waitForTimeout(400);
          const box = await values.nth(i).boundingBox();
          await page.mouse.move(box.x + 4, box.y + box.height / 2);
          const hover = page.locator('.monaco-hover:not(.hidden) .hover-contents, .monaco-hover-content .hover-contents').first();
          await hover.waitFor({ timeout: 15_000 });
          // The language server's part comes after the markers' part.
          await page.waitForTimeout(2000);
          seen.push((await page.locator('.monaco-hover:not(.hidden)').first().innerText().catch(() => '')).replace(/\s+/g, ' ').slice(0, 300));
          await shot(page, `hostile-${name}-3-hover-${i}`);
          await noLiveLink(s, `hover-${i}`).catch((e) => failed.push(`hover ${i + 1} of ${n} (${i === 0 ? 'presets' : 'connections/0/tcp/hostPatterns'}): ${e.message}`));
        }
        say(`     hovers: ${JSON.stringify(seen)}`);
        await page.mouse.move(5, 790);
        if (failed.length) throw new Error(failed.join(' || '));
      });

      await step(T(s, 'Explain on a trace whose file name holds a link: an error naming the file, no live link'), async () => {
        await closeAll(s);
        await clearNotifications(s);
        await w.quickOpen('big.netpolicy.json');
        await w.palette('netpolicy: Explain Trace Against This Policy');
        await pickTrace(s, 'sendSequence?x', 'sendSequence?x).json');
        const text = await notification(s, (t) => t.includes('sendSequence?x).json'), 30_000, 'naming the trace file');
        say(`     ${JSON.stringify(text.replace(/\s+/g, ' ').slice(0, 300))}`);
        await shot(page, `hostile-${name}-4-explain-link-name`);
        await noLiveLink(s, 'explain-link-name');
        const errors = await page.locator('.notifications-toasts .notification-toast').filter({ hasText: 'sendSequence?x).json' }).locator('.codicon-error').count();
        if (errors === 0 && (await toastTexts(page)).some((t) => t.includes('sendSequence?x).json'))) throw new Error(`the message naming the file is not an error: ${text}`);
      });

      await step(T(s, 'Suggest Policy From Trace: the warning quoting a denied URL with a link holds no live link'), async () => {
        await clearNotifications(s);
        await w.palette('netpolicy: Suggest Policy From Trace');
        await pickTrace(s, 'denied-link', 'denied-link.json');
        const text = await notification(s, (t) => t.includes('https://d/'), 30_000, 'quoting the denied URL https://d/...');
        say(`     ${JSON.stringify(text.replace(/\s+/g, ' ').slice(0, 400))}`);
        await shot(page, `hostile-${name}-5-suggest`);
        await noLiveLink(s, 'suggest');
      });

      await step(T(s, 'Fetch Job Trace writes nothing outside the workspace (canary and dangling links in the trace folder)'), async () => {
        await closeAll(s);
        await clearNotifications(s);
        const before = service.seen.length;
        if (restricted) {
          await w.palette('netpolicy: Fetch Job Trace');
          const text = await notification(s, (t) => /netpolicy/.test(t), 15_000, 'from netpolicy');
          say(`     ${JSON.stringify(text.replace(/\s+/g, ' ').slice(0, 200))}`);
          await page.waitForTimeout(1000);
          if (service.seen.length > before) throw new Error(`an untrusted folder sent ${service.seen.length - before} request(s)`);
        } else {
          // Job 7: the trace's name is a dangling link into a folder outside, its SBOM's name a link to the canary.
          await w.fetchJob('acme/app', '7');
          const seven = await notification(s, (t) => /acme|#7|job 7|acme_app-7/.test(t) && /netpolicy/.test(t), 30_000, 'about job 7');
          say(`     job 7: ${JSON.stringify(seven.replace(/\s+/g, ' ').slice(0, 300))}`);
          if (!service.seen.some((r) => r.job === '7')) throw new Error('the listener got no request for job 7');
          await noLiveLink(s, 'fetch-7');
          // Job 8: the trace is written inside; its SBOM's name is a link to the canary.
          await clearNotifications(s);
          await w.fetchJob('acme/app', '8');
          const deadline = Date.now() + 30_000;
          while (!service.seen.some((r) => r.job === '8' && r.path.endsWith('/sbom')) && Date.now() < deadline) await page.waitForTimeout(200);
          if (!service.seen.some((r) => r.job === '8' && r.path.endsWith('/sbom'))) say(`     job 8: no SBOM request (requests: ${JSON.stringify(service.seen.filter((r) => r.job === '8').map((r) => r.path))})`);
          const eight = await notification(s, (t) => /acme_app-8|#8|job 8/.test(t) && /netpolicy/.test(t), 30_000, 'about job 8');
          say(`     job 8: ${JSON.stringify(eight.replace(/\s+/g, ' ').slice(0, 300))}`);
          await page.waitForTimeout(1000);
          const saved = join(folder.repo, '.netpolicy/traces/acme_app-8.json');
          say(`     job 8's trace inside the workspace: ${existsSync(saved) ? (lstatSync(saved).isFile() ? 'written' : 'not a regular file') : 'not written'}`);
          await noLiveLink(s, 'fetch-8');
        }
        await shot(page, `hostile-${name}-6-fetch`);
        const problems = outsideUntouched(folder);
        if (problems.length) throw new Error(problems.join('; '));
      });

      if (!restricted) {
        await step(T(s, "Fetch Job Trace: a 400 whose problem title holds a link: the error holds no live link"), async () => {
          await clearNotifications(s);
          await w.fetchJob('acme/app', '9');
          const text = await notification(s, (t) => /netpolicy/.test(t) && /acme|#9|job 9|400|Update your token/.test(t), 30_000, 'about job 9');
          say(`     job 9: ${JSON.stringify(text.replace(/\s+/g, ' ').slice(0, 400))}`);
          await shot(page, `hostile-${name}-7-fetch-400`);
          await noLiveLink(s, 'fetch-400');
        });
      }

      await step(T(s, `Explain with a ${SBOM_COMPONENTS.toLocaleString('en')}-component SBOM beside the trace finishes (report within ${SBOM_BOUND_MS / 1000} s)`), async () => {
        await closeAll(s);
        await clearNotifications(s);
        await w.quickOpen('big.netpolicy.json');
        s.rss.phase('explain-sbom');
        await w.palette('netpolicy: Explain Trace Against This Policy');
        const t0 = Date.now();
        await pickTrace(s, 'traces/big.json', 'big.json');
        const frame = await reportFrame(page, SBOM_BOUND_MS);
        const ms = Date.now() - t0;
        figures[`hostile_${name}_explainSbomMs`] = ms;
        const heading = await frame.locator('#denials').innerText();
        const body = await frame.locator('body').innerText();
        const summary = body.split('\n').filter((l) => /Components from|big\.cdx\.json/.test(l)).join(' ');
        say(`     report in ${ms} ms: ${heading}; ${summary.slice(0, 200)}`);
        await shot(page, `hostile-${name}-8-explain-sbom`);
        s.rss.phase('after-explain-sbom');
        if (!/Denials \([1-9]/.test(heading)) throw new Error(`heading: ${heading}`);
        if (!body.includes('big.cdx.json')) throw new Error(`the report does not use the SBOM beside the trace: ${body.slice(0, 400)}`);
        if (!body.includes('pkg:npm/lodash@4.17.21')) throw new Error(`no denial attributed to the SBOM's lodash: ${summary}`);
      });

      await step(T(s, `the window still answers the palette (netpolicy: Show Output within ${PALETTE_BOUND_MS / 1000} s)`), () => paletteAnswers(s));
      await rssStep(s, restricted ? 'the big SBOM' : 'the server and Explain on the big SBOM');

      if (restricted) {
        await step(T(s, 'the project file linked outside: its keys never show in a notification or the Problems panel'), async () => {
          await closeAll(s);
          await page.keyboard.press('Control+Shift+M');
          await page.locator('.markers-panel').waitFor({ timeout: 10_000 });
          await w.palette('View: Toggle Maximized Panel');
          await page.waitForTimeout(1500);
          const rows = await page.locator('.markers-panel .monaco-list-row').allInnerTexts();
          say(`     Problems: ${rows.length} row(s) on screen`);
          await shot(page, `hostile-${name}-9-problems`);
          const inProblems = rows.filter((r) => r.includes(secret));
          await w.palette('View: Toggle Maximized Panel');
          await page.keyboard.press('Control+Shift+M');
          const c = await center(s);
          const inCenter = c.texts.filter((t) => t.includes(secret));
          const seen = [...s.findings, ...(await s.drain())].filter((f) => f.kind === 'text' && f.marker === 'secret marker');
          if (inProblems.length || inCenter.length || seen.length) throw new Error(`the marker of the file outside shows: Problems ${JSON.stringify(inProblems)}; center ${JSON.stringify(inCenter)}; watched ${JSON.stringify(seen.map((f) => `${f.where}: ${f.text}`))}`);
        });
      }

      await step(T(s, 'at the end: no other live link in the notification center or elsewhere, nothing written outside, no command ran'), async () => {
        await closeAll(s);
        await center(s);
        // Findings already failed a step are not counted again; the watcher saw every surface all along.
        const later = await s.fresh();
        const problems = outsideUntouched(folder);
        if (later.length) problems.push(`${later.length} finding(s) no step reported: ${later.slice(0, 5).map((f) => `${f.kind} in ${f.where}: ${JSON.stringify(f.href || f.data || f.src || f.text)}`).join(' | ')}`);
        say(`     findings over the session: ${s.findings.length}`);
        if (problems.length) throw new Error(problems.join('; '));
      });
    } finally {
      s.rss.stop();
      await page.close().catch(() => undefined);
      await s.server.stop();
    }
  }

  // ------------------------------------------------------------ the glob bomb
  async function bombCase(restricted) {
    const name = restricted ? 'bomb-restricted' : 'bomb-trusted';
    const folder = bombFolder(join(work, `hostile-${name}`));
    const s = await session(name, folder, restricted);
    const { page, w } = s;
    try {
      s.rss.phase('bomb');
      await step(T(s, `${BOMB.toLocaleString('en')} patterns of 256 alternatives: the extension and the server say so in a handful of notifications`), async () => {
        await s.open();
        await w.quickOpen('p.netpolicy.json');
        if (restricted) {
          // A restricted setting: the workspace's value is ignored, so nothing is said about it.
          await page.locator('.statusbar-item').filter({ hasText: 'netpolicy: restricted' }).first().waitFor({ timeout: 30_000 });
          await page.waitForTimeout(8000);
          const texts = await toastTexts(page);
          say(`     toasts: ${JSON.stringify(texts.map((t) => t.slice(0, 200)))}`);
          if (texts.some((t) => /filePatterns/.test(t))) throw new Error(`the workspace's netpolicy.filePatterns was used in Restricted Mode: ${texts.find((t) => /filePatterns/.test(t))}`);
        } else {
          const text = await notification(s, (t) => /filePatterns/.test(t), 60_000, 'about netpolicy.filePatterns');
          say(`     ${JSON.stringify(text.replace(/\s+/g, ' ').slice(0, 300))}`);
          await page.waitForTimeout(5000);
        }
        await shot(page, `hostile-${name}-1`);
        const c = await center(s);
        figures[`hostile_${name}_notifications`] = c.count;
        say(`     ${c.count} notification(s)`);
        await noLiveLink(s, 'bomb');
        if (c.count > HANDFUL) throw new Error(`${c.count} notifications (at most ${HANDFUL})`);
      });
      await step(T(s, `the window still answers the palette (netpolicy: Show Output within ${PALETTE_BOUND_MS / 1000} s)`), () => paletteAnswers(s));
      await rssStep(s, 'the glob bomb');
    } finally {
      s.rss.stop();
      await page.close().catch(() => undefined);
      await s.server.stop();
    }
  }

  const t0 = Date.now();
  try {
    if (CASES.includes('trusted')) await hostileCase(false);
    if (CASES.includes('bomb-trusted')) await bombCase(false);
    if (CASES.includes('restricted')) await hostileCase(true);
    if (CASES.includes('bomb-restricted')) await bombCase(true);
  } finally {
    await browser.close();
    await service.close();
    figures.hostileSeconds = Math.round((Date.now() - t0) / 100) / 10;
    if (existsSync(pwned)) say(`     ${pwned} EXISTS`);
  }
}
