// The editor's trust boundaries in a real VS Code (code-server), as a hostile repository would
// test them (issue: editor trust boundaries):
// 1. a token set in one folder is never sent to the listener a second folder's settings name;
// 2. an untrusted folder (Restricted Mode) reads nothing its settings or netpolicy.config.json
//    name outside it, fetches nothing and writes nothing;
// 3. a report of 100,000 denials opens and the window still answers a command within seconds.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { join } from 'node:path';
import { freshProfile, installExtension, startCodeServer } from './e2e-code-server.mjs';
import { reportFrame, workbench } from './e2e-workbench.mjs';

/** A listener standing in for a service (or an attacker's server): logs every Authorization header. */
async function listener(trace) {
  const seen = [];
  const server = createHttpServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    seen.push({ path: url.pathname, query: url.search, auth: req.headers.authorization });
    if (url.searchParams.get('job_id') === '7') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(trace);
      return;
    }
    res.writeHead(404, { 'content-type': 'application/problem+json' });
    res.end(JSON.stringify({ type: 'about:blank', title: 'Not Found', status: 404, detail: 'no such job' }));
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${server.address().port}`, seen, close: () => new Promise((r) => server.close(r)) };
}

async function openFolder(page, server, folder) {
  await page.goto(`${server.url}/?folder=${encodeURIComponent(folder)}`);
  await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
  await page.locator('.explorer-folders-view .monaco-list-row').first().waitFor({ timeout: 30_000 });
}

export async function trust({ entry, vsix, work, step, launchBrowser, userSettings, fixture, say, shot, setPage }) {
  const trace = fixture('traces/denials/trace.json');
  const a = await listener(trace);
  const b = await listener(trace);
  const c = await listener(trace);
  const browser = await launchBrowser();
  const servers = [];
  try {
    // ------------------------------------------------------------ 1. the token and the origin
    {
      const profile = freshProfile(work);
      userSettings(profile, { 'netpolicy.baseUrl': a.url });
      installExtension(entry, profile, vsix);
      const server = await startCodeServer(entry, profile, { logFile: join(work, 'code-server-token.log') });
      servers.push(server);
      const wsA = join(work, 'ws-token-a');
      const wsB = join(work, 'ws-token-b');
      mkdirSync(wsA, { recursive: true });
      mkdirSync(join(wsB, '.vscode'), { recursive: true });
      writeFileSync(join(wsA, 'a.netpolicy.json'), fixture('traces/denials/policy.netpolicy.json'));
      writeFileSync(join(wsB, 'b.netpolicy.json'), fixture('traces/denials/policy.netpolicy.json'));
      // The hostile repository: its settings point the service at another listener.
      writeFileSync(join(wsB, '.vscode/settings.json'), JSON.stringify({ 'netpolicy.baseUrl': b.url }));
      const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
      setPage(page);
      const w = workbench(page);
      const token = 'secret-token-of-a-0123456789';
      await step('trust: a token set for one origin is sent there', async () => {
        await openFolder(page, server, wsA);
        await w.palette('netpolicy: Set API Token');
        await page.locator('.quick-input-widget .quick-input-title').filter({ hasText: new URL(a.url).host }).first().waitFor();
        await w.input(token, 'API token');
        await w.toast('API token saved').waitFor();
        await w.fetchJob();
        const deadline = Date.now() + 20_000;
        while (!a.seen.some((r) => r.auth === `Bearer ${token}`) && Date.now() < deadline) await page.waitForTimeout(100);
        if (!a.seen.some((r) => r.auth === `Bearer ${token}`)) throw new Error(`listener A did not get the token: ${JSON.stringify(a.seen.map((r) => r.auth))}`);
        await shot(page, 'trust-1-token-a');
      });
      await step("trust: another folder's baseUrl never gets that token; the user is asked, shown the origin", async () => {
        await openFolder(page, server, wsB);
        await w.fetchJob();
        const dialog = page.locator('.monaco-dialog-box');
        await dialog.waitFor({ timeout: 20_000 });
        const text = await dialog.innerText();
        if (!text.includes(new URL(b.url).host)) throw new Error(`the question does not name the origin ${b.url}: ${text}`);
        await shot(page, 'trust-2-asked');
        await dialog.locator('.monaco-button, a').filter({ hasText: 'Fetch Without Token' }).first().click();
        const deadline = Date.now() + 20_000;
        while (b.seen.length === 0 && Date.now() < deadline) await page.waitForTimeout(100);
        if (b.seen.length === 0) throw new Error('listener B got no request at all after "Fetch Without Token"');
        const leaked = b.seen.filter((r) => r.auth !== undefined);
        if (leaked.length) throw new Error(`listener B got an Authorization header: ${JSON.stringify(leaked)}`);
      });
      await page.close();
    }

    // ------------------------------------------------------------ 2. Restricted Mode
    {
      const profile = freshProfile(work);
      userSettings(profile, { 'security.workspace.trust.enabled': true, 'security.workspace.trust.startupPrompt': 'always' });
      installExtension(entry, profile, vsix);
      const server = await startCodeServer(entry, profile, { logFile: join(work, 'code-server-restricted.log'), workspaceTrust: true });
      servers.push(server);
      const base = join(work, 'restricted');
      const ws = join(base, 'repo');
      const escape = join(work, 'escape-dir');
      mkdirSync(join(ws, '.vscode'), { recursive: true });
      // A trace outside the folder that the project file names: its hosts must not reach the editor.
      writeFileSync(join(base, 'outside-trace.json'), fixture('traces/denials/trace.json'));
      writeFileSync(join(ws, 'netpolicy.config.json'), JSON.stringify({ traces: ['../outside-trace.json', '/etc/passwd'], presetCatalog: '/etc/passwd' }));
      writeFileSync(join(ws, '.vscode/settings.json'), JSON.stringify({ 'netpolicy.baseUrl': c.url, 'netpolicy.traceFolder': '../../escape-dir', 'netpolicy.traces': ['../outside-trace.json'] }));
      writeFileSync(join(ws, 'ci.netpolicy.json'), fixture('traces/denials/policy.netpolicy.json'));
      const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
      setPage(page);
      const w = workbench(page);
      await step('restricted: an untrusted folder reads nothing outside it, fetches nothing, writes nothing', async () => {
        await page.goto(`${server.url}/?folder=${encodeURIComponent(ws)}`);
        await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
        const dialog = page.locator('.monaco-dialog-box');
        await dialog.waitFor({ timeout: 30_000 });
        await dialog.locator('.monaco-button, a').filter({ hasText: /don't trust|No/i }).first().click();
        await page.locator('.explorer-folders-view .monaco-list-row').first().waitFor({ timeout: 30_000 });
        await w.quickOpen('ci.netpolicy.json');
        // The server runs (policy checks are safe), and says what it leaves out.
        const status = page.locator('.statusbar-item').filter({ hasText: 'netpolicy: restricted' }).first();
        await status.waitFor({ timeout: 30_000 });
        // Lenses would show the outside trace's hosts; give the server time it takes to make them when trusted.
        await page.waitForTimeout(4000);
        const lenses = await page.locator('.monaco-editor .codelens-decoration').allInnerTexts();
        if (lenses.some((t) => /traced access/.test(t))) throw new Error(`code lenses from an outside trace: ${lenses.join(' | ')}`);
        await w.palette('netpolicy: Fetch Job Trace');
        await w.toast('Restricted Mode').waitFor({ timeout: 15_000 });
        await page.waitForTimeout(500);
        if (c.seen.length) throw new Error(`an untrusted folder sent ${c.seen.length} request(s) to its baseUrl`);
        if (existsSync(escape)) throw new Error(`${escape} was written`);
        await shot(page, 'trust-3-restricted');
      });
      await page.close();
    }

    // ------------------------------------------------------------ 3. a report of 100,000 denials
    {
      const profile = freshProfile(work);
      userSettings(profile);
      installExtension(entry, profile, vsix);
      const server = await startCodeServer(entry, profile, { logFile: join(work, 'code-server-big.log') });
      servers.push(server);
      const ws = join(work, 'ws-big');
      mkdirSync(join(ws, 'traces'), { recursive: true });
      writeFileSync(join(ws, 'big.netpolicy.json'), JSON.stringify({ default: 'deny', sources: [{ npm: { urls: ['https://registry.npmjs.org'] } }] }, null, 2));
      const lines = [];
      for (let i = 0; i < 100_000; i++) lines.push(JSON.stringify({ sequence: i + 1, protocol: 'http', method: 'GET', url: `https://mirror${i % 997}.example/pkg/${i}/package-${i}.tgz`, remoteIp: `2001:db8::${(i % 65535).toString(16)}`, denied: true }));
      writeFileSync(join(ws, 'traces/big-trace.json'), `{"observations":[\n${lines.join(',\n')}\n]}\n`);
      const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
      setPage(page);
      const w = workbench(page);
      await step('a 100,000-denial report opens and the window still answers', async () => {
        await openFolder(page, server, ws);
        await w.quickOpen('big.netpolicy.json');
        const t0 = Date.now();
        await w.palette('netpolicy: Explain Trace Against This Policy');
        const pick = page.locator('.quick-input-list .monaco-list-row').filter({ hasText: 'big-trace.json' }).first();
        await pick.waitFor({ timeout: 15_000 });
        await pick.click();
        const frame = await reportFrame(page, 120_000);
        const heading = await frame.locator('#denials').innerText();
        if (!/Denials \(100,000\)/.test(heading)) throw new Error(`heading: ${heading}`);
        const items = await frame.locator('li.item').count();
        if (items > 1000 + 1000) throw new Error(`${items} items rendered (a page is 1,000 denials)`);
        say(`     100,000 denials: report in ${Date.now() - t0} ms, ${items} items on the page`);
        await shot(page, 'trust-4-big-report');
        // The window answers: the command palette opens and lists a command.
        const t1 = Date.now();
        await page.keyboard.press('F1');
        await page.locator('.quick-input-widget input').fill('>netpolicy: Show Output');
        await page.locator('.quick-input-list .monaco-list-row').filter({ hasText: 'netpolicy: Show Output' }).first().waitFor();
        const answered = Date.now() - t1;
        await page.keyboard.press('Escape');
        say(`     the palette answered in ${answered} ms`);
        if (answered > 5000) throw new Error(`the window took ${answered} ms to answer a command`);
        // The next page is there too.
        await (await reportFrame(page, 30_000)).locator('button[data-action="page"]').first().click();
        // The page's webview document is replaced: look in whichever frame holds the report now.
        const deadline = Date.now() + 60_000;
        let shown = false;
        while (!shown && Date.now() < deadline) {
          for (const f of page.frames()) {
            try {
              if (await f.locator('.summary').filter({ hasText: 'Showing denials 1,001' }).count()) shown = true;
            } catch {}
          }
          if (!shown) await page.waitForTimeout(200);
        }
        if (!shown) throw new Error('the next page of denials did not show');
      });
      await page.close();
    }
  } finally {
    await browser.close();
    for (const s of servers) await s.stop();
    await a.close();
    await b.close();
    await c.close();
  }
}
